# A plug's requests handed to null_blk's ->queue_rqs() in one call, in
# the guest (sourced by boot.sh after common.sh and starved.sh; the poll
# boot).  Each case proves that the calls happened and carried batches
# (the function profiler's count of null_queue_rqs() against the requests
# the device's hctxs took), that the data came back as written, and that
# no tag was left busy; polled I/O must have been counted on the poll
# hctx.  Under an elevator no request may go that way.  A device
# throttled by null_blk's mbps refuses part of each batch
# (BLK_STS_DEV_RESOURCE): those requests must be issued again the usual
# way (blk_mq_sched_insert_requests()) and nothing may be lost.  Sets
# rc=1 on a failure.

# qrs_fio NAME DEV HIPRI SIZE: write + verify of SIZE at QD 32, all 32
# reaped, then submitted, at once, polled if HIPRI is 1, bounded to 120 s.  Sets QRS_RC (fio's
# exit status), QRS_CALLS (null_queue_rqs() calls), QRS_INSERTS
# (blk_mq_sched_insert_requests() calls), QRS_REQS (requests the hctxs of
# DEV took), QRS_POLL (those the poll hctx took) and QRS_T0, QRS_T1 (the
# job's start and end, seconds of uptime).
qrs_fio() {
	local q0 p0 c
	q0=$(hctx_queued "$2") p0=$(hctx_queued "$2" poll)
	fprof_start null_queue_rqs || { QRS_RC=-1; return; }
	QRS_T0=$(cut -d' ' -f1 /proc/uptime)
	run_timed 120 fio_verify "$1" "$2" "$3" --size="$4" --iodepth=32 \
		--iodepth_batch_submit=32 --iodepth_batch_complete_min=32
	QRS_RC=$?
	QRS_T1=$(cut -d' ' -f1 /proc/uptime)
	c=$(fprof_stop null_queue_rqs blk_mq_sched_insert_requests)
	QRS_CALLS=${c% *} QRS_INSERTS=${c#* }
	QRS_REQS=$(($(hctx_queued "$2") - q0))
	QRS_POLL=$(($(hctx_queued "$2" poll) - p0))
	echo "# $1 /dev/$2: fio exit $QRS_RC in $(echo "$QRS_T0 $QRS_T1" |
		awk '{ printf "%.1f", $2 - $1 }') s, $QRS_REQS requests ($QRS_POLL polled)," \
		"$QRS_CALLS null_queue_rqs() calls, $QRS_INSERTS blk_mq_sched_insert_requests() calls"
}

# qrs_why NAME HIPRI: what is wrong with the last qrs_fio run of a device
# without an elevator (empty when nothing is)
qrs_why() {
	local why=
	if [ "$QRS_RC" = -1 ]; then
		echo "no ftrace function profiler on null_queue_rqs"
		return
	fi
	[ "$QRS_RC" = 0 ] || why="$(fio_failure "$1" "$QRS_RC")"
	[ "$QRS_REQS" -gt 0 ] || why="${why:+$why; }no request counted"
	# fio's batches of 32 reach the driver as plugs of many requests
	[ "$QRS_CALLS" -gt 0 ] && [ $((QRS_CALLS * 8)) -le "$QRS_REQS" ] ||
		why="${why:+$why; }$QRS_CALLS null_queue_rqs() calls for $QRS_REQS requests"
	[ "$2" = 0 ] || [ "$QRS_POLL" = "$QRS_REQS" ] ||
		why="${why:+$why; }$QRS_POLL of $QRS_REQS requests on the poll hctx"
	echo "$why"
}

# qrs_nullb NAME MODE [ATTR=VALUE...]: a memory-backed null_blk of 64 MiB
# with two submit queues and no scheduler, polled (MODE poll: irqmode=0
# and a poll queue) or completed in the block softirq (MODE softirq:
# irqmode=1), with the ATTRs given; prints its disk name
qrs_nullb() {
	local name=$1 mode=$2 nb
	shift 2
	if [ "$mode" = poll ]; then
		set -- irqmode=0 poll_queues=1 "$@"
	else
		set -- irqmode=1 "$@"
	fi
	nb=$(nullb_create "$name" submit_queues=2 size=64 memory_backed=1 "$@") || return 1
	echo none >/sys/block/"$nb"/queue/scheduler || { nullb_remove "$name"; return 1; }
	echo "$nb"
}

