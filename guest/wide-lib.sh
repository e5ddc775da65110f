# wide-lib.sh: the helpers of make check-wide's tests (tests/*/*, boot
# wide), in the Debian root under Debian's sh.  guest/wide.sh exports it
# as FP_TEST_LIB: the runner (run_test, guest/common.sh) sources it in
# each test's shell after common.sh.  Definitions only, and NV and PI:
# nothing here writes a device.

# NV: the NVMe namespace of serial fp0 (512 MiB, poll queues), which
# wide.sh partitions before the tests: p1 (128 MiB) for the tests that
# write a device, p2 (the rest) for file systems, dm and LVM.  PI: the
# namespace of serial fp1 (metadata with protection information).
NV=
PI=
for c in /sys/class/nvme/nvme*; do
	case $(cat $c/serial 2>/dev/null | tr -d ' ') in
	fp0) NV=$(ls -d $c/nvme*n1 2>/dev/null | head -1) ;;
	fp1) PI=$(ls -d $c/nvme*n1 2>/dev/null | head -1) ;;
	esac
done
NV=${NV##*/} PI=${PI##*/}

# lvm_do SECS COMMAND ARG...: lvm COMMAND ARG..., bounded by SECS,
# without udev (LVM makes no /dev/VG nodes then: the LVs are used by
# their dm-N) and with null_blk among LVM's device types; prints
# "COMMAND: its messages" (not its warnings) and returns 1 if it failed
# bound: $1
lvm_do() {
	local secs=$1 cmd=$2
	shift 2
	export LVM_SUPPRESS_FD_WARNINGS=1
	run_timed "$secs" lvm "$cmd" --config 'activation { udev_sync = 0 udev_rules = 0 monitoring = 0 } devices { obtain_device_list_from_udev = 0 types = [ "nullb", 16 ] }' \
		"$@" >/tmp/lvm.out 2>&1 && return 0
	echo "$cmd: $(grep -v '^ *WARNING' /tmp/lvm.out | paste -sd';')"
	return 1
}

# nv_parts ID: NV and the partitions wide.sh made on it are there; if
# not, ID fails (wide.sh's wide_root said why) and nv_parts returns 1
nv_parts() {
	if [ -z "$NV" ]; then
		tap_result "$1" "no NVMe namespace of serial fp0"
	elif [ ! -b /dev/${NV}p1 ] || [ ! -b /dev/${NV}p2 ]; then
		tap_result "$1" "no /dev/${NV}p1 and p2 (wide_root)"
	else
		return 0
	fi
	return 1
}

# wfio NAME DEV HIPRI SECS OPTS...: fio_verify (16 MiB at QD 16 unless
# OPTS say otherwise) on DEV, a /dev path, bounded by SECS.  Prints why
# it failed, nothing if it passed.
# bound: $4
wfio() {
	local name=$1 t=$2 hipri=$3 secs=$4 r
	shift 4
	# fio would make a regular file of a missing node
	[ -b "$t" ] || { echo "$name: $t is not a block device"; return; }
	run_timed "$secs" fio_verify "$name" "${t#/dev/}" "$hipri" --iodepth=16 --size=16M "$@"
	r=$?
	[ $r = 0 ] || echo "$name: $(fio_failure "$name" $r)"
}

# wfio_both NAME TARGET SECS OPTS...: wfio with hipri 0 and 1; the second
# may run polled or (a device that cannot poll) by interrupt, as 5.10's
# io_uring does; both must pass and end in time
# bound: 2*$3
wfio_both() {
	local name=$1 t=$2 secs=$3
	shift 3
	{
		wfio "$name-irq" "$t" 0 "$secs" "$@"
		wfio "$name-hipri" "$t" 1 "$secs" --offset=16M "$@"
	} | paste -sd';'
}

# mods MODULE...: modprobe each; prints why one failed (and returns 1)
mods() {
	local m
	for m in "$@"; do
		modprobe "$m" 2>/tmp/modprobe.out || {
			echo "modprobe $m: $(head -1 /tmp/modprobe.out)"
			return 1
		}
	done
}

# dm_one NAME TABLE SECS FIO-OPTION...: wfio_both on a dm device NAME of
# TABLE, which must go away after; prints why not, nothing if it passed
# bound: 2*$3+60
dm_one() {
	local name=$1 table=$2 secs=$3 x why=
	shift 3
	x=$(dm_make $name "$table" 2>/tmp/dm.why) || why=$(cat /tmp/dm.why)
	[ -n "$why" ] || why=$(wfio_both $name $x $secs "$@")
	echo "$why$(dm_gone $name)"
}
