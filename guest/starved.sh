# Tag-starved I/O, in the guest (sourced by boot.sh, after common.sh): more
# I/Os in flight than the device has tags, so that batched request
# allocation runs short and falls back, with a write/verify pattern, an
# I/O scheduler set and unset and nr_requests changed while it runs.
# Afterwards every tag must be free, the queue must freeze promptly and
# the device must go away.  Sets rc=1 on a failure.

# tags_busy DISK [TYPE]: busy tags and sched_tags over all hctxs of DISK
# (only the hctxs of TYPE: default, read, poll)
tags_busy() {
	local s=0 f b n=0
	for f in /sys/kernel/debug/block/$1/hctx*/tags /sys/kernel/debug/block/$1/hctx*/sched_tags; do
		[ -f "$f" ] || continue
		[ -z "$2" ] || [ "$(cat "${f%/*}/type" 2>/dev/null)" = "$2" ] || continue
		b=$(sed -n 's/^busy=//p' "$f" | head -1)
		# sched_tags is empty without a scheduler
		[ -n "$b" ] || continue
		case $b in *[!0-9]*) echo "?"; return ;; esac
		s=$((s + b)) n=$((n + 1))
	done
	# no tags file read: "?", which no check takes for 0
	[ $n -gt 0 ] && echo $s || echo "?"
}

# the fio job: 4k random writes then a crc32c verify read, QD 64 submitted
# 32 at a time, on /dev/$1; $2 = 1 for polled I/O.  Two jobs, one pinned
# to each CPU, each on its own half of the 16 MiB, so that both CPUs
# allocate from the same tags at once.
starved_fio() {
	fio_verify "$1" "$1" "$2" --size=8M --offset_increment=8M \
		--numjobs=2 --cpus_allowed=0-1 --cpus_allowed_policy=split \
		--iodepth=64 --iodepth_batch_submit=32 --iodepth_batch_complete_min=1
}

# a scheduler set and unset, and nr_requests changed, while fio runs;
# each write freezes the queue and must return within 30 s
starved_churn() {
	local d=/sys/block/$1/queue i set
	for i in 1 2 3; do
		for set in scheduler=mq-deadline nr_requests=8 scheduler=none nr_requests=4; do
			sleep 0.3
			run_timed 30 sh -c "echo ${set#*=} >$d/${set%%=*}" ||
				{ echo "# $1: $set failed or hung"; return 1; }
		done
	done
	return 0
}

T=/sys/kernel/tracing

# fprof_counts: each profiled function's calls so far, summed over the
# CPUs ("FUNC N" lines)
fprof_counts() {
	cat $T/trace_stat/function* 2>/dev/null |
		awk '$2 ~ /^[0-9]+$/ { c[$1] += $2 } END { for (f in c) print f, c[f] }'
}

# fprof_start FUNC...: count the FUNCs' calls from now on, with the
# profiler /init switched on (guest/fprof.sh: FUNC must be in its list);
# fails without it or when the first FUNC is not profiled (the others
# may be absent from this kernel)
fprof_start() {
	[ "$(cat $T/function_profile_enabled 2>/dev/null)" = 1 ] || return 1
	grep -qx "$1" $T/set_ftrace_filter || return 1
	fprof_counts >/tmp/fprof.start
}

# fprof_stop FUNC...: prints each FUNC's calls since fprof_start, in the
# order given; "?" for a FUNC the profiler does not count (not in its
# filter), which no check takes for a number (is_count)
fprof_stop() {
	fprof_counts | awk -v fs="$*" -v st="$(cat /tmp/fprof.start)" \
		-v on="$(cat $T/set_ftrace_filter 2>/dev/null)" '
		BEGIN {
			m = split(on, l, "\n")
			for (i = 1; i <= m; i++) {
				split(l[i], kv, " ")
				prof[kv[1]] = 1
			}
			m = split(st, l, "\n")
			for (i = 1; i <= m; i++) {
				split(l[i], kv, " ")
				s[kv[1]] = kv[2]
			}
		}
		{ c[$1] = $2 }
		END {
			n = split(fs, f, " ")
			for (i = 1; i <= n; i++)
				printf "%s%s", (f[i] in prof) ? c[f[i]] - s[f[i]] : "?", i < n ? " " : "\n"
		}'
}

# ftrace's function profiler on the tag allocators: calls of
# fp_blk_mq_alloc_one_by_one() (a hook of the harness, harness/5.10) are
# requests allocated one by one, calls of blk_mq_get_tag() are attempts
# to (with NOWAIT, io_uring's, they fail when the tags run out), calls of
# blk_mq_get_tags() are batch allocations (absent before the series)
ALLOC_FUNCS="fp_blk_mq_alloc_one_by_one blk_mq_get_tag blk_mq_get_tags"
alloc_counts_start() { fprof_start $ALLOC_FUNCS; }
# prints "ONE_BY_ONE ATTEMPTS BATCH_CALLS"
alloc_counts_stop() { fprof_stop $ALLOC_FUNCS; }

# starved_run NAME DISK POLLED: fio under churn; its exit statuses go to
# /tmp/starved-NAME for starved_report
starved_run() {
	local name=$1 disk=$2 polled=$3 frc crc p0 a0 p1 a1 m0 m1
	p0=$(hctx_queued "$disk" poll) a0=$(hctx_queued "$disk")
	m0=$(awk '{ print $2 + $6 }' /sys/block/$disk/stat)
	starved_fio "$disk" "$polled" &
	local fpid=$!
	starved_churn "$disk"
	crc=$?
	wait_until 180 not_running $fpid || crc="$crc, fio still running 180 s after the churn"
	kill -KILL $fpid 2>/dev/null
	wait $fpid
	frc=$?
	p1=$(hctx_queued "$disk" poll) a1=$(hctx_queued "$disk")
	m1=$(awk '{ print $2 + $6 }' /sys/block/$disk/stat)
	# requests on the poll hctxs, on the others, bios merged into requests
	echo "$frc $((p1 - p0)) $((a1 - a0 - (p1 - p0))) $((m1 - m0)) $crc" >/tmp/starved-$name
}

# starved_report NAME DISK: the checks, once every run on DISK's tags has
# ended (with a shared tag set the tags are busy while any device of the
# set has I/O in flight)
starved_report() {
	local name=$1 disk=$2 frc crc busy pq oq mq
	read -r frc pq oq mq crc </tmp/starved-$name
	busy=$(tags_busy "$disk")
	echo "# $name: fio exit $frc, churn $crc, busy tags afterwards $busy, requests on the poll hctxs $pq, on the others $oq, merges $mq"
	if [ $frc != 0 ]; then
		tail -5 /tmp/fio-$disk.out
		tap_fail "$name" "fio failed ($frc)"
		rc=1
	elif [ "$crc" != 0 ]; then
		tap_fail "$name" "a queue freeze did not complete ($crc)"
		rc=1
	elif [ "${name%_polled}" != "$name" ] && { [ $((pq + mq)) -lt 8000 ] || [ "$oq" != 0 ]; }; then
		# 8192 hipri I/Os (requests + merges), the ones io-wq reissued
		# after -EAGAIN too: none may land on another hctx.  (hctx
		# "queued" is a plain increment that two CPUs allocating on one
		# hctx can lose: a few short of 8192 is no proof of anything.)
		tap_fail "$name" "not all polled: $pq requests on the poll hctxs ($mq merges), $oq on the others"
		rc=1
	elif [ "${name%_irq}" != "$name" ] && [ "$pq" != 0 ]; then
		tap_fail "$name" "$pq requests of unpolled I/O on the poll hctxs"
		rc=1
	elif [ "$busy" != 0 ]; then
		tap_fail "$name" "$busy tags still busy"
		rc=1
	else
		tap_ok "$name"
	fi
}

# null_blk, 8 tags per queue, polled and not, each device on its own tags
# (batched allocation applies), or sharing one tag set when the boot has
# null_blk.shared_tags=1 (batching is refused then, one by one it is)
starved_nullb() {
	local shared=n kind a b
	[ "$(cat /sys/module/null_blk/parameters/shared_tags 2>/dev/null)" = Y ] && shared=y
	kind=own-tags
	[ $shared = y ] && kind=shared-tags
	a=$(nullb_create starved_a irqmode=1 size=64 memory_backed=1 hw_queue_depth=8 poll_queues=1 2>/dev/null)
	case $? in
	0) ;;
	2) tap_skip "nullb_starved_$kind" "null_blk has no poll_queues attribute"; return ;;
	*) tap_fail "nullb_starved_$kind" "could not create a null_blk device"; rc=1; return ;;
	esac
	b=$(nullb_create starved_b irqmode=1 size=64 memory_backed=1 hw_queue_depth=8 poll_queues=1 2>/dev/null) ||
		{ tap_fail "nullb_starved_$kind" "second device"; rc=1; return; }
	starved_run "nullb_starved_${kind}_polled" "$a" 1 &
	local p1=$!
	starved_run "nullb_starved_${kind}_irq" "$b" 0
	wait $p1
	starved_report "nullb_starved_${kind}_polled" "$a"
	starved_report "nullb_starved_${kind}_irq" "$b"
	if run_timed 30 nullb_remove starved_a && run_timed 30 nullb_remove starved_b; then
		tap_ok "nullb_starved_${kind}_remove"
	else
		tap_fail "nullb_starved_${kind}_remove" "removing the devices hung or failed"
		rc=1
	fi
}

# the NVMe poll queue, when the boot made its queues short
# (nvme.io_queue_depth=16)
starved_nvme() {
	local dev depth
	dev=$(nvme_plain) ||
		{ tap_skip nvme_starved_polled "no plain NVMe namespace"; return; }
	depth=$(cat /sys/module/nvme/parameters/io_queue_depth 2>/dev/null)
	[ -n "$depth" ] && [ "$depth" -le 16 ] ||
		{ tap_skip nvme_starved_polled "NVMe queues of $depth entries, not starved"; return; }
	[ "$(cat /sys/block/$dev/queue/io_poll)" = 1 ] ||
		{ tap_skip nvme_starved_polled "/dev/$dev has no poll queues"; return; }
	starved_run "nvme_starved_polled" "$dev" 1
	starved_report "nvme_starved_polled" "$dev"
}

# The share of requests allocated one by one in a tag-starved polled
# randread (null_blk, 48 tags, QD 64 submitted and reaped 32 at a time,
# no churn):
# reported always; on a kernel with batched allocation the batch must
# have been used.
starved_alloc_counts() {
	local d q0 q1 one tries batch frc hipri=1 name=nullb_starved_alloc_counts
	# vanilla 5.10 has no null_blk poll queues: not polled there, and the
	# result carries another name, which no manifest of a polling kernel
	# lists
	d=$(nullb_create starved_c irqmode=1 size=64 memory_backed=1 hw_queue_depth=48 poll_queues=1 2>/dev/null)
	case $? in
	0) ;;
	2)
		hipri=0 name=nullb_starved_alloc_counts_not_polled
		d=$(nullb_create starved_c irqmode=1 size=64 memory_backed=1 hw_queue_depth=48) ||
			{ tap_fail $name "no null_blk device"; rc=1; return; }
		;;
	*) tap_fail $name "could not create a null_blk device"; rc=1; return ;;
	esac
	fio_fill "$d" 64M
	if ! alloc_counts_start; then
		tap_skip $name "no ftrace function profiler"
		nullb_remove starved_c
		return
	fi
	q0=$(hctx_queued "$d")
	fio --name=randread --filename=/dev/$d --ioengine=io_uring --hipri=$hipri \
		--direct=1 --rw=randread --bs=4k --iodepth=64 --iodepth_batch_submit=32 \
		--iodepth_batch_complete_min=32 --number_ios=8192 --size=64M \
		--output-format=terse >/tmp/fio-counts.out 2>&1
	frc=$?
	q1=$(hctx_queued "$d")
	set -- $(alloc_counts_stop)
	one=$1 tries=$2 batch=$3
	echo "# alloc counts: $((q1 - q0)) requests, $one allocated one by one ($tries blk_mq_get_tag calls), $batch blk_mq_get_tags calls"
	echo "ALLOC-COUNTS hipri=$hipri requests=$((q1 - q0)) one_by_one=$one get_tag_calls=$tries get_tags_calls=$batch"
	# (a few random reads may merge in the plug: not quite 8192 requests)
	if [ $frc != 0 ]; then
		tail -3 /tmp/fio-counts.out
		tap_fail $name "fio failed ($frc)"
		rc=1
	elif ! is_count "$one" || [ $((q1 - q0)) -lt 8000 ] || [ "$one" -gt $((q1 - q0)) ]; then
		tap_fail $name "only $((q1 - q0)) requests"
		rc=1
	elif ! grep -q " blk_mq_get_tags$" /proc/kallsyms; then
		# the manifest says where that is right (base): never on the series
		tap_skip $name "no batched tag allocation (blk_mq_get_tags) in this kernel"
	elif ! is_count "$batch" || [ "$batch" = 0 ]; then
		tap_fail $name "batched allocation never ran ($batch)"
		rc=1
	else
		tap_ok $name
	fi
	nullb_remove starved_c
}

# Large polled reads in a plugged batch (NVMe, 128 KiB, QD 32 submitted
# 32 at a time): blk-mq flushes the plug at every request of 128 KiB or
# more, and that flush must keep the requests the batch allocated ahead
# for the bios still to come.  Counts as in starved_alloc_counts; on a
# kernel with batched allocation at most a quarter of the requests may
# be allocated one by one (when the flush dropped them: nearly all).
plug_large_alloc_counts() {
	local dev q0 q1 one tries batch frc name=nvme_plug_128k_alloc_counts
	dev=$(nvme_plain) || { tap_fail $name "no NVMe namespace"; rc=1; return; }
	alloc_counts_start || { tap_fail $name "no ftrace function profiler"; rc=1; return; }
	q0=$(hctx_queued "$dev" poll)
	fio --name=large --filename=/dev/$dev --ioengine=io_uring --hipri=1 \
		--direct=1 --rw=randread --bs=128k --iodepth=32 --iodepth_batch_submit=32 \
		--iodepth_batch_complete_min=32 --number_ios=2048 --size=256M \
		--output-format=terse >/tmp/fio-large.out 2>&1
	frc=$?
	q1=$(hctx_queued "$dev" poll)
	set -- $(alloc_counts_stop)
	one=$1 tries=$2 batch=$3
	echo "# 128k plug: $((q1 - q0)) polled requests, $one allocated one by one ($tries blk_mq_get_tag calls), $batch blk_mq_get_tags calls"
	if [ $frc != 0 ]; then
		tail -3 /tmp/fio-large.out
		tap_fail $name "fio failed ($frc)"
		rc=1
	elif [ $((q1 - q0)) -lt 2000 ]; then
		tap_fail $name "only $((q1 - q0)) requests on the poll queue"
		rc=1
	elif ! grep -q " blk_mq_get_tags$" /proc/kallsyms; then
		tap_skip $name "no batched tag allocation (blk_mq_get_tags) in this kernel"
	elif ! is_count "$one" || [ "$one" -gt $(((q1 - q0) / 4)) ]; then
		tap_fail $name "$one of $((q1 - q0)) requests allocated one by one"
		rc=1
	else
		tap_ok $name
	fi
}

# hctx_active DISK: the requests DISK's hctxs count as active on a shared
# tag set (debugfs hctx*/active: what hctx_may_queue() divides the tags by)
hctx_active() {
	local s=0 f v
	for f in /sys/kernel/debug/block/$1/hctx*/active; do
		[ -f "$f" ] || continue
		v=$(cat "$f")
		s=$((s + ${v:-0}))
	done
	echo $s
}

# Batched polled completion on a shared tag set (the starved boot: one
# null_blk tag set, 8 tags per hardware queue, for all devices).  Polled
# io_uring reads on two devices at once, 32 in flight on each: the two
# poll hardware queues share 8 tags, 4 each while both are busy, so
# io_uring's NOWAIT allocations fail, and its io-wq workers issue those
# reads and sleep for a tag.  Every tag of the poll hardware queue is
# freed by a poller's completion batch, so the sleepers depend on the
# batches' wake-ups: both runs must end within 2 minutes, with batches
# (blk_mq_end_request_batch() calls) and sleeping workers
# (io_wq_worker_sleeping() calls); afterwards no tag is busy and no
# request still counts as active (a batch that forgot to count its
# requests out starves its queue: mainline's block/005 hang).
shared_tags_batched() {
	local name=nullb_shared_tags_batched a b pa prc src d waits batches busy act
	[ "$(cat /sys/module/null_blk/parameters/shared_tags 2>/dev/null)" = Y ] ||
		{ tap_skip $name "null_blk.shared_tags is not set"; return; }
	a=$(nullb_create shb_a irqmode=1 size=64 memory_backed=1 poll_queues=1 2>/dev/null)
	case $? in
	0) ;;
	2) tap_skip $name "null_blk has no poll_queues attribute"; return ;;
	*) tap_fail $name "could not create a null_blk device"; rc=1; return ;;
	esac
	b=$(nullb_create shb_b irqmode=1 size=64 memory_backed=1 poll_queues=1 2>/dev/null) ||
		{ tap_fail $name "second device"; rc=1; nullb_remove shb_a; return; }
	for d in $a $b; do
		fio_fill "$d" 16M
	done
	fprof_start io_wq_worker_sleeping blk_mq_end_request_batch ||
		{ tap_fail $name "no ftrace function profiler"; rc=1; return; }
	shb_fio() {
		run_timed 120 fio --name=shb-$1 --filename=/dev/$1 --ioengine=io_uring \
			--hipri=1 --direct=1 --rw=randread --bs=4k --size=16M \
			--iodepth=32 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8 \
			--number_ios=20000 >/tmp/fio-shb-$1.out 2>&1
	}
	shb_fio "$a" &
	pa=$!
	shb_fio "$b"
	src=$?
	wait $pa
	prc=$?
	set -- $(fprof_stop io_wq_worker_sleeping blk_mq_end_request_batch)
	waits=$1 batches=$2
	busy=$(tags_busy "$a")+$(tags_busy "$b")
	is_count "${busy%+*}" && is_count "${busy#*+}" && busy=$((busy))
	act=$(($(hctx_active "$a") + $(hctx_active "$b")))
	echo "# fio exit $prc and $src; $batches batches, $waits io-wq sleeps; afterwards $busy tags busy, $act requests active"
	if [ $prc != 0 ] || [ $src != 0 ]; then
		tail -3 /tmp/fio-shb-$a.out /tmp/fio-shb-$b.out | sed 's/^/# /'
		tap_fail $name "fio failed or hung (exit $prc, $src)"
		rc=1
	elif ! is_count "$batches" || ! is_count "$waits" || [ "$batches" = 0 ] || [ "$waits" = 0 ]; then
		tap_fail $name "no batched completion ($batches) or no io-wq worker slept ($waits)"
		rc=1
	elif [ "$busy" != 0 ] || [ "$act" != 0 ]; then
		tap_fail $name "$busy tags busy, $act requests still active"
		rc=1
	else
		tap_ok $name
	fi
	run_timed 30 nullb_remove shb_a && run_timed 30 nullb_remove shb_b ||
		{ tap_fail ${name}_remove "removing the devices hung or failed"; rc=1; }
}
