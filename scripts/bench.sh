#!/usr/bin/env bash
# make bench: build (or reuse) the kernels of LABELS, boot each under QEMU
# with the same devices, run the same probes (guest/run-probes.sh), and print
# one table with patched/base ratios.  Results: results/<date>-<hash>/.
#   LABELS  kernels, first is the reference (default: "base patched")
#   MODES   icount and/or wall (default: "icount wall")
#   RUNS    runs per probe per boot in icount mode (default: 3; the
#           multipath head and one-path probes run at least 5)
#   ROUNDS  boots per label in wall mode, in pairs whose order flips
#           every round: A B, B A, A B, ... (default: 5)
#   SECS    seconds of guest time per run (default: 1)
#   REF     "mainline": add Debian sid's newest mainline kernel (7.2.x)
#           as a reference column (scripts/fetch-ref.sh)
#   PROBES  an extended regex: run only the probes whose names match it
#           (default: all); the multipath boots run only if it matches
#           mpath-head-4k
. "$(dirname "$0")/lib.sh"
host_check
disk_check "$FP_BUILD" 8 "make bench (its kernels and guests)"

read -r -a labels <<<"${LABELS:-base patched}"
read -r -a modes <<<"${MODES:-icount wall}"
runs=${RUNS:-3} rounds=${ROUNDS:-5} secs=${SECS:-1} probes=${PROBES:-.}
[[ $probes != *"'"* ]] || die "PROBES: no single quotes"
mpath=1
[[ mpath-head-4k =~ $probes ]] || mpath=
mruns=$((runs < 5 ? 5 : runs))
labels_series=("${labels[@]}")
case ${REF:-} in
"") ;;
mainline) labels+=(mainline) ;;
*) die "REF=$REF: only REF=mainline is known" ;;
esac
need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}" "${FP_PKGS_BENCH[@]}"

stamp=$(date -u +%Y%m%d-%H%M%S)
out=$FP_TOP/results/$stamp-$(git -C "$FP_TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
mkdir -p "$out"
ln -sfn "$(basename "$out")" "$FP_TOP/results/latest"
t0=$SECONDS

for l in "${labels[@]}"; do
	stage "build $l" "$FP_TOP/scripts/build.sh" "$l" || die "build $l failed"
	git -C "$FP_BUILD/$l" log -1 --format="$l %h %s" >>"$out/labels.txt"
done
mkdir -p "$out/guest"
probe_build fp-bench "$out/guest" || die "probes/fp-bench.c did not build"
"$FP_TOP/scripts/t-io_uring.sh" "$out/guest" || die "t/io_uring did not build"

{
	echo "host: $(uname -srm)"
	grep -m1 'model name' /proc/cpuinfo
	echo "cpus: $(nproc)"
	qemu-system-x86_64 --version | head -n 1
	echo "project: $(git -C "$FP_TOP" rev-parse HEAD 2>/dev/null)"
	echo "command: make bench LABELS=\"${LABELS:-base patched}\" REF=${REF:-} MODES=\"${modes[*]}\" RUNS=$runs ROUNDS=$rounds SECS=$secs PROBES='$probes'"
} >"$out/host.txt"
printf 'probe\tmode\tlabel\tround\tvalue\tunit\n' >"$out/summary.tsv"
: >"$out/notes.txt"

# boot LABEL MODE ROUND RUNS [SET]: one guest running every probe of SET
# (main; mpath and mpath-single: the multipath head and one path of the
# same two-controller subsystem)
boot() {
	local l=$1 mode=$2 round=$3 n=$4 set=${5:-main} logf=$out/$1-$2-$3${5:+-$5}.log
	local opts=(--label "$l" --files "$out/guest" --log "$logf" --poll-queues 1
		--nullb "nr_devices=0" --mem 1536)
	[[ $mode == icount ]] && opts+=(--icount)
	case $set in
	mpath) opts+=(--mpath) ;;
	mpath-single) opts+=(--mpath --append "nvme_core.multipath=N") ;;
	esac
	"$FP_TOP/scripts/vm.sh" "${opts[@]}" -- sh /fp/run-probes.sh "$mode" "$n" "$secs" "$set" "'$probes'" ||
		{ log "guest $l $mode $round failed: $logf"; return 1; }
	cp "$logf.cmd" "$out/$l-$mode${5:+-$5}.qemu-cmd"
	sed -n 's/^FASTPATH-START: //p' "$logf" >"$out/$l.uname"
	awk -v l="$l" -v m="$mode" -v r="$round" \
		'/^RESULT / { printf "%s\t%s\t%s\t%s\t%s\t%s\n", $2, m, l, r, $3, $4 }' \
		"$logf" >>"$out/summary.tsv"
	sed -n "s/^NOTE /$l: /p" "$logf" | sort -u >>"$out/notes.txt"
}

for mode in "${modes[@]}"; do
	case $mode in
	icount)
		for l in "${labels[@]}"; do
			stage "icount: $l" boot "$l" icount 1 "$runs" || die "bench guest failed"
			# the multipath pair runs on the emulated NVMe, whose
			# completions vary from run to run: at least 5 runs each
			[[ $mpath ]] || continue
			stage "icount: $l, multipath head" boot "$l" icount 1 "$mruns" mpath ||
				die "bench guest failed"
			stage "icount: $l, one path" boot "$l" icount 1 "$mruns" mpath-single ||
				die "bench guest failed"
		done
		;;
	wall)
		# A B, then B A, ...: the order within a pair flips every round,
		# so neither drift nor going first favours a label.
		for r in $(seq "$rounds"); do
			order=("${labels[@]}")
			if ((r % 2 == 0)); then
				order=()
				for ((i = ${#labels[@]} - 1; i >= 0; i--)); do order+=("${labels[i]}"); done
			fi
			for l in "${order[@]}"; do
				stage "wall round $r: $l" boot "$l" wall "$r" 1 || die "bench guest failed"
			done
		done
		;;
	*) die "unknown mode $mode (icount, wall)" ;;
	esac
done
sort -u -o "$out/notes.txt" "$out/notes.txt"

python3 "$FP_TOP/scripts/bench-report.py" "$out" | tee "$out/table.txt"
if command -v gnuplot >/dev/null && [[ -s $out/ratios.dat ]]; then
	gnuplot -e "set terminal png size 900,500; set output '$out/ratios.png';
		set style data histograms; set style fill solid 0.8; set boxwidth 0.8;
		set ylabel '${labels_series[-1]} / ${labels_series[0]}'; set xtics rotate by -35;
		set grid ytics; set yrange [0:*]; set key top left;
		set title 'fastpath-5.10: ${labels_series[-1]} vs ${labels_series[0]} (higher is better)';
		plot '$out/ratios.dat' using 2:xtic(1) title 'icount', '' using 3 title 'wall'" ||
		log "gnuplot failed"
fi
log "results: $out ($((SECONDS - t0)) s)"
