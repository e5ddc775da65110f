#!/usr/bin/env bash
# make check-breaks: every test shown to fail when what it guards is
# broken.  Builds the label "breaks" (the series with
# harness/breaks/break.patch) once with make check's config
# (build/breaks+deb-guest) and, when a manifest's boot is wide, once
# with check-wide's (build/breaks+wide), and boots it once per manifest
# of guest/expected/breaks/ (BREAKS=NAME... for some only).  A manifest
# names the boot (a boot of guest/boot.sh, or wide: check-wide's
# guest), its vm.sh options ("eagain": make check's for that boot,
# FP_EAGAIN_BOOT of lib.sh), the kernel parameters that pick the breaks
# (fp_break=...), the verdict the run must end with (vm.sh's: "tests"
# when only tests fail, "splat" when the break makes the kernel warn),
# optionally "# tests:" (patterns as make check's TESTS=: that boot
# runs those tests only), and the tests that must fail, one a line:
# "NAME", or "NAME TEXT" when the failure's message must contain TEXT
# (the check the break is for).  Every other test of the boot must do
# what the boot's own manifest (guest/expected/BOOT.txt) says: a break
# whose tests pass, a test that fails besides them, or another verdict
# fails the target.  Results: results/breaks-<date>-<hash>/ (each
# boot's log, summary.txt, table.md: per manifest, the tests that
# failed and the run's verdict); ends with "check-breaks: N passed, N
# failed".
. "$(dirname "$0")/lib.sh"

