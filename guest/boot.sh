# make check, in the guest: "boot.sh BOOT" (poll, nopoll, mpath,
# starved, dbbuf, swiotlb, eagain, userdisk; eagain-mpath for make eagain-matrix): the
# devices BOOT asked for, the KUnit results,
# the iopoll kselftests, then (with a plain NVMe namespace that polls) a
# fio io_uring hipri write+verify job that must have run on the poll
# queue.  The host compares the TAP lines with guest/expected/BOOT.txt.
. /fp/common.sh

rc=0
boot=${1:-poll}
. /fp/starved.sh
. /fp/faults.sh
. /fp/mpath.sh
. /fp/biopoll.sh
. /fp/acct.sh
. /fp/eagain.sh
. /fp/irqbatch.sh
. /fp/dmamap.sh
. /fp/queuerqs.sh
. /fp/userdisk.sh

echo "== devices of the $boot boot"
# "kselftests" (make bisect-check at the end of each part of the series):
# the poll boot's devices, KUnit and the iopoll kselftests only; the
# harness's own tests below also cover what later patches add
case $boot in
kselftests) devices_check poll ;;
eagain-mpath) devices_check mpath ;;
*) devices_check "$boot" ;;
esac

# The series' KUnit suites ran at boot: take their TAP from the kernel log.
echo "== KUnit (at boot)"
if grep -q " sbitmap_batch_full_word$" /proc/kallsyms; then
	dmesg | sed 's/^\[[ 0-9.]*\] *//' | grep -E "^(not )?ok [0-9]+ - sbitmap_" >/tmp/kunit.txt
	if [ -s /tmp/kunit.txt ]; then
		while read -r line; do
			name=${line#* - }
			case $line in
			ok*) tap_ok "kunit_$name" ;;
			*) tap_fail "kunit_$name" "see the kernel log"; rc=1 ;;
			esac
		done </tmp/kunit.txt
	else
		tap_fail kunit_sbitmap_batch "the suite printed no results"
		rc=1
	fi
else
	tap_skip kunit_sbitmap_batch "not in this kernel"
fi

# "boot.sh starved": the boot with a shared null_blk tag set and short
# NVMe queues runs only the tag-starved tests
if [ "$boot" = starved ]; then
	echo "== tag-starved I/O (shared tags, short NVMe queues)"
	starved_nullb
	starved_nvme
	echo "== batched polled completion on a shared tag set"
	shared_tags_batched
	exit $rc
fi

# "boot.sh eagain": one tag per NVMe queue (nvme.io_queue_depth=2) and
# a null_blk tag set of 2 shared by its devices: the -EAGAIN matrix
if [ "$boot" = eagain ]; then
	echo "== -EAGAIN CQEs counted: tiny and shared queues, split and multi-bio I/O"
	eagain_matrix
	exit $rc
fi

# "boot.sh eagain-mpath" (make eagain-matrix): the multipath boot's
# -EAGAIN cells alone, the head under controller resets
if [ "$boot" = eagain-mpath ]; then
	echo "== -EAGAIN CQEs counted: the multipath head under controller resets"
	eagain_mpath
	exit $rc
fi

# "boot.sh swiotlb": swiotlb=force, so that no DMA mapping of the NVMe
# may skip its unmap: the scatterlist path of multi-page requests
if [ "$boot" = swiotlb ]; then
	echo "== NVMe data mapping with every mapping bounced (swiotlb=force)"
	nvme_map_verify "$(nvme_plain)"
	exit $rc
fi

# "boot.sh dbbuf": the NVMe with its shadow doorbell buffer on (the
# harness keeps it off in the other boots: docs/emulator.md)
if [ "$boot" = dbbuf ]; then
	echo "== shadow doorbells under polled and interrupt-driven I/O"
	shadow_doorbells
	exit $rc
fi

# "boot.sh userdisk": an NVMe that holds a user's data (a partition
# table, a mounted ext4): the kselftests must leave it alone
if [ "$boot" = userdisk ]; then
	echo "== the iopoll kselftest on a disk it was not given"
	userdisk_refused
	exit $rc
fi

# The kselftests write only to the devices named to them: this boot's
# scratch NVMe, a multipath head in the mpath boot, a plain namespace in
# the others
if [ "$boot" = mpath ]; then
	IOPOLL_MPATH_DEV=/dev/$(mpath_head)
	export IOPOLL_MPATH_DEV
elif d=$(nvme_plain); then
	IOPOLL_DEV=/dev/$d
	export IOPOLL_DEV
fi
echo "== kselftest iopoll"
/fp/iopoll_test || rc=1
echo "== kselftest iopoll: uring_test"
/fp/uring_test || rc=1
[ "$boot" != kselftests ] || exit $rc

echo "== tag-starved I/O"
starved_nullb
starved_alloc_counts

