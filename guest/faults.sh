# Faults under polled I/O, in the guest (sourced by check.sh, after lib.sh
# and starved.sh): what users of a polled-I/O kernel run into.  Each case
# ends with its I/O verified, every tag free and the device removable.
# Sets rc=1 on a failure.

# verify_fio NAME DEV SIZE [FIO-OPTIONS...]: polled 4k random writes then
# a crc32c verify read on /dev/DEV, QD 64 submitted 32 at a time
verify_fio() {
	local name=$1 dev=$2 size=$3
	shift 3
	fio --name="$name" --filename=/dev/$dev --ioengine=io_uring --hipri=1 \
		--direct=1 --rw=randwrite --bs=4k --size="$size" --iodepth=64 \
		--iodepth_batch_submit=32 --iodepth_batch_complete_min=1 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 "$@" \
		--output-format=terse >/tmp/fio-$name.out 2>&1
}

# CPU 1 goes offline and comes back four times while polled I/O runs on
# it: on null_blk with a poll queue for each CPU (the one of CPU 1 goes
# inactive and is drained; batched allocation must give back what it took
# from it) and on the NVMe poll queue.  Nothing lost, no hang.
cpu_offline_polled() {
	local c=/sys/devices/system/cpu/cpu1/online nb dev i p1 p2 frc1 frc2 why= q0 q1 busy
	if [ ! -w $c ]; then
		tap_fail cpu_offline_polled "CPU 1 cannot be taken offline (no $c)"
		rc=1
		return
	fi
	nb=$(nullb_create cpuoff irqmode=1 size=64 memory_backed=1 submit_queues=2 \
		poll_queues=2 hw_queue_depth=64) ||
		{ tap_fail cpu_offline_polled "could not create a null_blk device"; rc=1; return; }
	dev=$(nvme_plain) || { tap_fail cpu_offline_polled "no NVMe namespace"; rc=1; return; }
	q0=$(hctx_queued "$nb" poll)
	verify_fio cpuoff-nullb "$nb" 32M --cpus_allowed=1 &
	p1=$!
	verify_fio cpuoff-nvme "$dev" 16M --cpus_allowed=1 &
	p2=$!
	for i in 1 2 3 4; do
		sleep 0.5
		run_timed 30 sh -c "echo 0 >$c" || why="taking CPU 1 offline failed or hung"
		sleep 0.5
		run_timed 30 sh -c "echo 1 >$c" || why="bringing CPU 1 back failed or hung"
	done
	wait $p1
	frc1=$?
	wait $p2
	frc2=$?
	q1=$(hctx_queued "$nb" poll)
	busy=$(tags_busy "$nb")
	echo "# cpu offline: fio null_blk exit $frc1, NVMe exit $frc2, null_blk poll hctxs queued +$((q1 - q0)), busy tags $busy"
	[ "$(cat $c)" = 1 ] || why="CPU 1 stayed offline"
	if [ $frc1 != 0 ] || [ $frc2 != 0 ]; then
		tail -5 /tmp/fio-cpuoff-nullb.out /tmp/fio-cpuoff-nvme.out
		why="fio failed (null_blk $frc1, NVMe $frc2)"
	elif [ $((q1 - q0)) -lt 16384 ]; then
		why="null_blk I/O was not polled ($((q1 - q0)) requests on its poll hctxs)"
	elif [ "$busy" != 0 ]; then
		why="$busy null_blk tags still busy"
	fi
	run_timed 30 nullb_remove cpuoff || why="${why:+$why; }removing the device hung or failed"
	if [ -n "$why" ]; then
		tap_fail cpu_offline_polled "$why"
		rc=1
	else
		tap_ok cpu_offline_polled
	fi
}
