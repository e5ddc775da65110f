#!/usr/bin/env bash
# build.sh LABEL [FRAGMENT...]: build the kernel of LABEL (base, patched,
# pN, mainline, rt-base, rt-patched) in build/<label>/, a git work tree of that commit, with tinyconfig +
# configs/qemu.config (+ extra fragments, e.g. configs/debug.config, which
# give the label a "+debug" suffix).  Also installs the uapi headers and
# builds the series' kselftests there.  W=1 warnings on lines the series
# adds fail the build.  harness/*.patch (emulator workarounds) are
# applied on top of every label alike.
. "$(dirname "$0")/lib.sh"

label=${1:?usage: build.sh LABEL [FRAGMENT...]}
shift
frags=("$FP_TOP/configs/qemu.config")
dirname=$label
for f in "$@"; do
	[[ -f $f ]] || f=$FP_TOP/configs/$f
	[[ -f $f ]] || die "no config fragment $f"
	frags+=("$f")
	dirname+=+$(basename "$f" .config)
done
# FP_BUILD_DIRNAME: build in build/<that> instead (scripts/bisect-check.sh
# builds every patch of the series in one directory)
dirname=${FP_BUILD_DIRNAME:-$dirname}
FP_PREFIX="[$dirname] "

need_pkgs "${FP_PKGS_BUILD[@]}"
"$FP_TOP/scripts/fetch-base.sh" >/dev/null
commit=$(label_commit "$label")
# what the series sits on: the base, or Debian's rt tree for rt-*
wbase=$(label_base "$label")
dir=$FP_BUILD/$dirname

