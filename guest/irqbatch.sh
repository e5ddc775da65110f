# Completion batching and the bio cache without polling, in the guest
# (sourced by boot.sh after common.sh and starved.sh; the nopoll boot: an
# NVMe without poll queues): the NVMe interrupt handler (patch 64) and
# null_blk's block softirq (patch 65) end what they find as one
# blk_mq_end_request_batch(), and io_uring's and libaio's bios come from
# the per-CPU cache that interrupts and softirqs refill (patches 66, 67);
# a softirq raised while issuing runs without ksoftirqd (patch 68).
# Each case proves its I/O came by interrupt or softirq, that the batches
# formed (the function profiler's count of blk_mq_end_request_batch()),
# and that nothing was lost on the way: data verified, every error the
# device raised reached the application as its errno and nothing else
# failed, no tag left busy.  Sets rc=1 on a failure.

# irq_fio NAME DEV QD SIZE [FIO-OPTIONS...]: write + verify without
# polling, QD in flight, submitted up to 32 at a time; bounded to 120 s
irq_fio() {
	local name=$1 dev=$2 qd=$3 size=$4 b=$3
	shift 4
	[ "$b" -le 32 ] || b=32
	run_timed 120 fio_verify "$name" "$dev" 0 --size="$size" --iodepth="$qd" \
		--iodepth_batch_submit="$b" --iodepth_batch_complete_min=1 "$@"
}

# irq_reads NAME DEV QD SIZE [FIO-OPTIONS...]: one random read of each
# 4 KiB block of SIZE at QD, errors counted, not fatal; the json output
# is in /tmp/fio-NAME.out
irq_reads() {
	local name=$1 dev=$2 qd=$3 size=$4
	shift 4
	run_timed 120 fio --name="$name" --filename=/dev/"$dev" --ioengine=io_uring \
		--direct=1 --rw=randread --bs=4k --size="$size" --iodepth="$qd" \
		--iodepth_batch_submit=32 --iodepth_batch_complete_min=1 \
		--continue_on_error=all "$@" --output-format=json >/tmp/fio-"$name".out 2>&1
}

# fio_json NAME KEY: the first integer value of KEY in /tmp/fio-NAME.out
fio_json() {
	sed -n "s/^ *\"$2\" : \([0-9-]*\),*$/\1/p" /tmp/fio-"$1".out | head -1
}

