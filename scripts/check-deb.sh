#!/usr/bin/env bash
# make check-deb DEB_CONFIG=qemu (and make check): the test package of
# make deb DEB_CONFIG=qemu, tried as a user would: a Debian 11
# (bullseye) root file system made with
# debootstrap (cached), the linux-image package installed in it with
# dpkg -i (its initramfs made there by initramfs-tools), booted in QEMU
# with an emulated NVMe and nvme.poll_queues=1, and guest/deb-test.sh run
# there as init: uname -r shows the package's version, io_poll is 1, the
# README's fio io_uring hipri job and a hipri write+verify complete on
# their poll hctx without NVMe interrupts.  No kernel warning allowed.
# Ends with "check-deb: N passed, N failed" (the guest's output is kept
# in results/deb/<config>/check-deb.txt).  CHECK_DEB_POLL_QUEUES=0
# boots without poll queues (the check must then fail: a test of the test).
# check-deb.sh --root only makes (or finds) the cached Debian 11 root:
# make check starts it in the background while it compiles.
. "$(dirname "$0")/lib.sh"

config=${DEB_CONFIG:-qemu}
debs=$FP_TOP/results/deb/$config
work=$FP_BUILD/check-deb-$config
suite=bullseye
# what the guest needs beyond minbase: initramfs-tools (and the kmod and
# udev it uses) to make the package's initramfs, fio for the job
include=initramfs-tools,kmod,udev,fio,procps
FP_PREFIX="[check-deb-$config] "

if [[ ${1:-} == --root ]]; then
	stage "the $suite root" debian_root_tar "$suite" "$include" >/dev/null
	exit
fi

[[ -f $debs/kernelrelease ]] || die "no packages in $debs: run make deb DEB_CONFIG=$config"
rel=$(cat "$debs/kernelrelease")
image_deb=$(ls "$debs"/linux-image-"$rel"_*.deb 2>/dev/null | grep -v -- -dbg_ | head -1)
[[ -n $image_deb ]] || die "no linux-image-$rel package in $debs"

install_kernel() {
	local root=$work/root tar
	tar=$(debian_root_tar "$suite" "$include") || die "no $suite root"
	rm -rf "$work"
	mkdir -p "$root"
	tar -C "$root" -xzf "$tar"
	# initramfs-tools' default compression, stated: gzip
	sed -i 's/^COMPRESS=.*/COMPRESS=gzip/' "$root/etc/initramfs-tools/initramfs.conf"
	mkdir -p "$root/tmp/debs"
	cp "$image_deb" "$root/tmp/debs/"
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	local rc=0
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		dpkg -i /tmp/debs/"${image_deb##*/}" >"$work/dpkg.log" 2>&1 || rc=$?
	umount "$root/dev" "$root/proc"
	cat "$work/dpkg.log" >&2
	((rc == 0)) || die "dpkg -i ${image_deb##*/} failed in the $suite root"
	[[ -f $root/boot/vmlinuz-$rel ]] || die "the package installed no /boot/vmlinuz-$rel"
	[[ -f $root/boot/initrd.img-$rel ]] || die "initramfs-tools made no /boot/initrd.img-$rel"
	rm -rf "$root/tmp/debs"
	log "installed: $(chroot "$root" dpkg-query -W -f='${Package} ${Version}' "linux-image-$rel"), initrd $(du -k "$root/boot/initrd.img-$rel" | cut -f1) KiB"
	# the test, run as init
	mkdir -p "$root/fp"
	cp "$FP_TOP/guest/common.sh" "$FP_TOP/guest/deb-test.sh" "$FP_TOP/guest/deb-init" "$root/fp/"
	chmod +x "$root/fp/deb-init"
	echo "$rel" >"$root/fp/expected-release"
	cp "$root/boot/vmlinuz-$rel" "$root/boot/initrd.img-$rel" "$root/boot/System.map-$rel" \
		"$root/boot/config-$rel" "$work/"
	truncate -s 2G "$work/root.img"
	mkfs.ext4 -q -F -L root -d "$root" "$work/root.img"
	rm -rf "$root"
}

boot() {
	local log=$work/guest.log klog=$work/kernel.log rc=0
	# vCPU addresses of a hang are named only without KASLR (Debian's
	# config has it; the boot stays as a user's would)
	local map=$work/System.map-$rel
	! grep -q '^CONFIG_RANDOMIZE_BASE=y' "$work/config-$rel" || map=
	deb_guest_boot deb "$log" "$klog" "$map" "$work/vmlinuz-$rel" "$work/initrd.img-$rel" "$work/root.img" \
		"root=/dev/vda rw init=/fp/deb-init console=ttyS0 nvme.poll_queues=${CHECK_DEB_POLL_QUEUES:-1} tsc=reliable panic=-1" ||
		rc=$?
	((rc != 124)) || die "guest hung; kernel log: $klog"
	local pass fail
	pass=$(grep -c '^ok ' "$log" || true)
	fail=$(grep -c '^not ok ' "$log" || true)
	echo "check-deb: $pass passed, $fail failed ($rel, DEB_CONFIG=$config)" | tee -a "$log"
	# beside the packages it tried: the guest's output of the last run
	cp "$log" "$debs/check-deb.txt"
	# every test of guest/deb-test.sh must have reported
	((fail == 0 && pass >= 5))
}

need_pkgs qemu-system-x86 e2fsprogs python3
stage "install $(basename "$image_deb") in $suite" install_kernel
stage "boot and fio hipri" boot
