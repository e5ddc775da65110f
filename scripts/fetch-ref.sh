#!/usr/bin/env bash
# fetch-ref.sh: the mainline reference for "make bench REF=mainline":
# Debian sid's newest linux 7.2.x upstream tarball, or the newest sid
# still serves (REF_VERSION to pin one), verified against the sha256 of sid's signed source index,
# imported once into the base repository as the tag mainline-<version>.
# Prints the tag.
. "$(dirname "$0")/lib.sh"

need_pkgs "${FP_PKGS_BUILD[@]}"
apt_src_update sid
srcs=$(find "$FP_CACHE/apt/sid/lists" -name '*_sid_main_source_Sources*' | head -n 1)
[[ -n $srcs ]] || die "no sid source index"
index() { lz4cat -f "$srcs"; }
# Newest first: 7.2.x as asked, then whatever newer than 6.12 sid still
# serves (the archive drops superseded uploads).
mapfile -t vers < <(index | awk '/^Package: linux$/ { p = 1 } /^$/ { p = 0 }
	p && /^Version: / { sub(/^Version: /, ""); print }' | sort -Vr)
[[ -z ${REF_VERSION:-} ]] || vers=("$REF_VERSION")
mkdir -p "$FP_CACHE/src"
ver= up= sha=
for v in "${vers[@]}"; do
	u=${v%-*}
	t=linux_$u.orig.tar.xz
	s=$(index | awk -v t="$t" '!f && $3 == t && length($1) == 64 { print $1; f = 1 }')
	[[ -n $s ]] || continue
	if [[ ! -f $FP_CACHE/src/$t ]] &&
		! src_download sid "$FP_CACHE/src" --tar-only "linux=$v" 2>/dev/null; then
		log "linux $v is in sid's index but its $t is not served; trying an older one"
		continue
	fi
	ver=$v up=$u sha=$s
	break
done
[[ -n $ver ]] || die "no linux source of sid could be downloaded (wanted ${vers[*]:0:3})"
case $up in 7.2.*) ;; *) log "note: the reference is linux $up, not 7.2.x: sid no longer serves 7.2's tarball" ;; esac
tarball=linux_$up.orig.tar.xz
tag=mainline-$up

if ! git --git-dir="$FP_GIT" rev-parse -q --verify "$tag^{commit}" >/dev/null 2>&1; then
	"$FP_TOP/scripts/fetch-base.sh" >/dev/null
	check_sha256 "$FP_CACHE/src/$tarball" "$sha"
	tmp=$(mktemp -d "$FP_CACHE/import.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	log "importing $tarball as $tag"
	tar -C "$tmp" -xf "$FP_CACHE/src/$tarball"
	top=$(ls "$tmp")
	GIT_AUTHOR_DATE="2024-07-27T00:00:00Z" GIT_COMMITTER_DATE="2024-07-27T00:00:00Z" \
		git_fp --work-tree="$tmp/$top" add -A
	tree=$(git_fp --work-tree="$tmp/$top" write-tree)
	commit=$(GIT_AUTHOR_DATE="2024-07-27T00:00:00Z" GIT_COMMITTER_DATE="2024-07-27T00:00:00Z" \
		git_fp commit-tree "$tree" -m "Linux $up (Debian sid $ver)" \
		-m "Imported from $tarball (sha256 $sha).")
	git_fp tag "$tag" "$commit"
	# the shared index now describes this tree: forget it
	rm -f "$FP_GIT/index"
fi
echo "$tag"