# batched_fio NAME DEV QD SIZE [FIO-OPTIONS...]: irq_fio, counting what
# it did: FIO_RC its exit status, REQS the requests DEV's hctxs took,
# BATCHES the blk_mq_end_request_batch() calls and SINGLES the
# blk_mq_end_request() calls (a request ended on its own, outside a
# batch) (the profiler's counts)
batched_fio() {
	local q0 c
	q0=$(hctx_queued "$2")
	fprof_start blk_mq_end_request_batch
	irq_fio "$@"
	FIO_RC=$?
	c=$(fprof_stop blk_mq_end_request_batch blk_mq_end_request)
	BATCHES=${c% *} SINGLES=${c#* }
	REQS=$(($(hctx_queued "$2") - q0))
}

# nullb_softirq NAME: a memory-backed null_blk of 64 MiB completed in
# the block softirq (irqmode=1, one submit queue), no scheduler; prints
# its disk name
nullb_softirq() {
	local nb
	nb=$(nullb_create "$1" irqmode=1 submit_queues=1 size=64 memory_backed=1 2>/dev/null) &&
		echo none >/sys/block/"$nb"/queue/scheduler && echo "$nb"
}

# batch_check NAME REQS BATCHES SINGLES: REQS requests ended in BATCHES
# blk_mq_end_request_batch() calls and SINGLES blk_mq_end_request()
# calls must have formed batches: at least one, more requests than
# batches (some batch held two or more), and most requests ended in one
# (SINGLES at most REQS/8; under TCG an interrupt finds one or two
# completions, so a batch holds two on average, not more)
batch_check() {
	is_count "$3" && is_count "$4" ||
		{ echo "no count of batches ($3) or single ends ($4)"; return; }
	[ "$3" -gt 0 ] || { echo "no completion batch ($2 requests)"; return; }
	[ "$2" -gt "$3" ] || echo "no batch held more than one request ($2 requests, $3 batches)"
	[ "$4" -le $(($2 / 8)) ] || echo "$4 of $2 requests ended outside a batch"
}

# NVMe by interrupt at QD 1, 32 and 128: every request came on an I/O
# queue with an interrupt, the data verifies, the batches formed (at
# QD 128) and no tag is left busy.
nvme_irq_batched_verify() {
	local name=nvme_irq_batched_verify dev qd why= i0 f
	dev=$(nvme_plain) || { tap_fail $name "no NVMe namespace"; rc=1; return; }
	[ "$(hctx_count "$dev" poll)" = 0 ] || { tap_fail $name "/dev/$dev has poll queues"; rc=1; return; }
	fprof_start blk_mq_end_request_batch ||
		{ tap_fail $name "no ftrace function profiler"; rc=1; return; }
	for qd in 1 32 128; do
		i0=$(nvme_irqs)
		batched_fio irq$qd "$dev" $qd 8M --offset=$((qd / 32 * 8))M
		i0=$(($(nvme_irqs) - i0))
		echo "# QD $qd: fio exit $FIO_RC, $REQS requests, $i0 NVMe interrupts, $BATCHES batches, $SINGLES single ends"
		if [ $FIO_RC != 0 ]; then
			why="${why:+$why; }QD $qd: $(fio_failure irq$qd $FIO_RC)"
			continue
		fi
		[ $REQS -ge 4096 ] || why="${why:+$why; }QD $qd: $REQS requests, not 4096"
		[ $i0 -gt 0 ] || why="${why:+$why; }QD $qd: no NVMe interrupt"
		[ $qd != 128 ] || f=$(batch_check $name $REQS "$BATCHES" "$SINGLES")
		[ $qd != 128 ] || [ -z "$f" ] || why="${why:+$why; }QD $qd: $f"
	done
	f=$(tags_busy "$dev")
	[ "$f" = 0 ] || why="${why:+$why; }$f tags still busy"
	tap_result $name "$why"
}

# NVMe fault injection on the namespace (nvme_should_fail(): a read
# error status with DNR on a fraction of its requests) under random
# reads by interrupt at QD 128: a failed request is ended on its own with
# its error, never in a batch as a success, so fio counts exactly the
# errors injected, all ENODATA (BLK_STS_MEDIUM), and nothing else fails.
nvme_irq_fault_injection() {
	local name=nvme_irq_fault_injection dev fa f left errs bat first why= n=64
	dev=$(nvme_plain) || { tap_fail $name "no NVMe namespace"; rc=1; return; }
	fa=/sys/kernel/debug/$dev/fault_inject
	[ -f $fa/probability ] || { tap_fail $name "no $fa (CONFIG_FAULT_INJECTION_DEBUG_FS)"; rc=1; return; }
	# what is read must have been written
	fio_fill "$dev" 16M --offset=64M
	echo 0 >$fa/verbose
	echo 1 >$fa/interval
	echo 5 >$fa/probability
	echo 0x281 >$fa/status # NVME_SC_READ_ERROR
	echo 1 >$fa/dont_retry
	echo $n >$fa/times
	fprof_start blk_mq_end_request_batch ||
		{ tap_fail $name "no ftrace function profiler"; rc=1; return; }
	# fio goes on after EIO and EILSEQ only, unless told which errnos
	irq_reads fi "$dev" 128 16M --offset=64M --ignore_error=61
	f=$?
	bat=$(fprof_stop blk_mq_end_request_batch)
	left=$(cat $fa/times)
	echo 0 >$fa/probability
	echo -1 >$fa/times
	errs=$(fio_json fi total_err) first=$(fio_json fi first_error)
	echo "# fio exit $f: $errs errors (first errno $first), $((n - left)) injected, $bat batches"
	if [ $f = 124 ]; then
		why="fio still running after 120 s"
	elif [ -z "$errs" ]; then
		why="fio reported no error count (exit $f)"
		tail -5 /tmp/fio-fi.out
	elif [ "$errs" != $((n - left)) ] || [ "$errs" = 0 ]; then
		why="fio saw $errs errors, $((n - left)) were injected"
		grep -m3 -i "error" /tmp/fio-fi.out | sed 's/^/# /'
	elif [ "$first" != 61 ]; then
		why="the first error was errno $first, not ENODATA"
	elif ! is_count "$bat" || [ "$bat" = 0 ]; then
		why="no completion batch ($bat)"
	fi
	f=$(tags_busy "$dev")
	[ "$f" = 0 ] || why="${why:+$why; }$f tags still busy"
	tap_result $name "$why"
}

# The I/O scheduler switched four times while a write + verify job runs
# by interrupt at QD 128 (batched with none, one by one with a scheduler,
# requests of both kinds in flight at each switch): the data verifies,
# no switch hangs, and with none again the completions batch.
nvme_irq_sched_switch() {
	local name=nvme_irq_sched_switch dev s p f why= scheds n=0
	dev=$(nvme_plain) || { tap_fail $name "no NVMe namespace"; rc=1; return; }
	s=/sys/block/$dev/queue/scheduler
	scheds=$(tr -d '[]' <$s)
	case " $scheds " in *" mq-deadline "*) ;; *)
		tap_fail $name "no mq-deadline in $s ($scheds)"; rc=1; return ;;
	esac
	# about 1 s a loop here: the job outlasts the switches
	irq_fio sched "$dev" 128 16M --offset=96M --loops=16 &
	p=$!
	for sch in mq-deadline none mq-deadline none; do
		sleep 1
		running $p || break
		run_timed 30 sh -c "echo $sch >$s" || why="${why:+$why; }switch to $sch failed or hung"
		n=$((n + 1))
	done
	end_job $p 150
	f=$?
	echo "# fio exit $f after $n switches, scheduler $(cat $s)"
	[ $f = 0 ] || why="${why:+$why; }$(fio_failure sched $f)"
	[ $n = 4 ] || why="${why:+$why; }fio ended after $n of 4 switches"
	echo none >$s || why="${why:+$why; }cannot set none"
	batched_fio sched2 "$dev" 128 4M --offset=96M
	echo "# afterwards: fio exit $FIO_RC, $REQS requests, $BATCHES batches, $SINGLES single ends"
	[ $FIO_RC = 0 ] || why="${why:+$why; }afterwards: $(fio_failure sched2 $FIO_RC)"
	f=$(batch_check $name $REQS "$BATCHES" "$SINGLES")
	[ -z "$f" ] || why="${why:+$why; }afterwards: $f"
	tap_result $name "$why"
}

