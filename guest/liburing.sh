# make check, in the guest: liburing 2.3's own tests (scripts/liburing.sh)
# against this kernel.  Each test runs with a 60 s limit, as liburing's
# runtests.sh does (300 s on a KASAN kernel); exit 0 passes, 77 skips,
# anything else fails.  Tests named "NAME+dev" run with the NVMe
# namespace as their file argument (liburing's TEST_FILES).
#   sh liburing.sh        the tests of liburing-tests.txt; a failure that
#                         liburing-base.txt records for the base kernel too
#                         is reported as a skip ("fails on base too")
#   sh liburing.sh all    every test, and every test that takes a file
#                         with the device: how liburing-base.txt is made
. /fp/lib.sh
cd /fp/liburing || exit 1
export LD_LIBRARY_PATH=/fp/liburing/lib
ip link set lo up 2>/dev/null
# KASAN and lockdep make a kernel several times slower: give tests 300 s
limit=60
grep -q " __asan_load8$" /proc/kallsyms && limit=300
dev=/dev/$(nvme_plain)
[ -b "$dev" ] || dev=

if [ "$1" = all ]; then
	list=$(for t in *.t; do
		echo "${t%.t}"
		grep -qx "${t%.t}" dev-tests.txt && echo "${t%.t}+dev"
	done)
else
	list=$(grep -v '^#' liburing-tests.txt | awk '{ print $1 }')
fi

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
	echo "Running liburing test $id" >/dev/kmsg
	t0=$(cut -d' ' -f1 /proc/uptime)
	run_timed $limit ./"$t".t $arg >/tmp/lu.out 2>&1
	st=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	if [ $st = 124 ]; then
		res=timeout
	elif [ $st = 0 ]; then
		res=pass
	elif [ $st = 77 ]; then
		res=skip
	else
		res=fail
	fi
	echo "LIBURING $id $res $secs"
	base=$(awk -v id="$id" '$1 == id { print $2 }' liburing-base.txt 2>/dev/null)
	case $res in
	pass) echo "ok $n liburing/$id" ;;
	skip) echo "ok $n liburing/$id # SKIP the test skipped itself" ;;
	*)
		if [ "$1" != all ] && { [ "$base" = fail ] || [ "$base" = timeout ]; }; then
			echo "ok $n liburing/$id # SKIP $res, as on base ($base)"
		else
			sed 's/^/# /' /tmp/lu.out | tail -20
			echo "not ok $n liburing/$id ($res, exit $st, ${secs} s; base: ${base:-not run})"
			rc=1
		fi
		;;
	esac
done
echo "1..$n"
exit $rc
