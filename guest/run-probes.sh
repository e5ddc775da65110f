# make bench, in the guest: sh run-probes.sh MODE RUNS SECONDS [SET [PROBES]]
# Prints "RESULT <probe> <value> <unit>" for each run of each probe, and
# "NOTE <probe> <text>" where a probe runs differently on this kernel.
# SET: main (default), or the multipath boots: "mpath" (the head of a
# two-controller subsystem) and "mpath-single" (the same subsystem with
# nvme_core.multipath=N: one controller's namespace, no head).  PROBES:
# an extended regex, only the probes whose names match it run.
. /fp/common.sh
mode=$1 runs=$2 secs=$3 set=${4:-main} probes=${5:-.}

# want PROBE: true if PROBE is to run
want() {
	echo "$1" | grep -Eq -- "$probes"
}

# run PROBE COMMAND...: RUNS times, the result renamed PROBE.  A run
# that raised NVMe interrupts was not polled: under icount its rate means
# nothing (the guest clock jumps while it waits), so it is left out.
run() {
	local probe=$1 i i0 out n irqs
	shift
	want "$probe" || return 0
	for i in $(seq "$runs"); do
		i0=$(nvme_irqs)
		out=$("$@" | sed -n "s/^RESULT [^ ]* /RESULT $probe /p")
		# (a run slowed to timer ticks raises few interrupts, but
		# about one per I/O: more than a quarter of its I/Os counts)
		n=$(echo "$out" | awk '{ print int($3) }')
		irqs=$(($(nvme_irqs) - i0))
		if [ "$mode" = icount ] && { [ $irqs -gt 64 ] ||
			[ $((irqs * 4)) -gt $((${n:-0} * secs)) ]; }; then
			echo "NOTE $probe completed by interrupt, not polled: left out of icount"
			continue
		fi
		echo "$out"
	done
}

