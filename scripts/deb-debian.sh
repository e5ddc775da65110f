#!/usr/bin/env bash
# make deb (FLAVOUR=amd64, the default, or rt): Debian's own kernel with
# the series.  The base's Debian source package (linux 5.10.262-1: its
# .dsc, the orig tarball that is BASE and the debian.tar.xz the .dsc
# lists, each checked) is unpacked with dpkg-source, the series is added
# to its patch list and one flavour is built the way Debian's
# debian/bin/test-patches builds one (debian/config.local: that flavour
# only, no debug info; dpkg-buildpackage -b with test-patches' build
# profiles), all inside a Debian 11 root made with debootstrap that
# holds the package's Build-Depends: gcc-10, binutils, dpkg and
# kernel-wedge are Debian 11's, as on Debian's build machines.
#   FLAVOUR=amd64: linux-image-*-amd64; the series in
#     debian/patches/fastpath/, after Debian's own patches.
#   FLAVOUR=rt: linux-image-*-rt-amd64 (PREEMPT_RT); the series, with the
#     RT variants of patches/rt/ in place, in debian/patches-rt/fastpath/,
#     after Debian's rt patch set (the rt featureset applies
#     debian/patches, then debian/patches-rt).
# The version is Debian's with +fastpathV (V: the series' version, the
# vN of mail/changelog), its changelog entry lists the series, and the
# ABI name is Debian's with .fastpathV, so that the packages install
# beside Debian's own kernel (linux-image-5.10.0-46.fastpath2-amd64
# beside linux-image-5.10.0-46-amd64).
# Packages in results/deb/debian-FLAVOUR/, with build-time.txt and the
# kselftests of the series built there (selftests/).  Cached by the
# .dsc, the series and the flavour (results/deb/debian-FLAVOUR/key): a
# second run with the same inputs does nothing.  A run that was stopped
# goes on where it stopped (the build directory, build/debian-FLAVOUR,
# and ccache in the cache directory are kept).
. "$(dirname "$0")/lib.sh"

flavour=${FLAVOUR:-amd64}
case $flavour in
amd64 | none) flavour=amd64 featureset=none patchdir=debian/patches ;;
rt | rt-amd64) flavour=rt featureset=rt patchdir=debian/patches-rt ;;
*) die "FLAVOUR=$flavour: amd64 (the default) or rt" ;;
esac
FP_PREFIX="[deb-debian-$flavour] "
# debian/bin/test-patches' build profiles: no documentation, installer
# or source packages, the minimal tools (linux-kbuild, which
# linux-headers needs for out-of-tree modules)
profiles=nodoc,noudeb,pkg.linux.nosource,pkg.linux.mintools
out=$FP_TOP/results/deb/debian-$flavour
work=$FP_BUILD/debian-$flavour
root=$work/root
src=/build/$BASE_SRCPKG-$BASE_VERSION
ccache_dir=$FP_CACHE/ccache-$BASE_SUITE

host_check
need_pkgs debootstrap debian-archive-keyring xz-utils
"$FP_TOP/scripts/fetch-base.sh" >/dev/null
dsc=$(debian_src_dsc) || exit 1
version=$(series_version)
if [[ $featureset == rt ]]; then
	mapfile -t files < <(rt_series_files)
else
	mapfile -t files < <(series_files)
