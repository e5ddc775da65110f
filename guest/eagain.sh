# No spurious -EAGAIN (sourced by check.sh, after lib.sh): io_uring
# issues reads and writes with IOCB_NOWAIT first and retries one that
# fails with -EAGAIN from a worker, but only when the -EAGAIN comes while
# it issues; one that comes later, from an interrupt or a kworker, goes
# to the application, which never asked for a non-blocking I/O.  Every
# fio job here must end without an error (fio stops at the first CQE
# with -EAGAIN: "err=11").  Sets rc=1 on a failure.

# eagain_fio NAME DEV SECS FIO-OPTIONS...: a fio io_uring job of at most
# SECS (and 60 s more to end); prints why it failed, nothing if it did not
eagain_fio() {
	local name=$1 dev=$2 secs=$3 f
	shift 3
	run_timed $((secs + 60)) fio --name="$name" --filename=/dev/$dev --ioengine=io_uring \
		--direct=1 --output-format=terse "$@" >/tmp/fio-$name.out 2>&1
	f=$?
	[ $f = 0 ] || echo "$name: $(fio_failure "$name" $f)"
}

# fio_failure NAME EXIT: what fio job NAME's exit EXIT came from
fio_failure() {
	if grep -q 'Resource temporarily unavailable' /tmp/fio-$1.out; then
		echo "-EAGAIN (fio exit $2)"
	else
		echo "fio exit $2: $(grep -m1 -i 'error\|fail\|verify' /tmp/fio-$1.out)"
	fi
}

# I/O that must be split or needs more than one bio, on a null_blk with
# 4 tags (so that a later piece finds none) completing by timer: 256 KiB
# with max_sectors_kb at 64 (split in four), then 2 MiB (more than a bio
# holds, each bio split too), polled and not, with fixed buffers and
# without; writes verified, then 3 s of random reads.
nowait_split_no_eagain() {
	local nb why= h fb bs msk r
	nb=$(nullb_create nowait submit_queues=1 poll_queues=1 hw_queue_depth=4 irqmode=2 \
		completion_nsec=50000 size=64 memory_backed=1) ||
		{ tap_fail nowait_split_no_eagain "could not create a null_blk device"; rc=1; return; }
	msk=$(cat /sys/block/$nb/queue/max_sectors_kb)
	for bs in 256k 2m; do
		if [ $bs = 256k ]; then
			echo 64 >/sys/block/$nb/queue/max_sectors_kb
		else
			echo "$msk" >/sys/block/$nb/queue/max_sectors_kb
		fi
		for h in 0 1; do
			for fb in 0 1; do
				r=$(eagain_fio "na-$bs-$h-$fb-w" "$nb" 30 --hipri=$h --fixedbufs=$fb \
					--rw=randwrite --bs=$bs --size=16M --iodepth=16 \
					--verify=crc32c --verify_fatal=1 --do_verify=1)
				[ -z "$r" ] || why="${why:+$why; }$r"
				r=$(eagain_fio "na-$bs-$h-$fb-r" "$nb" 3 --hipri=$h --fixedbufs=$fb \
					--rw=randread --bs=$bs --size=32M --iodepth=16 --time_based --runtime=3)
				[ -z "$r" ] || why="${why:+$why; }$r"
			done
		done
	done
	echo "# nowait: max_sectors_kb 64, then $msk; busy tags $(tags_busy "$nb")"
	run_timed 30 nullb_remove nowait || why="${why:+$why; }removing the device hung or failed"
	tap_result nowait_split_no_eagain "$why"
}

# Failover of NOWAIT I/O on the NVMe multipath head ("check.sh mpath"):
# four io_uring jobs (QD 64 each) write and verify through the head for
# 10 s, not polled and then polled, while both controllers are reset at
# once, three times: the head finds no usable path and queues its bios
# for kblockd, which sends them again when a path is live, and each path
# has only 4 requests (nr_requests), so most of them find no free tag
# there.  None may end with -EAGAIN, and the head must have requeued.
mpath_failover_no_eagain() {
	local head=$1 c0 c1 p0 p1 nr0 nr1 why= h i pid f rq0 rq1
	mpath_iopolicy round-robin
	set -- $(mpath_paths "$head")
	p0=$1 p1=$2 c0=$(path_ctrl "$1") c1=$(path_ctrl "$2")
	nr0=$(cat /sys/block/$p0/queue/nr_requests) nr1=$(cat /sys/block/$p1/queue/nr_requests)
	echo 4 >/sys/block/$p0/queue/nr_requests
	echo 4 >/sys/block/$p1/queue/nr_requests
	rq0=$(dmesg | grep -c 'no usable path - requeuing')
	for h in 0 1; do
		expect_fault_begin "resets of $c0 and $c1 under NOWAIT I/O on the head" "$NVME_RESET_ONLY"
		fio --name=mpf$h --filename=/dev/$head --ioengine=io_uring --direct=1 --hipri=$h \
			--rw=randwrite --bs=4k --size=16M --offset=128M --offset_increment=24M \
			--numjobs=4 --iodepth=64 --iodepth_batch_submit=16 --iodepth_batch_complete_min=1 \
			--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_backlog=64 \
			--time_based --runtime=10 --group_reporting --output-format=terse \
			>/tmp/fio-mpf$h.out 2>&1 &
		pid=$!
		for i in 1 2 3; do
			sleep 1
			# each write waits for its reset: write both at once
			echo 1 >/sys/class/nvme/$c0/reset_controller 2>/dev/null &
			echo 1 >/sys/class/nvme/$c1/reset_controller 2>/dev/null ||
				why="${why:+$why; }reset $i of $c1 refused"
			wait $! || why="${why:+$why; }reset $i of $c0 refused"
			wait_until 60 ctrl_live "$c0" && wait_until 60 ctrl_live "$c1" ||
				why="${why:+$why; }a controller not live after reset $i"
		done
		end_job $pid 120
		f=$?
		expect_fault_end
		if [ $f = 137 ]; then
			why="${why:+$why; }fio still running 120 s after the resets"
		elif [ $f != 0 ]; then
			tail -3 /tmp/fio-mpf$h.out
			why="${why:+$why; }hipri=$h: $(fio_failure mpf$h $f)"
		fi
	done
	rq1=$(dmesg | grep -c 'no usable path - requeuing')
	echo "# failover: 'no usable path - requeuing' +$((rq1 - rq0)) (ratelimited)"
	[ $((rq1 - rq0)) -gt 0 ] || why="${why:+$why; }the head never requeued: the test missed its window"
	echo "$nr0" >/sys/block/$p0/queue/nr_requests
	echo "$nr1" >/sys/block/$p1/queue/nr_requests
	mpath_iopolicy numa
	tap_result mpath_failover_no_eagain "$why"
}
