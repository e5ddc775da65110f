# Faults under polled I/O, in the guest (sourced by boot.sh, after common.sh
# and starved.sh): what users of a polled-I/O kernel run into.  Each case
# ends with its I/O verified, every tag free and the device removable.
# Sets rc=1 on a failure.

# verify_fio NAME DEV SIZE [FIO-OPTIONS...]: polled write+verify, QD 64
# submitted 32 at a time
verify_fio() {
	local name=$1 dev=$2 size=$3
	shift 3
	fio_verify "$name" "$dev" 1 --size="$size" --iodepth=64 \
		--iodepth_batch_submit=32 --iodepth_batch_complete_min=1 "$@"
}

# polled_since DISK N: DISK's poll hctxs have allocated more than N requests
polled_since() { [ "$(hctx_queued "$1" poll)" -gt "$2" ]; }

# CPU 1 goes offline and comes back four times while polled I/O runs on
# it: on null_blk with a poll queue for each CPU (the one of CPU 1 goes
# inactive and is drained; batched allocation must give back what it took
# from it) and on the NVMe, which has a poll queue per CPU in the poll
# boot.  Both fio jobs must still run at each switch.  Nothing lost, no
# hang.
cpu_offline_polled() {
	local c=/sys/devices/system/cpu/cpu1/online nb dev i p1 p2 frc1 frc2 why= q0 q1 d0 d1 ios busy
	if [ ! -w $c ]; then
		tap_fail cpu_offline_polled "CPU 1 cannot be taken offline (no $c)"
		rc=1
		return
	fi
	nb=$(nullb_create cpuoff irqmode=1 size=64 memory_backed=1 submit_queues=2 \
		poll_queues=2 hw_queue_depth=64) ||
		{ tap_fail cpu_offline_polled "could not create a null_blk device"; rc=1; return; }
	dev=$(nvme_plain) || { tap_fail cpu_offline_polled "no NVMe namespace"; rc=1; return; }
	q0=$(hctx_queued "$nb" poll) d0=$(hctx_queued "$nb" default)
	# writes, each read back as the job goes (verify_backlog), until the
	# four switches are done (some 6 s; more than 20 s on the debug kernel
	# of a slow host): then the trigger files stop them (fio ends its jobs
	# and exits 0); 300 s at most
	rm -f /tmp/cpuoff-stop1 /tmp/cpuoff-stop2
	verify_fio cpuoff-nullb "$nb" 32M --cpus_allowed=1 --time_based --runtime=300 \
		--verify_backlog=64 --verify_state_save=0 --trigger-file=/tmp/cpuoff-stop1 &
	p1=$!
	verify_fio cpuoff-nvme "$dev" 16M --cpus_allowed=1 --time_based --runtime=300 \
		--verify_backlog=64 --verify_state_save=0 --trigger-file=/tmp/cpuoff-stop2 &
	p2=$!
	# fio pins itself to CPU 1 when its job starts: only then take it away
	wait_until 20 polled_since "$nb" "$q0"
	sleep 0.5
	for i in 1 2 3 4; do
		sleep 0.5
		# the point is I/O in flight: both jobs must still run
		running $p1 && running $p2 ||
			why="${why:+$why; }fio had ended before CPU 1 went offline ($i)"
		run_timed 30 sh -c "echo 0 >$c" || why="${why:+$why; }taking CPU 1 offline failed or hung"
		sleep 0.5
		run_timed 30 sh -c "echo 1 >$c" || why="${why:+$why; }bringing CPU 1 back failed or hung"
	done
	sleep 0.5
	running $p1 && running $p2 || why="${why:+$why; }fio had ended before the switches were done"
	touch /tmp/cpuoff-stop1 /tmp/cpuoff-stop2
	wait_until 120 not_running $p1 && wait_until 120 not_running $p2 ||
		why="${why:+$why; }fio still running 120 s after it was told to stop"
	kill -KILL $p1 $p2 2>/dev/null
	wait $p1
	frc1=$?
	wait $p2
	frc2=$?
	q1=$(hctx_queued "$nb" poll) d1=$(hctx_queued "$nb" default)
	busy=$(tags_busy "$nb")
	# the I/Os fio did on null_blk (reads and writes, 4 KiB each): how
	# many fit in 20 s depends on the machine, so polling is judged
	# against them, not against a fixed count
	ios=$(awk -F';' '$1 == 3 { print int(($6 + $47) / 4); exit }' /tmp/fio-cpuoff-nullb.out)
	echo "# cpu offline: fio null_blk exit $frc1 (${ios:-?} I/Os), NVMe exit $frc2, null_blk poll hctxs queued +$((q1 - q0)), default hctxs +$((d1 - d0)), busy tags $busy"
	[ "$(cat $c)" = 1 ] || why="CPU 1 stayed offline"
	if [ $frc1 != 0 ] || [ $frc2 != 0 ]; then
		tail -5 /tmp/fio-cpuoff-nullb.out /tmp/fio-cpuoff-nvme.out
		why="${why:+$why; }fio failed (null_blk $frc1, NVMe $frc2)"
	elif [ -z "$ios" ] || [ "$ios" -lt 1024 ]; then
		why="${why:+$why; }fio did ${ios:-no} I/Os on null_blk: too few to have run through the switches"
	elif [ $((q1 - q0)) -lt $((ios * 9 / 10)) ] || [ $((d1 - d0)) -gt $((ios / 100)) ]; then
		# hctx->queued is not atomic: a few increments may be lost
		why="${why:+$why; }null_blk I/O was not polled ($ios I/Os, $((q1 - q0)) requests on its poll hctxs, $((d1 - d0)) on the others)"
	elif [ "$busy" != 0 ]; then
		why="${why:+$why; }$busy null_blk tags still busy"
	fi
	# the poll boot's NVMe has a poll queue per CPU: CPU 1's went inactive
	[ "$(hctx_count "$dev" poll)" -ge 2 ] ||
		why="${why:+$why; }/dev/$dev has $(hctx_count "$dev" poll) poll hctx: none went inactive"
	run_timed 30 nullb_remove cpuoff || why="${why:+$why; }removing the device hung or failed"
	tap_result cpu_offline_polled "$why"
}

