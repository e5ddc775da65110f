#!/usr/bin/env bash
# t-io_uring.sh DIR: build fio's t/io_uring, the peak-IOPS tool behind
# the published per-core io_uring figures, as the static DIR/t-io_uring
# for the guest.  The source is Debian bookworm's fio (the version the
# guests run), fetched as a source package and checked against the
# sha256 below; the build is cached by that checksum.
. "$(dirname "$0")/lib.sh"

FIO_VERSION=3.33
FIO_DEB=3.33-3
FIO_SHA256=d2410e13e0f379d061d077cc5ae325835bb7c6186aa7bafc1df954cbc9b014fc

(($# == 1)) || die "usage: t-io_uring.sh DIR"
need_pkgs gcc make file

tarball=$FP_CACHE/src/bookworm/fio_$FIO_VERSION.orig.tar.gz
src_orig bookworm "fio=$FIO_DEB" "$tarball" "$FIO_SHA256"

bld=$FP_CACHE/fio/$FIO_VERSION-${FIO_SHA256:0:12}
if [[ ! -f $bld/.built ]]; then
	log "building fio $FIO_VERSION's t/io_uring in $bld"
	rm -rf "$bld"
	mkdir -p "$bld"
	tar -xzf "$tarball" -C "$bld" --strip-components=1
	(
		cd "$bld"
		# one static binary, no libnuma (its NUMA placement is off)
		./configure --build-static --disable-native --disable-numa \
			>configure.log 2>&1 && grep -q -- -static config-host.mak &&
			make -s -j"$(nproc)" t/io_uring >build.log 2>&1
	) || die "t/io_uring build failed (log: $bld/build.log)"
	touch "$bld/.built"
fi
file "$bld/t/io_uring" | grep -q "statically linked" ||
	die "t/io_uring is not statically linked ($bld)"
strip -o "$1/t-io_uring" "$bld/t/io_uring"
