#!/usr/bin/env bash
# bisect-check.sh [FROM [TO]]: every patch of the series builds and boots.
# Patches FROM..TO (default: all) are built one after the other in one
# directory, build/bisect (ccache and the previous patch's objects keep
# this incremental), each with the QEMU config and the build's W=1 check
# of the lines the series adds, and each kernel boots under QEMU with an
# NVMe poll queue and two vCPUs without a splat.  At the last patch of
# each part of the series (the "## " headings of patches/series: after
# the tests, the io_uring part, the allocation part, bio polling, ...)
# the kernel also boots with the poll boot's devices and runs the
# kselftests of that prefix and the KUnit suite (guest/boot.sh
# kselftests), no test failing.  Run by
# "make bisect-check"; prints one line per patch and its time, and fails
# on the first that does not build or boot.  Each patch's line is also
# appended to results/bisect/<base version>.txt with the series commit, so
# that ranges run at different times add up to the whole series.
. "$(dirname "$0")/lib.sh"

FP_PREFIX="[bisect] "
"$FP_TOP/scripts/fetch-base.sh" >/dev/null
top=$(series_commit)
total=$(git_fp rev-list --count base.."$top")
from=${1:-1} to=${2:-$total}
((from >= 1 && to <= total && from <= to)) || die "patches $from..$to: the series has $total"
# the patch numbers that end a part of the series
mapfile -t part_ends < <(awk '
	/^## / { if (n) print n }
	/^[0-9][0-9][0-9][0-9]-.*\.patch$/ { n++ }
	END { print n }' "$FP_PATCHES/series")
tests=$FP_BUILD/bisect-files
record=$FP_TOP/results/bisect/$BASE_VERSION.txt
short=$(git_fp rev-parse --short=12 "$top")
stamp() { echo "$(date -u +%FT%TZ) $short"; }
mkdir -p "${record%/*}"
t0=$SECONDS
for ((n = from; n <= to; n++)); do
	t1=$SECONDS
	subj=$(git_fp log -1 --format=%s "$top~$((total - n))")
	FP_BUILD_DIRNAME=bisect "$FP_TOP/scripts/build.sh" "p$n" >"$FP_BUILD/bisect-p$n.log" 2>&1 ||
		{ tail -20 "$FP_BUILD/bisect-p$n.log" >&2; die "patch $n ($subj) does not build: $FP_BUILD/bisect-p$n.log"; }
	"$FP_TOP/scripts/vm.sh" --label bisect --smp 2 --poll-queues 1 --timeout 300 \
		--log "$FP_BUILD/bisect-p$n.boot" -- 'grep -q . /sys/block/nvme0n1/queue/io_poll' \
		>/dev/null 2>&1 || die "patch $n ($subj) does not boot cleanly: $FP_BUILD/bisect-p$n.boot{,.kernel}"
	what="builds, boots"
	if [[ " ${part_ends[*]} " == *" $n "* ]]; then
		rm -rf "$tests" && mkdir -p "$tests"
		cp "$FP_BUILD"/bisect/tools/testing/selftests/iopoll/{iopoll_test,uring_test} "$tests/" 2>/dev/null || true
		"$FP_TOP/scripts/vm.sh" --label bisect --smp 2 --poll-queues 1 --timeout 900 \
			--files "$tests" --log "$FP_BUILD/bisect-p$n.tests" -- sh /fp/boot.sh kselftests \
			>/dev/null 2>&1 || die "patch $n ($subj): the poll boot's tests fail: $FP_BUILD/bisect-p$n.tests{,.kernel}"
		! grep -q '^not ok' "$FP_BUILD/bisect-p$n.tests" ||
			die "patch $n ($subj): $(grep -c '^not ok' "$FP_BUILD/bisect-p$n.tests") tests fail: $FP_BUILD/bisect-p$n.tests"
		what+=", $(grep -c '^ok' "$FP_BUILD/bisect-p$n.tests") tests pass"
	fi
	log "p$n ok ($what, $((SECONDS - t1)) s): $subj"
	echo "$(stamp) p$n $((SECONDS - t1)) s: $what: $subj" >>"$record"
done
log "patches $from..$to build and boot ($((SECONDS - t0)) s)"
echo "$(stamp) p$from..p$to: $((SECONDS - t0)) s" >>"$record"
