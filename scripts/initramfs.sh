#!/usr/bin/env bash
# initramfs.sh: the guest's base image, made once from Debian packages and
# cached by their versions: busybox-static, fio, e2fsprogs' mke2fs and
# e2fsck, losetup (package mount: busybox's has no --direct-io), dmsetup
# and sfdisk (package fdisk), with the libraries they link.  Prints its
# path.  The per-run files (tests, probes, the command) go into a second,
# small cpio that vm.sh appends.
. "$(dirname "$0")/lib.sh"

need_pkgs "${FP_PKGS_GUEST[@]}" cpio
key=$( (cat "$FP_TOP/guest/init" "$0"; dpkg-query -W busybox-static fio e2fsprogs mount dmsetup fdisk) | sha256sum | cut -c1-12)
img=$FP_CACHE/initramfs/base-$key.cpio
if [[ ! -f $img ]]; then
	log "making the guest base image ($img)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,fp,etc,root}
	cp /bin/busybox "$tmp/bin/busybox"
	install -m 0755 "$FP_TOP/guest/init" "$tmp/init"
	# fio, mke2fs (for ext4), losetup and dmsetup (tests/eagain/),
	# sfdisk and e2fsck (tests/userdisk/), with the libraries they
	# link, at their own paths
	for bin in /usr/bin/fio /sbin/mke2fs /sbin/e2fsck /sbin/losetup /sbin/dmsetup /sbin/sfdisk; do
		cp "$bin" "$tmp/$bin"
		for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
			mkdir -p "$tmp/$(dirname "$lib")"
			cp -L "$lib" "$tmp/$lib"
		done
	done
	cp /etc/mke2fs.conf "$tmp/etc/"
	echo "root:x:0:0:root:/root:/bin/sh" >"$tmp/etc/passwd"
	mkdir -p "$FP_CACHE/initramfs"
	(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$img.tmp"
	mv "$img.tmp" "$img"
fi
echo "$img"
