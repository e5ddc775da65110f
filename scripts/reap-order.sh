#!/usr/bin/env bash
# reap-order.sh [RUNS [LABEL...]]: out-of-order polled completion, the
# measurement behind patch 0043's reap of every completed request.  Each
# LABEL (default: patched) boots RUNS times (default 3), alternating, with
# one NVMe poll queue on two vCPUs (QEMU's default aio=threads backend, so
# completions come back in any order), and runs guest/run-reap-order.sh: a
# 20 s IOPOLL job mixing 4 KiB and 128 KiB reads on one ring.  Prints
# each run and, per label, the medians of IOPS and of the 4 KiB reads' p50
# and p99 latency with their range.  Wall time: the figures vary with
# the host; compare labels within one run of this script only.
. "$(dirname "$0")/lib.sh"

runs=${1:-3}
shift || true
labels=("${@:-patched}")
out=$FP_BUILD/reap-order
mkdir -p "$out"
: >"$out/results.txt"
for ((i = 1; i <= runs; i++)); do
	for l in "${labels[@]}"; do
		"$FP_TOP/scripts/vm.sh" --label "$l" --smp 2 --poll-queues 1 \
			--log "$out/$l-$i.log" -- sh /fp/run-reap-order.sh >/dev/null 2>&1 ||
			die "$l run $i failed: $out/$l-$i.log"
		line=$(grep -a -m1 '^REAP iops' "$out/$l-$i.log") || die "$l run $i: no result ($out/$l-$i.log)"
		echo "$l $line" | tee -a "$out/results.txt"
	done
done
awk '
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((n + 1) / 2)] " (" a[1] "-" a[n] ")"
	}
	{ l = $1; io[l] = io[l] " " $4; p5[l] = p5[l] " " $8; p9[l] = p9[l] " " $10 }
	END { for (l in io) printf "%s: IOPS %s, 4 KiB p50 %s us, p99 %s us\n", l, med(io[l]), med(p5[l]), med(p9[l]) }
' "$out/results.txt"
