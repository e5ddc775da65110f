# I/O accounting in the poll boot: /sys/block/DEV/stat (what
# /proc/diskstats shows) must count what fio did, exactly where exact,
# whichever path ended the requests (batched polled completion, one by
# one, by interrupt).  Sourced by boot.sh.

# stat_field DEV N: field N of /sys/block/DEV/stat (1 reads, 2 read
# merges, 3 sectors read, 4 read ms, 5 writes, 6 write merges, 7 sectors
# written, 8 write ms, 9 in flight, 10 io ms, 11 time in queue ms)
stat_field() {
	awk -v n="$2" '{ print $n }' "/sys/block/$1/stat"
}

# fio_read_runtime_ms OUT: the read runtime (ms) of fio's terse output
fio_read_runtime_ms() {
	awk -F';' '$1 == 3 { print $9; exit }' "$1"
}

# no_inflight DEV: nothing of DEV in flight (/sys/block/DEV/stat)
no_inflight() { [ "$(stat_field "$1" 9)" = 0 ]; }

# acct_exact NAME DEV HIPRI OFFSET [RW]: a verified fio io_uring job of
# 4 KiB writes (RW: randwrite, the default, or write) and their read-back
# over 8 MiB of DEV at OFFSET (2048 I/Os each way, polled if HIPRI is 1);
# then, from /sys/block/DEV/stat: requests + merges = 2048 reads and 2048
# writes, 16384 sectors each way, nothing in flight, and time fields
# that moved.  With HIPRI=1 the I/O must have run on the poll hctx.
# With RW=write, 32 sequential bios submitted at once, the plug must
# have merged some of them in each direction.
acct_exact() {
	local name=$1 dev=$2 hipri=$3 off=$4 rw=${5:-randwrite} batch=8 why= frc q0 q1
	# a plug of 32 sequential bios is what the merge checks need
	if [ "$rw" = write ]; then batch=32; fi
	set -- $(cat /sys/block/$dev/stat)
	local r0=$1 rm0=$2 rs0=$3 rt0=$4 w0=$5 wm0=$6 ws0=$7 wt0=$8 io0=${10}
	q0=$(hctx_queued "$dev" poll)
	run_timed 120 fio --name="$name" --filename=/dev/$dev --ioengine=io_uring \
		--hipri="$hipri" --direct=1 --rw="$rw" --bs=4k --offset="$off" --size=8M \
		--iodepth=32 --iodepth_batch_submit=$batch --iodepth_batch_complete_min=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-$name.out 2>&1
	frc=$?
	q1=$(hctx_queued "$dev" poll)
	# in flight: the counters settle with the last completion
	wait_until 5 no_inflight "$dev" ||
		why="$(stat_field "$dev" 9) requests in flight after fio"
	set -- $(cat /sys/block/$dev/stat)
	echo "# $name /dev/$dev: reads +$(($1 - r0)) merges +$(($2 - rm0)) sectors +$(($3 - rs0)) ms +$(($4 - rt0));" \
		"writes +$(($5 - w0)) merges +$(($6 - wm0)) sectors +$(($7 - ws0)) ms +$(($8 - wt0));" \
		"io ms +$((${10} - io0)), in flight $9; poll hctx +$((q1 - q0)); fio exit $frc"
	[ $frc = 0 ] || { tail -3 /tmp/fio-$name.out; why="${why:+$why; }fio failed ($frc)"; }
	[ $(($1 - r0 + $2 - rm0)) = 2048 ] || why="${why:+$why; }reads + merges +$(($1 - r0 + $2 - rm0)), not 2048"
	[ $(($5 - w0 + $6 - wm0)) = 2048 ] || why="${why:+$why; }writes + merges +$(($5 - w0 + $6 - wm0)), not 2048"
	[ $(($3 - rs0)) = 16384 ] || why="${why:+$why; }sectors read +$(($3 - rs0)), not 16384"
	[ $(($7 - ws0)) = 16384 ] || why="${why:+$why; }sectors written +$(($7 - ws0)), not 16384"
	if [ "$rw" = write ]; then
		[ $(($2 - rm0)) -gt 0 ] || why="${why:+$why; }no read merged"
		[ $(($6 - wm0)) -gt 0 ] || why="${why:+$why; }no write merged"
	fi
	[ $(($4 - rt0)) -gt 0 ] && [ $(($8 - wt0)) -gt 0 ] && [ $((${10} - io0)) -gt 0 ] ||
		why="${why:+$why; }time fields did not move"
	if [ "$hipri" = 1 ] && [ $((q1 - q0)) -lt 4096 ]; then
		why="${why:+$why; }not polled (poll hctx +$((q1 - q0)))"
	fi
	tap_result "$name" "$why"
}