# null_blk configuration users get wrong: more poll queues than CPUs are
# cut to one per CPU (and the device polls); poll_queues written on a
# powered device fails with EBUSY and changes nothing.
nullb_bad_config() {
	local d=/sys/kernel/config/nullb/badcfg nb n cpus out why=
	cpus=$(grep -c ^processor /proc/cpuinfo)
	nb=$(nullb_create badcfg size=16 poll_queues=64) ||
		{ tap_fail nullb_poll_queues_over_cpus "could not create the device"; rc=1; return; }
	n=$(hctx_count "$nb" poll)
	if [ "$n" = "$cpus" ] && [ "$(cat /sys/block/$nb/queue/io_poll)" = 1 ]; then
		tap_ok nullb_poll_queues_over_cpus
	else
		tap_fail nullb_poll_queues_over_cpus "$n poll hctxs for $cpus CPUs, io_poll=$(cat /sys/block/$nb/queue/io_poll)"
		rc=1
	fi
	out=$( (echo 1 >$d/poll_queues) 2>&1) && why="the write succeeded"
	case $out in *busy*) ;; *) why="${why:-$out}" ;; esac
	[ "$(hctx_count "$nb" poll)" = "$n" ] || why="poll hctxs changed"
	if [ -z "$why" ]; then
		tap_ok nullb_poll_queues_live_ebusy
	else
		tap_fail nullb_poll_queues_live_ebusy "$why"
		rc=1
	fi
	run_timed 30 nullb_remove badcfg || { tap_fail nullb_bad_config_remove "hung or failed"; rc=1; }
}