kbuild_env
mk() { make -s -C "$dir" -j"$FP_JOBS" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

checkout() {
	# The harness's own fixes for the emulator (harness/*.patch), the same
	# on every label and never part of the series.  The tree is reset to
	# its commit when the commit or the harness patches changed.
	local p family=5.10 key
	[[ $label != mainline ]] || family=mainline
	key=$(cat /dev/null "$FP_TOP"/harness/$family/*.patch 2>/dev/null | sha256sum | cut -c1-16)
	mkdir -p "$FP_BUILD"
	if ! worktree_owned "$dir" ||
		[[ $(git -C "$dir" rev-parse HEAD) != "$commit" ||
		$(cat "$dir/.fp-harness" 2>/dev/null) != "$key" ]]; then
		rm -f "$dir/.fp-harness"
		worktree_at "$dir" "$commit"
	fi
	git -C "$dir" rev-parse --short=12 HEAD >"$dir/.fp-commit"
	if [[ ! -f $dir/.fp-harness ]]; then
		for p in "$FP_TOP"/harness/$family/*.patch; do
			[[ -e $p ]] || continue
			git -C "$dir" apply "$p" || die "harness patch ${p##*/} does not apply"
		done
		echo "$key" >"$dir/.fp-harness"
	fi
}

configure() {
	local tmp=$dir/.config key
	# Same commit, same fragments: the .config there is the one we want.
	key=$( (git -C "$dir" rev-parse HEAD; cat "${frags[@]}") | sha256sum | cut -c1-16)
	if [[ -f $dir/.config && $(cat "$dir/.fp-config-key" 2>/dev/null) == "$key" ]]; then
		return 0
	fi
	rm -f "$dir/.fp-config-key"
	# Keep the old .config (and its time stamp) when nothing changed, so
	# that make does not reconfigure.
	[[ ! -f $dir/.config ]] || cp -p "$dir/.config" "$dir/.fp-config.old"
	mk tinyconfig >/dev/null
	(cd "$dir" && ./scripts/kconfig/merge_config.sh -m -O . .config "${frags[@]}" >/dev/null)
	mk olddefconfig >/dev/null
	# Every symbol a fragment asks for must have survived (where two
	# fragments name one symbol, the later one's value, as merge_config.sh
	# merges them).
	local bad=() line sym
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$tmp" && continue
			# a symbol the series adds (a KUnit test, say) is absent
			# from base and from the series' earlier patches
			sym=${line%%=*}
			grep -rqsE --include='Kconfig*' "^(menu)?config ${sym#CONFIG_}\$" "$dir" || continue
			bad+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$tmp" || echo unset))") ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			! grep -q "^$sym=" "$tmp" || bad+=("$line") ;;
		esac
	done < <(cat "${frags[@]}" | awk '/^CONFIG_[A-Za-z0-9_]+=/ || /^# CONFIG_[A-Za-z0-9_]+ is not set$/ {
		s = $0; sub(/^# /, "", s); sub(/[= ].*/, "", s)
		if (!(s in at)) k[++n] = s
		at[s] = $0 }
		END { for (i = 1; i <= n; i++) print at[k[i]] }')
	if ((${#bad[@]})); then
		# the fragments are written for 5.10; mainline may rename things
		[[ $label == mainline ]] || die "config: not as the fragments ask: ${bad[*]}"
		log "config (mainline): not as the fragments ask: ${bad[*]}"
	fi
	if [[ -f $dir/.fp-config.old ]] && cmp -s "$dir/.fp-config.old" "$dir/.config"; then
		mv "$dir/.fp-config.old" "$dir/.config"
	fi
	rm -f "$dir/.fp-config.old" "$dir/.config.old"
	echo "$key" >"$dir/.fp-config-key"
}

compile() {
	local logf=$dir/.fp-build.log rc=0
	mk bzImage 2>"$logf" || rc=$?
	if ((rc)); then
		grep -E -B2 -A5 'error:|Error [0-9]' "$logf" | tail -40 >&2
		die "kernel build failed (log: $logf)"
	fi
	# a config with modules (configs/wide.config) builds them too
	if grep -q '=m$' "$dir/.config"; then
		mk modules 2>>"$logf" || die "modules build failed (log: $logf)"
	fi
	# Warnings, at W=1, on lines the series adds fail the build.
	[[ $label == mainline ]] || w1_check
	mk headers_install >/dev/null
}

# w1_check: recompile the kernel .c files the series touches with W=1 and
# fail on any warning that points at a line the series added.
w1_check() {
	local f out bad=() line
	while IFS= read -r f; do
		case $f in tools/* | scripts/* | Documentation/*) continue ;; esac
		[[ -f $dir/${f%.c}.o ]] || continue
		out=$(mk W=1 "${f%.c}.o" 2>&1 >/dev/null | grep -E "^$f:[0-9]+:[0-9]+: warning:" || true)
		[[ -n $out ]] || continue
		# the line numbers the series added to $f
		local added
		added=$(added_lines "$dir" "$wbase" "$f")
		while IFS= read -r line; do
			local ln=${line#"$f":}
			ln=${ln%%:*}
			grep -qx "$ln" <<<"$added" && bad+=("$line")
		done <<<"$out"
	done < <(git -C "$dir" diff --name-only "$wbase" HEAD -- '*.c')
	((${#bad[@]} == 0)) || { printf '%s\n' "${bad[@]}" >&2; die "the series adds build warnings (W=1)"; }
}

selftests() {
	# The series' own kselftests (tools/testing/selftests/iopoll), static,
	# so the guest needs no libraries.  Absent on base: nothing to do.
	local t=$dir/tools/testing/selftests/iopoll
	[[ -d $t ]] || return 0
	rm -f "$t/iopoll_test" "$t/uring_test"
	# OUTPUT given: lib.mk sets it only at MAKELEVEL 0, and "make check"
	# is a make too.
	make -s -C "$t" OUTPUT="$t" CC=gcc KSFT_KHDR_INSTALL_DONE=1 \
		CFLAGS="-O2 -Wall -Werror -static -I$dir/usr/include" LDFLAGS=-static >/dev/null
	local p
	for p in $(sed -n 's/^TEST_GEN_PROGS := //p' "$t/Makefile"); do
		[[ -x $t/$p ]] || die "kselftest $p was not built"
	done
}

stage "checkout $label ($(git --git-dir="$FP_GIT" rev-parse --short=12 "$commit"))" checkout
stage "configure" configure
stage "compile" compile
stage "selftests" selftests
ls -l "$dir/arch/x86/boot/bzImage" | sed "s|$FP_TOP/||" >&2
