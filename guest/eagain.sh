# No spurious -EAGAIN (sourced by boot.sh, after common.sh): io_uring
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

# eagain_fio_wr NAME DEV SECS WSIZE RSIZE RSECS OPTIONS...: one fio run
# (io_uring, direct, OPTIONS for both jobs) on DEV, at most SECS + 60 s:
# WSIZE of random writes, verified, then (stonewall) RSECS s of random
# reads over RSIZE; the reads' terse line is NAME-r's.  Prints what
# failed, nothing if nothing did.
eagain_fio_wr() {
	local name=$1 dev=$2 secs=$3 ws=$4 rs=$5 rt=$6 f
	shift 6
	run_timed $((secs + 60)) fio --filename=/dev/$dev --ioengine=io_uring --direct=1 \
		--output-format=terse "$@" \
		--name="$name-w" --rw=randwrite --size="$ws" --verify=crc32c --verify_fatal=1 \
		--do_verify=1 \
		--name="$name-r" --stonewall --rw=randread --size="$rs" --time_based \
		--runtime="$rt" >/tmp/fio-$name.out 2>&1
	f=$?
	[ $f = 0 ] || echo "$name: $(fio_failure "$name" $f)"
}

# I/O that must be split or needs more than one bio, on a null_blk with
# 4 tags (so that a later piece finds none) completing by timer: 256 KiB
# with max_sectors_kb at 64 (split in four), then 2 MiB (more than a bio
# holds, each bio split too), polled and not, with fixed buffers and
# without; writes verified, then 2 s of random reads.
nowait_split_no_eagain() {
	local nb why= h fb bs msk r
	nb=$(nullb_create nowait submit_queues=1 poll_queues=1 hw_queue_depth=4 irqmode=2 \
		completion_nsec=50000 size=64 memory_backed=1) ||
		{ tap_fail nowait_split_no_eagain "could not create a null_blk device"; rc=1; return; }
	msk=$(cat /sys/block/$nb/queue/max_sectors_kb)
	for bs in 256k 2m; do
		r=$msk
		[ $bs != 256k ] || r=64
		echo "$r" >/sys/block/$nb/queue/max_sectors_kb
		# the split cells count only if the limit took
		[ "$(cat /sys/block/$nb/queue/max_sectors_kb)" = "$r" ] ||
			why="${why:+$why; }max_sectors_kb $r did not take"
		for h in 0 1; do
			for fb in 0 1; do
				r=$(eagain_fio_wr "na-$bs-$h-$fb" "$nb" 30 8M 32M 2 --hipri=$h \
					--fixedbufs=$fb --bs=$bs --iodepth=16)
				[ -z "$r" ] || why="${why:+$why; }$r"
			done
		done
	done
	echo "# nowait: max_sectors_kb 64, then $msk; busy tags $(tags_busy "$nb")"
	run_timed 30 nullb_remove nowait || why="${why:+$why; }removing the device hung or failed"
	tap_result nowait_split_no_eagain "$why"
}

# 5.10's result of a preadv2()/pwritev2() or libaio I/O with RWF_NOWAIT
# that must be split (256 KiB at max_sectors_kb 64) or needs more than
# one bio (2 MiB): on a conventional device with tags to spare it is
# done, not refused with -EAGAIN (mainline refuses both since 6.2).
# fio's pvsync2 and libaio with nowait=1 write and verify 16 MiB each.
nowait_uapi_large() {
	local nb why= e bs r
	nb=$(nullb_create uapi submit_queues=1 hw_queue_depth=64 irqmode=0 size=64 \
		memory_backed=1) ||
		{ tap_fail nowait_uapi_large "could not create a null_blk device"; rc=1; return; }
	echo 64 >/sys/block/$nb/queue/max_sectors_kb
	[ "$(cat /sys/block/$nb/queue/max_sectors_kb)" = 64 ] ||
		why="max_sectors_kb 64 did not take"
	for e in pvsync2 libaio; do
		for bs in 256k 2m; do
			run_timed 120 fio --name="nu-$e-$bs" --filename=/dev/$nb --ioengine=$e \
				--direct=1 --nowait=1 --rw=write --bs=$bs --size=16M --iodepth=1 \
				--verify=crc32c --verify_fatal=1 --do_verify=1 \
				--output-format=terse >/tmp/fio-nu-$e-$bs.out 2>&1
			r=$?
			[ $r = 0 ] || why="${why:+$why; }$e $bs: $(fio_failure "nu-$e-$bs" $r)"
		done
	done
	run_timed 30 nullb_remove uapi || why="${why:+$why; }removing the device hung or failed"
	tap_result nowait_uapi_large "$why"
}

