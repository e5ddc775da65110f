#!/usr/bin/env bash
# initramfs.sh: the guest's base image, made once from Debian packages and
# cached by their versions: busybox-static, and fio with the libraries it
# links.  Prints its path.  The per-run files (tests, probes, the command)
# go into a second, small cpio that vm.sh appends.
. "$(dirname "$0")/lib.sh"

need_pkgs "${FP_PKGS_GUEST[@]}" cpio
key=$( (cat "$FP_TOP/guest/init" "$0"; dpkg-query -W busybox-static fio) | sha256sum | cut -c1-12)
img=$FP_CACHE/initramfs/base-$key.cpio
if [[ ! -f $img ]]; then
	log "making the guest base image ($img)"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,fp,etc,root}
	cp /bin/busybox "$tmp/bin/busybox"
	install -m 0755 "$FP_TOP/guest/init" "$tmp/init"
	cp /usr/bin/fio "$tmp/usr/bin/fio"
	# fio and the libraries it links, at their own paths
	for lib in $(ldd /usr/bin/fio | grep -o '/[^ ]*'); do
		mkdir -p "$tmp/$(dirname "$lib")"
		cp -L "$lib" "$tmp/$lib"
	done
	echo "root:x:0:0:root:/root:/bin/sh" >"$tmp/etc/passwd"
	mkdir -p "$FP_CACHE/initramfs"
	(cd "$tmp" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$img.tmp"
	mv "$img.tmp" "$img"
fi
echo "$img"