# The NVMe controller reset twice while polled I/O runs on it: the
# requests in flight are retried after the reset, the data verifies
# within a bounded time, no request times out (only what the resets
# print is excused), and afterwards I/O is polled again (poll hctx
# counts, no NVMe interrupts).
nvme_reset_polled() {
	local dev p frc why= t0
	dev=$(nvme_plain) || { tap_fail nvme_reset_polled "no NVMe namespace"; rc=1; return; }
	t0=$(date +%s)
	verify_fio reset "$dev" 16M &
	p=$!
	resets_under_job "$dev" $p
	frc=$JOB_RC why=$RESET_WHY
	[ $frc != 137 ] || why="${why:+$why; }fio still running 120 s after the resets"
	echo "# nvme reset: fio exit $frc after $(($(date +%s) - t0)) s, io_poll $(cat /sys/block/$dev/queue/io_poll)"
	if [ $frc != 0 ]; then
		tail -5 /tmp/fio-reset.out
		why="${why:+$why; }fio failed ($frc)"
	fi
	[ "$(cat /sys/block/$dev/queue/io_poll)" = 1 ] || why="${why:+$why; }io_poll is no longer 1"
	p=$(polled_io after-reset "$dev" 100M)
	[ -z "$p" ] || why="${why:+$why; }$p"
	tap_result nvme_reset_polled "$why"
}

