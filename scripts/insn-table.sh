#!/usr/bin/env bash
# make insn: the kernel's guest instructions per large read, outside the
# poll loop and the idle loop, and in each, per label (LABELS, default
# "patched"; REF=mainline adds mainline 7.2.x, scripts/fetch-ref.sh):
# 128 KiB and 1 MiB io_uring reads, polled and by interrupt, on QEMU's
# NVMe and on null_blk, one scripts/insn-profile.sh boot each (one vCPU,
# icount, the insn-prof plugin).  Under icount a waiting vCPU's guest
# time is the instructions it spins or idles while QEMU works in host
# time, so the rate of a large NVMe read follows the host; the count
# outside the loops is the kernel's own work and repeats.  Prints a
# Markdown table (scripts/insn-loop.py); with REF=mainline it fails when
# a label spends more than mainline outside the loops on a probe.
# Profiles: results/insn-<date>-<hash>/.
#   PROBES  extended regex of the probe names to run (default: all)
#   RUNS    boots per probe and label (default: 3); the table gives the
#           median and the spread of the count outside the loops (QEMU's
#           NVMe completes in host time, so how many reads one poll or
#           interrupt ends varies, and with it the count)
. "$(dirname "$0")/lib.sh"
host_check
read -r -a labels <<<"${LABELS:-patched}"
case ${REF:-} in
"") ;;
mainline) labels+=(mainline) ;;
*) die "REF=$REF: only REF=mainline is known" ;;
esac
probes=${PROBES:-.} runs=${RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS=$runs: a count of boots"
out=$FP_TOP/results/insn-$(date -u +%Y%m%d-%H%M%S)-$(git -C "$FP_TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
mkdir -p "$out"
# null_blk as make bench makes it: polled (irqmode=0, a poll queue) or
# completed by the block softirq (irqmode=1, one submit queue, no
# scheduler); $d is the guest's
# shellcheck disable=SC2016
nb='. /fp/common.sh; d=$(nullb_create s size=1024 blocksize=512 memory_backed=0 hw_queue_depth=256'
# shellcheck disable=SC2016
nbirq='submit_queues=1 irqmode=1) && echo none >/sys/block/$d/queue/scheduler &&'
# A vCPU that waits for QEMU's NVMe by interrupt idles, and under
# icount with sleep=off the guest clock then jumps to its next timer: with
# the tick stopped that can be the block layer's 30-s request timeout,
# which then fires on a read QEMU has not finished in host time (seen
# in 1 of 16 boots of nvme-1m-irq, on the series).  nohz=off keeps the
# 1-ms tick, so a jump is at most 1 ms; the tick's own instructions
# count outside the loops, on both kernels alike.
# name | vm.sh options | probe: fp-bench arguments or a guest command
table=(
	"nvme-128k-poll|--poll-queues 1|uring /dev/nvme0n1 131072 32 32 32 1 poll"
	"nvme-1m-poll|--poll-queues 1|uring /dev/nvme0n1 1048576 8 8 8 1 poll"
	"nvme-128k-irq|--poll-queues 0 --append nohz=off|uring /dev/nvme0n1 131072 32 32 32 1"
	"nvme-1m-irq|--poll-queues 0 --append nohz=off|uring /dev/nvme0n1 1048576 8 8 8 1"
	"nullb-128k-poll|--nullb nr_devices=0|$nb irqmode=0 poll_queues=1) && /fp/fp-bench uring /dev/\$d 131072 32 32 32 1 poll"
	"nullb-1m-poll|--nullb nr_devices=0|$nb irqmode=0 poll_queues=1) && /fp/fp-bench uring /dev/\$d 1048576 8 8 8 1 poll"
	"nullb-128k-irq|--nullb nr_devices=0|$nb $nbirq /fp/fp-bench uring /dev/\$d 131072 32 32 32 1"
	"nullb-1m-irq|--nullb nr_devices=0|$nb $nbirq /fp/fp-bench uring /dev/\$d 1048576 8 8 8 1"
)
for l in "${labels[@]}"; do
	stage "build $l" "$FP_TOP/scripts/build.sh" "$l" || die "build $l failed"
done
args=()
for l in "${labels[@]}"; do
	for row in "${table[@]}"; do
		IFS='|' read -r name vm probe <<<"$row"
		echo "$name" | grep -Eq -- "$probes" || continue
		read -r -a vmopts <<<"$vm"
		# a guest command is one argument; fp-bench's are words
		case $probe in
		uring\ *) read -r -a cmd <<<"$probe" ;;
		*) cmd=("$probe") ;;
		esac
		for r in $(seq "$runs"); do
			stage "$l $name ($r/$runs)" env TOP=100000 OUT="$out/$l-$name-$r" \
				"$FP_TOP/scripts/insn-profile.sh" "$l" "${vmopts[@]}" -- "${cmd[@]}" \
				>"$out/$l-$name-$r.txt" || die "profile $l $name failed ($out/$l-$name-$r)"
			args+=("$l:$name=$out/$l-$name-$r.txt")
		done
	done
done
((${#args[@]})) || die "PROBES='$probes' matches no probe"
GATE=$([[ ${REF:-} == mainline ]] && echo 1 || echo 0) \
	python3 "$FP_TOP/scripts/insn-loop.py" "${args[@]}" | tee "$out/table.md"
status=${PIPESTATUS[0]}
log "table: $out/table.md"
exit "$status"