# The controller reset twice under a write + verify job by interrupt at
# QD 128: the requests in flight are retried, the data verifies within
# a bounded time, and nothing but the resets' own messages is printed.
nvme_irq_reset() {
	local name=nvme_irq_reset dev p f why
	dev=$(nvme_plain) || { tap_fail $name "no NVMe namespace"; rc=1; return; }
	irq_fio reset "$dev" 128 16M --offset=128M --loops=2 &
	p=$!
	resets_under_job "$dev" $p
	f=$JOB_RC why=$RESET_WHY
	echo "# fio exit $f"
	[ $f = 0 ] || why="${why:+$why; }$(fio_failure reset $f)"
	f=$(tags_busy "$dev")
	[ "$f" = 0 ] || why="${why:+$why; }$f tags still busy"
	tap_result $name "$why"
}

# badblocks_reads NULLB DEV QD [FIO-OPTIONS...]: 8 bad 4 KiB blocks, 2 MiB
# apart, on the null_blk NULLB (configfs name, disk DEV), scheduler none,
# then one random read of each block of its first 16 MiB at QD
# (irq_reads): exactly the 8 reads of a bad block must fail, the first
# with EIO.  Prints what went wrong, nothing if all went right; its
# "# " lines go to stderr.
badblocks_reads() {
	local nb=$1 dev=$2 qd=$3 b f errs first
	shift 3
	echo none >/sys/block/"$dev"/queue/scheduler
	for b in 0 1 2 3 4 5 6 7; do
		echo "+$((b * 4096 + 8))-$((b * 4096 + 15))" >/sys/kernel/config/nullb/"$nb"/badblocks ||
			{ echo "cannot set bad blocks"; return; }
	done
	irq_reads "$nb"-bad "$dev" "$qd" 16M "$@"
	f=$?
	errs=$(fio_json "$nb"-bad total_err) first=$(fio_json "$nb"-bad first_error)
	echo "# bad blocks: fio exit $f, $errs errors (first errno $first), 8 bad blocks" >&2
	if [ "$errs" != 8 ]; then
		grep -m3 -i "error" /tmp/fio-"$nb"-bad.out | sed 's/^/# /' >&2
		echo "fio saw ${errs:-no} errors, not 8, on 8 bad blocks (exit $f)"
	elif [ "$first" != 5 ]; then
		echo "the first error was errno $first, not EIO"
	fi
}

