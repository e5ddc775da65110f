#!/usr/bin/env bash
# make check-wide: what users stack on the series, on base and on patched
# side by side.  Each label is built with configs/wide.config (dm, md,
# loop, zram, brd, SCSI, the NVMe target, xfs and btrfs as modules;
# blk-cgroup, writeback throttling, BFQ, bio integrity) in
# build/LABEL+wide, and booted once on two vCPUs with an NVMe of two
# poll queues, a second NVMe whose namespace carries protection
# information, and a Debian 12 root (debootstrap, cached) with its tools;
# guest/wide.sh runs the tests of tests/ whose "# boots:" names wide
# there, one at a time.  Then one table, test by test,
# and each label judged on its own results by its manifest
# (scripts/wide-table.py): guest/expected/wide.txt for the series, where
# every test must pass or skip as it says, guest/expected/base/wide.txt
# for base, whose expected failures name the message they fail with.
# Any other result fails the run.  Results:
# results/wide-<date>-<hash>/ (each label's guest and kernel logs,
# table.md).
#   LABELS  kernels (default: "base patched"; the last is the kernel
#           under test: it must have a manifest and a clean run)
#   FRAGS   more config fragments for every label, e.g. "debug.config"
#           (KASAN, lockdep, kmemleak: build/LABEL+wide+debug)
#   TESTS   only these tests: shell patterns on GROUP/NAME, on NAME or
#           on GROUP (e.g. "dm md/wide_md_raid1"; scripts/tests.py
#           select wide PATTERN... lists them); the manifests are then
#           compared for their IDs only
. "$(dirname "$0")/lib.sh"
host_check
disk_check "$FP_BUILD" 10 "make check-wide (its kernels and guests)"
FP_PREFIX="[check-wide] "

read -r -a labels <<<"${LABELS:-base patched}"
((${#labels[@]} >= 1)) || die "no LABELS"
read -r -a frags <<<"${FRAGS:-}"
sfx=+wide scale=
for f in "${frags[@]}"; do
	sfx+=+$(basename "$f" .config)
	# the debug kernel runs the guest about 15 times slower: each test
	# gets 15 times its "# time:" (guest/common.sh's run_test)
	[[ $(basename "$f" .config) != debug ]] || scale=15
done
# TESTS: the wide tests it names (GROUP/NAME, in run order) for the
# guest, and their IDs for the manifests
read -r -a sel <<<"${TESTS:-}"
list=
only=
if ((${#sel[@]})); then
	test_selection wide "${sel[@]}"
	list=$SEL_LIST only=$SEL_IDS
	[[ -n $list ]] || die "TESTS='${TESTS}' names no test of the wide guest (scripts/tests.py select wide PATTERN... lists them)"
fi
# the guest's command (vm.sh runs it with sh): FP_TESTS, FP_TIME_SCALE
guest=()
[[ -z $list ]] || guest+=("FP_TESTS='$list'")
[[ -z $scale ]] || guest+=("FP_TIME_SCALE=$scale")
guest+=(sh /fp/wide.sh)
need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}" e2fsprogs

out=$FP_TOP/results/wide-$(date -u +%Y%m%d-%H%M%S)-$(git -C "$FP_TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
mkdir -p "$out"
t0=$SECONDS
root=$(stage "the $FP_WIDE_SUITE root" wide_root_image) || exit 1
args=()
for l in "${labels[@]}"; do
	stage "build $l" "$FP_TOP/scripts/build.sh" "$l" wide.config "${frags[@]}" || die "build $l failed"
	stage "$l: modules" wide_modules_image "$FP_BUILD/$l$sfx"
	git -C "$FP_BUILD/$l$sfx" log -1 --format="$l %h %s" >>"$out/labels.txt"
	t1=$SECONDS
	stage "$l: the wide guest" wide_vm "$root" "$l$sfx" "$out/$l.log" -- "${guest[@]}" || true
	echo "$l $((SECONDS - t1))" >>"$out/times.txt"
	args+=("$l=$out/$l.log")
done
rc=0
[[ -z $list ]] || args=(--only "$only" "${args[@]}")
python3 "$FP_TOP/scripts/wide-table.py" "${args[@]}" >"$out/table.md" || rc=1
cat "$out/table.md"
log "results: $out ($((SECONDS - t0)) s)"
exit $rc
