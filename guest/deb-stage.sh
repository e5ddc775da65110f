# deb-stage.sh STAGE: one boot of make check-deb's Debian 11 guest for
# the packages of make deb (Debian's kernel with the series), run as init
# by /fp/deb-init.  The guest holds Debian's own kernel of the same
# flavour (from bullseye-security) and the packages in /fp/debs; the
# host boots it four times, the kernel of each stage taken from its /boot:
#   install   (Debian's kernel) dpkg -i the packages beside it, poll
#             queues set as a user does: /etc/modprobe.d and
#             update-initramfs, since nvme loads from the initramfs
#   test      (the fastpath kernel) its release, io_poll from the
#             modprobe.d option (not the command line), the fio hipri
#             jobs polled and verified (deb-test.sh), the iopoll
#             kselftests on the scratch namespace, and an out-of-tree
#             module built with linux-headers and loaded (DKMS's case)
#   rollback  (Debian's kernel) dpkg --purge the image and headers of
#             the series and the modprobe.d file, Debian's own
#             linux-kbuild put back (dpkg -i of /fp/debian-debs: the
#             series' replaced it); nothing of
#             the series is left in dpkg, /boot or /lib/modules
#   after     (Debian's kernel) it still boots, no package of the series
#             is installed, and a module builds against Debian's headers
# The release of each stage's kernel is in /fp/release-STAGE.  TAP lines
# on stdout.
. /fp/common.sh
stage=$1 rc=0
want=$(cat "/fp/release-$stage")
fp=$(cat /fp/release-test)

if [ "$(uname -r)" = "$want" ]; then
	tap_ok "${stage}_kernel_release $want"
else
	tap_fail "${stage}_kernel_release" "uname -r is $(uname -r), this stage boots $want"
	exit 1
fi

# module_build STAGE RELEASE: DKMS's case, a small module built against
# /lib/modules/RELEASE/build (the linux-headers package of RELEASE),
# loaded and unloaded (RELEASE is the running kernel)
module_build() {
	m=/tmp/fphello-$1
	mkdir -p $m
	cat >$m/fphello.c <<'EOF'
#include <linux/module.h>
#include <linux/init.h>

static int __init fphello_init(void)
{
	pr_info("fphello: built against linux-headers, loaded\n");
	return 0;
}

static void __exit fphello_exit(void)
{
}

module_init(fphello_init);
module_exit(fphello_exit);
MODULE_LICENSE("GPL");
EOF
	echo 'obj-m := fphello.o' >$m/Kbuild
	if make -C "/lib/modules/$2/build" M=$m modules >/tmp/mod.log 2>&1 &&
		insmod $m/fphello.ko && dmesg | grep -q 'fphello: built against linux-headers, loaded' &&
		rmmod fphello; then
		tap_ok "$1_out_of_tree_module $(modinfo -F vermagic $m/fphello.ko)"
	else
		sed 's/^/# /' /tmp/mod.log | tail -20
		tap_fail "$1_out_of_tree_module" "make M= with /lib/modules/$2/build, or insmod, failed"
		return 1
	fi
}

# fastpath_pkgs: the installed packages whose version is the series'
fastpath_pkgs() {
	dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' |
		awk '$1 ~ /^[ih]/ && $3 ~ /\+fastpath/ { print $2 }'
}