# reset_both C0 C1: reset both NVMe controllers at once (each write
# waits for its reset) and wait until both are live again; prints what
# went wrong, nothing if nothing did
reset_both() {
	local p r=
	echo 1 >/sys/class/nvme/$1/reset_controller 2>/dev/null &
	p=$!
	echo 1 >/sys/class/nvme/$2/reset_controller 2>/dev/null || r="$2's reset refused"
	wait $p || r="${r:+$r; }$1's reset refused"
	wait_until 60 ctrl_live "$1" && wait_until 60 ctrl_live "$2" ||
		r="${r:+$r; }a controller not live after the reset"
	echo "$r"
}

# Failover of NOWAIT I/O on the NVMe multipath head ("boot.sh mpath"):
# four io_uring jobs (QD 64 each) write and verify through the head for
# 10 s, not polled and then polled, while both controllers are reset at
# once, three times: the head finds no usable path and queues its bios
# for kblockd, which sends them again when a path is live, and each path
# has only 4 requests (nr_requests), so most of them find no free tag
# there.  None may end with -EAGAIN, and the head must have requeued.
mpath_failover_no_eagain() {
	local head=$1 c0 c1 p0 p1 nr0 nr1 why= h i r pid f rq0 rq1
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
			r=$(reset_both "$c0" "$c1")
			[ -z "$r" ] || why="${why:+$why; }reset $i: $r"
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

# NOWAIT I/O that blk-throttle holds back and sends on later from a
# kworker: fio runs in a cgroup whose io.max caps a null_blk with 2 tags
# completing by timer at a quarter of its own rate (at most 200 IOPS).  The throttle's work sends the bios
# it let through in bursts; most of a burst finds no tag, and a bio still
# REQ_NOWAIT ends with BLK_STS_AGAIN in that kworker, far from the task
# that issued it.  io_uring must issue it again (blocking, from io-wq): no
# CQE may carry -EAGAIN.  Reads and writes, polled and not, plain, fixed
# and vectored (readv/writev) buffers; writes verified.  The reads' rate,
# at most the cap in the cgroup and at most half the device's own rate
# outside it, shows that the throttle held them back (else the test
# missed its window).
throttled_no_eagain() {
	local nb dev cg=/sys/fs/cgroup/fp-throttle why= h b r n opts iops free cap maxth=0
	[ -e /sys/fs/cgroup/cgroup.controllers ] || mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null ||
		why="no cgroup2 (CONFIG_CGROUPS)"
	[ -n "$why" ] || grep -qw io /sys/fs/cgroup/cgroup.controllers ||
		why="no io controller (CONFIG_BLK_CGROUP)"
	[ -n "$why" ] || nb=$(nullb_create throt submit_queues=1 poll_queues=1 hw_queue_depth=2 \
		irqmode=2 completion_nsec=50000 size=64 memory_backed=1) ||
		why="could not create a null_blk device"
	[ -z "$why" ] || { tap_result throttled_no_eagain "$why"; return; }
	dev=$(cat /sys/block/$nb/dev)
	echo +io >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $cg
	if ! echo "$dev riops=200 wiops=200" >$cg/io.max 2>/dev/null; then
		rmdir $cg
		run_timed 30 nullb_remove throt
		tap_result throttled_no_eagain "io.max refused (CONFIG_BLK_DEV_THROTTLING)"
		return
	fi
	# the device's own rate, outside the cgroup; the cap is a quarter of
	# it, 200 IOPS at most, 20 at least (the debug kernel under TCG read
	# this device at 213-854 IOPS, the plain kernel at some 2000)
	r=$(eagain_fio th-free "$nb" 2 --rw=randread --bs=4k --size=16M --iodepth=32 \
		--iodepth_batch_submit=8 --time_based --runtime=2)
	free=$(cut -d';' -f8 /tmp/fio-th-free.out)
	cap=$((${free:-0} / 4))
	[ $cap -le 200 ] || cap=200
	[ $cap -ge 20 ] || cap=20
	echo "# throttled: reads at ${free:-?} IOPS outside the cgroup: io.max $cap IOPS"
	[ -z "$r" ] || why="outside the cgroup: $r"
	echo "$dev riops=$cap wiops=$cap" >$cg/io.max || why="${why:+$why; }io.max $cap refused"
	# this shell and the fio jobs it starts are in the cgroup until the end
	echo $$ >$cg/cgroup.procs
	for h in 0 1; do
		for b in plain fixed vectored; do
			case $b in
			plain) opts="--fixedbufs=0 --nonvectored=1" ;;
			fixed) opts="--fixedbufs=1" ;;
			vectored) opts="--fixedbufs=0 --nonvectored=0" ;;
			esac
			n=th-$h-$b
			r=$(eagain_fio_wr $n "$nb" 30 1M 16M 2 --hipri=$h $opts --bs=4k \
				--iodepth=32 --iodepth_batch_submit=8)
			if [ -n "$r" ]; then
				why="${why:+$why; }$r"
				continue
			fi
			iops=$(grep "^3;[^;]*;$n-r;" /tmp/fio-$n.out | cut -d';' -f8)
			echo "# throttled: hipri=$h $b: reads at $iops IOPS (io.max $cap)"
			[ "${iops:-0}" -gt 0 ] && [ "$iops" -le $((cap + cap / 10)) ] ||
				why="${why:+$why; }hipri=$h $b: reads at ${iops:-?} IOPS: not throttled"
			[ "${iops:-0}" -le $maxth ] || maxth=$iops
		done
	done
	echo $$ >/sys/fs/cgroup/cgroup.procs
	# the device itself is not what held them back
	[ "${free:-0}" -ge $((2 * maxth)) ] ||
		why="${why:+$why; }reads at ${free:-?} IOPS outside the cgroup, $maxth in it: the cap is not what held them"
	echo "$dev riops=max wiops=max" >$cg/io.max
	rmdir $cg || why="${why:+$why; }the cgroup could not be removed"
	run_timed 30 nullb_remove throt || why="${why:+$why; }removing the device hung or failed"
	tap_result throttled_no_eagain "$why"
}