# the boot with the NVMe poll queue: what needs it, and the faults
if [ "$boot" = poll ]; then
	# io_uring on both CPUs at once: two uring_test runs, one pinned to each
	echo "== kselftest iopoll: uring_test on CPU 0 and CPU 1 at once"
	taskset 1 /fp/uring_test >/tmp/ut0.out 2>&1 &
	p0=$!
	taskset 2 /fp/uring_test >/tmp/ut1.out 2>&1
	r1=$?
	wait $p0
	r0=$?
	[ $r0 = 0 ] && [ $r1 = 0 ] || grep -h "^not ok" /tmp/ut0.out /tmp/ut1.out | sed 's/^/# /'
	tap_result uring_test_on_both_cpus "$([ $r0 = 0 ] && [ $r1 = 0 ] || echo "exit $r0 on CPU 0, $r1 on CPU 1")"
	plug_large_alloc_counts
	echo "== faults under polled I/O"
	cpu_offline_polled
	nvme_reset_polled
	killed_with_polled_io
	killed_with_iowq_polled_io
	nullb_bad_config
	echo "== a plug's requests in one ->queue_rqs() call (null_blk)"
	nullb_queue_rqs
	nullb_queue_rqs_throttled
	echo "== no spurious -EAGAIN: split and multi-bio NOWAIT I/O, throttled I/O"
	nowait_split_no_eagain
	nowait_uapi_large
	throttled_no_eagain
	echo "== bio-based polling: RCU lifetime, files, split I/O"
	pdev=$(nvme_plain) || pdev=
	if [ -n "$pdev" ]; then
		polled_rcu_stress "$pdev"
		polled_file_dio "$pdev"
		dsync_polled_write "$pdev"
		io_poll_toggle_under_io
		large_polled_verify "$pdev"
		nvme_map_verify "$pdev"
		acct_tests "$pdev"
	else
		tap_fail polled_rcu_stress "no plain NVMe namespace"
		rc=1
	fi
fi
# the boot without poll queues: completion batching by interrupt and
# in the block softirq
if [ "$boot" = nopoll ]; then
	echo "== batched completion without polling: NVMe interrupts, null_blk softirq"
	irq_batch_tests
	echo "== NVMe data mapping by interrupt"
	nvme_map_verify "$(nvme_plain)"
fi
if [ "$boot" = mpath ]; then
	mpath_head_io
	mpath_polled
fi

# null_blk poll queues, where the kernel has them: a memory-backed device,
# a fio hipri write+verify that must have run on its poll hctx.
echo "== null_blk poll queues"
nb=$(nullb_create pollchk irqmode=1 size=64 memory_backed=1 poll_queues=1 2>/dev/null)
case $? in
0)
	q0=$(hctx_queued "$nb" poll)
	fio_verify nb "$nb" 1 --size=8M --iodepth=16
	frc=$?
	q1=$(hctx_queued "$nb" poll)
	echo "# fio exit $frc, /dev/$nb io_poll=$(cat /sys/block/$nb/queue/io_poll), poll hctx queued +$((q1 - q0)) (>= 4096)"
	if [ $frc != 0 ]; then
		cat /tmp/fio-nb.out
		tap_fail nullb_poll_verify "fio failed ($frc)"
		rc=1
	elif [ "$(cat /sys/block/$nb/queue/io_poll)" != 1 ] || [ $((q1 - q0)) -lt 4096 ]; then
		tap_fail nullb_poll_verify "not polled"
		rc=1
	else
		tap_ok nullb_poll_verify
	fi
	nullb_remove pollchk || { tap_fail nullb_remove; rc=1; }
	;;
2) tap_skip nullb_poll_verify "null_blk has no poll_queues attribute (5.10 without the series)" ;;
*) tap_fail nullb_poll_verify "could not create a null_blk device"; rc=1 ;;
esac

dev=$(nvme_plain) || dev=
if [ -z "$dev" ] || [ "$(cat /sys/block/$dev/queue/io_poll)" != 1 ]; then
	tap_skip fio_hipri_verify "no plain NVMe namespace with poll queues"
	exit $rc
fi
echo "== fio io_uring hipri verify on /dev/$dev"
q0=$(hctx_queued "$dev" poll) i0=$(nvme_irqs)
fio_verify hipri "$dev" 1 --size=16M --iodepth=32 --iodepth_batch_submit=8 \
	--iodepth_batch_complete_min=1
frc=$?
q1=$(hctx_queued "$dev" poll) i1=$(nvme_irqs)
ios=$((2 * 16 * 1024 / 4))
echo "# fio exit $frc, poll hctx queued +$((q1 - q0)) (>= $ios), nvme irqs +$((i1 - i0))"
if [ $frc != 0 ]; then
	cat /tmp/fio-hipri.out
	tap_fail fio_hipri_verify "fio failed ($frc)"
	rc=1
elif [ $((q1 - q0)) -lt $ios ] || [ $((i1 - i0)) -gt $((ios / 32)) ]; then
	tap_fail fio_hipri_verify "not polled"
	rc=1
else
	tap_ok fio_hipri_verify
fi
exit $rc
