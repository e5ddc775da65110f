#!/usr/bin/env bash
# lint-queue.sh: the patch queue is sound: patches/series and the files
# agree, every patch is a mail with a "subsystem: " subject, the project's
# author and Signed-off-by, and checkpatch.pl --strict finds nothing.
. "$(dirname "$0")/lib.sh"

cd "$FP_PATCHES"
bad=0
problem() { log "patches: $*"; bad=1; }

mapfile -t listed < <(grep -v '^#' series | sed '/^[[:space:]]*$/d')
for p in "${listed[@]}"; do
	[[ -f $p ]] || problem "series lists $p, which does not exist"
done
for f in *.patch; do
	[[ -e $f ]] || continue
	printf '%s\n' "${listed[@]}" | grep -qxF "$f" || problem "$f is not listed in series"
done
[[ $(printf '%s\n' "${listed[@]}" | sort | uniq -d) == "" ]] || problem "series lists a patch twice"

"$FP_TOP/scripts/fetch-base.sh" >/dev/null 2>&1
# checkpatch of the base tree (its spelling list and rules)
series_commit >/dev/null
cp=$FP_CACHE/am-work/scripts/checkpatch.pl
for f in "${listed[@]}"; do
	[[ -f $f ]] || continue
	subj=$(sed -n 's/^Subject: \(\[[^]]*\] \)\{0,1\}//p' "$f" | head -n 1)
	[[ $subj == [a-zA-Z0-9]*:\ * ]] || problem "$f: subject '$subj' lacks a 'subsystem: ' prefix"
	grep -qxE "From: \"?$FP_IDENT_NAME\"? <$FP_IDENT_EMAIL>" "$f" ||
		problem "$f: author is not $FP_IDENT_NAME <$FP_IDENT_EMAIL>"
	grep -qx "Signed-off-by: $FP_IDENT_NAME <$FP_IDENT_EMAIL>" "$f" ||
		problem "$f: no Signed-off-by: $FP_IDENT_NAME <$FP_IDENT_EMAIL>"
	# UNKNOWN_COMMIT_ID: the checking tree has the base's history only;
	# the cited mainline commits are checked against docs/ below
	out=$(cd "$FP_CACHE/am-work" && PATH=/usr/bin:$PATH perl "$cp" --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$FP_PATCHES/$f" 2>&1 |
		grep -E 'ERROR|WARNING|CHECK' || true)
	[[ -z $out ]] || problem "$f: checkpatch --strict:"$'\n'"$out"
	# every 'commit <id> ("<title>")' of the message is a known mainline one
	out=$(python3 - "$f" "$FP_TOP/docs/mainline-commits.txt" <<'PY'
import re, sys
msg = open(sys.argv[1]).read().split('\n---\n')[0]
msg = re.sub(r'\s*\n\s*', ' ', msg)
known = {}
for line in open(sys.argv[2]):
    if line.strip() and not line.startswith('#'):
        known[line[:12]] = line[13:].strip()
for cid, title in re.findall(r'commit ([0-9a-f]{12}) \("(.*?)"\)', msg):
    if cid not in known:
        print('commit %s is not in docs/mainline-commits.txt' % cid)
    elif known[cid] != title:
        print('commit %s is ("%s"), not ("%s")' % (cid, known[cid], title))
PY
)
	[[ -z $out ]] || problem "$f: $out"
done
((bad == 0)) || die "the patch queue has problems (above)"
log "patches: ${#listed[@]} patches, series consistent, checkpatch --strict clean"
