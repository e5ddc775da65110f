# make check, in the guest: "boot.sh BOOT" (poll, nopoll, mpath,
# starved, dbbuf, swiotlb, eagain, userdisk; eagain-mpath for make
# eagain-matrix, kselftests for make bisect-check): the devices BOOT
# asked for and the KUnit results, then every test of tests/ whose
# "# boots:" names BOOT (only those of FP_TESTS, if set), one at a time
# (run_tests, guest/common.sh).  The host compares the TAP lines with
# guest/expected/BOOT.txt.
. /fp/common.sh

rc=0
boot=${1:-poll}

echo "== devices of the $boot boot"
# "kselftests" (make bisect-check at the end of each part of the series):
# the poll boot's devices, KUnit and the iopoll kselftests only; the
# harness's own tests also cover what later patches add
case $boot in
kselftests) devices_check poll ;;
eagain-mpath) devices_check mpath ;;
*) devices_check "$boot" ;;
esac

# The series' KUnit suites ran at boot: take their TAP from the kernel log.
echo "== KUnit (at boot)"
if grep -q " sbitmap_batch_full_word$" /proc/kallsyms; then
	dmesg | sed 's/^\[[ 0-9.]*\] *//' | grep -E "^(not )?ok [0-9]+ - sbitmap_" >/tmp/kunit.txt
	if [ -s /tmp/kunit.txt ]; then
		while read -r line; do
			name=${line#* - }
			case $line in
			ok*) tap_ok "kunit_$name" ;;
			*) tap_fail "kunit_$name" "see the kernel log"; rc=1 ;;
			esac
		done </tmp/kunit.txt
	else
		tap_fail kunit_sbitmap_batch "the suite printed no results"
		rc=1
	fi
else
	tap_skip kunit_sbitmap_batch "not in this kernel"
fi

run_tests "$boot"
exit $rc