# The -EAGAIN matrix ("boot.sh eagain": nvme.io_queue_depth=2, so one
# tag per NVMe queue, and null_blk devices sharing one tag set of 2
# tags): /fp/fp-eagain counts the CQEs that end with -EAGAIN where fio
# would stop at the first, and verifies every block it reads back.  For
# each device: 4 KiB, 256 KiB at max_sectors_kb 64 (split in four) and
# 2 MiB (more than one bio), plain, fixed and vectored buffers, polled
# (IOPOLL) and not; 4 KiB with SQPOLL.  Every cell must count 0, unless
# the SQEs carry RWF_NOWAIT (5.10's uapi: the application's own -EAGAIN,
# which must still come: the positive control of the counter).
# Prints "EAGAIN-CELL DEVICE BS OPTIONS: ios W+R -EAGAIN W+R errors W+R
# bad N exit F" lines (writes and reads) for the table of docs/eagain.md
# (scripts/eagain-table.py).

# eagain_cells NAME DEV...: the cells on DEV (several devices: the same
# cell on all of them at once); DEV:FILE runs them on FILE, a file of a
# file system on DEV, and leaves out the RWF_NOWAIT cell, which counts
# nothing there (iomap refuses only a range in the page cache).
# max_sectors_kb is set on DEV and on the devices under it (dm's).
# Prints why any cell failed.
eagain_cells() {
	local name=$1 devs= specs bs qd opts msk d f o why= jobs j x file=
	shift
	specs=$*
	for x in $specs; do
		d=${x%%:*}
		[ "$d" = "$x" ] || file=1
		devs="$devs $d $(ls /sys/block/$d/slaves 2>/dev/null)"
	done
	for bs in 4096 262144 2097152; do
		case $bs in
		4096) qd=32 ;;
		262144) qd=16 ;;
		2097152) qd=8 ;;
		esac
		for d in $devs; do
			msk=$(cat /sys/block/$d/queue/max_hw_sectors_kb)
			[ $bs != 262144 ] || msk=64
			echo "$msk" >/sys/block/$d/queue/max_sectors_kb
			[ "$(cat /sys/block/$d/queue/max_sectors_kb)" = "$msk" ] || {
				echo "$name: max_sectors_kb of $d is not $msk"
				return
			}
		done
		for opts in plain fixed vec poll "poll fixed" "poll vec" sqpoll "sqpoll poll" \
			nowait; do
			case "$bs:$opts" in
			*:nowait) [ $bs = 4096 ] && [ -z "$file" ] || continue ;;
			4096:*) ;;
			*sqpoll*) continue ;;
			esac
			jobs=
			for x in $specs; do
				d=${x%%:*} f=/dev/$x
				[ "$d" = "$x" ] || f=${x#*:}
				run_timed 150 /fp/fp-eagain $f $bs $qd 1 ${opts#plain} \
					>/tmp/fpe-$d.out 2>&1 &
				jobs="$jobs $d:$!"
			done
			for j in $jobs; do
				d=${j%:*}
				wait "${j#*:}"
				f=$?
				# writes IOS EAGAIN ERRORS reads IOS EAGAIN ERRORS BAD
				set -- $(sed -n 's/^EAGAIN //p' /tmp/fpe-$d.out)
				echo "EAGAIN-CELL $name $bs $(echo $opts | tr ' ' +): ios ${2:-?}+${6:-?} -EAGAIN ${3:-?}+${7:-?} errors ${4:-?}+${8:-?} bad ${9:-?} exit $f" >&2
				sed -n 's/^fp-eagain: /# /p' /tmp/fpe-$d.out | head -3 >&2
				o="$name $bs $opts on $d:"
				if [ $f = 124 ]; then
					# it may still be writing: no more cells here
					echo "${why:+$why; }$o still running after 150 s"
					return
				elif [ "${2:-0}" -lt $qd ] || [ "${6:-0}" -lt $qd ]; then
					# too few to have found the queue full
					why="${why:+$why; }$o exit $f, ${2:-no} writes and ${6:-no} reads completed"
				elif [ "$opts" = nowait ]; then
					# the application's own -EAGAIN must come, and
					# nothing else may go wrong
					[ $f = 1 ] && [ "$3$7" != 00 ] ||
						why="${why:+$why; }$o RWF_NOWAIT: exit $f, -EAGAIN $3+$7 (none: the counter sees nothing?)"
					[ "$4$8$9" = 000 ] ||
						why="${why:+$why; }$o RWF_NOWAIT: errors $4+$8, bad $9"
				elif [ $f != 0 ]; then
					why="${why:+$why; }$o exit $f, -EAGAIN $3+$7, errors $4+$8, bad $9"
				fi
			done
		done
	done
	echo "$why"
}

# The same cells through what users put on a device, each in turn on the
# one-tag NVMe DEV (its whole namespace):
# eagain_ext4 DEV: a 32 MiB file of an ext4.  Its direct I/O is iomap's,
# which on 5.10 puts no REQ_NOWAIT on its bios and refuses IOCB_NOWAIT
# only for a range in the page cache, at issue: the cells show that no
# -EAGAIN comes by another way.  The file is written whole first, so
# that every write is an overwrite, and dropped from the page cache:
# cached pages would fail every NOWAIT direct I/O at issue and send all
# of it to io-wq.
eagain_ext4() {
	local why
	if ! why=$(ext4_mount "$1" /mnt/ea); then
		tap_fail eagain_matrix_ext4 "mke2fs or mount: $(echo "$why" | head -1)"
		rc=1
		return
	fi
	if ! dd if=/dev/zero of=/mnt/ea/f bs=1M count=32 conv=fsync 2>/dev/null ||
		! echo 3 >/proc/sys/vm/drop_caches; then
		why="the file could not be written, or the page cache dropped"
	else
		why=$(eagain_cells ext4 "$1:/mnt/ea/f")
	fi
	run_timed 60 umount /mnt/ea || why="${why:+$why; }umount hung or failed"
	tap_result eagain_matrix_ext4 "$why"
}

# eagain_dm DEV: a dm-linear device over DEV.  5.10 makes a dm device
# NOWAIT only when all its targets are linear and all its devices NOWAIT
# (dm_table_supports_nowait()); dm clones each bio for DEV, which splits
# a 256 KiB clone in four, and its -EAGAIN ends dm's bio.  The RWF_NOWAIT
# cell must count: it shows that the device is NOWAIT.
eagain_dm() {
	local name=fp-ea dm why
	if ! /sbin/dmsetup create $name --table "0 $(cat /sys/block/$1/size) linear /dev/$1 0" \
		>/tmp/dm-ea.out 2>&1; then
		tap_fail eagain_matrix_dm_linear "dmsetup create: $(head -1 /tmp/dm-ea.out)"
		rc=1
		return
	fi
	dm=$(/sbin/dmsetup info -c --noheadings -o blkdevname $name)
	if [ ! -d "/sys/block/$dm" ]; then
		why="no block device for $name"
	else
		echo "# dm-linear: $dm over $(ls /sys/block/$dm/slaves)"
		why=$(eagain_cells dm-linear "$dm")
	fi
	run_timed 30 /sbin/dmsetup remove $name || why="${why:+$why; }dmsetup remove hung or failed"
	tap_result eagain_matrix_dm_linear "$why"
}

# eagain_loop DEV: a loop device over DEV with direct I/O on (loop issues
# its requests to DEV as bvec direct I/O from a kworker, without NOWAIT)
# and 4 requests (nr_requests: the least blk-mq takes), so that loop's
# own tags run out; blk-mq makes it NOWAIT.
eagain_loop() {
	local lo why
	if ! lo=$(/sbin/losetup --direct-io=on --show -f /dev/$1 2>/tmp/lo-ea.out); then
		tap_fail eagain_matrix_loop "losetup: $(head -1 /tmp/lo-ea.out)"
		rc=1
		return
	fi
	lo=${lo#/dev/}
	if [ "$(cat /sys/block/$lo/loop/dio 2>/dev/null)" != 1 ]; then
		why="$lo over $1: direct I/O is not on"
	elif ! echo 4 >/sys/block/$lo/queue/nr_requests; then
		why="$lo: nr_requests 4 refused"
	else
		echo "# loop: $lo over $1, direct I/O, nr_requests $(cat /sys/block/$lo/queue/nr_requests)"
		why=$(eagain_cells loop "$lo")
	fi
	run_timed 30 /sbin/losetup -d /dev/$lo || why="${why:+$why; }losetup -d hung or failed"
	tap_result eagain_matrix_loop "$why"
}

# eagain_zoned: io_uring writes to a zoned null_blk (zones of 4 MiB,
# mq-deadline with 4 requests, max_sectors_kb 64) that must be split in
# eight (512 KiB) or need more than one bio (2 MiB), one at a time, then
# read back and verified.  Every write finds fewer requests than its
# pieces: issued NOWAIT, its first pieces would move the zone's write
# pointer before a later one fails with -EAGAIN, and the same write
# issued again would then fail as unaligned (-EIO).  The block layer
# must refuse such a write before any of it is issued, so that io-wq
# writes it whole; no error may reach fio.
eagain_zoned() {
	local z why= bs off r
	if ! z=$(nullb_create ez zoned=1 zone_size=4 zone_nr_conv=0 irqmode=2 \
		completion_nsec=50000 size=64 memory_backed=1); then
		tap_fail eagain_zoned_write "could not create a zoned null_blk device"
		rc=1
		return
	fi
	if [ "$(cat /sys/block/$z/queue/zoned)" != host-managed ]; then
		why="$z is not zoned: $(cat /sys/block/$z/queue/zoned)"
	elif ! echo 64 >/sys/block/$z/queue/max_sectors_kb ||
		! echo 4 >/sys/block/$z/queue/nr_requests; then
		why="$z: max_sectors_kb 64 or nr_requests 4 refused"
	else
		echo "# zoned: $z, scheduler $(cat /sys/block/$z/queue/scheduler), nr_requests $(cat /sys/block/$z/queue/nr_requests)"
		off=0
		for bs in 512k 2m; do
			run_timed 120 fio --name="ez-$bs" --filename=/dev/$z --ioengine=io_uring \
				--direct=1 --zonemode=zbd --rw=write --bs=$bs --iodepth=1 \
				--offset=${off}M --size=8M --verify=crc32c --verify_fatal=1 \
				--do_verify=1 --output-format=terse >/tmp/fio-ez-$bs.out 2>&1
			r=$?
			[ $r = 0 ] || why="${why:+$why; }$bs: $(fio_failure "ez-$bs" $r)"
			off=$((off + 8))
		done
	fi
	run_timed 30 nullb_remove ez || why="${why:+$why; }removing $z hung or failed"
	tap_result eagain_zoned_write "$why"
}

# eagain_matrix: the cells on the plain NVMe namespace, on an ext4, a
# dm-linear and a loop device over it, then on two null_blk devices of
# the shared tag set at once
eagain_matrix() {
	local dev a b why x
	if [ ! -x /fp/fp-eagain ]; then
		for x in nvme ext4 dm_linear loop shared_nullb; do
			tap_fail eagain_matrix_$x "no /fp/fp-eagain"
		done
		rc=1
		return
	fi
	echo "# NVMe queues: $(cat /sys/module/nvme/parameters/io_queue_depth) entries; null_blk shared tags: $(cat /sys/module/null_blk/parameters/shared_tags 2>/dev/null), $(cat /sys/module/null_blk/parameters/hw_queue_depth) tags"
	if dev=$(nvme_plain); then
		tap_result eagain_matrix_nvme "$(eagain_cells nvme "$dev")"
		eagain_ext4 "$dev"
		eagain_dm "$dev"
		eagain_loop "$dev"
	else
		for x in nvme ext4 dm_linear loop; do
			tap_fail eagain_matrix_$x "no plain NVMe namespace"
		done
		rc=1
	fi
	a=$(nullb_create ea irqmode=2 completion_nsec=50000 size=64 memory_backed=1) &&
		b=$(nullb_create eb irqmode=2 completion_nsec=50000 size=64 memory_backed=1) || {
		tap_fail eagain_matrix_shared_nullb "could not create the null_blk devices"
		rc=1
		return
	}
	why=$(eagain_cells shared-nullb "$a" "$b")
	run_timed 30 nullb_remove ea || why="${why:+$why; }removing $a hung or failed"
	run_timed 30 nullb_remove eb || why="${why:+$why; }removing $b hung or failed"
	tap_result eagain_matrix_shared_nullb "$why"
	eagain_zoned
}

# mpath_eagain_cells HEAD: the matrix's multipath cells (the mpath boot;
# "boot.sh eagain-mpath" for make eagain-matrix): fp-eagain on the head,
# 4 KiB at QD 32, 3 s of writes then 3 s of reads, not polled and then
# polled, while both controllers are reset at once, up to four times, and
# each path has 4 requests: the head finds no usable path and requeues
# its bios, and kblockd sends them again onto paths where most find no
# tag.  Each cell must count no -EAGAIN, no error and no block read back
# wrong, with a reset during its I/O and the head's requeue seen (else it
# missed its window).  Prints EAGAIN-CELL lines as eagain_cells does, on
# stderr, and why any cell failed.
mpath_eagain_cells() {
	local head=$1 p0 p1 c0 c1 nr0 nr1 opts pid f n r rq0 rq1 o why=
	set -- $(mpath_paths "$head")
	p0=$1 p1=$2 c0=$(path_ctrl "$1") c1=$(path_ctrl "$2")
	nr0=$(cat /sys/block/$p0/queue/nr_requests) nr1=$(cat /sys/block/$p1/queue/nr_requests)
	echo 4 >/sys/block/$p0/queue/nr_requests
	echo 4 >/sys/block/$p1/queue/nr_requests
	mpath_iopolicy round-robin
	for opts in plain poll; do
		o="mpath-resets 4096 $opts on $head:"
		rq0=$(dmesg | grep -c 'no usable path - requeuing')
		expect_fault_begin "resets of $c0 and $c1 under fp-eagain on $head" "$NVME_RESET_ONLY"
		run_timed 150 /fp/fp-eagain /dev/$head 4096 32 3 ${opts#plain} >/tmp/fpe-mp.out 2>&1 &
		pid=$!
		n=0
		while [ $n -lt 4 ] && kill -0 $pid 2>/dev/null; do
			sleep 1
			r=$(reset_both "$c0" "$c1")
			[ -z "$r" ] || why="${why:+$why; }$o $r"
			n=$((n + 1))
		done
		wait $pid
		f=$?
		expect_fault_end
		rq1=$(dmesg | grep -c 'no usable path - requeuing')
		# writes IOS EAGAIN ERRORS reads IOS EAGAIN ERRORS BAD
		set -- $(sed -n 's/^EAGAIN //p' /tmp/fpe-mp.out)
		echo "EAGAIN-CELL mpath-resets 4096 $opts: ios ${2:-?}+${6:-?} -EAGAIN ${3:-?}+${7:-?} errors ${4:-?}+${8:-?} bad ${9:-?} exit $f" >&2
		echo "# $o $n resets, 'no usable path - requeuing' +$((rq1 - rq0)) (ratelimited)" >&2
		sed -n 's/^fp-eagain: /# /p' /tmp/fpe-mp.out | head -3 >&2
		if [ $f = 124 ]; then
			why="${why:+$why; }$o still running after 150 s"
			break
		elif [ "${2:-0}" -lt 32 ] || [ "${6:-0}" -lt 32 ]; then
			why="${why:+$why; }$o exit $f, ${2:-no} writes and ${6:-no} reads completed"
		elif [ $f != 0 ]; then
			why="${why:+$why; }$o exit $f, -EAGAIN $3+$7, errors $4+$8, bad $9"
		elif [ $n = 0 ] || [ $((rq1 - rq0)) = 0 ]; then
			why="${why:+$why; }$o $n resets, the head never requeued: the cell missed its window"
		fi
	done
	echo "$nr0" >/sys/block/$p0/queue/nr_requests
	echo "$nr1" >/sys/block/$p1/queue/nr_requests
	mpath_iopolicy numa
	echo "$why"
}

# eagain_mpath: the multipath cells as a test of the mpath boot
eagain_mpath() {
	local head
	if [ ! -x /fp/fp-eagain ]; then
		tap_fail eagain_matrix_mpath_resets "no /fp/fp-eagain"
		rc=1
		return
	fi
	head=$(mpath_head)
	[ -n "$head" ] || { tap_fail eagain_matrix_mpath_resets "no multipath head"; rc=1; return; }
	tap_result eagain_matrix_mpath_resets "$(mpath_eagain_cells "$head")"
}
