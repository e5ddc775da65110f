#!/usr/bin/env bash
# make tree: a git work tree of base + patches/series in tree/, on branch
# "fastpath".  Edit and commit there, then "make export".
. "$(dirname "$0")/lib.sh"

tree=${1:-$FP_TOP/tree}
[[ $FP_PATCHES == "$FP_TOP/patches" ]] || tree=${1:-$FP_TOP/tree-$BASE_VERSION}
"$FP_TOP/scripts/fetch-base.sh" >/dev/null

if [[ -e $tree ]]; then
	[[ -z $(git -C "$tree" status --porcelain --untracked-files=no 2>/dev/null) ]] ||
		die "$tree has uncommitted changes: commit and 'make export', or remove it"
	if [[ $(git -C "$tree" rev-parse HEAD 2>/dev/null) != "$(label_commit patched)" ]] &&
		[[ -n $(git -C "$tree" log --oneline "$(label_commit patched)..HEAD" 2>/dev/null) ]]; then
		die "$tree has commits that patches/ lacks: 'make export' first, or remove it"
	fi
	git_fp worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
fi
git_fp worktree prune
mapfile -t files < <(series_files)
git_fp worktree add -q -B fastpath "$tree" base
am_series "$tree" "${files[@]}"
log "tree: $tree, base + ${#files[@]} patches, branch fastpath"
