#!/usr/bin/env bash
# make eagain-matrix: make check's "eagain" boot (tests/eagain/: the
# CQEs of io_uring reads and writes that end with -EAGAIN, counted by
# probes/fp-eagain.c on one-tag NVMe queues and a shared null_blk tag
# set, then the NVMe multipath head under controller resets) on each
# kernel of LABELS, and one table of the counts side by side.  Results:
# results/eagain-<date>-<hash>/ (each label's guest logs, table.md).
#   LABELS  kernels (default: "base patched"), each built with make
#           check's config (LABEL+deb-guest)
#   REF     "mainline": add Debian sid's newest mainline (7.2.x), as
#           make bench does
. "$(dirname "$0")/lib.sh"

read -r -a labels <<<"${LABELS:-base patched}"
case ${REF:-} in
"") ;;
mainline) labels+=(mainline) ;;
*) die "REF=$REF: only REF=mainline is known" ;;
esac
need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}"

out=$FP_TOP/results/eagain-$(date -u +%Y%m%d-%H%M%S)-$(git -C "$FP_TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
mkdir -p "$out/guest"
probe_build fp-eagain "$out/guest" || die "probes/fp-eagain.c did not build"
args=()
rc=0
# guest_failed LABEL LOG: a failed guest run fails the target, but for a
# kernel without the series (base, mainline) whose tests failed (vm.sh's
# verdict "tests": the -EAGAIN this table counts); a hang, a splat, an
# unannounced timeout or a guest that died fails it on every label
guest_failed() {
	local v
	v=$(cat "$2.verdict" 2>/dev/null || echo "no verdict")
	if [[ $v == tests && $1 != patched && ! $1 =~ ^p[0-9]+$ ]]; then
		log "$1: the guest's tests failed (expected where -EAGAIN comes): see the table"
	else
		log "$1: the guest failed ($v): $2"
		rc=1
	fi
}
for l in "${labels[@]}"; do
	# every label with make check's config: the dm, loop and zoned
	# cells need what configs/deb-guest.config adds to the small one
	k=$l+deb-guest
	stage "build $l" "$FP_TOP/scripts/build.sh" "$l" deb-guest.config || die "build $l failed"
	git -C "$FP_BUILD/$k" log -1 --format="$l %h %s" >>"$out/labels.txt"
	stage "$l: -EAGAIN matrix" "$FP_TOP/scripts/vm.sh" --label "$k" --smp 2 "${FP_EAGAIN_BOOT[@]}" \
		--files "$out/guest" --timeout 1200 --log "$out/$l.log" -- sh /fp/boot.sh eagain ||
		guest_failed "$l" "$out/$l.log"
	grep -qa '^EAGAIN-CELL' "$out/$l.log" || { log "$l: no cell ran: $out/$l.log"; rc=1; }
	# the multipath cells: make check's mpath boot's devices
	stage "$l: -EAGAIN multipath cells" "$FP_TOP/scripts/vm.sh" --label "$k" --smp 2 --mpath \
		--poll-queues 1 --files "$out/guest" --timeout 600 --log "$out/$l-mpath.log" \
		-- sh /fp/boot.sh eagain-mpath || guest_failed "$l" "$out/$l-mpath.log"
	grep -qa '^EAGAIN-CELL' "$out/$l-mpath.log" || { log "$l: no multipath cell ran: $out/$l-mpath.log"; rc=1; }
	args+=("$l=$out/$l.log" "$l=$out/$l-mpath.log")
done
python3 "$FP_TOP/scripts/eagain-table.py" "${args[@]}" | tee "$out/table.md"
log "results: $out"
((rc == 0)) || log "eagain-matrix: a guest failed or printed no cell (above)"
exit $rc