fi
((${#files[@]})) || die "patches/series lists no patch"
sum=$(series_sum "$featureset")
# the inputs: the source package, the series, and what this script
# writes into Debian's tree (treever: one more whenever add_series or
# apply change what they write)
treever=1
key=$( (echo "tree$treever $flavour $profiles $version $sum"; cat "$dsc") |
	sha256sum | cut -c1-16)
if [[ $(cat "$out/key" 2>/dev/null) == "$key" ]] && ls "$out"/linux-image-*.deb >/dev/null 2>&1; then
	log "up to date: $(cd "$out" && ls ./*.deb | tr '\n' ' ')"
	exit 0
fi
disk_check "$work" 25 "Debian's build of one flavour"

# Debian's ABI name of the base's package (linux-support-5.10.0-46: 46),
# read from the debian/control that its source package ships
debian_abiname() {
	sed -n "s/^Package: linux-support-${BASE_VERSION%.*}\.0-\(.*\)$/\1/p" "$root$src/debian/control" | head -1
}

# the Debian 11 build root and the source package in it, unpacked anew
# when the inputs changed; kept (and gone on with) when they did not
prepare() {
	local tar
	tar=$(debian_build_root_tar "$profiles") || exit 1
	# a build of the same inputs whose series applied goes on; anything
	# else starts from Debian's source again
	if [[ $(cat "$work/key" 2>/dev/null) == "$key" && -f $work/applied ]]; then
		log "going on with the build in $work"
		return 0
	fi
	rm -rf "$work"
	mkdir -p "$root"
	tar -C "$root" -xzf "$tar" || die "cannot unpack the $BASE_SUITE root into $root"
	mkdir -p "$root/build/src"
	cp "$dsc" "$FP_CACHE/src/$BASE_TARBALL" "$FP_CACHE/src/${BASE_SRCPKG}_$BASE_SRCVER.debian.tar.xz" \
		"$root/build/src/"
	in_root "$root" sh -c "cd /build && dpkg-source -x src/${dsc##*/} $src" >"$work/dpkg-source.log" 2>&1 ||
		{ tail -20 "$work/dpkg-source.log" >&2; die "dpkg-source -x ${dsc##*/} failed in the $BASE_SUITE root (log: $work/dpkg-source.log)"; }
	rm -rf "$root/build/src"
	echo "$key" >"$work/key"
}

# the series in the package's patch list, its version and changelog
# entry, and debian/config.local: one flavour, no debug info, our ABI name
add_series() {
	local d=$root$src abi f n=0 date
	abi=$(debian_abiname)
	[[ -n $abi ]] || die "no linux-support package in Debian's debian/control: cannot read its ABI name"
	mkdir -p "$d/$patchdir/fastpath"
	for f in "${files[@]}"; do
		cp "$f" "$d/$patchdir/fastpath/"
		n=$((n + 1))
	done
	# the changelog's date: the last change of the queue, so that the same
	# queue makes the same package
	date=$(git -C "$FP_TOP" log -1 --format=%aD -- patches 2>/dev/null)
	[[ -n $date ]] || date=$(date -R)
	{
		echo "$BASE_SRCPKG ($BASE_SRCVER+fastpath$version) UNRELEASED; urgency=medium"
		echo
		echo "  * fastpath-5.10 v$version: the I/O fast path of Linux 5.16 and later"
		echo "    (polled bio-based I/O, batched allocation and completion, leaner"
		echo "    io_uring completions, ->queue_rqs()), $n patches in"
		echo "    $patchdir/fastpath/, applied after Debian's own:"
		for f in "${files[@]}"; do
			sed -n '/^Subject: /{s/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//;N;s/\n / /;s/\n.*//;p;q}' "$f" |
				fold -s -w 70 | sed '1s/^/    - /;2,$s/^/      /;s/ *$//'
		done
		echo
		echo " -- $FP_IDENT_NAME <$FP_IDENT_EMAIL>  $date"
		echo
		cat "$d/debian/changelog"
	} >"$d/debian/changelog.new"
	mv "$d/debian/changelog.new" "$d/debian/changelog"
	rm -rf "$d/debian/config.local"
	mkdir -p "$d/debian/config.local/amd64/$featureset"
	# no linux-libc-dev: Debian's (which libc6-dev needs) stays as it is
	printf '[abi]\nabiname: %s\n\n[build]\ndebug-info: false\n\n[packages]\nlibc-dev: false\n' \
		"$abi.fastpath$version" >"$d/debian/config.local/defines"
	printf '[base]\nfeaturesets: %s\n' "$featureset" >"$d/debian/config.local/amd64/defines"
	printf '[base]\nflavours: amd64\n' >"$d/debian/config.local/amd64/$featureset/defines"
	[[ $featureset != none ]] ||
		echo 'default-flavour: amd64' >>"$d/debian/config.local/amd64/$featureset/defines"
	log "Debian's ABI name $abi; this build's ${BASE_VERSION%.*}.0-$abi.fastpath$version-$([[ $featureset == rt ]] && echo rt-)amd64, version $BASE_SRCVER+fastpath$version, $n patches"
}

# as test-patches: debian/control and debian/rules.gen made again for
# this flavour (debian/rules' control-real target fails on purpose once
# it has made them), the Build-Depends checked, the tree cleaned; then
# the patches applied as Debian's rules apply them (quilt, no fuzz)
apply() {
	local log=$work/apply.log
	[[ ! -f $work/applied ]] || return 0
	add_series
	in_root "$root" sh -c "cd $src && rm -f debian/control debian/rules.gen &&
		{ debian/rules debian/control-real || true; } &&
		test -f debian/control && test -f debian/rules.gen &&
		dpkg-checkbuilddeps -P$profiles && debian/rules clean" >"$log" 2>&1 ||
		{ tail -20 "$log" >&2; die "Debian's debian/control or clean failed for $flavour (log: $log)"; }
	# as test-patches: debian/rules source makes every featureset's tree
	# (source_none, a link to the top directory, which dpkg-source
	# patched; source_rt, a copy with debian/patches-rt applied) and
	# checks that debian/patches is applied whole; the series goes at
	# the end of patches-rt before it (rt), or on the top directory after
	# it (none)
	local f list=$work/fastpath.series
	for f in "${files[@]}"; do
		echo "fastpath/${f##*/}"
	done >"$list"
	[[ $featureset == none ]] || cat "$list" >>"$root$src/$patchdir/series"
	in_root "$root" sh -c "cd $src && debian/rules source" >>"$log" 2>&1 || {
		tail -15 "$log" >&2
		die "Debian's debian/rules source failed ($featureset): $(grep -E '^Applying patch' "$log" | tail -1) (log: $log)"
	}
	if [[ $featureset == none ]]; then
		cat "$list" >>"$root$src/$patchdir/series"
		in_root "$root" sh -c "cd $src && QUILT_PATCHES=debian/patches QUILT_PC=.pc \
			quilt push --quiltrc - -a --fuzz=0" >>"$log" 2>&1 || {
			tail -15 "$log" >&2
			die "the series does not apply on Debian's $BASE_SRCVER: $(grep -E '^Applying patch' "$log" | tail -1) (log: $log)"
		}
	fi
	touch "$work/applied"
}

build() {
	local log=$work/build.log
	# (a build that ended is not made again when a later stage failed)
	[[ ! -f $work/built ]] || return 0
	local t=$SECONDS
	mkdir -p "$ccache_dir"
	# ccache: Debian's rules call it when DEBIAN_KERNEL_USE_CCACHE is set
	FP_ROOT_BINDS="$ccache_dir:/ccache" in_root "$root" sh -c "cd $src &&
		export DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR=/ccache CCACHE_MAXSIZE=12G &&
		dpkg-buildpackage -b -P$profiles -j$FP_JOBS -nc -uc -us" >"$log" 2>&1 || {
		grep -E -B2 -A5 'error:|Error [0-9]|No space left' "$log" | tail -30 >&2
		! grep -q 'No space left' "$log" ||
			die "the disk of $work is full: free some, or set FASTPATH_BUILD to a larger disk, and run make deb again (it goes on)"
		die "dpkg-buildpackage failed (log: $log); make deb again goes on where it stopped"
	}
	# the seconds of each run that ended, for build-time.txt
	echo $((SECONDS - t)) >>"$work/build-seconds"
	touch "$work/built"
}

# the iopoll kselftests of the series, static (Debian 11's libc), built
# in the same root against the headers of the tree Debian's rules built
# (the rt featureset's own copy for rt), for check-deb's guest
selftests() {
	local d=/build/selftests tree=$src
	[[ $featureset == none ]] || tree=$src/debian/build/source_$featureset
	rm -rf "$root$d"
	[[ -d $root$tree/tools/testing/selftests/iopoll ]] ||
		die "no tools/testing/selftests/iopoll in $tree: the series is not in the tree that was built"
	# in place, as scripts/build.sh builds them (lib.mk and the kselftest
	# headers beside), the objects and programs in $d
	# (lib.mk makes no OUTPUT directory)
	in_root "$root" sh -c "mkdir -p $d/iopoll && cd $tree && make -s O=$d/obj headers_install >/dev/null &&
		make -s -C tools/testing/selftests/iopoll OUTPUT=$d/iopoll CC=gcc KSFT_KHDR_INSTALL_DONE=1 \
			CFLAGS='-O2 -Wall -Werror -static -I$d/obj/usr/include' LDFLAGS=-static >/dev/null" \
		>"$work/selftests.log" 2>&1 ||
		{ tail -20 "$work/selftests.log" >&2; die "the iopoll kselftests did not build (log: $work/selftests.log)"; }
}

collect() {
	local debs=() f
	mapfile -t debs < <(ls "$root/build/"*_"$BASE_SRCVER+fastpath${version}"_*.deb 2>/dev/null)
	((${#debs[@]})) || die "dpkg-buildpackage made no package in $root/build"
	rm -rf "$out"
	mkdir -p "$out/selftests"
	# linked, not moved: the build's own stay, so that collecting again
	# (after a later stage failed) finds them
	for f in "${debs[@]}"; do
		ln -f "$f" "$out/" 2>/dev/null || cp "$f" "$out/"
	done
	cp "$root/build/selftests/iopoll/iopoll_test" "$root/build/selftests/iopoll/uring_test" "$out/selftests/"
	f=$(ls "$out"/linux-image-"${BASE_VERSION%.*}".0-*.deb 2>/dev/null | grep -v -- -dbg_ | head -1)
	[[ -n $f ]] || die "no linux-image package among ${debs[*]##*/}"
	dpkg-deb -f "$f" Package | sed 's/^linux-image-//; s/-unsigned$//' >"$out/kernelrelease"
	echo "$key" >"$out/key"
	echo "$sum" >"$out/series.sha256"
	log "$(cat "$out/kernelrelease"): $(cd "$out" && ls ./*.deb | tr '\n' ' ')"
}

t0=$SECONDS
stage "the $BASE_SUITE root and Debian's source" prepare
stage "the series in Debian's patch list" apply
stage "dpkg-buildpackage ($flavour, $FP_JOBS jobs)" build
stage "the iopoll kselftests" selftests
stage "packages" collect
{
	echo "FLAVOUR=$flavour $(cat "$out/kernelrelease") $BASE_SRCVER+fastpath$version, $FP_JOBS CPUs, in Debian 11 ($(in_root "$root" gcc-10 --version | head -1))"
	# (a run that was stopped before its end is not counted)
	echo "dpkg-buildpackage: $(awk '{ s += $1 } END { printf "%d s in %d run%s that ended", s, NR, NR == 1 ? "" : "s" }' \
		"$work/build-seconds" 2>/dev/null); this make deb: $((SECONDS - t0)) s; $(date -u +%Y-%m-%dT%H:%MZ)"
} >"$out/build-time.txt"
cat "$out/build-time.txt" >&2
