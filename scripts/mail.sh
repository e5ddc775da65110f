#!/usr/bin/env bash
# make mail: the send-ready set in outgoing/: git format-patch
# --cover-letter --base -vN of base + patches/series (N: the newest "vN:"
# of mail/changelog), the cover letter filled in by scripts/mail-cover.py,
# scripts/get_maintainer.pl's answer for every patch in
# outgoing/get_maintainer.txt, and a git send-email --dry-run of the set
# (no SMTP) in outgoing/send-email-dry-run.txt.
#   mail.sh [--dry-run-only]   (the latter: check an existing outgoing/)
. "$(dirname "$0")/lib.sh"

out=${FASTPATH_OUTGOING:-$FP_TOP/outgoing}
TO=linux-block@vger.kernel.org
CC=io-uring@vger.kernel.org
FROM="$FP_IDENT_NAME <$FP_IDENT_EMAIL>"

# (git-email only recommends the Perl modules that send-email needs)
need_pkgs git git-email libmailtools-perl libemail-valid-perl perl python3
"$FP_TOP/scripts/fetch-base.sh" >/dev/null

version=$(series_version) || exit 1

write() {
	local top base cover
	top=$(label_commit patched)
	base=$(git --git-dir="$FP_GIT" rev-parse base)
	rm -rf "$out"
	mkdir -p "$out"
	git_fp -c diff.suppressBlankEmpty=true format-patch -q \
		--cover-letter --base="$base" -v"$version" --thread=shallow \
		-o "$out" "$base..$top" >/dev/null
	cover=$(ls "$out"/v"$version"-0000-cover-letter.patch)
	BASE_VERSION=$BASE_VERSION BASE_TARBALL=$BASE_TARBALL \
		BASE_SHA256=$BASE_SHA256 BASE_SRCVER=$BASE_SRCVER \
		python3 "$FP_TOP/scripts/mail-cover.py" "$cover" "$FP_TOP"
	# the mails must be the queue: same patch count, same subjects
	local n
	n=$(series_files | wc -l)
	(($(ls "$out"/v"$version"-*.patch | wc -l) == n + 1)) ||
		die "outgoing/ has $(ls "$out"/*.patch | wc -l) mails for $n patches"
	log "outgoing/: v$version, $n patches and a cover letter (base $BASE_VERSION, $(git --git-dir="$FP_GIT" rev-parse --short=12 "$base"))"
}

maintainers() {
	# get_maintainer.pl of the patched tree, for each mail
	local wt=$FP_BUILD/mail-tree top f
	top=$(label_commit patched)
	worktree_at "$wt" "$top"
	for f in "$out"/v"$version"-*.patch; do
		[[ $f == *-0000-cover-letter.patch ]] && continue
		echo "== ${f##*/}"
		(cd "$wt" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-tree "$f") || die "get_maintainer.pl failed on ${f##*/}"
		echo
	done >"$out/get_maintainer.txt"
	log "outgoing/get_maintainer.txt: $(grep -c '^== ' "$out/get_maintainer.txt") patches"
}

dry_run() {
	# send-email reads its configuration from the environment's git config
	# only; no SMTP server is contacted with --dry-run
	local n sent
	n=$(ls "$out"/v"$version"-*.patch | wc -l)
	(cd "$out" && git send-email --dry-run --confirm=never --quiet \
		--from="$FROM" --to="$TO" --cc="$CC" --suppress-cc=all \
		--no-format-patch --validate v"$version"-*.patch) \
		>"$out/send-email-dry-run.txt" 2>&1 ||
		{ tail -20 "$out/send-email-dry-run.txt" >&2; die "git send-email --dry-run failed"; }
	sent=$(grep -c '^Dry-Sent ' "$out/send-email-dry-run.txt" || true)
	((sent == n)) || { cat "$out/send-email-dry-run.txt" >&2; die "send-email --dry-run sent $sent of $n mails"; }
	grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE' "$out"/v"$version"-0000-cover-letter.patch &&
		die "the cover letter still has format-patch's placeholders"
	log "git send-email --dry-run: $sent mails accepted (to $TO, cc $CC)"
}

if [[ ${1:-} != --dry-run-only ]]; then
	stage "format-patch v$version" write
	stage "get_maintainer.pl" maintainers
fi
stage "send-email --dry-run" dry_run
