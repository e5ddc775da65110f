# Bio-based polling in the poll boot (plain NVMe namespace with a poll
# queue, null_blk with poll queues).  Sourced by boot.sh.

# Several rings and threads poll the same devices while their bios
# complete and are freed and reused (the bio slabs are
# SLAB_TYPESAFE_BY_RCU, io_uring polls bios it no longer owns), and a
# third device is created, polled and removed again and again (its
# gendisk is freed after a grace period).  On the debug kernel (KASAN,
# lockdep, PROVE_RCU, DEBUG_OBJECTS_RCU_HEAD) any use-after-free or RCU
# misuse splats and fails the run; here every job must finish and verify.
polled_rcu_stress() {
	local nvme=$1 nb pids= p f=0 why= i churn=0 cd
	nb=$(nullb_create rcu1 irqmode=1 size=64 memory_backed=1 poll_queues=2) ||
		{ tap_fail polled_rcu_stress "could not create a null_blk device"; rc=1; return; }
	# two rings on the NVMe namespace, two threads: io_uring and pvsync2,
	# each thread writing its own 16 MiB and reading back what it wrote
	# while it runs (verify_backlog): KASAN does not poison
	# SLAB_TYPESAFE_BY_RCU objects, so a poller that followed a recycled
	# bio into another's I/O shows only in the data
	fio --name=st1 --filename=/dev/$nvme --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randwrite --bs=4k --size=16M --offset_increment=16M --iodepth=16 \
		--numjobs=2 --thread --verify=crc32c --verify_fatal=1 --verify_backlog=64 \
		--time_based --runtime=8 --output-format=terse >/tmp/fio-st1.out 2>&1 &
	pids="$pids $!"
	fio --name=st2 --filename=/dev/$nvme --ioengine=pvsync2 --hipri=1 --direct=1 \
		--rw=randwrite --bs=4k --size=16M --offset=32M --offset_increment=16M \
		--numjobs=2 --thread --verify=crc32c --verify_fatal=1 --verify_backlog=64 \
		--time_based --runtime=8 --output-format=terse >/tmp/fio-st2.out 2>&1 &
	pids="$pids $!"
	# null_blk: a verified write+read ring on each CPU
	fio --name=st3 --filename=/dev/$nb --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randwrite --bs=4k --size=16M --iodepth=16 --numjobs=2 --thread \
		--offset_increment=16M --cpus_allowed=0-1 --cpus_allowed_policy=split \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-st3.out 2>&1 &
	pids="$pids $!"
	# meanwhile: a short-lived polled device, created, used and removed
	i=0
	while [ $i -lt 6 ]; do
		cd=$(nullb_create rcu2 irqmode=1 size=16 memory_backed=1 poll_queues=1) || break
		fio --name=st4 --filename=/dev/$cd --ioengine=io_uring --hipri=1 --direct=1 \
			--rw=randwrite --bs=4k --size=4M --iodepth=8 \
			--verify=crc32c --verify_fatal=1 --do_verify=1 \
			--output-format=terse >/tmp/fio-st4.out 2>&1 || why="${why:+$why; }polled I/O on a short-lived device failed"
		nullb_remove rcu2 || { why="${why:+$why; }removing a short-lived device failed"; break; }
		churn=$((churn + 1))
		i=$((i + 1))
	done
	for p in $pids; do
		wait $p || f=$((f + 1))
	done
	[ $f = 0 ] || { tail -3 /tmp/fio-st1.out /tmp/fio-st2.out /tmp/fio-st3.out; why="${why:+$why; }$f fio jobs failed"; }
	[ $churn = 6 ] || why="${why:+$why; }only $churn of 6 short-lived devices"
	[ "$(tags_busy "$nb")" = 0 ] || why="${why:+$why; }tags still busy"
	echo "# rcu stress: 3 fio runs (6 rings/threads) on /dev/$nvme and /dev/$nb, $churn polled devices created and removed"
	nullb_remove rcu1 || why="${why:+$why; }removing /dev/$nb failed"
	tap_result polled_rcu_stress "$why"
	[ -z "$why" ] || rc=1
}

