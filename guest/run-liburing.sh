# make check, in the guest: liburing 2.3's own tests (scripts/liburing.sh)
# against this kernel.  They run in a directory on ext4 (a memory-backed
# null_blk device), so that the tests that open their files with O_DIRECT
# can, with loopback networking up for the socket tests.  Tests named
# "NAME+dev" run with the NVMe namespace as their file argument
# (liburing's TEST_FILES).  Exit 0 passes, 77 skips, anything else fails.
#   sh run-liburing.sh        the tests of liburing-tests.txt, compared with
#                         liburing-base.txt, base's results:
#                         - base passed: the test must pass (a skip fails);
#                         - base failed or timed out: a failure with the
#                           same exit status and the same first failure
#                           line (the subtest) is a skip ("as on base"),
#                           any other failure (a hang included) fails;
#                         - base skipped: a skip is a skip.
#                         A failure that is a known race of liburing's
#                         own test (lu_race, by its exact output) runs
#                         once more, and that run counts.
#                         Each test may take 10 times base's time plus 10 s
#                         (50 times on a KASAN kernel), at most 240 s (600
#                         s); 20 s (100 s) for a test that timed out on
#                         base.  Base's times come from a faster host:
#                         pollfree took 20.6 s there; on a slower one
#                         150-164 s on the series, and base did not end
#                         it in 200 s.
#   sh run-liburing.sh all    every test, and every test that takes a file
#                         with the device, 60 s each: how liburing-base.txt
#                         is made (scripts/liburing-baseline.sh)
. /fp/common.sh
mode=${1:-compare}
export LD_LIBRARY_PATH=/fp/liburing/lib
ip link set lo up 2>/dev/null
cap=240 factor=10 tocap=20
grep -q " __asan_load8$" /proc/kallsyms && cap=600 factor=50 tocap=100
# recording base's results: 60 s each (300 s)
[ "$mode" != all ] || cap=$((cap / 4))
dev=/dev/$(nvme_plain)
[ -b "$dev" ] || dev=

# the working directory: ext4 on null_blk (or the initramfs if that fails,
# which the tests that need O_DIRECT then report)
wd=/fp/liburing
if nb=$(nullb_create lu size=512 memory_backed=1 blocksize=4096) &&
	/sbin/mke2fs -q -t ext4 -F /dev/$nb >/dev/null 2>&1 &&
	mkdir -p /mnt/lu && mount -t ext4 /dev/$nb /mnt/lu; then
	wd=/mnt/lu
else
	echo "# liburing: no ext4 working directory, running in the initramfs"
fi
cd "$wd" || exit 1
echo "# liburing: working directory $wd, device ${dev:-none}"

if [ $mode = all ]; then
	list=$(for t in /fp/liburing/*.t; do
		t=${t##*/}
		echo "${t%.t}"
		grep -qx "${t%.t}" /fp/liburing/dev-tests.txt && echo "${t%.t}+dev"
	done)
else
	list=$(grep -v '^#' /fp/liburing/liburing-tests.txt | awk '{ print $1 }')
fi

# lu_run: test $t (argument $arg) once, within $limit s: sets st, res,
# secs, why; its output in /tmp/lu.out
lu_run() {
	local t0 t1
	echo "Running liburing test $id" >/dev/kmsg
	t0=$(cut -d' ' -f1 /proc/uptime)
	run_timed "$limit" /fp/liburing/"$t".t $arg >/tmp/lu.out 2>&1
	st=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	case $st in
	124) res=timeout ;;
	0) res=pass ;;
	77) res=skip ;;
	*) res=fail ;;
	esac
	# the first line that says what failed, for the record
	why=$(grep -i -m1 -E 'fail|error|unexpected|bad|mismatch' /tmp/lu.out | tr -s ' \t' ' ' | cut -c1-70)
}

# lu_race ID: the failure in /tmp/lu.out is a race of liburing 2.3's test
# itself, known by its exact output; it runs once more and must pass then
lu_race() {
	case $1 in
	read-write | read-write+dev)
		# with SQPOLL, io_uring_submit() counts the SQEs the SQ thread
		# has not taken yet: 0 when the thread, awake, took all 32
		# before it looked (seen once, 2026-12-02)
		[ "$(head -1 /tmp/lu.out)" = "submit got 0, wanted 32" ] ;;
	*) return 1 ;;
	esac
}

n=0
rc=0
for id in $list; do
	n=$((n + 1))
	t=${id%+dev}
	arg=
	if [ "$t" != "$id" ]; then
		if [ -z "$dev" ]; then
			echo "ok $n liburing/$id # SKIP no NVMe namespace"
			continue
		fi
		arg=$dev
	fi
	# base's result, exit status and time (liburing-base.txt)
	set -- $(awk -v id="$id" '$1 == id { print $2, $3, $4 }' /fp/liburing/liburing-base.txt 2>/dev/null)
	bres=${1:-} bst=${2:-} bsecs=${3:-}
	# base's first line that said what failed (the subtest)
	bwhy=$(awk -v id="$id" '$1 == id { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print }' \
		/fp/liburing/liburing-base.txt 2>/dev/null)
	limit=$cap
	if [ $mode != all ] && [ "$bres" = timeout ]; then
		# base never finished it: 20 s tell a pass from the same
		# timeout (io_uring_register: 0.1 s or never)
		limit=$tocap
	elif [ $mode != all ] && [ -n "$bsecs" ]; then
		limit=$(awk -v s="$bsecs" -v f=$factor -v c=$cap 'BEGIN { l = int(s * f + 10); print (l < c) ? l : c }')
	fi
	lu_run
	if [ $res = fail ] && [ $mode != all ] && lu_race "$id"; then
		echo "# $id: liburing 2.3's own race ($(head -1 /tmp/lu.out)): once more"
		lu_run
	fi
	echo "LIBURING $id $res $st $secs ${why:--}"
	if [ $res = pass ]; then
		echo "ok $n liburing/$id"
		continue
	elif [ $mode = all ]; then
		echo "ok $n liburing/$id # SKIP recording: $res"
		continue
	fi
	case $res/$bres in
	skip/skip | skip/)
		echo "ok $n liburing/$id # SKIP the test skipped itself (on base too)"
		continue ;;
	fail/fail | timeout/timeout)
		# the same exit status and the same first failure line: a test
		# that fails on base in one subtest must not hide another
		if [ "$st" = "$bst" ] && [ "${why:--}" = "${bwhy:--}" ]; then
			echo "ok $n liburing/$id # SKIP $res as on base (exit $st)"
			continue
		fi
		echo "# base failed with: ${bwhy:--}; here: ${why:--}" ;;
	esac
	sed 's/^/# /' /tmp/lu.out | tail -20
	echo "not ok $n liburing/$id ($res, exit $st, ${secs} s; base: ${bres:-not run}, exit ${bst:--}, ${bsecs:--} s)"
	rc=1
done
echo "1..$n"
cd /
umount /mnt/lu 2>/dev/null && nullb_remove lu
exit $rc
