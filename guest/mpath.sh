# Polled I/O through the NVMe multipath head (boot "mpath": one subsystem,
# two controllers, namespace 1 shared; head nvmeXnY, paths nvmeXcZnY).
# Sourced by boot.sh.  The head polls by following the bio to the path
# it was sent to: polling is proven on the paths' poll hctxs (queued
# grows, NVMe interrupts stay flat).

# the path disks of head $1, one per line
mpath_paths() {
	local d
	for d in /sys/block/${1%n*}c*n${1##*n}; do
		[ -e "$d" ] && echo "${d##*/}"
	done
}

mpath_npaths_is() { [ "$(mpath_paths "$1" | wc -l)" = "$2" ]; }
ctrl_live() { [ "$(cat /sys/class/nvme/$1/state 2>/dev/null)" = live ]; }

# poll hctx "queued" of one path disk
path_poll_queued() { hctx_queued "$1" poll; }

# the nvme controller (nvmeN) of path disk $1 (nvmeXcNnY)
path_ctrl() { local c=${1#nvme*c}; echo "nvme${c%%n*}"; }

mpath_iopolicy() {
	local f
	for f in /sys/class/nvme-subsystem/*/iopolicy; do
		[ -f "$f" ] && echo "$1" >"$f"
	done
}

# fio io_uring hipri write+verify on the head: on the paths' poll hctxs,
# no NVMe interrupt per I/O
mpath_head_polled_verify() {
	local head=$1 q0 q1 i0 i1 frc ios=$((2 * 16 * 1024 / 4)) why=
	q0=$(hctx_queued "$head" poll) i0=$(nvme_irqs)
	fio_verify mph "$head" 1 --size=16M --iodepth=32 --iodepth_batch_submit=8 \
		--iodepth_batch_complete_min=1
	frc=$?
	q1=$(hctx_queued "$head" poll) i1=$(nvme_irqs)
	echo "# head /dev/$head io_poll=$(cat /sys/block/$head/queue/io_poll): fio exit $frc, paths' poll hctx queued +$((q1 - q0)) (>= $ios), nvme irqs +$((i1 - i0))"
	[ $frc = 0 ] || { tail -5 /tmp/fio-mph.out; why="fio failed ($frc)"; }
	[ -n "$why" ] || [ "$(cat /sys/block/$head/queue/io_poll)" = 1 ] || why="head io_poll=0"
	[ -n "$why" ] || [ $((q1 - q0)) -ge $ios ] || why="only $((q1 - q0)) requests on the paths' poll queues"
	[ -n "$why" ] || [ $((i1 - i0)) -le $((ios / 32)) ] || why="$((i1 - i0)) NVMe interrupts: not polled"
	tap_result mpath_head_polled_verify "$why"
	[ -z "$why" ] || rc=1
}

# IOPOLL on the head: a ring of polled reads and writes completes (5.10
# refused it with EOPNOTSUPP: the head took no REQ_NOWAIT)
mpath_head_iopoll() {
	local head=$1 f why= q0 q1 i0 i1
	q0=$(hctx_queued "$head" poll) i0=$(nvme_irqs)
	# writes, each read back as the job goes (verify_backlog)
	run_timed 120 fio --name=head3 --filename=/dev/$head --ioengine=io_uring --hipri=1 \
		--direct=1 --rw=randwrite --bs=4k --size=2M --offset=24M --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=16 \
		--output-format=terse >/tmp/fio-head3.out 2>&1
	f=$?
	q1=$(hctx_queued "$head" poll) i1=$(nvme_irqs)
	echo "# head IOPOLL write+read-back: fio exit $f, paths' poll hctxs +$((q1 - q0)), nvme irqs +$((i1 - i0))"
	[ $f = 0 ] || { tail -3 /tmp/fio-head3.out; why="fio exit $f"; }
	# 512 I/Os of 4 KiB and their read-backs: all on the paths' poll hctxs
	[ $((q1 - q0)) -ge 512 ] && [ $((i1 - i0)) -le 16 ] ||
		why="${why:+$why; }not polled (poll hctxs +$((q1 - q0)), irqs +$((i1 - i0)))"
	tap_result mpath_head_iopoll "$why"
	[ -z "$why" ] || rc=1
}

# Controller $2 (a path of head $1) goes away while a polled write+verify
# runs on the head: the I/O goes on through the other path and verifies,
# nothing hangs; PCI rescan brings the path back and round-robin sends
# polled I/O down both paths again.
mpath_path_removed_polled() {
	local head=$1 ctrl pcidev pid frc why= p q n i
	mpath_iopolicy round-robin
	set -- $(mpath_paths "$head")
	[ $# = 2 ] || { tap_fail mpath_path_removed_polled "$# paths before the removal"; rc=1; return; }
	ctrl=$(path_ctrl "$2")
	pcidev=$(readlink -f /sys/class/nvme/$ctrl/device)
	expect_fault_begin "path $2 ($ctrl, $pcidev) removed under polled I/O" "$NVME_RESET_ONLY"
	fio_verify mprm "$head" 1 --size=96M --iodepth=32 --iodepth_batch_submit=8 \
		--iodepth_batch_complete_min=1 &
	pid=$!
	sleep 1
	running $pid || why="fio ended before the removal"
	echo 1 >"$pcidev/remove"
	echo "# removed $ctrl ($pcidev) with fio running"
	# a bound on the phase (a timeout's message fails the run anyway)
	wait_until 120 not_running $pid || why="${why:+$why; }fio still running 120 s after the removal"
	kill -KILL $pid 2>/dev/null
	wait $pid
	frc=$?
	[ $frc = 0 ] || { tail -5 /tmp/fio-mprm.out; why="${why:+$why; }fio failed ($frc) after the path went"; }
	n=$(mpath_paths "$head" | wc -l)
	[ "$n" = 1 ] || why="${why:+$why; }$n paths after the removal (1 wanted)"
	echo 1 >/sys/bus/pci/rescan
	wait_until 60 mpath_npaths_is "$head" 2 || why="${why:+$why; }the path did not come back after a rescan"
	expect_fault_end
	# both paths carry polled I/O again
	set -- $(mpath_paths "$head")
	q=
	for p; do q="$q $(path_poll_queued "$p")"; done
	i=$(nvme_irqs)
	run_timed 60 fio_verify mprm2 "$head" 1 --size=4M --offset=96M --iodepth=16 ||
		why="${why:+$why; }fio after the rescan failed"
	i=$(($(nvme_irqs) - i))
	echo "# after the rescan: nvme irqs +$i for 2048 polled I/Os"
	[ $i -le 64 ] || why="${why:+$why; }$i NVMe interrupts for polled I/O after the rescan"
	set -- $q
	for p in $(mpath_paths "$head"); do
		echo "# path $p: poll hctx queued +$(($(path_poll_queued "$p") - $1)) after the rescan"
		[ $(($(path_poll_queued "$p") - $1)) -ge 256 ] || why="${why:+$why; }path $p got no polled I/O after the rescan"
		shift
	done
	[ "$(cat /sys/block/$head/queue/io_poll)" = 1 ] || why="${why:+$why; }head io_poll=0 after the rescan"
	mpath_iopolicy numa
	tap_result mpath_path_removed_polled "$why"
	[ -z "$why" ] || rc=1
}

# Controller reset of one path while polled I/O runs on the head: verifies,
# the paths still poll afterwards.
mpath_reset_polled() {
	local head=$1 ctrl pid frc why= i p
	mpath_iopolicy round-robin
	set -- $(mpath_paths "$head")
	ctrl=$(path_ctrl "$1")
	expect_fault_begin "reset of $ctrl under polled I/O on the head" "$NVME_RESET_ONLY"
	fio_verify mprs "$head" 1 --size=16M --iodepth=32 --iodepth_batch_submit=8 \
		--iodepth_batch_complete_min=1 &
	pid=$!
	for i in 1 2; do
		sleep 1
		echo 1 >/sys/class/nvme/$ctrl/reset_controller 2>/dev/null ||
			why="${why:+$why; }reset $i of $ctrl refused"
		wait_until 60 ctrl_live "$ctrl" ||
			why="${why:+$why; }$ctrl not live after reset $i"
	done
	# a bound on the phase; a request the 30 s timeout rescued fails the
	# run anyway, its message is not one of the reset's
	end_job $pid 120
	frc=$?
	[ $frc != 137 ] || why="${why:+$why; }fio still running 120 s after the resets"
	expect_fault_end
	[ $frc = 0 ] || { tail -5 /tmp/fio-mprs.out; why="${why:+$why; }fio failed ($frc)"; }
	for p in $(mpath_paths "$head"); do
		[ "$(cat /sys/block/$p/queue/io_poll)" = 1 ] || why="${why:+$why; }$p io_poll=0 after the resets"
	done
	p=$(polled_io after-resets "$head" 120M)
	[ -z "$p" ] || why="${why:+$why; }$p"
	mpath_iopolicy numa
	tap_result mpath_reset_polled "$why"
	[ -z "$why" ] || rc=1
}

mpath_polled() {
	local head
	head=$(mpath_head)
	[ -n "$head" ] || { tap_fail mpath_head_polled_verify "no multipath head"; rc=1; return; }
	echo "== polled I/O on the multipath head /dev/$head"
	mpath_head_polled_verify "$head"
	mpath_head_iopoll "$head"
	mpath_reset_polled "$head"
	mpath_failover_no_eagain "$head"
	echo "== -EAGAIN CQEs counted: the multipath head under controller resets"
	eagain_mpath
	mpath_path_removed_polled "$head"
}