# polled_file_dio DEV: ext4 on DEV, direct I/O on a file: preadv2/pwritev2
# with RWF_HIPRI and io_uring IOPOLL, data verified, polling proven on the
# poll hctx (the iomap path).  A split I/O, larger than max_sectors_kb, is
# not polled and completes by interrupt, on the file and on the device.
polled_file_dio() {
	local dev=$1 q0 q1 i0 i1 d0 d1 f1 f2 why= ios msk
	if ! ext4_mount "$dev" /mnt/fp -O ^has_journal; then
		tap_fail ext4_polled_dio "no ext4 on /dev/$dev"
		tap_fail split_io_not_polled "no ext4 on /dev/$dev"
		rc=1
		return
	fi
	# one extent, allocated up front, so that each 4k I/O is one bio
	fallocate -l 16M /mnt/fp/f 2>/dev/null || dd if=/dev/zero of=/mnt/fp/f bs=1M count=16 2>/dev/null
	sync
	q0=$(hctx_queued "$dev" poll) i0=$(nvme_irqs)
	fio --name=fdio1 --filename=/mnt/fp/f --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randwrite --bs=4k --size=8M --iodepth=16 --iodepth_batch_submit=4 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-fdio1.out 2>&1
	f1=$?
	fio --name=fdio2 --filename=/mnt/fp/f --ioengine=pvsync2 --hipri=1 --direct=1 \
		--rw=randwrite --bs=4k --size=4M --offset=8M \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-fdio2.out 2>&1
	f2=$?
	q1=$(hctx_queued "$dev" poll) i1=$(nvme_irqs)
	ios=$((2 * (8 + 4) * 1024 / 4))
	echo "# ext4 on /dev/$dev: io_uring IOPOLL exit $f1, pvsync2 hipri exit $f2, poll hctx queued +$((q1 - q0)) (>= $((ios * 9 / 10))), nvme irqs +$((i1 - i0))"
	[ $f1 = 0 ] && [ $f2 = 0 ] || { tail -3 /tmp/fio-fdio1.out /tmp/fio-fdio2.out; why="fio failed ($f1, $f2)"; }
	# metadata I/O of ext4 may take a few interrupts; the data must poll
	[ -n "$why" ] || [ $((q1 - q0)) -ge $((ios * 9 / 10)) ] || why="only $((q1 - q0)) polled requests"
	[ -n "$why" ] || [ $((i1 - i0)) -le $((ios / 32)) ] || why="$((i1 - i0)) NVMe interrupts: not polled"
	tap_result ext4_polled_dio "$why"
	[ -z "$why" ] || rc=1

	# split: 256 KiB polled I/O with max_sectors_kb at 64: the bio is
	# cut in four, loses REQ_POLLED and completes by interrupt
	why=
	msk=$(cat /sys/block/$dev/queue/max_sectors_kb)
	echo 64 >/sys/block/$dev/queue/max_sectors_kb
	q0=$(hctx_queued "$dev" poll) d0=$(hctx_queued "$dev")
	fio --name=split1 --filename=/mnt/fp/f --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randwrite --bs=256k --size=8M --iodepth=4 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-split1.out 2>&1
	f1=$?
	fio --name=split2 --filename=/dev/$dev --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randwrite --bs=256k --size=8M --offset=192M --iodepth=4 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-split2.out 2>&1
	f2=$?
	q1=$(hctx_queued "$dev" poll) d1=$(hctx_queued "$dev")
	echo "$msk" >/sys/block/$dev/queue/max_sectors_kb
	ios=$((2 * 2 * 8 * 1024 / 64))
	echo "# split 256k I/O, max_sectors_kb 64: file exit $f1, device exit $f2, poll hctx queued +$((q1 - q0)) (0 wanted), all hctxs +$((d1 - d0)) (>= $ios)"
	[ $f1 = 0 ] && [ $f2 = 0 ] || { tail -3 /tmp/fio-split1.out /tmp/fio-split2.out; why="fio failed ($f1, $f2)"; }
	[ -n "$why" ] || [ $((q1 - q0)) = 0 ] || why="$((q1 - q0)) split requests on the poll queue"
	[ -n "$why" ] || [ $((d1 - d0)) -ge $ios ] || why="only $((d1 - d0)) requests for $ios pieces"
	tap_result split_io_not_polled "$why"
	[ -z "$why" ] || rc=1
	umount /mnt/fp
}


