#!/usr/bin/env bash
# manifest.sh RESULTS LABEL BOOT MANIFEST: compare the TAP results of one
# guest boot ("LABEL BOOT: ok ..." lines of RESULTS) with what MANIFEST
# says must happen there.  Prints one "LABEL BOOT: not ok - manifest/ID:
# why" line for every difference and exits 1 if there was any:
#   - a test of the manifest that reported nothing (or more than once);
#   - a test that reported and is not in the manifest;
#   - a test that skipped where the manifest wants a pass, or passed where
#     it names a skip (the manifest is then out of date), or skipped for
#     another reason than the one the manifest names;
#   - a test that passed or skipped where the manifest names a failure.
# MANIFEST lines: "ID" (must pass), "ID skip REASON" (must skip, the
# reason says why that is right for this boot) or "ID fail REASON" (must
# fail: a kernel without the series lacks what the test checks; only in
# the manifests of other labels, guest/expected/LABEL/); # starts a
# comment.  With MANIFEST_MARK=FILE, RESULTS is written to FILE with
# each failure its "fail" line expects marked as TAP's TODO: " # TODO
# expected here: REASON" at its end (what scripts/check.sh counts apart).
# A "fail" line's REASON is text that the failure's own message (after
# the test's name) must contain, so that a test that fails for another
# reason than the expected one fails; an empty REASON matches nothing
# (a comment line above it says why; MANIFEST_FAIL_MATCH=0: any failure
# will do).
# With MANIFEST_ONLY="PATTERN..." (make check TESTS=...: some tests
# only), only the manifest's IDs that a shell PATTERN matches are
# wanted; a reported ID the manifest does not list still fails.  The
# runner's own "state/NAME" lines (a test that left state behind) are
# failures of their own, not the manifest's.
# manifest.sh --write RESULTS LABEL BOOT prints a manifest of what the
# boot did, to review before it replaces one (a failure's line carries
# its whole message: cut it to the part that says why and that every
# run prints alike).
set -euo pipefail

if [[ ${1:-} == --write ]]; then
	awk -v pfx="$3 $4: " 'index($0, pfx) == 1 && !/ manifest\// {
		line = substr($0, length(pfx) + 1)
		sub(/^(not )?ok /, "", line)
		sub(/^([0-9]+|-) /, "", line)
		id = line
		sub(/[: #].*/, "", id)
		r = ""
		if (line ~ /# SKIP/) { r = line; sub(/.*# SKIP /, "", r); r = " skip " r }
		else if ($0 ~ /^[^:]*: not ok/) { r = line; sub(/^[^:]*: */, "", r); r = " fail " r }
		print id r
	}' "$2"
	exit 0
fi
results=$1 label=$2 boot=$3 manifest=$4
[[ -f $manifest ]] || { echo "$label $boot: not ok - manifest: no file $manifest"; exit 1; }

# MANIFEST_ONLY's shell patterns as one extended regular expression
only=
set -f # (the patterns are IDs', not file names)
for p in ${MANIFEST_ONLY:-}; do
	p=$(printf '%s' "$p" | sed 's/[].[^$\\+(){}|]/\\&/g; s/\*/.*/g; s/?/./g')
	only+="${only:+|}$p"
done
set +f

awk -v pfx="$label $boot: " -v mf="$manifest" -v mark="${MANIFEST_MARK:-}" \
	-v fmatch="${MANIFEST_FAIL_MATCH:-1}" -v only="${only:+^($only)\$}" '
	BEGIN {
		while ((getline line < mf) > 0) {
			sub(/#.*/, "", line)
			if (line ~ /^[ \t]*$/) continue
			split(line, f, /[ \t]+/)
			if (f[1] in want) dup[f[1]] = 1
			if (only != "" && f[1] !~ only) { other[f[1]] = 1; continue }
			want[f[1]] = (f[2] == "skip" || f[2] == "fail") ? f[2] : "pass"
			# the series itself expects no failure
			if (f[2] == "fail" && pfx ~ /^(patched|p[0-9]+)[+ ]/) badfail[f[1]] = 1
			r = line
			sub(/^[ \t]*[^ \t]+[ \t]+(skip|fail)[ \t]*/, "", r)
			sub(/[ \t]+$/, "", r)
			wantwhy[f[1]] = r
			order[n++] = f[1]
		}
	}
	{ all[NR] = $0 }
	index($0, pfx) == 1 {
		line = substr($0, length(pfx) + 1)
		st = line ~ /^not ok/ ? "fail" : (line ~ /# SKIP/ ? "skip" : "pass")
		sub(/^(not )?ok /, "", line)
		sub(/^([0-9]+|-) /, "", line)
		id = line
		sub(/[: #].*/, "", id)
		if (id ~ /^(manifest|state)\//) next
		seen[id]++
		got[id] = st
		why[id] = line
		lineof[id] = NR
	}
	END {
		bad = 0
		for (id in dup) { printf "%snot ok - manifest/%s: listed twice in %s\n", pfx, id, mf; bad = 1 }
		for (id in badfail) { printf "%snot ok - manifest/%s: a \"fail\" line in %s, a manifest of the series\n", pfx, id, mf; bad = 1 }
		for (i = 0; i < n; i++) {
			id = order[i]
			if (!(id in seen)) {
				printf "%snot ok - manifest/%s: reported nothing\n", pfx, id; bad = 1
			} else if (seen[id] > 1) {
				printf "%snot ok - manifest/%s: reported %d times\n", pfx, id, seen[id]; bad = 1
			} else if (got[id] == "skip" && want[id] == "pass") {
				r = why[id]; sub(/.*# SKIP /, "", r)
				printf "%snot ok - manifest/%s: skipped (%s), must pass here\n", pfx, id, r; bad = 1
			} else if (got[id] == "skip" && want[id] == "skip") {
				r = why[id]; sub(/.*# SKIP /, "", r); sub(/[ \t]+$/, "", r)
				if (r != wantwhy[id]) {
					printf "%snot ok - manifest/%s: skipped (%s), the manifest names another reason (%s)\n", pfx, id, r, wantwhy[id]; bad = 1
				}
			} else if (got[id] == "pass" && want[id] == "skip") {
				printf "%snot ok - manifest/%s: passed where the manifest names a skip: update it\n", pfx, id; bad = 1
			} else if (got[id] != "fail" && want[id] == "fail") {
				printf "%snot ok - manifest/%s: %s where the manifest names a failure (%s): update it\n", pfx, id, got[id] == "pass" ? "passed" : "skipped", wantwhy[id]; bad = 1
			} else if (got[id] == "fail" && want[id] == "fail" && fmatch &&
				(wantwhy[id] == "" || index(substr(why[id], length(id) + 1), wantwhy[id]) == 0)) {
				printf "%snot ok - manifest/%s: failed (%s), not with what the manifest names (%s)\n", pfx, id, why[id], wantwhy[id]; bad = 1
			} else if (got[id] == "fail" && want[id] == "fail") {
				all[lineof[id]] = all[lineof[id]] " # TODO expected here: " wantwhy[id]
			}
		}
		if (mark != "")
			for (i = 1; i <= NR; i++) print all[i] > mark
		for (id in seen)
			if (!(id in want) && !(id in other)) {
				printf "%snot ok - manifest/%s: not in the manifest\n", pfx, id; bad = 1
			}
		exit bad
	}' "$results"
