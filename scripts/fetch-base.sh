#!/usr/bin/env bash
# Fetch the pinned base tarball (BASE) from Debian's source archive, verify
# it, and import it once into a cached git repository as the tag "base".
. "$(dirname "$0")/lib.sh"

src=$FP_CACHE/src
tarball=$src/$BASE_TARBALL

fetch() {
	mkdir -p "$src"
	if [[ -f $tarball ]]; then
		check_sha256 "$tarball" "$BASE_SHA256"
		return
	fi
	need_pkgs "${FP_PKGS_BUILD[@]}"
	log "downloading $BASE_SRCPKG $BASE_SRCVER sources from $BASE_SUITE"
	src_download "$BASE_SUITE" "$src" "$BASE_SRCPKG=$BASE_SRCVER" ||
		die "could not download $BASE_SRCPKG=$BASE_SRCVER from $BASE_SUITE's sources (need $BASE_TARBALL)"
	check_sha256 "$tarball" "$BASE_SHA256"
}

import() {
	if git --git-dir="$FP_GIT" rev-parse -q --verify base^{commit} >/dev/null 2>&1; then
		return
	fi
	local tmp
	tmp=$(mktemp -d "$FP_CACHE/import.XXXXXX")
	log "importing $BASE_TARBALL into $FP_GIT"
	rm -rf "$FP_GIT"
	git init -q --bare "$FP_GIT"
	tar -C "$tmp" -xf "$tarball"
	[[ -d $tmp/$BASE_TOPDIR ]] || die "$BASE_TARBALL has no $BASE_TOPDIR/"
	# A fixed date makes the base commit id the same on every machine.
	GIT_AUTHOR_DATE="2024-07-27T00:00:00Z" GIT_COMMITTER_DATE="2024-07-27T00:00:00Z" \
		git_fp --work-tree="$tmp/$BASE_TOPDIR" add -A
	GIT_AUTHOR_DATE="2024-07-27T00:00:00Z" GIT_COMMITTER_DATE="2024-07-27T00:00:00Z" \
		git_fp --work-tree="$tmp/$BASE_TOPDIR" commit -q \
		-m "Linux $BASE_VERSION" -m "Imported from $BASE_TARBALL (sha256 $BASE_SHA256)."
	git_fp tag base
	git_fp config gc.auto 0
	rm -rf "$tmp"
}

stage "fetch base $BASE_VERSION" fetch
stage "import base" import
git --git-dir="$FP_GIT" rev-parse base
