#!/usr/bin/env bash
# make deb: Debian packages (make bindeb-pkg) of base + the series, in
# results/deb/<config>/.
#   DEB_CONFIG=debian (default): Debian 11's own configuration of the
#     base's version, from bullseye-security's linux-config-5.10 package
#     (downloaded and unpacked, never installed), config.amd64_none_amd64,
#     with olddefconfig, no debug info (Debian builds it for its -dbg
#     package only), no trusted-key files of Debian's build machines,
#     and the local version -fastpath; the tree gets Debian's debian/dfsg/
#     Kconfig patches (the orig tarball lacks the files they disable).
#   DEB_CONFIG=qemu: a test package of the kernel make check boots: the
#     project's small config (configs/qemu.config) with what a Debian 11
#     guest needs to boot from it (configs/deb-guest.config) and the
#     harness patches, built by scripts/build.sh in build/patched+deb-guest
#     and packaged there, so that make check builds it once.  The release
#     suffix comes from make's LOCALVERSION, which changes no object but
#     the version's own.
# The time of each stage is printed and kept in results/deb/<config>/build-time.txt.
. "$(dirname "$0")/lib.sh"

config=${DEB_CONFIG:-debian}
localversion=-fastpath
out=$FP_TOP/results/deb/$config
dir=$FP_BUILD/deb-$config
[[ $config != qemu ]] || dir=$FP_BUILD/patched+deb-guest
FP_PREFIX="[deb-$config] "

kbuild_env
# debian: LOCALVERSION= (set, empty): no "+" for a git tree off a tag;
# the release is the version and CONFIG_LOCALVERSION, 5.10.262-fastpath.
# qemu: the build.sh tree's .config has no CONFIG_LOCALVERSION (objects
# shared with make check's boots); make's LOCALVERSION gives the suffix.
mkvers=
[[ $config != qemu ]] || mkvers=$localversion
mk() { make -s -C "$dir" -j"$FP_JOBS" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION="$mkvers" "$@"; }

# Debian's orig tarball leaves out the files Debian does not count as
# free (af9005-script.h, the vs6624 and COPS drivers, nvidiafb, rivafb,
# the 8xx microcode, a CIPSO draft), and Debian's linux package hides
# what needs them behind the debian/dfsg/ Kconfig patches of its
# debian.tar.xz.  Debian's config still sets some of those symbols
# (CONFIG_DVB_USB_AF9005=m), which Debian's Kconfig then drops; without
# the patches the build fails on the missing af9005-script.h.  So the
# build of Debian's config applies the same patches, from the source
# package of the base (checked against its .dsc, whose orig tarball is
# BASE's), never as part of the series.
dfsg_patches() {
	local tar p n=0
	tar=$(debian_tar) || exit 1
	for p in $(tar -xOJf "$tar" debian/patches/series | grep -E '^debian/dfsg/[^ ]+\.patch$'); do
		tar -xOJf "$tar" "debian/patches/$p" | git -C "$dir" apply || die "Debian's $p does not apply"
		n=$((n + 1))
	done
	((n > 0)) || die "${tar##*/} has no debian/dfsg/ patches in its series"
	log "applied Debian's $n debian/dfsg/ patches (Kconfig: drivers whose files the orig tarball lacks)"
}

checkout() {
	case $config in
	debian)
		worktree_at "$dir" "$(label_commit patched)"
		dfsg_patches
		;;
	qemu)
		# checkout, configure and build as make check does (a no-op when
		# make check built it already)
		"$FP_TOP/scripts/build.sh" patched deb-guest.config
		;;
	esac
}

configure() {
	case $config in
	debian)
		debian_config none >"$dir/.config"
		(cd "$dir" && ./scripts/config \
			--set-str LOCALVERSION "$localversion" --disable LOCALVERSION_AUTO \
			--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
			--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
			--disable DEBUG_INFO --disable DEBUG_INFO_BTF)
		mk olddefconfig >/dev/null
		grep -qx "CONFIG_LOCALVERSION=\"$localversion\"" "$dir/.config" ||
			die "config: LOCALVERSION is not $localversion"
		;;
	qemu)
		# build.sh configured it: check what the package relies on
		grep -qx 'CONFIG_LOCALVERSION=""' "$dir/.config" &&
			grep -qx '# CONFIG_LOCALVERSION_AUTO is not set' "$dir/.config" ||
			die "config: a local version of its own in $dir/.config"
		grep -qx 'CONFIG_MODULES=y' "$dir/.config" || die "config: no CONFIG_MODULES in $dir/.config"
		;;
	*) die "DEB_CONFIG=$config: debian or qemu" ;;
	esac
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