case $stage in
install)
	if dpkg -i /fp/debs/*.deb >/tmp/dpkg.log 2>&1; then
		tap_ok install_dpkg_i
	else
		sed 's/^/# /' /tmp/dpkg.log | tail -30
		tap_fail install_dpkg_i "dpkg -i failed"
		exit 1
	fi
	echo "# installed: $(fastpath_pkgs | tr '\n' ' ')"
	echo 'options nvme poll_queues=1' >/etc/modprobe.d/fastpath-nvme.conf
	if update-initramfs -u -k "$fp" >/tmp/uinit.log 2>&1 &&
		lsinitramfs "/boot/initrd.img-$fp" | grep -q 'etc/modprobe.d/fastpath-nvme.conf'; then
		tap_ok install_initramfs_poll_queues
	else
		sed 's/^/# /' /tmp/uinit.log | tail -20
		tap_fail install_initramfs_poll_queues "the initramfs of $fp has no modprobe.d option"
		rc=1
	fi
	# beside Debian's own: both kernels and their modules
	n=0
	for r in "$fp" "$(cat /fp/release-rollback)"; do
		[ -f "/boot/vmlinuz-$r" ] && [ -f "/boot/initrd.img-$r" ] && [ -d "/lib/modules/$r/kernel" ] &&
			n=$((n + 1))
	done
	if [ $n = 2 ]; then
		tap_ok install_beside_debian_kernel
	else
		tap_fail install_beside_debian_kernel "/boot: $(ls /boot | tr '\n' ' ')"
		rc=1
	fi
	;;
test)
	# nvme came from the initramfs (udev there loaded it, before this
	# script), with the option of /etc/modprobe.d: not the command line
	pq=$(cat /sys/module/nvme/parameters/poll_queues 2>/dev/null)
	case " $(cat /proc/cmdline) " in
	*" nvme.poll_queues="*) pq="$pq, and the command line sets it" ;;
	esac
	if [ "$pq" = 1 ]; then
		tap_ok test_poll_queues_from_modprobe_d
	else
		tap_fail test_poll_queues_from_modprobe_d "nvme poll_queues at boot: ${pq:-nvme not loaded by the initramfs}"
		rc=1
	fi
	sh /fp/deb-test.sh "$fp" || rc=1
	# the kselftests of the series, on the scratch namespace only
	if [ -x /fp/selftests/iopoll_test ] && [ -x /fp/selftests/uring_test ]; then
		# Debian builds configfs as a module: null_blk loads it, and
		# with it /sys/kernel/config, where configfs is then mounted
		modprobe null_blk nr_devices=0
		mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
		if [ -d /sys/kernel/config/nullb ]; then
			tap_ok test_null_blk_configfs
		else
			tap_fail test_null_blk_configfs "modprobe null_blk, or no /sys/kernel/config/nullb"
			rc=1
		fi
		echo "== kselftest iopoll"
		IOPOLL_DEV=/dev/nvme0n1 /fp/selftests/iopoll_test >/tmp/kst.out 2>&1 || rc=1
		echo "== kselftest iopoll: uring_test"
		IOPOLL_DEV=/dev/nvme0n1 /fp/selftests/uring_test >>/tmp/kst.out 2>&1 || rc=1
		# their TAP lines: the host holds every result, and every
		# skip's reason, against guest/expected/deb-test.txt
		cat /tmp/kst.out
		echo "# kselftest: $(grep -c '^ok ' /tmp/kst.out) ok, $(grep -c '^not ok ' /tmp/kst.out) not ok, $(grep -c '^ok .*# SKIP' /tmp/kst.out) skipped"
	else
		tap_fail test_kselftests "no /fp/selftests/iopoll_test or uring_test"
		rc=1
	fi
	# DKMS's case: a module built against the installed linux-headers
	module_build test "$fp" || rc=1
	;;
rollback)
	rm -f /etc/modprobe.d/fastpath-nvme.conf
	# the image and headers of the series first (Debian's headers still
	# have the series' linux-kbuild), then Debian's own linux-kbuild put
	# back, which purges nothing of Debian's
	pkgs=$(fastpath_pkgs | grep -E '^linux-(image|headers)-.*fastpath' | tr '\n' ' ')
	echo "# purging: $pkgs"
	# shellcheck disable=SC2086
	if [ -n "$pkgs" ] && dpkg --purge $pkgs >/tmp/dpkg.log 2>&1; then
		tap_ok rollback_dpkg_purge
	else
		sed 's/^/# /' /tmp/dpkg.log | tail -30
		tap_fail rollback_dpkg_purge "dpkg --purge failed or nothing to purge"
		rc=1
	fi
	if ls /fp/debian-debs/*.deb >/dev/null 2>&1; then
		echo "# putting back: $(cd /fp/debian-debs && ls | tr '\n' ' ')"
		if dpkg -i /fp/debian-debs/*.deb >/tmp/dpkg.log 2>&1; then
			tap_ok rollback_debian_kbuild_back
		else
			sed 's/^/# /' /tmp/dpkg.log | tail -30
			tap_fail rollback_debian_kbuild_back "dpkg -i of Debian's packages failed"
			rc=1
		fi
	fi
	left=$(ls -d /boot/*"$fp"* "/lib/modules/$fp" 2>/dev/null | tr '\n' ' ')
	broken=$(dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 != "ii" && $1 != "rc" { print $2 }' | tr '\n' ' ')
	if [ -z "$left" ] && [ -z "$(fastpath_pkgs)" ] && [ -z "$broken" ]; then
		tap_ok rollback_nothing_left
	else
		tap_fail rollback_nothing_left "left: $left $(fastpath_pkgs | tr '\n' ' '); not installed right: $broken"
		rc=1
	fi
	;;
after)
	if [ -z "$(fastpath_pkgs)" ] && [ ! -e "/lib/modules/$fp" ]; then
		tap_ok after_no_fastpath_package
	else
		tap_fail after_no_fastpath_package "$(fastpath_pkgs | tr '\n' ' ')"
		rc=1
	fi
	module_build after "$want" || rc=1
	;;
*)
	tap_fail deb_stage "no stage $stage"
	exit 1
	;;
esac
if dmesg | grep -Eq 'WARNING:|BUG:|Oops'; then
	tap_fail "${stage}_dmesg" "a kernel warning"
	rc=1
else
	tap_ok "${stage}_dmesg"
fi
exit $rc
