#!/usr/bin/env bash
# liburing-baseline.sh [LABEL]: run every liburing 2.3 test (and every one
# that takes a file, on the NVMe namespace) on LABEL's kernel (default:
# base) and write the results to guest/liburing-base.txt, which make check
# compares against: a test that passes there must not fail on patched.
# Also prints the results, slowest first, to pick liburing-tests.txt from.
. "$(dirname "$0")/lib.sh"

label=${1:-base}
stage "build $label" "$FP_TOP/scripts/build.sh" "$label" || die "build failed"
out=$FP_BUILD/liburing-$label
rm -rf "$out"
mkdir -p "$out/files"
stage "liburing tests" "$FP_TOP/scripts/liburing.sh" "$out/files" || die "liburing build failed"
rm -f "$out/files/liburing/liburing-base.txt"
"$FP_TOP/scripts/vm.sh" --label "$label" --smp 2 --poll-queues 1 --timeout 7200 \
	--files "$out/files" --log "$out/console.log" -- sh /fp/run-liburing.sh all || true
grep -a '^LIBURING ' "$out/console.log" | tr -d '\r' >"$out/results.txt"
[[ -s $out/results.txt ]] || die "no results (log: $out/console.log)"
if [[ $label == base ]]; then
	{
		echo "# liburing 2.3 tests on base ($(git -C "$FP_BUILD/$label" log -1 --format=%h)),"
		echo "# NVMe with poll queues, working directory on ext4, configs/qemu.config"
		echo "# by scripts/liburing-baseline.sh: id result exit seconds first-failure-line"
		sed 's/^LIBURING //' "$out/results.txt"
	} >"$FP_TOP/guest/liburing-base.txt"
fi
sort -k5 -n -r "$out/results.txt" | awk '{ print $2, $3, $4, $5 }'