# acct_time_stamps NAME SUBMIT_QUEUES: the start time stamps of requests
# that one io_uring_enter() submits 1024 at a time under one plug.
# null_blk with irqmode=0 ends each request inside its submission, so
# the requests the kernel holds at any time are those of one plug batch
# (at most 64) and the read ms of /sys/block/DEV/stat (the sum of the
# requests' times) can be at most about that many times the run time.
# A start time cached for the whole submission makes the 1024th read
# count the time since the first: some 500 times the run time.
# SUBMIT_QUEUES 1: one hardware queue; 2: two.  Either way the plug is
# flushed every 32 requests, to null_blk's ->queue_rqs().  Before patch
# 77 two queues took limited plugging, which issues each request directly
# and flushes the plug only at the end of the submission.
acct_time_stamps() {
	local name=$1 nb rt0 rt1 run why= frc n0 n1
	nb=$(nullb_create "ts$2" irqmode=0 submit_queues="$2" hw_queue_depth=64 size=1024) ||
		{ tap_fail "$name" "could not create a null_blk device"; rc=1; return; }
	rt0=$(stat_field "$nb" 4) n0=$(($(stat_field "$nb" 1) + $(stat_field "$nb" 2)))
	run_timed 120 fio --name="$name" --filename=/dev/$nb --ioengine=io_uring \
		--direct=1 --rw=randread --bs=4k --io_size=64M --iodepth=1024 \
		--iodepth_batch_submit=1024 --iodepth_batch_complete_min=1024 \
		--output-format=terse >/tmp/fio-$name.out 2>&1
	frc=$?
	rt1=$(stat_field "$nb" 4) n1=$(($(stat_field "$nb" 1) + $(stat_field "$nb" 2)))
	run=$(fio_read_runtime_ms /tmp/fio-$name.out)
	echo "# $name /dev/$nb ($2 submit queues): $((n1 - n0)) reads (requests + merges), read ms +$((rt1 - rt0)) in a run of ${run:-?} ms (ratio $(((rt1 - rt0) / ${run:-1})))"
	[ $frc = 0 ] || { tail -3 /tmp/fio-$name.out; why="fio failed ($frc)"; }
	[ -n "$run" ] && [ "$run" -gt 0 ] || why="${why:+$why; }no run time from fio"
	[ $((n1 - n0)) = 16384 ] || why="${why:+$why; }reads + merges +$((n1 - n0)), not 16384"
	[ -n "$why" ] || [ $((rt1 - rt0)) -le $((128 * run)) ] ||
		why="read ms +$((rt1 - rt0)): over 128 times the run time ($run ms)"
	nullb_remove "ts$2" || why="${why:+$why; }removing the device failed"
	tap_result "$name" "$why"
}

# the accounting tests of the poll boot
acct_tests() {
	local nvme=$1 nb
	echo "== I/O accounting (/sys/block/DEV/stat)"
	nb=$(nullb_create acct irqmode=1 size=64 memory_backed=1 poll_queues=1) ||
		{ tap_fail acct_nullb "could not create a null_blk device"; rc=1; return; }
	acct_exact acct_nullb_polled "$nb" 1 0
	acct_exact acct_nullb_irq "$nb" 0 16M
	acct_exact acct_nullb_polled_merged "$nb" 1 24M write
	nullb_remove acct || { tap_fail acct_nullb_remove; rc=1; }
	acct_exact acct_nvme_polled "$nvme" 1 200M
	acct_exact acct_nvme_irq "$nvme" 0 208M
	acct_exact acct_nvme_polled_merged "$nvme" 1 216M write
	acct_time_stamps acct_time_stamps_plugged 1
	acct_time_stamps acct_time_stamps_two_queues 2
}