# A task killed with polled I/O in flight on null_blk: its ring goes away
# with the task, every tag is free afterwards and the device can go.
no_busy_tags() { [ "$(tags_busy "$1")" = 0 ]; }
# threads_gone PID: no thread of PID is left but zombies (a thread group
# leader that exits first stays a zombie while its other threads run)
threads_gone() {
	local t st
	for t in /proc/$1/task/*/stat; do
		[ -e "$t" ] || continue
		st=$(sed 's/.*) //' "$t" 2>/dev/null) || continue
		[ -z "$st" ] || [ "${st%% *}" = Z ] || return 1
	done
}

# killed_polled ID SECS NULLB-ATTRS FIO-OPTIONS...: fio polled reads on a
# null_blk made with NULLB-ATTRS, killed once polled I/O has run; the task
# must be gone SECS after the kill
killed_polled() {
	local id=$1 secs=$2 attrs=$3 nb p busy why= q0 st
	shift 3
	nb=$(nullb_create killed irqmode=1 size=64 memory_backed=1 poll_queues=1 $attrs) ||
		{ tap_fail "$id" "could not create a null_blk device"; rc=1; return; }
	q0=$(hctx_queued "$nb" poll)
	fio --name=killed --thread --filename=/dev/$nb --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randread --bs=4k --iodepth=64 --iodepth_batch_submit=32 "$@" \
		--time_based --runtime=30 --output-format=terse >/tmp/fio-killed.out 2>&1 &
	p=$!
	# killed with polled I/O in flight: it must have started
	wait_until 20 polled_since "$nb" "$q0" || why="no polled I/O before the kill"
	sleep 1
	running $p || why="${why:+$why; }fio ended before the kill: $(tail -1 /tmp/fio-killed.out)"
	kill -KILL $p
	# every thread (fio --thread runs its job in one): the one with the
	# ring waits for its io-wq workers as it exits
	wait_until "$secs" threads_gone $p || why="${why:+$why; }the killed task did not exit in $secs s"
	wait_until 60 threads_gone $p
	wait $p 2>/dev/null
	st=$?
	# 137: killed by the signal, not ended by an error of its own
	[ $st = 137 ] || why="${why:+$why; }fio exit $st, not 137 (SIGKILL): $(tail -1 /tmp/fio-killed.out)"
	# the ring is torn down by a worker after the task is gone
	wait_until 30 no_busy_tags "$nb"
	busy=$(tags_busy "$nb")
	[ "$busy" = 0 ] || why="${why:+$why; }$busy tags still busy 30 s after the kill"
	run_timed 30 nullb_remove killed || why="${why:+$why; }removing the device hung or failed"
	tap_result "$id" "$why"
}

killed_with_polled_io() { killed_polled killed_with_polled_io 30 ""; }

# The same with every read issued by io-wq workers (IOSQE_ASYNC) and 4
# tags: the workers issue polled reads without REQ_NOWAIT and sleep for
# tags that only the ring's polling frees; the exiting task must poll for
# them before it waits for its workers, not leave them to the timeout.
killed_with_iowq_polled_io() {
	killed_polled killed_with_iowq_polled_io 5 "hw_queue_depth=4" --force_async=1
}

# I/O through the NVMe multipath head without IOPOLL: io_uring
# write+verify without polling and preadv2/pwritev2 with RWF_HIPRI must
# reach the paths and verify.  (guest/mpath.sh proves the polling.)
mpath_head_io() {
	local head q0 q1 f1 f2
	head=$(mpath_head)
	[ -n "$head" ] || { tap_fail mpath_head_io "no multipath head"; rc=1; return; }
	q0=$(hctx_queued "$head")
	fio_verify head "$head" 0 --size=8M --iodepth=32 --iodepth_batch_submit=8 \
		--iodepth_batch_complete_min=1
	f1=$?
	fio --name=head2 --filename=/dev/$head --ioengine=pvsync2 --hipri=1 \
		--direct=1 --rw=randwrite --bs=4k --size=2M --offset=8M \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-head2.out 2>&1
	f2=$?
	q1=$(hctx_queued "$head")
	echo "# mpath head /dev/$head: io_uring exit $f1, pvsync2 hipri exit $f2, io_poll $(cat /sys/block/$head/queue/io_poll), requests on the paths +$((q1 - q0))"
	if [ $f1 != 0 ] || [ $f2 != 0 ]; then
		tail -3 /tmp/fio-head.out /tmp/fio-head2.out
		tap_fail mpath_head_io "fio failed (io_uring $f1, pvsync2 $f2)"
		rc=1
	elif [ $((q1 - q0)) -lt 5120 ]; then
		tap_fail mpath_head_io "only $((q1 - q0)) requests reached the paths"
		rc=1
	else
		tap_ok mpath_head_io
	fi
}

# The NVMe's shadow doorbell buffer ("boot.sh dbbuf", booted with the
# harness's nvme.qemu_shadow_doorbells=1): the driver writes SQ tails and
# CQ heads there and rings the real doorbell only when the controller's
# event index asks for it, batched polled completion included.  8 MiB
# polled (QD 32, submitted and reaped 8 at a time), then 8 MiB by
# interrupt, each written and read back; the polled job on the poll
# hctxs with next to no NVMe interrupt.  A lost doorbell shows as an I/O
# timeout in the kernel log, which fails the boot.
shadow_doorbells() {
	local dev why= q0 q1 i0 i1 f
	dev=$(nvme_plain) || { tap_fail shadow_doorbells "no NVMe namespace"; rc=1; return; }
	dmesg | grep -q "nvme ${dev%n*}: harness: shadow doorbells on" ||
		why="shadow doorbells not on: $(dmesg | grep -m1 'harness: shadow doorbells' || echo 'the harness said nothing')"
	! dmesg | grep -q "unable to set dbbuf" || why="${why:+$why; }the controller refused the doorbell buffer"
	q0=$(hctx_queued "$dev" poll) i0=$(nvme_irqs)
	run_timed 120 fio_verify dbbuf-poll "$dev" 1 --size=8M --iodepth=32 \
		--iodepth_batch_submit=8 --iodepth_batch_complete_min=8
	f=$?
	q1=$(hctx_queued "$dev" poll) i1=$(nvme_irqs)
	echo "# shadow doorbells, polled: fio exit $f, poll hctxs +$((q1 - q0)), nvme irqs +$((i1 - i0))"
	if [ $f != 0 ]; then
		tail -3 /tmp/fio-dbbuf-poll.out
		why="${why:+$why; }polled fio failed ($f)"
	elif [ $((q1 - q0)) -lt 4096 ] || [ $((i1 - i0)) -gt 64 ]; then
		why="${why:+$why; }not polled (poll hctxs +$((q1 - q0)), nvme irqs +$((i1 - i0)))"
	fi
	i0=$(nvme_irqs)
	run_timed 120 fio_verify dbbuf-irq "$dev" 0 --size=8M --offset=8M --iodepth=32 \
		--iodepth_batch_submit=8 --iodepth_batch_complete_min=1
	f=$?
	i1=$(nvme_irqs)
	echo "# shadow doorbells, by interrupt: fio exit $f, nvme irqs +$((i1 - i0))"
	if [ $f != 0 ]; then
		tail -3 /tmp/fio-dbbuf-irq.out
		why="${why:+$why; }fio by interrupt failed ($f)"
	elif [ $((i1 - i0)) -lt 64 ]; then
		why="${why:+$why; }only $((i1 - i0)) NVMe interrupts for 4096 unpolled I/Os"
	fi
	tap_result shadow_doorbells "$why"
}
