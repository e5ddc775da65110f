# deb-test.sh RELEASE: the installed package's kernel, run on Debian 11 by
# make check-deb.  Proves it is the package's kernel (uname -r), that the
# NVMe polls (io_poll 1, a poll hctx), that the README's fio io_uring
# hipri random-read job ran on the poll hctx without NVMe interrupts,
# and that hipri writes read back right (crc32c verify).
. /fp/common.sh
want=$1 rc=0 dev=nvme0n1

# Debian's own config builds the NVMe driver as a module, which a Debian
# system's udev loads; this guest runs without udev (modprobe takes
# nvme.poll_queues from the kernel command line).  The namespace is
# scanned asynchronously: wait for it.
modprobe nvme 2>/dev/null
wait_until 30 test -e /sys/block/$dev

if [ "$(uname -r)" = "$want" ]; then
	tap_ok "deb_kernel_release $want"
else
	tap_fail deb_kernel_release "uname -r is $(uname -r), the package is $want"
	rc=1
fi
echo "# $(fio --version), $(cat /etc/debian_version), $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"nvme poll_queues=$(cat /sys/module/nvme/parameters/poll_queues 2>&1)"
if [ "$(cat /sys/block/$dev/queue/io_poll 2>/dev/null)" = 1 ] &&
	[ "$(hctx_count $dev poll)" -ge 1 ]; then
	tap_ok deb_io_poll
else
	tap_fail deb_io_poll "/dev/$dev: io_poll $(cat /sys/block/$dev/queue/io_poll 2>&1), $(hctx_count $dev poll) poll hctx"
	exit 1
fi

# polled NAME IOS OUT CMD...: run CMD (a fio job of IOS I/Os on /dev/$dev,
# its output in OUT); ok if it passed on the poll hctx (queued +IOS or
# more) with at most IOS/32 NVMe interrupts
polled() {
	local name=$1 ios=$2 out=$3 frc q0 q1 i0 i1
	shift 3
	q0=$(hctx_queued $dev poll) i0=$(nvme_irqs)
	"$@"
	frc=$?
	q1=$(hctx_queued $dev poll) i1=$(nvme_irqs)
	grep -E 'read: IOPS|sys=' "$out" | sed 's/^ */# /'
	echo "# $name: fio exit $frc, poll hctx queued +$((q1 - q0)) (>= $ios), nvme irqs +$((i1 - i0))"
	if [ $frc != 0 ]; then
		sed 's/^/# /' "$out"
		tap_fail "$name" "fio failed ($frc)"
		rc=1
	elif [ $((q1 - q0)) -lt $ios ] || [ $((i1 - i0)) -gt $((ios / 32)) ]; then
		tap_fail "$name" "not polled"
		rc=1
	else
		tap_ok "$name"
	fi
}

# The README's job (io_uring, hipri, randread 4k, QD 128, batch 32), by
# size: 16384 reads.
reads=16384
polled deb_fio_hipri_randread $reads /tmp/fio-read.out \
	sh -c "fio --name=hipri --filename=/dev/$dev --ioengine=io_uring --hipri=1 \
	--direct=1 --rw=randread --bs=4k --iodepth=128 --iodepth_batch_submit=32 \
	--iodepth_batch_complete_min=32 --fixedbufs=1 --registerfiles=1 \
	--io_size=$((reads * 4))k >/tmp/fio-read.out 2>&1"

# 16 MiB of 4 KiB hipri writes, read back and verified (crc32c)
polled deb_fio_hipri_verify $((2 * 16 * 1024 / 4)) /tmp/fio-hipri.out \
	fio_verify hipri $dev 1 --size=16M --iodepth=32 --iodepth_batch_submit=8 \
	--iodepth_batch_complete_min=1

# a kernel warning in the log fails here too (the host checks the console)
if dmesg | grep -Eq 'WARNING:|BUG:|Oops'; then
	tap_fail deb_dmesg "a kernel warning"
	rc=1
else
	tap_ok deb_dmesg
fi
exit $rc
