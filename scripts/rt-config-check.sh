#!/usr/bin/env bash
# rt-config-check.sh [LABEL]: every x86 C file that the series changes on
# Debian's rt tree (LABEL, default rt-patched: scripts/lib.sh
# rt_series_commit) compiles under Debian 11's own rt config
# (linux-image-rt-amd64's config.amd64_rt_amd64, PREEMPT_RT), in
# build/rt-debian-config.  An error fails, and so does a warning on a
# line the series adds.  Each file is compiled as a single object; one
# that Debian's config leaves out (kbuild has no rule for it) is listed,
# not built (allmod-check.sh builds every one), as are the files of
# other architectures and lightnvm (BROKEN in 5.10).  Debian's whole rt kernel
# (some 4000 modules) is not built: hours on two cores.
# Run by make check RT=1.
. "$(dirname "$0")/lib.sh"

label=${1:-rt-patched}
[[ $label == rt-* ]] || die "label $label: not one of Debian's rt tree (rt-base, rt-patched)"
FP_PREFIX="[rt-config $label] "
need_pkgs "${FP_PKGS_BUILD[@]}"
"$FP_TOP/scripts/fetch-base.sh" >/dev/null
commit=$(label_commit "$label") || exit 1
wbase=$(label_base "$label") || exit 1
dir=$FP_BUILD/rt-debian-config

kbuild_env
mk() { make -s -C "$dir" -j"$FP_JOBS" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

setup() {
	local key
	key=$( (echo "$commit"; debian_config rt) | sha256sum | cut -c1-16)
	worktree_at "$dir" "$commit"
	[[ $(cat "$dir/.fp-rt-config" 2>/dev/null) != "$key" ]] || return 0
	debian_config rt >"$dir/.config"
	# Debian's build machines' key files are not here; debug info only
	# slows the compile
	"$dir/scripts/config" --file "$dir/.config" \
		--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
		--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
		--disable DEBUG_INFO --disable DEBUG_INFO_BTF
	mk olddefconfig >/dev/null
	grep -qx CONFIG_PREEMPT_RT=y "$dir/.config" || die "Debian's rt config lost PREEMPT_RT"
	mk prepare modules_prepare || die "make prepare failed under Debian's rt config"
	echo "$key" >"$dir/.fp-rt-config"
}

compile_all() {
	local f obj out bad=0 built=0 skipped=() notset=() line ln added
	while IFS= read -r f; do
		case $f in
		arch/x86/*) ;;
		arch/* | drivers/s390/* | drivers/block/ps3vram.c | drivers/lightnvm/*)
			skipped+=("$f")
			continue
			;;
		esac
		# a .c file #included by another one is built with it
		[[ $f != lib/sbitmap_kunit.c ]] || continue
		obj=${f%.c}.o
		rm -f "$dir/$obj"
		if ! out=$(mk "$obj" 2>&1) && grep -q "No rule to make target '$obj'" <<<"$out"; then
			notset+=("$f")
			continue
		fi
		if [[ ! -f $dir/$obj ]]; then
			printf '%s\n' "$out" | grep -E 'error|Error' | head -20 >&2
			log "FAIL $obj: does not build"
			bad=1
			continue
		fi
		built=$((built + 1))
		added=$(added_lines "$dir" "$wbase" "$f")
		while IFS= read -r line; do
			[[ -n $line ]] || continue
			ln=${line#"$f":}
			ln=${ln%%:*}
			if grep -qx "$ln" <<<"$added"; then
				log "FAIL $obj: $line"
				bad=1
			fi
		done < <(grep -E "^$f:[0-9]+:[0-9]+: warning:" <<<"$out" || true)
	done < <(git -C "$dir" diff --name-only --diff-filter=AM "$wbase" HEAD -- '*.c' |
		grep -v '^tools/\|^samples/\|^scripts/\|^usr/')
	((${#skipped[@]} == 0)) || log "not built here (other architectures, BROKEN): ${skipped[*]}"
	((${#notset[@]} == 0)) || log "not in Debian's rt config: ${notset[*]}"
	((bad == 0)) || die "Debian's rt config: errors or warnings on the series' lines (above)"
	log "Debian's rt config: $built objects the series changes build, no warning on its lines"
}

stage "checkout and configure ($(git --git-dir="$FP_GIT" rev-parse --short=12 "$commit"), Debian's rt config)" setup
stage "compile" compile_all