# the reads of nullb_softirq_no_ksoftirqd: psync at QD 1, from CPU 0
SIRQ_PSYNC="--ioengine=psync --cpus_allowed=0"

# null_blk with irqmode=1 and one submit queue completes in the block
# softirq.  With no scheduler the softirq's requests end in batches
# (patch 65's ->complete_batched), under mq-deadline one by one; both
# verify.  Then bad blocks: each read of a bad sector fails with EIO on
# its own, the others succeed, so fio counts exactly the reads that hit
# them.
nullb_softirq_batched() {
	local name=nullb_softirq_batched nb why= sch f
	nb=$(nullb_softirq sirq) ||
		{ tap_fail $name "could not create a null_blk device"; rc=1; return; }
	fprof_start blk_mq_end_request_batch ||
		{ tap_fail $name "no ftrace function profiler"; rc=1; nullb_remove sirq; return; }
	for sch in none mq-deadline; do
		echo $sch >/sys/block/"$nb"/queue/scheduler ||
			{ why="${why:+$why; }cannot set $sch"; continue; }
		batched_fio sirq-$sch "$nb" 128 16M
		echo "# $sch: fio exit $FIO_RC, $REQS requests, $BATCHES batches, $SINGLES single ends"
		[ $FIO_RC = 0 ] || { why="${why:+$why; }$sch: $(fio_failure sirq-$sch $FIO_RC)"; continue; }
		if [ $sch = none ]; then
			f=$(batch_check $name $REQS "$BATCHES" "$SINGLES")
			[ -z "$f" ] || why="${why:+$why; }none: $f"
		fi
	done
	f=$(badblocks_reads sirq "$nb" 128)
	[ -z "$f" ] || why="${why:+$why; }$f"
	f=$(tags_busy "$nb")
	[ "$f" = 0 ] || why="${why:+$why; }$f tags still busy"
	run_timed 30 nullb_remove sirq || why="${why:+$why; }removing the device hung or failed"
	tap_result $name "$why"
}

