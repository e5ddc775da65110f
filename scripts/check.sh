#!/usr/bin/env bash
# make check: lint the patch queue, build "patched" and "patched+debug"
# (the KASAN and lockdep build of configs/debug.config; CHECK_LABELS to
# choose others, e.g. "base patched"), boot each on two vCPUs with NVMe
# poll queues, with an NVMe multipath subsystem and without poll queues,
# with a user's partitions on the NVMe (the kselftest must refuse it),
# tag-starved, and with liburing's tests (the debug build: the poll,
# multipath and tag-starved boots only), compare each boot's results
# with its manifest (guest/expected/), write the mails and send them with
# git send-email --dry-run (scripts/mail.sh), package the patched kernel
# the boots ran (DEB_CONFIG=qemu) and run it in a Debian 11 guest
# (scripts/check-deb.sh;
# CHECK_DEB=0 leaves these two out), and end with "check: N passed,
# N failed, N skipped".  TESTS="PATTERN..." runs only the tests of
# tests/ that the patterns name (scripts/tests.py), on the boots that
# hold them, on "patched" unless CHECK_LABELS says otherwise; the queue
# lint, liburing (unless a pattern is "liburing"), mail and deb stay out.
# CHECK_RT=1 (make check RT=1): Debian's rt flavour instead, the series
# on debian/patches and debian/patches-rt (scripts/lib.sh rt_series_commit,
# with patches/rt/'s variants) built with configs/rt.config (PREEMPT_RT):
# the objects the series changes under Debian's own rt config
# (scripts/rt-config-check.sh), then the poll, nopoll and eagain boots.
. "$(dirname "$0")/lib.sh"
host_check
disk_check "$FP_BUILD" 10 "make check (its kernels and guests)"

# TESTS: the boots that hold a test the patterns name
# (read -a: the patterns are not the shell's to expand)
sel=${TESTS:-} sel_boots=
read -r -a sel_pats <<<"$sel"
if [[ -n $sel ]]; then
	sel_boots=$("$FP_TOP/scripts/tests.py" boots "${sel_pats[@]}")
	[[ -n $sel_boots || " $sel " == *" liburing "* ]] ||
		die "TESTS='$sel' names no test of tests/ (scripts/tests.py select BOOT PATTERN lists them)"
	labels=(${CHECK_LABELS:-patched})
	CHECK_DEB=0
else
	labels=(${CHECK_LABELS:-patched patched+debug})
fi
if [[ ${CHECK_RT:-0} == 1 ]]; then
	labels=(${CHECK_LABELS:-rt-patched+rt})
	CHECK_DEB=0
fi
# wanted BOOT: BOOT holds a test TESTS names (every boot without TESTS)
wanted() { [[ -z $sel || " $sel_boots " == *" $1 "* ]]; }
out=$FP_BUILD/check
rm -rf "$out"
mkdir -p "$out"
t_start=$SECONDS
failures=() boots_failed=()

stage "packages" need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}" || exit 1

# check-deb's Debian 11 root (debootstrap: minutes of downloads on a new
# machine) is made in the background, at SCHED_IDLE: its downloads while
# the kernels compile, its unpacking when a guest leaves a core idle;
# check-deb waits for it (a lock) and makes it itself if this failed
root_pid= dbg_pid=
# bg NAME CMD...: CMD at idle priority (SCHED_IDLE, nice 19, idle I/O
# class: only what the foreground leaves) in its own process group (ended
# with make check), its output in $out/NAME.log, its exit status in
# $out/NAME.rc
bg() {
	local name=$1
	shift
	setsid chrt -i 0 nice -n 19 ionice -c 3 sh -c '"$@"; echo $? >"$0"' "$out/$name.rc" "$@" \
		>"$out/$name.log" 2>&1 &
}
bg_wait() { # bg_wait PID NAME: wait for it; its exit status
	wait "$1" 2>/dev/null || true
	return "$(cat "$out/$2.rc" 2>/dev/null || echo 1)"
}
trap 'for p in $root_pid $dbg_pid; do kill -- -"$p" 2>/dev/null || kill "$p" 2>/dev/null; done' EXIT
if [[ ${CHECK_DEB:-1} == 1 && $FP_PATCHES == "$FP_TOP/patches" ]]; then
	bg debootstrap "$FP_TOP/scripts/check-deb.sh" --root
	root_pid=$!