# polled 4k randread through the multipath head, and on one path alone
if [ "$set" = mpath ] || [ "$set" = mpath-single ]; then
	if [ "$set" = mpath ]; then
		probe=mpath-head-4k
		d=$(mpath_head)
	else
		probe=mpath-single-4k
		d=$(ls -d /sys/block/nvme*n* 2>/dev/null | head -1)
		d=${d##*/}
	fi
	if [ -n "$d" ] && [ "$(cat /sys/block/$d/queue/io_poll)" = 1 ]; then
		echo "# $probe on /dev/$d"
		run $probe /fp/fp-bench uring /dev/$d 4096 128 32 32 "$secs" poll
	else
		echo "NOTE $probe /dev/$d cannot poll (io_poll=0): not measured"
	fi
	exit 0
fi

# tiouring DEV BS [poll]: fio's t/io_uring (scripts/t-io_uring.sh) as
# fp-bench uring runs: QD 128, batches of 32, fixed buffers, registered
# files.  It prints IOPS once a second; the first second is left out.
tiouring() {
	local p=0
	[ "${3:-}" = poll ] && p=1
	/fp/t-io_uring -d128 -s32 -c32 -b"$2" -p$p -B1 -F1 -n1 -O1 -P0 \
		-r$((secs + 2)) "/dev/$1" | awk '
		/^IOPS=/ {
			v = $1; sub(/^IOPS=/, "", v); sub(/,$/, "", v)
			m = v ~ /K$/ ? 1e3 : v ~ /M$/ ? 1e6 : 1
			if (++n > 1) { sum += v * m; k++ }
		}
		END { if (k) printf "RESULT t-io_uring %.1f IOPS\n", sum / k }'
}

# nops: pure io_uring cost
for b in 1 8 32; do
	run nop-b$b /fp/fp-bench nop "$b" "$secs"
done

# null_blk: polled where the kernel has poll queues, else irqmode=0
common="irqmode=0 size=1024 blocksize=512 memory_backed=0"
if nb=$(nullb_create fast $common hw_queue_depth=256 poll_queues=1); then
	nbs=$(nullb_create starved $common hw_queue_depth=48 poll_queues=1)
	pollarg=poll
	q0=$(hctx_queued "$nb" poll)
else
	nb=$(nullb_create fast $common hw_queue_depth=256)
	nbs=$(nullb_create starved $common hw_queue_depth=48)
	pollarg=
	for p in nullb-4k nullb-512 nullb-starved-4k nullb-128k nullb-1m \
		t-io_uring-nullb-4k; do
		echo "NOTE $p no null_blk poll queues in this kernel: irqmode=0, not polled"
	done
fi
run nullb-4k /fp/fp-bench uring /dev/$nb 4096 128 32 32 "$secs" $pollarg
run nullb-512 /fp/fp-bench uring /dev/$nb 512 128 32 32 "$secs" $pollarg
run nullb-starved-4k /fp/fp-bench uring /dev/$nbs 4096 128 32 32 "$secs" $pollarg
run nullb-128k /fp/fp-bench uring /dev/$nb 131072 32 32 32 "$secs" $pollarg
run nullb-1m /fp/fp-bench uring /dev/$nb 1048576 8 8 8 "$secs" $pollarg
run t-io_uring-nullb-4k tiouring "$nb" 4096 $pollarg
if [ -n "$pollarg" ]; then
	echo "# /dev/$nb io_poll=$(cat /sys/block/$nb/queue/io_poll) poll hctx queued +$(($(hctx_queued "$nb" poll) - q0))"
fi

# interrupt-driven null_blk: completed by the block softirq (irqmode=1;
# one submit queue, so every completion goes through BLOCK_SOFTIRQ) and
# by a per-request hrtimer of 1 us (irqmode=2).  Both complete in guest
# time, so under icount they repeat like the polled probes.  With one
# hardware queue the device gets mq-deadline; the probes measure the
# block layer without a scheduler, as fio runs on null_blk do.
for m in softirq:1 timer:2; do
	name=${m%:*}
	d=$(nullb_create "$name" size=1024 blocksize=512 memory_backed=0 \
		hw_queue_depth=256 submit_queues=1 irqmode=${m#*:} completion_nsec=1000) ||
		{ echo "NOTE nullb-$name-4k cannot create null_blk irqmode=${m#*:}"; continue; }
	echo none >/sys/block/$d/queue/scheduler
	for bs in 4096 131072; do
		p=nullb-$name-$((bs / 1024))k
		run $p /fp/fp-bench uring /dev/$d $bs 128 32 32 "$secs"
		run $p-plain /fp/fp-bench uring /dev/$d $bs 128 32 32 "$secs" plain
		run aio-$p /fp/fp-bench aio /dev/$d $bs 128 32 32 "$secs"
		run psync-$p /fp/fp-bench psync /dev/$d $bs "$secs"
	done
	run t-io_uring-nullb-$name-4k tiouring "$d" 4096
	nullb_remove "$name"
done

# NVMe poll queue
dev=$(nvme_plain)
# NVMe by interrupt: its completions wait on QEMU in host time, so the
# icount rate means nothing; wall mode pairs the labels instead
if [ "$mode" = wall ]; then
	run nvme-irq-4k /fp/fp-bench uring /dev/$dev 4096 128 32 32 "$secs"
	run nvme-irq-128k /fp/fp-bench uring /dev/$dev 131072 32 32 32 "$secs"
	run nvme-irq-1m /fp/fp-bench uring /dev/$dev 1048576 8 8 8 "$secs"
	run t-io_uring-nvme-irq-4k tiouring "$dev" 4096
fi
if [ "$(cat /sys/block/$dev/queue/io_poll)" = 1 ]; then
	run nvme-4k /fp/fp-bench uring /dev/$dev 4096 128 32 32 "$secs" poll
	run nvme-128k /fp/fp-bench uring /dev/$dev 131072 32 32 32 "$secs" poll
	run t-io_uring-nvme-4k tiouring "$dev" 4096 poll
	run pvsync2-nvme-4k /fp/fp-bench pvsync2 /dev/$dev 4096 "$secs"
	for i in $(want fio-nvme-4k && seq "$runs"); do
		fio --name=randread --filename=/dev/$dev --ioengine=io_uring \
			--hipri=1 --fixedbufs=1 --registerfiles=1 --rw=randread \
			--bs=4k --iodepth=128 --iodepth_batch_submit=32 \
			--iodepth_batch_complete_min=32 \
			--iodepth_batch_complete_max=128 --iodepth_low=32 \
			--direct=1 --time_based --runtime="$secs" --ramp_time=0 \
			--output-format=json >/tmp/fio.json 2>/tmp/fio.err ||
			{ cat /tmp/fio.err; continue; }
		awk '/"read" :/ { r = 1 } r && /"iops" :/ { gsub(/[,]/, ""); print "RESULT fio-nvme-4k " $3 " IOPS"; r = 0 }
		     /"sys_cpu" :/ { gsub(/[,]/, ""); print "RESULT fio-nvme-4k-sys " $3 " %" }' /tmp/fio.json
	done
else
	echo "NOTE nvme-4k no NVMe poll queue"
fi

# polled 4 KiB through dm-linear over the whole namespace, as LVM lays a
# volume on NVMe: beside nvme-4k of the same boot (bench-report prints
# the ratio).  A kernel whose dm cannot poll (io_poll=0) is not measured.
if want dm-linear-nvme-4k; then
	if dm=$(dm_make fpbench "0 $(cat /sys/block/$dev/size) linear /dev/$dev 0"); then
		if [ "$(cat /sys/block/${dm#/dev/}/queue/io_poll)" = 1 ]; then
			q0=$(hctx_queued "$dev" poll)
			run dm-linear-nvme-4k /fp/fp-bench uring "$dm" 4096 128 32 32 "$secs" poll
			echo "# $dm (dm-linear on /dev/$dev) poll hctx queued +$(($(hctx_queued "$dev" poll) - q0))"
		else
			echo "NOTE dm-linear-nvme-4k dm-linear cannot poll here (io_poll=0): not measured"
		fi
		dm_gone fpbench
	else
		echo "NOTE dm-linear-nvme-4k no dm-linear device: not measured"
	fi
fi
nullb_remove fast
nullb_remove starved
exit 0