FP_PREFIX="[check-breaks] "
need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}" e2fsprogs
out=$FP_TOP/results/breaks-$(date -u +%Y%m%d-%H%M%S)-$(git -C "$FP_TOP" rev-parse --short HEAD 2>/dev/null || echo nogit)
mkdir -p "$out/guest-files"
t0=$SECONDS
mapfile -t mfs < <(
	if [[ -n ${BREAKS:-} ]]; then
		for b in $BREAKS; do echo "$FP_TOP/guest/expected/breaks/$b.txt"; done
	else
		ls "$FP_TOP"/guest/expected/breaks/*.txt
	fi
)
((${#mfs[@]})) || die "no manifest in guest/expected/breaks/"
for mf in "${mfs[@]}"; do
	[[ -f $mf ]] || die "no manifest $mf"
done

# field MANIFEST NAME: the value of its "# NAME: VALUE" line
field() { sed -n "s/^# $2: *//p" "$1" | head -n 1; }

stage "build breaks" "$FP_TOP/scripts/build.sh" breaks deb-guest.config ||
	{ echo "check-breaks: 0 passed, 1 failed"; exit 1; }
missing=$(guest_files "$out/guest-files" "$FP_BUILD/breaks+deb-guest") || die "$missing"
# the wide guest's kernel, modules and root, when a manifest boots it
root=
if grep -Eq '^# boot: *wide *$' "${mfs[@]}"; then
	stage "build breaks (wide)" "$FP_TOP/scripts/build.sh" breaks wide.config ||
		{ echo "check-breaks: 0 passed, 1 failed"; exit 1; }
	stage "breaks (wide): modules" wide_modules_image "$FP_BUILD/breaks+wide"
	root=$(stage "the $FP_WIDE_SUITE root" wide_root_image) || exit 1
fi

passed=0 failed=0
printf '| manifest | boot | `fp_break=` | tests that failed | verdict |\n|---|---|---|---|---|\n' >"$out/table.md"
for mf in "${mfs[@]}"; do
	name=$(basename "$mf" .txt)
	boot=$(field "$mf" boot) verdict=$(field "$mf" verdict)
	read -r -a vmopts <<<"$(field "$mf" vm)"
	# "# vm: eagain": make check's eagain boot's devices (FP_EAGAIN_BOOT)
	[[ ${vmopts[*]} != eagain ]] || vmopts=("${FP_EAGAIN_BOOT[@]}")
	append=$(field "$mf" append)
	[[ -n $boot && -n $verdict && $append == *fp_break=* ]] ||
		die "$mf: needs # boot:, # verdict: and # append: fp_break=..."
	log="$out/$name.log"
	# "# tests:": those tests only, and the boot's manifest for their IDs
	read -r -a sel <<<"$(field "$mf" tests)"
	guest=() only=
	if ((${#sel[@]})); then
		test_selection "$boot" "${sel[@]}"
		[[ -n $SEL_LIST ]] || die "$mf: '# tests: ${sel[*]}' names no test of boot $boot"
		guest+=("FP_TESTS='$SEL_LIST'") only=$SEL_IDS
	fi
	if [[ $boot == wide ]]; then
		stage "$name: boot $boot with $append" wide_vm "$root" breaks+wide "$log" \
			"${vmopts[@]}" --append "$append" -- "${guest[@]}" sh /fp/wide.sh || true
	else
		FP_BOOT_TIMEOUT=${FP_BOOT_TIMEOUT:-60} stage "$name: boot $boot with $append" \
			"$FP_TOP/scripts/vm.sh" --label breaks+deb-guest --smp 2 --files "$out/guest-files" \
			--log "$log" "${vmopts[@]}" --append "$append" -- "${guest[@]}" sh /fp/boot.sh "$boot" || true
	fi
	got=$(cat "$log.verdict" 2>/dev/null || echo "no verdict")
	# the boot's TAP lines, named as make check names them
	tap_lines "breaks $boot: " "$log" >"$out/$name.results"
	# the tests that failed: name, then the failure's message
	awk '/^breaks [^:]*: not ok / {
		l = $0; sub(/^[^:]*: not ok /, "", l); sub(/^([0-9]+|-) /, "", l)
		id = l; sub(/[: #].*/, "", id); print id "\t" substr(l, length(id) + 1) }' \
		"$out/$name.results" >"$out/$name.failed"
	# a test the guest ended in (an oops under oops=panic: vm.sh's
	# LOG.test) reported nothing: it failed, the verdict its message
	if [[ -s $log.test ]]; then
		t=$(<"$log.test")
		"$FP_TOP/scripts/tests.py" ids --own "$t" |
			sed "s|\$|\tthe kernel died in it ($t; verdict $got)|" >>"$out/$name.failed"
	fi
	sort -o "$out/$name.failed" "$out/$name.failed"
	# the manifest's tests: "NAME" or "NAME TEXT" (TEXT: in the message)
	{ grep -v '^#' "$mf" || true; } | sed '/^[[:space:]]*$/d' |
		awk '{ id = $1; sub(/^[^ \t]+[ \t]*/, ""); print id "\t" $0 }' | sort >"$out/$name.want"
	why=()
	[[ $got == "$verdict" ]] || why+=("the run ended \"$got\", not \"$verdict\"")
	# a break that fails no test must at least end its run otherwise
	[[ -s $out/$name.want || $verdict != tests && $verdict != ok ]] ||
		why+=("the manifest names no test and the verdict \"$verdict\"")
	# (the manifest's list read in BEGIN: it may be empty)
	mapfile -t findings < <(awk -F'\t' -v wf="$out/$name.want" '
		BEGIN { while ((getline l < wf) > 0) { split(l, f, "\t"); want[f[1]] = f[2] } }
		{ n[$1]++; msg[$1] = $2 }
		END {
			for (id in want) {
				if (!(id in n)) print "did not fail: " id
				else if (want[id] != "" && index(msg[id], want[id]) == 0)
					print "failed otherwise: " id " (" msg[id] ")"
			}
			for (id in n) if (!(id in want)) print "failed besides: " id
		}' "$out/$name.failed")
	why+=("${findings[@]}")
	# the rest as the boot's manifest says (reported once, skipped for its
	# reason); the listed tests' own findings are theirs
	m=$(MANIFEST_ONLY=$only "$FP_TOP/scripts/manifest.sh" "$out/$name.results" breaks "$boot" \
		"$FP_TOP/guest/expected/$boot.txt" | awk -F'\t' -v wf="$out/$name.want" '
		BEGIN { while ((getline l < wf) > 0) { split(l, f, "\t"); want[f[1]] = 1 } }
		{ id = $0; sub(/.*not ok - manifest\//, "", id); sub(/: .*/, "", id) }
		!(id in want) || / reported [0-9]+ times/' || true)
	[[ -z $m ]] || why+=("$(echo "$m" | sed 's/^[^:]*: not ok - //' | head -3 | paste -sd';')")
	# a row of table.md (docs/testing.md's "Broken by hand" is made of
	# it): what the run did, not what the manifest wants
	printf '| `%s` | %s | `%s` | %s | %s |\n' "$name" "$boot" "${append#fp_break=}" \
		"$(cut -f1 "$out/$name.failed" | sed 's/.*/`&`/' | paste -sd, | sed 's/,/, /g;s/^$/none/')" \
		"$got" >>"$out/table.md"
	if ((${#why[@]})); then
		echo "not ok - breaks/$name: ${why[*]}" | tee -a "$out/summary.txt"
		failed=$((failed + 1))
	else
		if [[ -s $out/$name.want ]]; then
			what="$(wc -l <"$out/$name.want") tests failed as they must"
		else
			what="the run ended \"$verdict\" as it must"
		fi
		echo "ok - breaks/$name: $what ($append, boot $boot)" |
			tee -a "$out/summary.txt"
		passed=$((passed + 1))
	fi
done
log "results: $out ($((SECONDS - t0)) s)"
echo "check-breaks: $passed passed, $failed failed" | tee -a "$out/summary.txt"
((failed == 0))
