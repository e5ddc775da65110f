#!/usr/bin/env bash
# make check: lint the patch queue, build "patched" (CHECK_LABELS to add
# more, e.g. "base patched"), boot each with NVMe poll queues, with an
# NVMe multipath subsystem and without poll queues, run the guest tests,
# and end with "check: N passed, N failed, N skipped".
. "$(dirname "$0")/lib.sh"

labels=(${CHECK_LABELS:-patched})
out=$FP_BUILD/check
rm -rf "$out"
mkdir -p "$out"
t_start=$SECONDS
failures=()

stage "packages" need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}" || exit 1
stage "fetch base" "$FP_TOP/scripts/fetch-base.sh" >/dev/null || exit 1
stage "patch queue" "$FP_TOP/scripts/lint-queue.sh" || failures+=("patch queue")

# The kselftests and probes run on every label come from the whole series.
stage "build patched" "$FP_TOP/scripts/build.sh" patched || {
	echo "check: 0 passed, 1 failed, 0 skipped"
	exit 1
}
tests=$out/guest-files
mkdir -p "$tests"
cp "$FP_BUILD/patched/tools/testing/selftests/iopoll/iopoll_test" "$tests/" 2>/dev/null ||
	failures+=("kselftest iopoll_test was not built")

# boot NAME VM-OPTIONS...: one guest run of guest/check.sh
boot() {
	local label=$1 name=$2 rc=0
	shift 2
	"$FP_TOP/scripts/vm.sh" --label "$label" --files "$tests" \
		--log "$out/$label-$name.log" "$@" -- sh /fp/check.sh || rc=$?
	# TAP lines of the guest, named by label and boot
	grep -E '^(not )?ok ' "$out/$label-$name.log" |
		sed "s/^/$label $name: /" >>"$out/results.txt" || true
	if ((rc != 0)); then
		# a failing guest with no failing test line still fails the run
		grep -q "^$label $name: not ok" "$out/results.txt" ||
			echo "$label $name: not ok - guest run (exit $rc)" >>"$out/results.txt"
		return 1
	fi
}

for label in "${labels[@]}"; do
	[[ $label == patched ]] || stage "build $label" "$FP_TOP/scripts/build.sh" "$label" ||
		{ failures+=("build $label"); continue; }
	stage "$label: NVMe with poll queues" boot "$label" poll --poll-queues 1 ||
		failures+=("$label poll")
	stage "$label: NVMe multipath" boot "$label" mpath --mpath --poll-queues 1 ||
		failures+=("$label mpath")
	stage "$label: NVMe without poll queues" boot "$label" nopoll --poll-queues 0 ||
		failures+=("$label nopoll")
done

touch "$out/results.txt"
passed=$(grep -Ec ': ok ' "$out/results.txt" | head -1)
skipped=$(grep -Ec ': ok .*# SKIP' "$out/results.txt" | head -1)
failed=$(grep -Ec ': not ok ' "$out/results.txt" | head -1)
passed=$((passed - skipped))
# failures outside the guest (queue lint, builds) count once each
for f in "${failures[@]}"; do
	case $f in *" poll" | *" mpath" | *" nopoll") ;; *) failed=$((failed + 1)) ;; esac
done
grep -E ': not ok |# SKIP' "$out/results.txt" | sed 's/^/  /' >&2 || true
((${#failures[@]} == 0)) || log "failed: ${failures[*]}"
log "results: $out/results.txt; console logs: $out/*.log; $((SECONDS - t_start)) s in all"
echo "check: $passed passed, $failed failed, $skipped skipped"
((failed == 0 && ${#failures[@]} == 0))
