#!/usr/bin/env bash
# make latency [RUNS=N] [LABELS="base patched breaks"]: scheduling
# latency beside I/O on a preemptible kernel, the measurement patch 69
# answers to.  Builds each label (default base and patched; breaks: the
# series with harness/breaks/break.patch, booted with
# fp_break=preemptissue, patch 69 as it was before it left preemptible
# kernels alone) with deb-guest.config and configs/preempt.config
# (CONFIG_PREEMPT; build/LABEL+deb-guest+preempt) and boots each RUNS
# times (default 3),
# alternating, on two vCPUs, running guest/run-latency.sh: cyclictest
# (Debian 12's rt-tests) on both CPUs, idle and beside fio's reads of a
# one-queue null_blk completing by block softirq.  Prints each run and,
# per kernel, the medians of the worst and mean wakeup latency (range in
# brackets) and of fio's IOPS, and each kernel's ratios to base's.  Wall time
# under TCG: the figures vary with the host; compare kernels within one
# run of this script only.  Results: results/latency-<date>-<hash>/.
. "$(dirname "$0")/lib.sh"

FP_PREFIX="[latency] "
runs=${RUNS:-3}
need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}" rt-tests
out=$FP_TOP/results/latency-$(date -u +%Y%m%d-%H%M%S)-$(git -C "$FP_TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
mkdir -p "$out/files/rt"
# cyclictest and what it links, run by the loader in the guest
ct=$(command -v cyclictest) || die "no cyclictest (rt-tests)"
cp "$ct" "$out/files/rt/"
ldd "$ct" | awk '/=>/ { print $3 } /^\t\// { print $1 }' | while read -r l; do
	[[ -f $l ]] && cp -L "$l" "$out/files/rt/"
done
[[ -f $out/files/rt/ld-linux-x86-64.so.2 ]] || die "no ld-linux-x86-64.so.2 among cyclictest's libraries"
read -r -a kernels <<<"${LABELS:-base patched}"
[[ ${kernels[0]} == base ]] || die "LABELS: base first, for the ratios"
labels=()
for k in "${kernels[@]}"; do
	stage "build $k (preempt)" "$FP_TOP/scripts/build.sh" "$k" deb-guest.config preempt.config ||
		die "$k: build failed"
	labels+=("$k+deb-guest+preempt")
done
: >"$out/results.txt"
for ((i = 1; i <= runs; i++)); do
	for l in "${labels[@]}"; do
		app=()
		[[ ${l%%+*} != breaks ]] || app=(--append fp_break=preemptissue)
		"$FP_TOP/scripts/vm.sh" --label "$l" --smp 2 --files "$out/files" "${app[@]}" \
			--log "$out/$l-$i.log" -- sh /fp/run-latency.sh >/dev/null 2>&1 ||
			die "$l run $i failed: $out/$l-$i.log"
		grep -a '^LAT ' "$out/$l-$i.log" | grep -qv '^LAT \(idle\|io\) ' &&
			die "$l run $i: $(grep -a -m1 '^LAT ' "$out/$l-$i.log")"
		grep -a '^LAT \(idle\|io\) ' "$out/$l-$i.log" | sed "s/^LAT /${l%%+*} /" | tee -a "$out/results.txt"
	done
done
awk -v ks="${kernels[*]}" '
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((n + 1) / 2)]
	}
	function rng(s,   a, n, i, lo, hi) {
		n = split(s, a, " "); lo = hi = a[1]
		for (i = 2; i <= n; i++) { if (a[i] + 0 < lo + 0) lo = a[i]; if (a[i] + 0 > hi + 0) hi = a[i] }
		return lo "-" hi
	}
	{ k = $1 " " $2; mx[k] = mx[k] " " $4; av[k] = av[k] " " $6; io[k] = io[k] " " $8 }
	END {
		nk = split(ks, kk, " ")
		for (w = 1; w <= 2; w++) {
			m = w == 1 ? "idle" : "io"
			for (l = 1; l <= nk; l++) {
				k = kk[l] " " m
				printf "%s: worst %s us [%s], mean %s us [%s], fio %s IOPS [%s]\n", k,
					med(mx[k]), rng(mx[k]), med(av[k]), rng(av[k]), med(io[k]), rng(io[k])
			}
			b = "base " m
			for (l = 2; l <= nk; l++) {
				p = kk[l] " " m
				if (med(mx[b]) > 0 && med(av[b]) > 0)
					printf("%s/base %s: worst %.2f, mean %.2f%s\n", kk[l], m, med(mx[p]) / med(mx[b]),
						med(av[p]) / med(av[b]), (m == "io" && med(io[b]) > 0) ? sprintf(", IOPS %.2f", med(io[p]) / med(io[b])) : "")
			}
		}
	}' "$out/results.txt" | tee "$out/summary.txt"