# The per-CPU bio cache for I/O that is not polled: random reads by the
# NVMe interrupt (io_uring and libaio) and by null_blk's block softirq
# (io_uring) take their bios from the cache that their completions
# refill, not from the slab: after the first in-flight bios, at most one
# bio_alloc_bioset() call (the function profiler's count) per 8 reads.
# That the profiler counted them is shown by bio_alloc_kiocb(), through
# which every read's bio comes: 4096 calls at least.
irq_bio_cache() {
	local name=irq_bio_cache dev nb why= case eng disk n allocs kiocbs
	dev=$(nvme_plain) || { tap_fail $name "no NVMe namespace"; rc=1; return; }
	nb=$(nullb_softirq bcache) ||
		{ tap_fail $name "could not create a null_blk device"; rc=1; return; }
	for case in io_uring:$dev libaio:$dev io_uring:$nb; do
		eng=${case%%:*} disk=${case#*:}
		fprof_start bio_alloc_bioset ||
			{ why="no ftrace function profiler"; break; }
		run_timed 120 fio --name=bc --filename=/dev/"$disk" --ioengine="$eng" \
			--direct=1 --rw=randread --bs=4k --size=16M --iodepth=32 \
			--iodepth_batch_submit=8 --iodepth_batch_complete_min=1 \
			--output-format=terse >/tmp/fio-bc.out 2>&1
		n=$?
		set -- $(fprof_stop bio_alloc_bioset bio_alloc_kiocb)
		allocs=$1 kiocbs=$2
		echo "# $eng on $disk: fio exit $n, $allocs bio_alloc_bioset() and $kiocbs bio_alloc_kiocb() calls for 4096 reads"
		if [ $n != 0 ]; then
			why="${why:+$why; }$eng on $disk: $(fio_failure bc $n)"
		elif ! is_count "$kiocbs" || [ "$kiocbs" -lt 4096 ]; then
			why="${why:+$why; }$eng on $disk: $kiocbs bio_alloc_kiocb() calls counted for 4096 reads"
		elif ! is_count "$allocs" || [ "$allocs" -gt 512 ]; then
			why="${why:+$why; }$eng on $disk: $allocs bios from the slab for 4096 reads"
		fi
	done
	run_timed 30 nullb_remove bcache || why="${why:+$why; }removing the null_blk device hung or failed"
	tap_result $name "$why"
}

# block_softirqs: BLOCK_SOFTIRQ runs so far, all CPUs
block_softirqs() {
	awk '$1 == "BLOCK:" { for (i = 2; i <= NF; i++) n += $i } END { print n + 0 }' /proc/softirqs
}

# ksoftirqd_switches: the context switches of the ksoftirqd threads so
# far, all CPUs (each run of one is a wakeup and a switch to it)
ksoftirqd_switches() {
	local p n=0
	for p in /proc/[0-9]*; do
		case "$(cat "$p"/comm 2>/dev/null)" in ksoftirqd/*)
			n=$((n + $(awk '/ctxt_switches:/ { s += $2 } END { print s + 0 }' "$p"/status)))
		esac
	done
	echo $n
}

# null_blk completed in the block softirq (irqmode=1, one hardware
# queue, not memory-backed: 5.10's null_blk makes a memory-backed device
# BLK_MQ_F_BLOCKING, whose ->queue_rq() may sleep and which the change
# leaves alone), read with psync at QD 1 from CPU 0, under none (issued
# by fio's task) and mq-deadline (issued by kblockd's worker): each
# completion raises BLOCK_SOFTIRQ from ->queue_rq() in task context.  It
# must run as a softirq (the BLOCK count rises by about one per request)
# without waking ksoftirqd for it: the end of the issue runs it
# (patch 68).  5.10 wakes ksoftirqd for every request, and a QD 1
# reader sleeps until that thread has run.  Then 8 bad blocks: exactly their 8 reads fail, EIO,
# so each status still reaches its reader.
nullb_softirq_no_ksoftirqd() {
	local name=nullb_softirq_no_ksoftirqd nb why= sch f q0 s0 k0 reqs sirqs ksw errs
	nb=$(nullb_create sinl irqmode=1 submit_queues=1 size=64 memory_backed=0 blocking=0) ||
		{ tap_fail $name "could not create a null_blk device"; rc=1; return; }
	for sch in none mq-deadline; do
		echo $sch >/sys/block/"$nb"/queue/scheduler ||
			{ why="${why:+$why; }cannot set $sch"; continue; }
		q0=$(hctx_queued "$nb") s0=$(block_softirqs) k0=$(ksoftirqd_switches)
		irq_reads sinl-$sch "$nb" 1 16M $SIRQ_PSYNC
		f=$?
		reqs=$(($(hctx_queued "$nb") - q0))
		sirqs=$(($(block_softirqs) - s0))
		ksw=$(($(ksoftirqd_switches) - k0))
		echo "# $sch: fio exit $f, $reqs requests, $sirqs block softirqs, $ksw ksoftirqd switches"
		errs=$(fio_json sinl-$sch total_err)
		if [ $f != 0 ] || [ "$errs" != 0 ]; then
			why="${why:+$why; }$sch: fio exit $f, ${errs:-no count of} errors"
		elif [ $reqs -lt 4096 ]; then
			why="${why:+$why; }$sch: $reqs requests, not 4096"
		elif [ $sirqs -lt $((reqs / 2)) ]; then
			why="${why:+$why; }$sch: $sirqs block softirqs for $reqs requests"
		elif [ $ksw -gt $((reqs / 16)) ]; then
			why="${why:+$why; }$sch: ksoftirqd switched $ksw times for $reqs requests"
		fi
	done
	f=$(badblocks_reads sinl "$nb" 1 $SIRQ_PSYNC)
	[ -z "$f" ] || why="${why:+$why; }$f"
	f=$(tags_busy "$nb")
	[ "$f" = 0 ] || why="${why:+$why; }$f tags still busy"
	run_timed 30 nullb_remove sinl || why="${why:+$why; }removing the device hung or failed"
	tap_result $name "$why"
}

irq_batch_tests() {
	nvme_irq_batched_verify
	nvme_irq_fault_injection
	nvme_irq_sched_switch
	nvme_irq_reset
	nullb_softirq_batched
	nullb_softirq_no_ksoftirqd
	irq_bio_cache
}