# qrs_end NAME DISK: the device made by qrs_nullb NAME removed; prints what
# went wrong (tags left busy, a removal that hung or failed)
qrs_end() {
	local f why=
	f=$(tags_busy "$2")
	[ "$f" = 0 ] || why="$f tags still busy"
	run_timed 30 nullb_remove "$1" || why="${why:+$why; }removing the device hung or failed"
	echo "$why"
}

# qrs_skip NAME: true (and the test skipped) without null_queue_rqs()
qrs_skip() {
	grep -qw null_queue_rqs /proc/kallsyms && return 1
	tap_skip "$1" "no null_queue_rqs() in this kernel"
}

# nullb_queue_rqs: polled and softirq-completed null_blk, none and
# mq-deadline
nullb_queue_rqs() {
	local name=nullb_queue_rqs why= mode nb hipri f
	qrs_skip $name && return
	for mode in poll softirq; do
		hipri=0
		[ $mode = softirq ] || hipri=1
		nb=$(qrs_nullb qrs-$mode $mode) ||
			{ why="${why:+$why; }$mode: could not make a null_blk device without a scheduler"; continue; }
		qrs_fio qrs-$mode "$nb" $hipri 8M
		f=$(qrs_why qrs-$mode $hipri)
		[ -z "$f" ] || why="${why:+$why; }$mode: $f"
		# nothing refused: no request went the usual way
		[ "$QRS_INSERTS" = 0 ] ||
			why="${why:+$why; }$mode: $QRS_INSERTS blk_mq_sched_insert_requests() calls unthrottled"
		if echo mq-deadline >/sys/block/"$nb"/queue/scheduler; then
			qrs_fio qrs-$mode-dl "$nb" $hipri 4M
			[ "$QRS_RC" = 0 ] ||
				why="${why:+$why; }$mode, mq-deadline: $(fio_failure qrs-$mode-dl "$QRS_RC")"
			[ "$QRS_CALLS" = 0 ] ||
				why="${why:+$why; }$mode, mq-deadline: $QRS_CALLS null_queue_rqs() calls"
		else
			why="${why:+$why; }$mode: cannot set mq-deadline"
		fi
		f=$(qrs_end qrs-$mode "$nb")
		[ -z "$f" ] || why="${why:+$why; }$mode: $f"
	done
	tap_result $name "$why"
}

# nullb_queue_rqs_throttled: the same at 2 MiB/s (mbps=2), polled and by
# softirq: 8 MiB of writes and reads take 4 s, and every batch that
# exhausts the budget leaves requests for the usual way.  The same job
# on the same device unthrottled first: the throttled one must take at
# least 1 s longer (and 3 s in all)
nullb_queue_rqs_throttled() {
	local name=nullb_queue_rqs_throttled why= mode nb hipri f tu
	qrs_skip $name && return
	for mode in poll softirq; do
		hipri=0
		[ $mode = softirq ] || hipri=1
		tu=
		if nb=$(qrs_nullb qru-$mode $mode); then
			qrs_fio qru-$mode "$nb" $hipri 4M
			[ "$QRS_RC" != 0 ] || tu=$(echo "$QRS_T0 $QRS_T1" | awk '{ print $2 - $1 }')
			f=$(qrs_end qru-$mode "$nb")
			[ -z "$f" ] || why="${why:+$why; }$mode, unthrottled: $f"
		fi
		[ -n "$tu" ] || { why="${why:+$why; }$mode: the unthrottled job failed"; continue; }
		nb=$(qrs_nullb qrt-$mode $mode mbps=2) ||
			{ why="${why:+$why; }$mode: could not make a null_blk device without a scheduler"; continue; }
		qrs_fio qrt-$mode "$nb" $hipri 4M
		f=$(qrs_why qrt-$mode $hipri)
		[ -z "$f" ] || why="${why:+$why; }$mode: $f"
		[ "$QRS_INSERTS" -gt 0 ] ||
			why="${why:+$why; }$mode: no refused request issued the usual way"
		# 8 MiB at 2 MiB/s: the throttle must have held the job back
		echo "$QRS_T0 $QRS_T1 $tu" | awk '{ exit !($2 - $1 >= 3 && $2 - $1 >= $3 + 1) }' ||
			why="${why:+$why; }$mode: done in $(echo "$QRS_T0 $QRS_T1" | awk '{ print $2 - $1 }') s, $tu s unthrottled: not throttled"
		f=$(qrs_end qrt-$mode "$nb")
		[ -z "$f" ] || why="${why:+$why; }$mode: $f"
	done
	tap_result $name "$why"
}
