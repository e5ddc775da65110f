#!/usr/bin/env bash
# lint-queue.sh: the patch queue is sound: patches/series and the files
# agree, every patch is a mail with a "subsystem: " subject, the project's
# author and Signed-off-by, and checkpatch.pl --strict finds nothing.
. "$(dirname "$0")/lib.sh"

cd "$FP_PATCHES"
bad=0
problem() { log "patches: $*"; bad=1; }

mapfile -t listed < <(grep -v '^#' series | sed '/^[[:space:]]*$/d')
declare -A in_series
for p in "${listed[@]}"; do
	in_series[$p]=1
	[[ -f $p ]] || problem "series lists $p, which does not exist"
done
# (no "printf | grep -q" here: under pipefail, grep's early exit can
# kill printf with SIGPIPE and fail the pipeline)
for f in *.patch; do
	[[ -e $f ]] || continue
	[[ -n ${in_series[$f]:-} ]] || problem "$f is not listed in series"
done
[[ $(printf '%s\n' "${listed[@]}" | sort | uniq -d) == "" ]] || problem "series lists a patch twice"

"$FP_TOP/scripts/fetch-base.sh" >/dev/null || die "cannot fetch the base for checkpatch"
# checkpatch of the base tree (its spelling list and rules), run at the
# top of the base's source tree.  A checkpatch that cannot run fails the
# lint: every run must end with its "total:" line.
ck=$(base_tree) || die "no source tree of the base for checkpatch"
cp=$ck/scripts/checkpatch.pl
[[ -f $cp ]] || die "no $cp"
command -v perl >/dev/null || die "perl is missing: checkpatch cannot run"
# checkpatch of every patch first, FP_JOBS at a time (the outputs are
# read in order below)
cpout=$(mktemp -d)
trap 'rm -rf "$cpout"' EXIT
for f in "${listed[@]}"; do if [[ -f $f ]]; then printf '%s\0' "$f"; fi; done |
	(cd "$ck" && CP=$cp PATCHES=$FP_PATCHES OUT=$cpout xargs -0 -r -P "$FP_JOBS" -I{} \
		sh -c 'PATH=/usr/bin:$PATH perl "$CP" --strict --show-types \
			--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$PATCHES/$1" >"$OUT/$1" 2>&1; true' sh {})
for f in "${listed[@]}"; do
	[[ -f $f ]] || continue
	subj=$(sed -n 's/^Subject: \(\[[^]]*\] \)\{0,1\}//p' "$f" | head -n 1)
	[[ $subj == [a-zA-Z0-9]*:\ * ]] || problem "$f: subject '$subj' lacks a 'subsystem: ' prefix"
	grep -qxE "From: \"?$FP_IDENT_NAME\"? <$FP_IDENT_EMAIL>" "$f" ||
		problem "$f: author is not $FP_IDENT_NAME <$FP_IDENT_EMAIL>"
	grep -qx "Signed-off-by: $FP_IDENT_NAME <$FP_IDENT_EMAIL>" "$f" ||
		problem "$f: no Signed-off-by: $FP_IDENT_NAME <$FP_IDENT_EMAIL>"
	# UNKNOWN_COMMIT_ID: the checking tree has the base's history only;
	# the cited mainline commits are checked against docs/ below.
	# FILE_PATH_CHANGES: checkpatch asks it of every patch that adds a
	# file without touching MAINTAINERS; the series lists each new file
	# there (0001: tools/testing/selftests/iopoll/, 0014:
	# lib/sbitmap_kunit.c, 0054: Documentation/block/polled-io.rst).
	out=$(cat "$cpout/$f" 2>/dev/null) || true
	grep -q '^total: [0-9]* errors, [0-9]* warnings' <<<"$out" ||
		{ problem "$f: checkpatch did not run:"$'\n'"$out"; continue; }
	grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out" ||
		problem "$f: checkpatch --strict:"$'\n'"$(sed '/^total: /,$d' <<<"$out")"
	# every 'commit <id> ("<title>")' of the message is a known mainline one
	out=$(python3 - "$f" "$FP_TOP/docs/mainline-commits.txt" <<'PY'
import re, sys
msg = open(sys.argv[1]).read().split('\n---\n')[0]
msg = re.sub(r'\s*\n\s*', ' ', msg)
known = {}
for line in open(sys.argv[2]):
    if line.strip() and not line.startswith('#'):
        known[line[:12]] = line[13:].strip()
# 'commit <id> ("<title>")', or '(<id>, "<title>")' for a title with
# quotes in it, which 5.10's checkpatch cannot parse in the first form
refs = re.findall(r'commit ([0-9a-f]{12}) \("(.*?)"\)', msg)
refs += re.findall(r'\(([0-9a-f]{12}), "(.*?)"\)', msg)
for cid, title in refs:
    if cid not in known:
        print('commit %s is not in docs/mainline-commits.txt' % cid)
    elif known[cid] != title:
        print('commit %s is ("%s"), not ("%s")' % (cid, known[cid], title))
PY
)
	[[ -z $out ]] || problem "$f: $out"
done
# The variants for Debian's rt tree (patches/rt/, docs/rt.md): each
# stands for a patch of the series, with its subject, author and
# sign-off, checkpatch --strict clean; and the series applies to the rt
# tree with them (scripts/lib.sh rt_series_commit)
nrt=0
for f in rt/*.patch; do
	[[ -e $f ]] || continue
	nrt=$((nrt + 1))
	b=${f#rt/}
	[[ -n ${in_series[$b]:-} ]] || { problem "$f stands for $b, which series does not list"; continue; }
	subj() { awk '/^Subject: / { p = 1; printf "%s", $0; next } p && /^ / { printf "%s", $0; next } { p = 0 }' "$1"; }
	[[ $(subj "$f") == "$(subj "$b")" ]] || problem "$f: its subject is not that of $b"
	grep -qxE "From: \"?$FP_IDENT_NAME\"? <$FP_IDENT_EMAIL>" "$f" ||
		problem "$f: author is not $FP_IDENT_NAME <$FP_IDENT_EMAIL>"
	grep -qx "Signed-off-by: $FP_IDENT_NAME <$FP_IDENT_EMAIL>" "$f" ||
		problem "$f: no Signed-off-by: $FP_IDENT_NAME <$FP_IDENT_EMAIL>"
	out=$(cd "$ck" && PATH=/usr/bin:$PATH perl "$cp" --strict --show-types \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$FP_PATCHES/$f" 2>&1) || true
	grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out" ||
		problem "$f: checkpatch --strict:"$'\n'"$(sed '/^total: /,$d' <<<"$out")"
done
if ((nrt)) && ((bad == 0)); then
	(rt_series_commit >/dev/null) || problem "the series does not apply to Debian's rt tree (patches/rt/, docs/rt.md)"
fi
((bad == 0)) || die "the patch queue has problems (above)"
log "patches: ${#listed[@]} patches, series consistent, checkpatch --strict clean"
((nrt == 0)) || log "patches/rt: $nrt variants, checkpatch --strict clean; the series applies to Debian's rt tree"
