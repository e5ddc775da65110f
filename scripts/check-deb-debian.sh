#!/usr/bin/env bash
# make check-deb (DEB_CONFIG=debian, FLAVOUR=amd64 or rt): the packages
# of make deb (Debian's kernel with the series) tried as a Debian 11
# user would, in a QEMU guest (q35, TCG, two vCPUs, an emulated NVMe).
# The guest's root is Debian 11 (debootstrap, cached) with Debian's own
# kernel of the same flavour from bullseye-security (linux-image-amd64
# or linux-image-rt-amd64; the point release's where the mirror has none
# in the security suite), gcc-10 and make for out-of-tree modules, and
# the packages in /fp/debs.  Four boots, each running
# guest/deb-stage.sh STAGE as init with the kernel of that stage taken
# from the guest's /boot (debugfs, no mount on the host):
#   install  Debian's kernel: dpkg -i the image, headers and kbuild
#            packages, poll queues in
#            /etc/modprobe.d, update-initramfs
#   test     the fastpath kernel: io_poll, fio hipri polled and verified,
#            the iopoll kselftests on the scratch namespace, an
#            out-of-tree module built and loaded; every result held
#            against guest/expected/deb-test.txt (scripts/manifest.sh)
#   rollback Debian's kernel: dpkg --purge of the series' packages
#   after    Debian's kernel boots again, nothing of the series left
# No kernel warning or request timeout allowed in any boot.  Ends with
# "check-deb: N passed, N failed"; the guest's output is kept in
# results/deb/debian-FLAVOUR/check-deb.txt.
. "$(dirname "$0")/lib.sh"

flavour=${FLAVOUR:-amd64}
case $flavour in
amd64 | none) flavour=amd64 featureset=none meta=linux-image-amd64 hmeta=linux-headers-amd64 ;;
rt | rt-amd64) flavour=rt featureset=rt meta=linux-image-rt-amd64 hmeta=linux-headers-rt-amd64 ;;
*) die "FLAVOUR=$flavour: amd64 (the default) or rt" ;;
esac
debs=$FP_TOP/results/deb/debian-$flavour
work=$FP_BUILD/check-deb-debian-$flavour
suite=$BASE_SUITE
# what the guest needs beyond minbase: initramfs-tools (and the kmod and
# udev it uses), fio, and for out-of-tree modules gcc-10 and make; then
# Debian's own kernel of the flavour and its headers (with Debian's
# linux-kbuild-5.10, which the packages of the series replace), from
# the security suite, as on a machine that builds DKMS modules
include=initramfs-tools,kmod,udev,fio,procps,gcc-10,make,libc6-dev
apt="$meta $hmeta"
FP_PREFIX="[check-deb-debian-$flavour] "

host_check
need_pkgs qemu-system-x86 e2fsprogs python3
[[ -f $debs/kernelrelease ]] || die "no packages in $debs: run make deb FLAVOUR=$flavour first"
rel=$(cat "$debs/kernelrelease")
ls "$debs"/selftests/iopoll_test "$debs"/selftests/uring_test >/dev/null 2>&1 ||
	die "no kselftests in $debs/selftests: run make deb FLAVOUR=$flavour again"
[[ $(cat "$debs/series.sha256" 2>/dev/null) == "$(series_sum "$featureset")" ]] ||
	die "the packages in $debs are not of the series in patches/: run make deb FLAVOUR=$flavour first"
# what a user installs: the image, its headers (and their common part),
# and the linux-kbuild those need at the series' version; not the
# compiler meta-package (Debian's, which the guest has, does), the
# signed-image template, linux-support, the other flavour's common
# headers or the debug symbols
abi=${rel%-amd64} abi=${abi%-rt} common=common
[[ $flavour == amd64 ]] || common="common-rt"
kbuild=linux-kbuild-${BASE_VERSION%.*}
mapfile -t install_debs < <(cd "$debs" && ls linux-image-"$rel"_*.deb linux-image-"$rel"-unsigned_*.deb \
	linux-headers-"$rel"_*.deb linux-headers-"$abi-$common"_*.deb "$kbuild"_*.deb 2>/dev/null)
[[ " ${install_debs[*]} " == *" linux-image-"* && " ${install_debs[*]} " == *" linux-headers-$rel"_* ]] ||
	die "no linux-image or linux-headers package of $rel in $debs"
disk_check "$work" 8 "make check-deb"

img=$work/root.img
# ext_fsck: the guest's root image checked and its journal replayed
# (after a guest that was stopped, or did not remount its root read-only)
# before the host reads or writes it
ext_fsck() {
	local rc=0
	e2fsck -fy "$img" >"$work/e2fsck.log" 2>&1 || rc=$?
	((rc <= 1)) || { cat "$work/e2fsck.log" >&2; die "e2fsck of the guest's root image: exit $rc"; }
}
# ext_get PATH DEST: a file of the guest's root image
ext_get() {
	rm -f "$2"
	debugfs -R "dump $1 $2" "$img" >/dev/null 2>&1 && [[ -s $2 ]]
}
# ext_put FILE PATH: write FILE to the guest's root image, replacing PATH
ext_put() {
	debugfs -w -R "rm $2" "$img" >/dev/null 2>&1 || true
	debugfs -w -R "write $1 $2" "$img" >/dev/null 2>&1 || die "cannot write $2 in $img"
}