# io_poll switched off and on while polled I/O runs (20 s of it: the
# three switches take some 8 s on the debug kernel).  A switch changes
# only new I/O; the polled requests in flight are still reaped by their
# poller, so a second after io_poll=0 no request may sit on a poll hctx,
# and the I/O goes on by interrupt.
io_poll_toggle_under_io() {
	local nb pid i why= frc stuck q0
	nb=$(nullb_create tog irqmode=1 size=32 memory_backed=1 poll_queues=1) ||
		{ tap_fail io_poll_toggle_under_io "could not create a null_blk device"; rc=1; return; }
	q0=$(hctx_queued "$nb" poll)
	fio --name=tog --filename=/dev/$nb --ioengine=io_uring --hipri=1 --direct=1 \
		--rw=randwrite --bs=4k --iodepth=32 --time_based --runtime=20 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=64 \
		--output-format=terse >/tmp/fio-tog.out 2>&1 &
	pid=$!
	wait_until 20 polled_since "$nb" "$q0" || why="no polled I/O started"
	for i in 1 2 3; do
		sleep 0.3
		echo 0 >/sys/block/$nb/queue/io_poll || why="${why:+$why; }io_poll=0 write $i failed"
		sleep 1
		stuck=$(tags_busy "$nb" poll)
		echo "# io_poll=0 ($i): $stuck requests on the poll hctx after 1 s, all hctxs queued $(hctx_queued "$nb")"
		[ "$stuck" = 0 ] || why="${why:+$why; }$stuck requests left on the poll hctx 1 s after io_poll=0"
		echo 1 >/sys/block/$nb/queue/io_poll || why="${why:+$why; }io_poll=1 write $i failed"
	done
	running $pid || why="${why:+$why; }fio ended before the last switch"
	wait_until 120 not_running $pid || why="${why:+$why; }fio still running 120 s later"
	wait $pid
	frc=$?
	[ $frc = 0 ] || { tail -3 /tmp/fio-tog.out; why="${why:+$why; }fio failed ($frc)"; }
	[ "$(cat /sys/block/$nb/queue/io_poll)" = 1 ] || why="${why:+$why; }io_poll not back to 1"
	[ "$(tags_busy "$nb")" = 0 ] || why="${why:+$why; }tags still busy"
	nullb_remove tog || why="${why:+$why; }removing the device failed"
	tap_result io_poll_toggle_under_io "$why"
	[ -z "$why" ] || rc=1
}

# polled O_DSYNC writes (pvsync2 and io_uring IOPOLL): with a volatile
# write cache each is a FUA write that goes through the flush machinery
# and is dispatched from kblockd; its poller must still find and poll it
# (before the cookie was set at allocation, each write sat unpolled on
# the poll queue until the 30 s timeout)
dsync_polled_write() {
	local dev=$1 f1 f2 why= t0 t1
	echo "# /dev/$dev write_cache: $(cat /sys/block/$dev/queue/write_cache)"
	t0=$(date +%s)
	run_timed 120 fio --name=ds1 --filename=/dev/$dev --ioengine=pvsync2 --hipri=1 \
		--direct=1 --sync=dsync --rw=randwrite --bs=4k --size=1M --offset=160M \
		--verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-ds1.out 2>&1
	f1=$?
	run_timed 120 fio --name=ds2 --filename=/dev/$dev --ioengine=io_uring --hipri=1 \
		--direct=1 --sync=dsync --rw=randwrite --bs=4k --size=1M --offset=162M \
		--iodepth=8 --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--output-format=terse >/tmp/fio-ds2.out 2>&1
	f2=$?
	t1=$(date +%s)
	echo "# O_DSYNC polled writes: pvsync2 exit $f1, io_uring exit $f2, $((t1 - t0)) s"
	[ $f1 = 0 ] && [ $f2 = 0 ] || { tail -3 /tmp/fio-ds1.out /tmp/fio-ds2.out; why="fio failed or hung ($f1, $f2)"; }
	[ -n "$why" ] || [ $((t1 - t0)) -le 30 ] || why="$((t1 - t0)) s for 512 writes"
	tap_result dsync_polled_write "$why"
	[ -z "$why" ] || rc=1
}

# Verified polled I/O larger than a page on NVMe: 128 KiB (a PRP list,
# the batched unmap of a 32-segment request) must run on the poll hctx
# with next to no interrupts; 1 MiB is polled when the device takes it in
# one request (max_sectors_kb), and otherwise split, which completes by
# interrupt by design (0029): it must still verify.
large_polled_verify() {
	local dev=$1 bs why= q0 q1 i0 i1 f n max
	max=$(cat /sys/block/$dev/queue/max_sectors_kb)
	for bs in 128 1024; do
		q0=$(hctx_queued "$dev" poll) i0=$(nvme_irqs)
		run_timed 120 fio_verify "large$bs" "$dev" 1 --bs=${bs}k --size=16M \
			--offset=$((bs == 128 ? 64 : 96))M --iodepth=8
		f=$?
		q1=$(hctx_queued "$dev" poll) i1=$(nvme_irqs)
		n=$((2 * 16 * 1024 / bs))
		echo "# ${bs} KiB hipri write+verify: fio exit $f, $n I/Os, poll hctx +$((q1 - q0)), nvme irqs +$((i1 - i0)), max_sectors_kb $max"
		[ $f = 0 ] || { tail -3 /tmp/fio-large$bs.out; why="${why:+$why; }${bs} KiB: fio failed ($f)"; continue; }
		[ $bs -gt "$max" ] && continue
		[ $((q1 - q0)) -ge $n ] && [ $((i1 - i0)) -le $((n / 8 + 4)) ] ||
			why="${why:+$why; }${bs} KiB not polled (poll hctx +$((q1 - q0)), irqs +$((i1 - i0)))"
	done
	tap_result large_polled_verify "$why"
}