fi

stage "fetch base" "$FP_TOP/scripts/fetch-base.sh" >/dev/null || exit 1
[[ -n $sel ]] || stage "patch queue" "$FP_TOP/scripts/lint-queue.sh" || failures+=("patch queue")
stage "layout" "$FP_TOP/scripts/lint-layout.py" || failures+=("docs/layout.md")
stage "tests" "$FP_TOP/scripts/tests.py" lint || failures+=("tests/ headers")

# The "patched" kernel the boots run is the one the test package ships
# (scripts/deb.sh, DEB_CONFIG=qemu): the small config plus what a Debian
# 11 guest needs (configs/deb-guest.config), built once for both in
# build/patched+deb-guest.  The kselftests and probes run on every label
# come from the whole series.
# Base is built the same way (its dm, loop and zoned cells need it), and
# so are the debug kernels (patched+debug: build/patched+deb-guest+debug)
# kfrag LABEL: deb-guest.config for patched and base (and their +NAME
# kernels, and rt-patched and rt-base); kdir LABEL: the build directory
# of LABEL
kfrag() {
	local l=${1%%+*}
	l=${l#rt-}
	[[ $l != patched && $l != base ]] || echo deb-guest.config
}
kdir() {
	local b=${1%%+*}
	echo "$b$([[ -z $(kfrag "$1") ]] || echo +deb-guest)${1#"$b"}"
}
# label_frags LABEL: kfrag's fragment, then those that LABEL's "+NAME"
# parts name (patched+debug+dma-debug: deb-guest.config debug.config
# dma-debug.config)
label_frags() {
	local f
	kfrag "$1"
	IFS=+ read -r -a f <<<"$1"
	((${#f[@]} < 2)) || printf '%s.config\n' "${f[@]:1}"
}
# the kernel whose tree gives the guests' kselftests and probe module:
# patched, or with RT=1 the rt kernel (no other is built then)
files_label=patched
[[ ${CHECK_RT:-0} != 1 ]] || files_label=${labels[0]}
stage "build $files_label" "$FP_TOP/scripts/build.sh" "${files_label%%+*}" \
	$(label_frags "$files_label") || {
	echo "check: 0 passed, 1 failed, 0 skipped"
	exit 1
}
# The debug kernel compiles while the patched kernel's guests run (their
# QEMU leaves a core partly idle, the liburing boot most of the time) at
# SCHED_IDLE, so that it takes only CPU time the guests leave; its stage
# below waits for it
dbg_label=$(printf '%s\n' "${labels[@]}" | grep -m1 '+debug' || true)
if [[ -n $dbg_label ]]; then
	bg "build-$dbg_label" "$FP_TOP/scripts/build.sh" "${dbg_label%%+*}" $(label_frags "$dbg_label")
	dbg_pid=$!
fi
# build_debug LABEL RC: the background build's log when it succeeded
# (RC 0), else the build itself (after a failure in the background:
# ccache and its objects make it quick; RC -1: none was started)
build_debug() {
	if (($2 == 0)); then
		grep -a '== \(compile\|configure\|checkout\).*: [0-9]* s' "$out/build-$1.log" |
			sed 's/$/ (in the background)/' >&2
		return 0
	fi
	(($2 < 0)) || log "the background build of $1 failed: $out/build-$1.log; building again"
	"$FP_TOP/scripts/build.sh" "${1%%+*}" $(label_frags "$1")
}
tests=$out/guest-files
mkdir -p "$tests"
mapfile -t missing < <(guest_files "$tests" "$FP_BUILD/$(kdir "$files_label")")
failures+=("${missing[@]}")

# liburing's own test suite (bookworm's 2.3), for its own boot
[[ -n $sel && " $sel " != *" liburing "* || ${CHECK_RT:-0} == 1 ]] ||
	stage "liburing tests" "$FP_TOP/scripts/liburing.sh" "$out/liburing-files" ||
	failures+=("liburing tests build")

# manifest_of LABEL NAME: the expected results of boot NAME for LABEL:
# guest/expected/NAME.txt for the series (patched, patched+debug),
# guest/expected/LABEL/NAME.txt for another label if there is one;
# rt-LABEL: LABEL's, with guest/expected/rt-LABEL/NAME.txt over it
manifest_of() {
	local l=${1%%+*} m o
	# Debian's rt tree: the manifest of the same label on the base, with
	# the lines of guest/expected/rt-LABEL/NAME.txt in place of those of
	# the same IDs (what differs on PREEMPT_RT, each with its reason)
	if [[ $l == rt-* ]]; then
		m=$(manifest_of "${l#rt-}" "$2")
		o=$FP_TOP/guest/expected/$l/$2.txt
		if [[ -n $m && -f $o ]]; then
			manifest_overlay "$o" "$m" >"$out/manifest-$l-$2.txt"
			m=$out/manifest-$l-$2.txt
		fi
		[[ -z $m ]] || echo "$m"
		return
	fi
	if [[ $l == patched ]]; then
		echo "$FP_TOP/guest/expected/$2.txt"
	elif [[ -f $FP_TOP/guest/expected/$l/$2.txt ]]; then
		echo "$FP_TOP/guest/expected/$l/$2.txt"
	fi
}

# has_not_ok PREFIX fail|xfail: results.txt has a "PREFIXnot ok" line
# that is a failure, or one its manifest expects (the mark manifest.sh
# appends; manifest reasons hold no "#")
xfail_re=' # TODO expected here: [^#]*$'
has_not_ok() {
	awk -v p="$1not ok" -v x="$([[ $2 == xfail ]] && echo 1 || echo 0)" -v re="$xfail_re" '
		index($0, p) == 1 && ($0 ~ re) == x { f = 1 } END { exit !f }' "$out/results.txt"
}

# boot_why NAME LOG: a line on why a failed guest run failed, for the
# end of the output (what CI shows of it): vm.sh's verdict and the kernel
# line that decided it (LOG.why: the splat, the fault it did not excuse,
# the last line of a guest that hung or died)
boot_why() {
	local v line
	v=$(cat "$2.verdict" 2>/dev/null) || v="no verdict: vm.sh ended early"
	line=$(cat "$2.why" 2>/dev/null)
	echo "$1: $v${line:+; kernel log: $line}"
}

# boot LABEL NAME VM-OPTIONS...: one guest run of guest/boot.sh NAME (of
# $GUEST_CMD if set) on two vCPUs, its results compared with the manifest
boot() {
	local label=$1 name=$2 rc=0 mf tag=$2${run:+#$run} only= env=
	shift 2
	# TESTS: the boot's tests it names, and their IDs (with the boot's
	# own device and KUnit lines) for the manifest
	if [[ -n $sel && -z ${GUEST_CMD:-} ]]; then
		test_selection "$name" "${sel_pats[@]}"
		only=$SEL_IDS env="FP_TESTS='$SEL_LIST'"
	fi
	# the debug kernel's tests get 4 times their time (guest/common.sh)
	[[ -z $boot_timeout ]] || env+=" FP_TIME_SCALE=4"
	# the probe modules of guest_files are patched's: another label's are
	# built against that label's kernel, over it
	local mods=()
	if [[ $(kdir "$label") != $(kdir "$files_label") ]]; then
		mods=(--files "$out/modules-$label")
		local m
		mkdir -p "$out/modules-$label"
		for m in $FP_MODULES; do
			[[ -f $out/modules-$label/$m.ko ]] ||
				module_build "$m" "$out/modules-$label" "$FP_BUILD/$(kdir "$label")" ||
				log "$label: probes/$m.c did not build"
		done
	fi
	FP_BOOT_TIMEOUT=${boot_timeout:-${FP_BOOT_TIMEOUT:-60}} \
		"$FP_TOP/scripts/vm.sh" --label "$(kdir "$label")" --smp 2 --files "$tests" "${mods[@]}" \
		--log "$out/$label-$tag.log" "$@" -- ${GUEST_CMD:-$env sh /fp/boot.sh $name} || rc=$?
	# TAP lines of the guest, named by label and boot (and run: poll#2)
	tap_lines "$label $tag: " "$out/$label-$tag.log" >>"$out/results.txt"
	mf=$(manifest_of "$label" "$name")
	if [[ -n $mf ]]; then
		mrc=0
		MANIFEST_ONLY=$only MANIFEST_MARK=$out/results.tmp "$FP_TOP/scripts/manifest.sh" "$out/results.txt" \
			"$label" "$tag" "$mf" >"$out/manifest.tmp" || mrc=$?
		[[ ! -f $out/results.tmp ]] || mv "$out/results.tmp" "$out/results.txt"
		((mrc == 0 || rc != 0)) || rc=1
		cat "$out/manifest.tmp" >>"$out/results.txt"
		sed 's/^/  /' "$out/manifest.tmp" >&2
		# the failures the manifest of another label expects (a test of
		# what the series adds, on a kernel without it) are TAP's TODO:
		# a guest that failed only on those (and nothing else the
		# manifest found) passes
		if ((rc != 0 && mrc == 0)) &&
			[[ $(cat "$out/$label-$tag.log.verdict" 2>/dev/null) == tests ]] &&
			has_not_ok "$label $tag: " xfail && ! has_not_ok "$label $tag: " fail; then
			rc=0
		fi
	else
		log "$label $name: no manifest (guest/expected/$label/$name.txt): results not compared"
	fi
	if ((rc != 0)); then
		boot_why "$label $tag" "$out/$label-$tag.log" >>"$out/why.txt"
		# a failing guest with no failing test line still fails the run
		has_not_ok "$label $tag: " fail ||
			echo "$label $tag: not ok - guest run (exit $rc)" >>"$out/results.txt"
		return 1
	fi
}

for label in "${labels[@]}"; do
	dbg=() boot_timeout= dmadbg=0
	# +dma-debug (make check-long): DMA_API_DEBUG, under which nvme-pci
	# maps every request with a scatterlist; its boots are the two that
	# map NVMe data (poll and swiotlb)
	[[ $label != *+dma-debug* ]] || dmadbg=1
	if [[ $label == *+debug* ]]; then
		dbg_rc=-1
		if [[ -n $dbg_pid && $label == "$dbg_label" ]]; then
			t0=$SECONDS
			dbg_rc=0
			bg_wait "$dbg_pid" "build-$label" || dbg_rc=$?
			dbg_pid=
			log "waited $((SECONDS - t0)) s for the background build of $label"
		fi
		stage "build $label" build_debug "$label" "$dbg_rc" ||
			{ failures+=("build $label"); continue; }
		# -cpu max offers LA57; a KASAN 5.10 guest with 5-level paging
		# sometimes reports a wild-memory-access in rcu_nmi_enter at
		# early boot, before any code of the series runs: no LA57 there
		dbg=(--cpu max,la57=off --timeout 1800)
		# Under TCG the KASAN kernel's XZ decompressor took about 65 s
		# in one build and 5 s in the one before (same size, same boot
		# time once the kernel ran; why is not known): more time before
		# a boot counts as hung
		boot_timeout=${FP_BOOT_TIMEOUT:-300}
	elif [[ $label != patched ]]; then
		stage "build $label" "$FP_TOP/scripts/build.sh" "${label%%+*}" $(label_frags "$label") ||
			{ failures+=("build $label"); continue; }
	fi
	# Debian's rt tree: the poll, nopoll and eagain boots, and first the
	# series' objects under Debian's own rt config
	rt=0
	[[ $label != rt-* ]] || rt=1
	if ((rt)) && [[ -z $sel ]]; then
		stage "$label: the series' objects under Debian's rt config" \
			"$FP_TOP/scripts/rt-config-check.sh" "${label%%+*}" || failures+=("$label: Debian's rt config")
	fi
	# CHECK_REPEAT=N (make check-long): the debug kernel's boots N times
	# over, to show that a race or a fault window holds
	reps=1
	((${#dbg[@]} == 0)) || reps=${CHECK_REPEAT:-1}
	((!dmadbg)) || reps=1
	for ((r = 1; r <= reps; r++)); do
		run=
		((reps == 1)) || run=$r
		# two poll queues on two vCPUs: CPU hotplug takes one poll hctx away
		! wanted poll ||
			stage "$label: NVMe with poll queues" boot "$label" poll --poll-queues 2 "${dbg[@]}" ||
			boots_failed+=("$label poll${run:+#$run}")
		# multipath: path loss under KASAN too
		((dmadbg || rt)) || ! wanted mpath ||
			stage "$label: NVMe multipath" boot "$label" mpath --mpath --poll-queues 1 "${dbg[@]}" ||
			boots_failed+=("$label mpath${run:+#$run}")
		# the other boots: all of them on a plain kernel; on the debug
		# kernel (its first round) swiotlb, where without DMA_API_DEBUG
		# (configs/debug.config) the poll boot maps NVMe data from the
		# bvecs (patch 0073) and this one with a scatterlist, and in make
		# check-long nopoll, dbbuf and eagain (interrupt batching, the
		# interrupt-side bio cache, patch 69's softirq and the -EAGAIN
		# reissue under KASAN and lockdep)
		other=
		if ((rt)); then
			other="nopoll eagain"
		elif ((${#dbg[@]} == 0)); then
			other="nopoll userdisk dbbuf swiotlb eagain"
		elif ((r == 1)); then
			other=swiotlb
			((dmadbg)) || [[ ${CHECK_LONG:-0} != 1 ]] || other+=" nopoll dbbuf eagain"
		fi
		runs() { [[ " $other " == *" $1 "* ]] && wanted "$1"; }
		! runs nopoll ||
			stage "$label: NVMe without poll queues" boot "$label" nopoll --poll-queues 0 \
				"${dbg[@]}" || boots_failed+=("$label nopoll")
		# an NVMe holding a user's partitions and a mounted ext4, its
		# namespace shared by two controllers and shown as two disks
		# (multipathing off): the kselftest must refuse it
		# (tests/userdisk/kselftest_refusals)
		! runs userdisk ||
			stage "$label: the kselftest on a user's disk" boot "$label" userdisk \
				--mpath --poll-queues 1 --disk-mb 64 --append "nvme_core.multipath=0" ||
			boots_failed+=("$label userdisk")
		# the harness turns QEMU's shadow doorbells off but here
		# (docs/emulator.md): that path under batched polling
		! runs dbbuf ||
			stage "$label: NVMe with shadow doorbells" boot "$label" dbbuf --poll-queues 2 \
				--append "nvme.qemu_shadow_doorbells=1" "${dbg[@]}" || boots_failed+=("$label dbbuf")
		# every DMA mapping bounced: NVMe requests larger than two pages
		# take the scatterlist path (tests/dmamap/nvme_map_verify)
		! runs swiotlb ||
			stage "$label: NVMe with swiotlb=force" boot "$label" swiotlb --poll-queues 1 \
				--append "swiotlb=force" "${dbg[@]}" || boots_failed+=("$label swiotlb")
		# one tag per NVMe queue and a null_blk tag set of 2 that its
		# devices share: the CQEs that end with -EAGAIN, counted
		! runs eagain ||
			stage "$label: -EAGAIN matrix (one-tag NVMe queues, shared null_blk tags)" \
				boot "$label" eagain "${FP_EAGAIN_BOOT[@]}" || boots_failed+=("$label eagain")
		# blocking=1: the shared tag set is made at module load from the
		# module's parameters, so a memory_backed device (which allocates in
		# ->queue_rq) gets BLK_MQ_F_BLOCKING only that way (as in vanilla 5.10)
		# (the debug kernel's starved boot with CHECK_LONG=1, in
		# make check-long: make check has no time left for it)
		{ ((${#dbg[@]} == 0)) || [[ ${CHECK_LONG:-0} == 1 ]]; } && ((!dmadbg && !rt)) && wanted starved &&
			{ stage "$label: tag-starved (shared tags, short NVMe queues)" \
			boot "$label" starved --poll-queues 1 --append "nvme.io_queue_depth=16" \
			--nullb "shared_tags=1 hw_queue_depth=8 poll_queues=1 nr_devices=0 blocking=1" \
			"${dbg[@]}" || boots_failed+=("$label starved${run:+#$run}"); }
	done
	run=
	# liburing on the debug kernel with CHECK_LONG=1 (make
	# check-long): more time than CI has
	{ ((${#dbg[@]} == 0)) || [[ ${CHECK_LONG:-0} == 1 ]]; } && ((!dmadbg && !rt)) &&
		[[ -d $out/liburing-files/liburing ]] &&
		{ GUEST_CMD="sh /fp/run-liburing.sh" stage "$label: liburing 2.3 tests" \
			boot "$label" liburing --poll-queues 1 "${dbg[@]}" --timeout 3600 \
			--files "$out/liburing-files" || boots_failed+=("$label liburing"); }
done

# The send-ready mails and the Debian package, for the current pin (BASE)
if [[ -n $sel ]]; then
	log "TESTS='$sel': mail and deb are left out"
elif [[ ${CHECK_RT:-0} == 1 ]]; then
	log "RT=1: mail and deb are left out (make check has them)"
elif [[ $FP_PATCHES == "$FP_TOP/patches" ]]; then
	FASTPATH_OUTGOING=$out/outgoing stage "mail: format-patch, get_maintainer.pl, send-email --dry-run" \
		"$FP_TOP/scripts/mail.sh" || failures+=("mail")
	if [[ ${CHECK_DEB:-1} == 1 ]]; then
		if [[ -n $root_pid ]]; then
			bg_wait "$root_pid" debootstrap ||
				log "the background debootstrap failed: $out/debootstrap.log"
			root_pid=
		fi
		if DEB_CONFIG=qemu stage "deb: bindeb-pkg (DEB_CONFIG=qemu)" "$FP_TOP/scripts/deb.sh"; then
			DEB_CONFIG=qemu stage "check-deb: the package in a Debian 11 guest" \
				"$FP_TOP/scripts/check-deb.sh" 2>&1 | tee "$out/check-deb.log" >&2
			grep -h '^\(not \)\{0,1\}ok ' "$FP_BUILD/check-deb-qemu/guest.log" 2>/dev/null |
				sed 's/^/deb check-deb: /' >>"$out/results.txt"
			grep -q '^check-deb: [0-9]* passed, 0 failed' "$out/check-deb.log" ||
				failures+=("check-deb")
		else
			failures+=("deb")
		fi
	fi
else
	log "BASE_VERSION=$BASE_VERSION: mail and deb are checked on the current pin only"
fi

touch "$out/results.txt"
# A test counts once per label, over its boots: failed if it failed in
# any, passed if it passed in one, skipped only if every boot skipped it
# (each boot has the devices of only some tests).
awk -v re="$xfail_re" '
	{
		split($0, a, ": ")
		split(a[1], lb, " ")
		line = substr($0, length(a[1]) + 3)
		st = line ~ /^not ok/ ? (line ~ re ? "xfail" : "fail") : (line ~ /# SKIP/ ? "skip" : "pass")
		sub(/^(not )?ok /, "", line)
		id = line
		sub(/^([0-9]+|-) /, "", id)
		sub(/[: #].*/, "", id)
		key = lb[1] " " id
		if (!(key in res)) order[n++] = key
		if (st == "fail" || res[key] == "") res[key] = st
		else if (st == "xfail" && res[key] != "fail") res[key] = st
		else if (st == "pass" && res[key] == "skip") res[key] = st
		r = line
		if (st == "skip") sub(/.*# SKIP /, "", r)
		if (st != "pass" && index(why[key], r) == 0)
			why[key] = why[key] (why[key] == "" ? "" : "; ") lb[2] ": " r
	}
	END { for (i = 0; i < n; i++) printf "%s\t%s\t%s\n", order[i], res[order[i]], why[order[i]] }
' "$out/results.txt" >"$out/summary.tsv"
passed=$(awk -F'\t' '$2 == "pass"' "$out/summary.tsv" | wc -l)
failed=$(awk -F'\t' '$2 == "fail"' "$out/summary.tsv" | wc -l)
skipped=$(awk -F'\t' '$2 == "skip"' "$out/summary.tsv" | wc -l)
xfailed=$(awk -F'\t' '$2 == "xfail"' "$out/summary.tsv" | wc -l)
# failures outside the guest (queue lint, builds) count once each; a
# failed guest run always left a failed test in results.txt (boot())
failed=$((failed + ${#failures[@]}))
awk -F'\t' '$2 != "pass" { printf "  %s %s (%s)\n", toupper($2), $1, $3 }' "$out/summary.tsv" >&2
((${#failures[@]} == 0)) || log "failed: ${failures[*]}"
((${#boots_failed[@]} == 0)) || log "failed guest runs: ${boots_failed[*]}"
[[ ! -s $out/why.txt ]] || { log "why the failed guest runs failed:"; sed 's/^/  /' "$out/why.txt" >&2; }
log "results: $out/results.txt; console logs: $out/*.log; $((SECONDS - t_start)) s in all"
# (failures a label's manifest expects: only with CHECK_LABELS=base ...)
xf=
((xfailed == 0)) || xf=", $xfailed failed as expected"
echo "check: $passed passed, $failed failed, $skipped skipped$xf"
((failed == 0 && ${#failures[@]} == 0 && ${#boots_failed[@]} == 0))
