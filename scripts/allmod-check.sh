#!/usr/bin/env bash
# allmod-check.sh [LABEL]: every C file that the series (or LABEL: tree,
# pN) changes is compiled under allmodconfig with W=1, so a driver that
# the small QEMU config leaves out still builds.  x86_64 builds all it
# can; Debian's cross compilers build the s390 (dcssblk, xpram), powerpc
# (ps3vram) and m68k (nfblock) drivers.  An error fails; so does a W=1
# warning that the same file at the base does not have.  xtensa has no
# Debian cross compiler and lightnvm depends on BROKEN in 5.10: their
# files (simdisk.c, pblk-init.c) are listed, not built.
# Run by "make lint".
. "$(dirname "$0")/lib.sh"

label=${1:-patched}
FP_PREFIX="[allmod $label] "
need_pkgs "${FP_PKGS_BUILD[@]}" gcc-s390x-linux-gnu gcc-powerpc64-linux-gnu gcc-m68k-linux-gnu
"$FP_TOP/scripts/fetch-base.sh" >/dev/null
commit=$(label_commit "$label")
base=$(label_commit base)

kbuild_env

# which arch builds a file
arch_of() {
	case $1 in
	drivers/lightnvm/*) echo broken ;;
	arch/m68k/*) echo m68k ;;
	arch/xtensa/*) echo xtensa ;;
	arch/*/*) echo "${1#arch/}" | cut -d/ -f1 ;;
	drivers/s390/*) echo s390 ;;
	drivers/block/ps3vram.c) echo powerpc ;;
	*) echo x86 ;;
	esac
}
cross_of() {
	case $1 in
	s390) echo s390x-linux-gnu- ;;
	powerpc) echo powerpc64-linux-gnu- ;;
	m68k) echo m68k-linux-gnu- ;;
	*) echo "" ;;
	esac
}

mapfile -t files < <(git_fp diff --name-only --diff-filter=AM "$base" "$commit" -- '*.c' |
	grep -v '^tools/\|^samples/\|^scripts/\|^usr/')
((${#files[@]})) || die "the series changes no C file"

# a checkout of COMMIT in build/allmod/NAME, configured for ARCH
tree_for() { # NAME COMMIT ARCH
	local dir=$FP_BUILD/allmod/$1 c=$2 arch=$3 cross
	cross=$(cross_of "$arch")
	if [[ ! -e $dir/.git ]]; then
		mkdir -p "$FP_BUILD/allmod"
		rm -rf "$dir"
		git_fp worktree prune
		git_fp worktree add -q --detach "$dir" "$c" >&2
	elif [[ $(git -C "$dir" rev-parse HEAD) != "$c" ]]; then
		git -C "$dir" checkout -q -f --detach "$c" >&2
	fi
	if [[ $(cat "$dir/.fp-allmod" 2>/dev/null) != "$c $arch 3" ]]; then
		log "allmodconfig $arch in $1 ($(git -C "$dir" rev-parse --short=12 HEAD))" >&2
		make -s -C "$dir" ARCH="$arch" CROSS_COMPILE="$cross" allmodconfig >&2
		# plugins need the cross compilers' plugin headers; the checks
		# here do not depend on them
		"$dir/scripts/config" --file "$dir/.config" -d GCC_PLUGINS >&2
		# what allmodconfig leaves out but the series touches: the
		# sbitmap KUnit test needs KUNIT=y, ps3vram needs the PS3 frame
		# buffer built in
		case $arch in
		x86) "$dir/scripts/config" --file "$dir/.config" -e KUNIT -e SBITMAP_KUNIT_TEST >&2 ;;
		powerpc) "$dir/scripts/config" --file "$dir/.config" -e FB -e PS3_PS3AV -e FB_PS3 \
			-m PS3_VRAM >&2 ;;
		esac
		make -s -C "$dir" ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig >&2
		make -s -C "$dir" -j"$FP_JOBS" ARCH="$arch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" prepare modules_prepare >&2 ||
			die "make prepare failed for $arch in $1"
		echo "$c $arch 3" >"$dir/.fp-allmod"
	fi
	echo "$dir"
}

# compile DIR's OBJ with W=1; the warnings, line numbers dropped, on stdout
compile() { # DIR ARCH OBJ
	local dir=$1 arch=$2 obj=$3 cross out rc
	cross=$(cross_of "$arch")
	rm -f "$dir/$obj"
	out=$(make -C "$dir" -j1 ARCH="$arch" CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" \
		W=1 "$obj" 2>&1)
	rc=$?
	# a directory that only the arch Makefile reaches (drivers/s390) has
	# no single-object rule: build it as a module directory (M=)
	if ((rc)) && grep -q "No rule to make target '$obj'" <<<"$out"; then
		rm -f "$dir/$obj"
		out=$(make -C "$dir" -j"$FP_JOBS" ARCH="$arch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" W=1 M="$(dirname "$obj")" 2>&1)
		rc=$?
		out=$(grep -F "$(basename "${obj%.o}").c:" <<<"$out" || true)
	fi
	if ((rc)) || [[ ! -f $dir/$obj ]]; then
		printf '%s\n' "$out" | grep -E 'error|Error' | head -20 >&2
		return 1
	fi
	# the kernel's host tools (scripts/, e.g. genksyms' bison grammar) are
	# rebuilt after some checkouts: their warnings are not the object's
	printf '%s\n' "$out" | { grep -E 'warning:' || true; } | { grep -v '^ *scripts/' || true; } |
		sed -E 's/:[0-9]+(:[0-9]+)?:/:/' | sort -u
}

bad=0 built=0
declare -A by_arch
for f in "${files[@]}"; do
	a=$(arch_of "$f")
	by_arch[$a]+="$f "
done
for a in "${!by_arch[@]}"; do
	read -r -a list <<<"${by_arch[$a]}"
	if [[ $a == xtensa ]]; then
		log "not built (no Debian cross compiler for xtensa): ${list[*]}"
		continue
	fi
	if [[ $a == broken ]]; then
		log "not built (lightnvm depends on BROKEN in 5.10, no config builds it): ${list[*]}"
		continue
	fi
	if [[ -z $(cross_of "$a") && $a != x86 ]]; then
		log "not built (no cross compiler set up for $a): ${list[*]}"
		continue
	fi
	t=$(tree_for "$label-$a" "$commit" "$a")
	b=
	for f in "${list[@]}"; do
		obj=${f%.c}.o
		# a .c file #included by another one (lib/sbitmap_kunit.c) is
		# built with that one
		inc=$(grep -l "^#include \"$(basename "$f")\"" "$t/$(dirname "$f")"/*.c 2>/dev/null | head -1 || true)
		if [[ -n $inc ]]; then
			f=${inc#"$t/"}
			obj=${f%.c}.o
			[[ " ${list[*]} " != *" $f "* ]] || continue
		fi
		if ! w=$(compile "$t" "$a" "$obj"); then
			log "FAIL $a $obj: does not build"
			bad=1
			continue
		fi
		built=$((built + 1))
		[[ -n $w ]] || continue
		# warnings: only new ones count
		[[ -n $b ]] || b=$(tree_for "base-$a" "$base" "$a")
		if git -C "$b" cat-file -e "HEAD:$f" 2>/dev/null; then
			wb=$(compile "$b" "$a" "$obj") || wb=
		else
			wb=
		fi
		new=$(comm -23 <(printf '%s\n' "$w") <(printf '%s\n' "$wb"))
		if [[ -n $new ]]; then
			log "FAIL $a $obj: new W=1 warnings:"
			printf '%s\n' "$new" | sed 's/^/    /' >&2
			bad=1
		fi
	done
done
((bad == 0)) || die "allmodconfig W=1: errors or new warnings (above)"
log "allmodconfig W=1: $built objects of ${#files[@]} changed C files build, no new warnings"
