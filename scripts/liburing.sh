#!/usr/bin/env bash
# liburing.sh DIR: build liburing's own test suite and stage it in DIR for
# the guest (DIR/liburing: the test programs, the libraries they link
# beyond the guest's, the list of tests to run, the base kernel's results).
# The source is Debian bookworm's liburing 2.3, fetched as a source package
# (never as a binary one) and checked against the sha256 below; the build
# is cached by that checksum.
. "$(dirname "$0")/lib.sh"

LIBURING_VERSION=2.3
LIBURING_DEB=2.3-3
LIBURING_SHA256=2eac26f880125d83f75ba8641fde5d88226dd352d3cee95d45a9128758a8f1be

(($# == 1)) || die "usage: liburing.sh DIR"
dest=$1/liburing
need_pkgs gcc g++ make

tarball=$FP_CACHE/src/bookworm/liburing_$LIBURING_VERSION.orig.tar.gz
src_orig bookworm "liburing=$LIBURING_DEB" "$tarball" "$LIBURING_SHA256"

# One change to a test, keyed into the cache's name: d4ae271dfaae queues
# 10 reads into a 4-entry SQPOLL ring, stops at the first
# io_uring_get_sqe() that finds the ring full, and still waits for 10
# CQEs.  It hangs whenever the SQ thread falls 4 SQEs behind the test, on
# base as well as patched (docs/testing.md).  Newer liburing creates that
# ring with 16 entries; so does this build.
bld=$FP_CACHE/liburing/$LIBURING_VERSION-${LIBURING_SHA256:0:12}-d4ring16
if [[ ! -f $bld/.built ]]; then
	log "building liburing $LIBURING_VERSION's tests in $bld"
	rm -rf "$bld"
	mkdir -p "$bld"
	tar -xzf "$tarball" -C "$bld" --strip-components=1
	sed -i 's/t_create_ring_params(4, &ring, &p)/t_create_ring_params(16, \&ring, \&p)/' \
		"$bld/test/d4ae271dfaae.c"
	grep -q 't_create_ring_params(16, &ring, &p)' "$bld/test/d4ae271dfaae.c" ||
		die "liburing $LIBURING_VERSION: test/d4ae271dfaae.c is not as expected"
	(
		cd "$bld"
		./configure --cc=gcc --cxx=g++ >configure.log 2>&1
		make -s -j"$(nproc)" -C src >build.log 2>&1
		make -s -j"$(nproc)" -C test >>build.log 2>&1
	) || die "liburing build failed (log: $bld/build.log)"
	touch "$bld/.built"
fi

rm -rf "$dest"
mkdir -p "$dest/lib"
for t in "$bld"/test/*.t; do
	strip -o "$dest/$(basename "$t")" "$t"
done
# the tests link liburing statically; copy what else they link, in case
# the guest's base image (busybox, fio's libraries) lacks it
for lib in $(ldd "$bld"/test/*.t 2>/dev/null | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
	[[ $lib == */liburing.so* ]] || cp -L "$lib" "$dest/lib/"
done
# the tests that take a file to work on (liburing's TEST_FILES)
grep -l 'argv\[1\]' "$bld"/test/*.c | xargs -n1 basename | sed 's/\.c$//' >"$dest/dev-tests.txt"
# which tests make check runs, and their results on base
for f in liburing-tests.txt liburing-base.txt; do
	[[ ! -f $FP_TOP/guest/$f ]] || cp "$FP_TOP/guest/$f" "$dest/"
done
# an older pin compares with its own base's results, as recorded then
if [[ $FP_PATCHES != "$FP_TOP/patches" ]]; then
	git -C "$FP_TOP" show "$QUEUE_COMMIT:guest/liburing-base.txt" >"$dest/liburing-base.txt" ||
		die "no guest/liburing-base.txt at $QUEUE_COMMIT"
fi
