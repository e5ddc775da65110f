#!/usr/bin/env bash
# make deb DEB_CONFIG=qemu: the test package make check installs in its
# Debian 11 guest (make bindeb-pkg), in results/deb/qemu/: the kernel
# make check boots, the project's small config (configs/qemu.config)
# with what a Debian 11 guest needs to boot from it
# (configs/deb-guest.config) and the harness patches, built by
# scripts/build.sh in build/patched+deb-guest and packaged there, so
# that make check builds it once.  The release suffix comes from make's
# LOCALVERSION, which changes no object but the version's own.
# (Debian's own kernel with the series, as users install it, is
# scripts/deb-debian.sh: make deb.)
# The time of each stage is printed and kept in results/deb/qemu/build-time.txt.
. "$(dirname "$0")/lib.sh"

config=${DEB_CONFIG:-qemu}
localversion=-fastpath
out=$FP_TOP/results/deb/$config
[[ $config == qemu ]] || die "DEB_CONFIG=$config: this script makes the qemu test package (make deb makes Debian's)"
dir=$FP_BUILD/patched+deb-guest
FP_PREFIX="[deb-$config] "

kbuild_env
# the build.sh tree's .config has no CONFIG_LOCALVERSION (objects
# shared with make check's boots); make's LOCALVERSION gives the suffix
mk() { make -s -C "$dir" -j"$FP_JOBS" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION="$localversion" "$@"; }

checkout() {
	# checkout, configure and build as make check does (a no-op when
	# make check built it already)
	"$FP_TOP/scripts/build.sh" patched deb-guest.config
}

configure() {
	# build.sh configured it: check what the package relies on
	grep -qx 'CONFIG_LOCALVERSION=""' "$dir/.config" &&
		grep -qx '# CONFIG_LOCALVERSION_AUTO is not set' "$dir/.config" ||
		die "config: a local version of its own in $dir/.config"
	grep -qx 'CONFIG_MODULES=y' "$dir/.config" || die "config: no CONFIG_MODULES in $dir/.config"
}

package() {
	local n rel
	n=$(series_files | wc -l)
	# Debian version: the base's, then which series (and how many patches)
	mk KDEB_PKGVERSION="$BASE_VERSION-1+fastpath$n" KDEB_SOURCENAME=linux-fastpath \
		KDEB_COMPRESS=xz bindeb-pkg >"$dir/.fp-deb.log" 2>&1 ||
		{ grep -E -B2 -A5 'error:|Error [0-9]' "$dir/.fp-deb.log" | tail -40 >&2; die "bindeb-pkg failed (log: $dir/.fp-deb.log)"; }
	rel=$(cat "$dir/include/config/kernel.release")
	[[ $rel == "$BASE_VERSION$localversion" ]] || die "kernel release $rel, not $BASE_VERSION$localversion"
	rm -rf "$out"
	mkdir -p "$out"
	mv "$FP_BUILD"/linux-*_"$BASE_VERSION-1+fastpath$n"_*.deb "$out/"
	rm -f "$FP_BUILD"/linux-fastpath_*.buildinfo "$FP_BUILD"/linux-fastpath_*.changes
	echo "$rel" >"$out/kernelrelease"
	log "kernel $rel: $(cd "$out" && ls ./*.deb | tr '\n' ' ')"
}

t0=$SECONDS
need_pkgs "${FP_PKGS_BUILD[@]}" dpkg-dev fakeroot
"$FP_TOP/scripts/fetch-base.sh" >/dev/null
stage "checkout" checkout
stage "configure ($config)" configure
t1=$SECONDS
stage "bindeb-pkg" package
{
	echo "DEB_CONFIG=$config kernel $(cat "$out/kernelrelease") on $FP_JOBS CPUs ($(nproc) online), ccache $CCACHE_DIR"
	echo "build and package: $((SECONDS - t1)) s; all: $((SECONDS - t0)) s; $(date -u +%Y-%m-%dT%H:%MZ)"
} >"$out/build-time.txt"
cat "$out/build-time.txt" >&2
