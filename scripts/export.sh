#!/usr/bin/env bash
# make export: write the commits of tree/ since base back to patches/ as
# git format-patch mails and rewrite patches/series.  Comment lines of the
# old series (group headings) are kept before the patch they preceded.
. "$(dirname "$0")/lib.sh"

[[ $FP_PATCHES == "$FP_TOP/patches" ]] ||
	die "make export writes patches/, the queue of BASE ($BASE_VERSION); the $BASE_VERSION queue is frozen at $QUEUE_COMMIT"
tree=${1:-$FP_TOP/tree}
[[ -d $tree ]] || die "no $tree: run 'make tree' first"
[[ -z $(git -C "$tree" status --porcelain --untracked-files=no) ]] ||
	die "$tree has uncommitted changes"

out=$FP_TOP/patches
mkdir -p "$out"
declare -A heading=()
if [[ -f $out/series ]]; then
	pending=
	while IFS= read -r line; do
		if [[ $line == \#* || -z $line ]]; then
			pending+=$line$'\n'
		else
			# key by subject part of the file name, without the number
			heading[${line#[0-9][0-9][0-9][0-9]-}]=$pending
			pending=
		fi
	done <"$out/series"
fi
rm -f "$out"/*.patch
# diff.suppressBlankEmpty: a blank context line is an empty line, not a
# lone space, so that checkpatch run on the mail as a file (from a checkout
# that tracks it) sees no trailing whitespace; git am takes either.
git -C "$tree" -c diff.suppressBlankEmpty=true format-patch -q --no-signature --zero-commit -N \
	--base=base -o "$out" base..HEAD >/dev/null
{
	for f in "$out"/*.patch; do
		[[ -e $f ]] || continue
		b=${f##*/}
		printf '%s' "${heading[${b#[0-9][0-9][0-9][0-9]-}]:-}"
		printf '%s\n' "$b"
	done
} >"$out/series"
log "exported $(grep -vc '^#\|^$' "$out/series") patches to patches/"