make_root() {
	local root=$work/root tar f
	tar=$(debian_root_tar "$suite" "$include" "$apt") || die "no $suite root"
	rm -rf "$work"
	mkdir -p "$root"
	tar -C "$root" -xzf "$tar"
	# Debian's kernel there: the newest linux-image of the flavour
	debian_rel=$(cd "$root/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' | sort -V | tail -1)
	[[ -n $debian_rel && -f $root/boot/initrd.img-$debian_rel ]] ||
		die "the $suite root has no kernel of $meta with its initramfs"
	sed -i 's/^COMPRESS=.*/COMPRESS=gzip/' "$root/etc/initramfs-tools/initramfs.conf"
	mkdir -p "$root/fp/debs" "$root/fp/selftests" "$root/fp/debian-debs"
	for f in "${install_debs[@]}"; do
		cp "$debs/$f" "$root/fp/debs/"
	done
	# Debian's own linux-kbuild, as installed there, for the rollback to
	# put back (the guest has no network)
	local v
	v=$(chroot "$root" dpkg-query -W -f '${Version}' "$kbuild" 2>/dev/null) &&
		{ apt_bin_download "$suite" "$work/debian-debs" "$kbuild=$v" >/dev/null ||
			die "could not download Debian's $kbuild=$v for the rollback"; }
	cp "$work"/debian-debs/*.deb "$root/fp/debian-debs/" 2>/dev/null || true
	cp "$debs"/selftests/* "$root/fp/selftests/"
	cp "$FP_TOP/guest/common.sh" "$FP_TOP/guest/deb-test.sh" "$FP_TOP/guest/deb-stage.sh" \
		"$FP_TOP/guest/deb-init" "$root/fp/"
	chmod +x "$root/fp/deb-init"
	echo "$debian_rel" >"$root/fp/release-install"
	echo "$rel" >"$root/fp/release-test"
	echo "$debian_rel" >"$root/fp/release-rollback"
	echo "$debian_rel" >"$root/fp/release-after"
	echo install >"$root/fp/stage"
	truncate -s 6G "$img"
	mkfs.ext4 -q -F -L root -d "$root" "$img"
	rm -rf "$root"
	echo "$debian_rel" >"$work/debian-release"
	log "Debian's kernel $debian_rel; the packages' $rel: ${install_debs[*]}; Debian's to put back: $(ls "$work/debian-debs" 2>/dev/null | tr '\n' ' ')"
}

# boot STAGE: boot the kernel of STAGE from the image's /boot, run the
# stage; its TAP lines are added to $work/guest.log
boot() {
	local stage=$1 r log=$work/$1.log klog=$work/$1.kernel.log
	r=$(cat "$work/release-$stage" 2>/dev/null) || r=
	echo "$stage" >"$work/stage"
	ext_fsck
	ext_put "$work/stage" /fp/stage
	ext_get "/boot/vmlinuz-$r" "$work/vmlinuz" && ext_get "/boot/initrd.img-$r" "$work/initrd" ||
		{ echo "not ok - ${stage}_boot: no /boot/vmlinuz-$r or initrd.img-$r in the guest" >>"$work/guest.log"; return 1; }
	DEB_GUEST_MEM=1536 FP_BOOT_TIMEOUT=${FP_BOOT_TIMEOUT:-300} CHECK_DEB_TIMEOUT=${CHECK_DEB_TIMEOUT:-1800} \
		deb_guest_boot "$stage" "$log" "$klog" "" "$work/vmlinuz" "$work/initrd" "$img" \
		"root=/dev/vda rw init=/fp/deb-init console=ttyS0 tsc=reliable panic=-1" || true
	# (a hang, a death, a splat: deb_guest_boot's "not ok" lines say it)
	cat "$log" >>"$work/guest.log"
	! grep -q '^not ok ' "$log"
}

stages() {
	local s d
	d=$(cat "$work/debian-release")
	echo "$d" >"$work/release-install"
	echo "$rel" >"$work/release-test"
	echo "$d" >"$work/release-rollback"
	echo "$d" >"$work/release-after"
	: >"$work/guest.log"
	for s in install test rollback after; do
		stage "boot: $s ($(cat "$work/release-$s"))" boot "$s" || {
			# a failed install leaves nothing to test; a failed test
			# still rolls back
			[[ $s != install ]] || break
		}
	done
	# the test boot's results, each against its line of the manifest
	# (a test that skipped, or reported nothing, where it must pass fails):
	# the iopoll kselftests as make check's poll boot expects them, with
	# guest/expected/deb-test.txt's lines over them and its own tests
	if [[ -f $work/test.log ]]; then
		local own only
		manifest_overlay "$FP_TOP/guest/expected/deb-test.txt" "$FP_TOP/guest/expected/poll.txt" \
			>"$work/test.manifest"
		own=$(awk '$1 !~ /^#/ && NF { print $1 }' "$FP_TOP/guest/expected/deb-test.txt")
		only="$("$FP_TOP/scripts/tests.py" ids --own kselftest/iopoll) $own"
		tap_lines "deb-$flavour test: " "$work/test.log" >"$work/test.results"
		MANIFEST_ONLY=$only "$FP_TOP/scripts/manifest.sh" "$work/test.results" \
			"deb-$flavour" test "$work/test.manifest" | sed 's/^[^:]*: //' >>"$work/guest.log" || true
	fi
	local pass fail
	pass=$(grep -c '^ok ' "$work/guest.log" || true)
	fail=$(grep -c '^not ok ' "$work/guest.log" || true)
	echo "check-deb: $pass passed, $fail failed ($rel beside $d, FLAVOUR=$flavour)" | tee -a "$work/guest.log"
	cp "$work/guest.log" "$debs/check-deb.txt"
	# every stage ran to its end
	((fail == 0 && $(grep -c '^FASTPATH-EXIT: 0$' "$work/guest.log") == 4))
}

stage "the $suite guest with $meta and the packages" make_root
stage "four boots" stages
