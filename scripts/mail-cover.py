#!/usr/bin/env python3
"""mail-cover.py COVER TOP: fill in the cover letter that git format-patch
wrote (COVER, with its "*** SUBJECT HERE ***" and "*** BLURB HERE ***")
from the project at TOP:

- the parts of the series: the "## " headings of patches/series, the
  "# " lines after each, and the patches under it, numbered as mailed;
- the figures: README.md between "<!-- cover:figures -->" and
  "<!-- /cover:figures -->";
- mail/intro.txt, mail/results.txt, mail/tested.txt, mail/changelog,
  mail/signoff.txt;
- the base, from the environment (BASE_VERSION, BASE_TARBALL,
  BASE_SHA256, BASE_SRCVER).

Fails if a placeholder is missing or the series names a patch that the
mails do not have, so that a stale cover letter is never sent.
"""
import os
import re
import sys
import textwrap


def die(msg):
    sys.stderr.write("mail-cover.py: error: %s\n" % msg)
    sys.exit(1)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        die("%s: %s" % (path, e.strerror))


def parts(series):
    """[(title, prose, [patch file, ...]), ...] from patches/series."""
    out = []
    cur = None
    header = True
    for line in series.splitlines():
        if header:
            # the file's own comment block ends at the first blank line
            if not line.strip():
                header = False
            continue
        if line.startswith("## "):
            cur = (line[3:].strip(), [], [])
            out.append(cur)
        elif line.startswith("#"):
            if cur is None:
                die("patches/series: prose before the first '## ' heading")
            cur[1].append(line[1:].strip())
        elif line.strip():
            if cur is None:
                die("patches/series: %s comes before any '## ' heading" % line)
            cur[2].append(line.strip())
    return [(t, " ".join(p), f) for t, p, f in out]


def main():
    if len(sys.argv) != 3:
        die("usage: mail-cover.py COVER TOP")
    cover_path, top = sys.argv[1], sys.argv[2]
    cover = read(cover_path)
    for mark in ("*** SUBJECT HERE ***", "*** BLURB HERE ***"):
        if mark not in cover:
            die("%s has no '%s'" % (cover_path, mark))

    plist = parts(read(os.path.join(top, "patches/series")))
    number = {}
    n = 0
    for _, _, files in plist:
        for f in files:
            n += 1
            number[f] = n
    # the subjects as mailed: from the patch files themselves
    subject = {}
    for _, _, files in plist:
        for f in files:
            text = read(os.path.join(top, "patches", f))
            m = re.search(r"^Subject: \[PATCH[^]]*\] (.*(?:\n [^\n]*)*)", text, re.M)
            if not m:
                die("patches/%s has no Subject" % f)
            subject[f] = re.sub(r"\n ", " ", m.group(1)).strip()

    width = len(str(n))
    blocks = []
    for title, prose, files in plist:
        if not files:
            die("part '%s' of patches/series has no patches" % title)
        first, last = number[files[0]], number[files[-1]]
        rng = "%d" % first if first == last else "%d-%d" % (first, last)
        para = "%s (%s): %s" % (title, rng, prose)
        blocks.append(textwrap.fill(para, 72))
        blocks.append("\n".join("  %*d: %s" % (width, number[f], subject[f])
                                for f in files))

    readme = read(os.path.join(top, "README.md"))
    m = re.search(r"<!-- cover:figures -->\n(.*?)<!-- /cover:figures -->",
                  readme, re.S)
    if not m:
        die("README.md has no <!-- cover:figures --> section")
    figures = "\n".join(l for l in m.group(1).strip("\n").splitlines()
                        if not l.startswith("```"))

    env = os.environ
    try:
        base = "v%s" % env["BASE_VERSION"]
        base_long = ("Linux %s as Debian ships it (%s, sha256 %s, source "
                     "package linux %s); the base-commit below is that "
                     "tarball imported into git, not a kernel.org commit id"
                     % (base, env["BASE_TARBALL"], env["BASE_SHA256"],
                        env["BASE_SRCVER"]))
    except KeyError as e:
        die("%s not set (run through scripts/mail.sh)" % e)

    intro = read(os.path.join(top, "mail/intro.txt")).strip("\n")
    intro = intro.replace("@BASE@", base).replace("@NPARTS@", str(len(plist)))
    changelog = read(os.path.join(top, "mail/changelog")).strip("\n")
    tested = read(os.path.join(top, "mail/tested.txt")).strip("\n")
    signoff = read(os.path.join(top, "mail/signoff.txt")).strip("\n")

    body = "\n\n".join([
        intro,
        "\n\n".join(blocks),
        read(os.path.join(top, "mail/results.txt")).strip("\n"),
        figures,
        tested,
        textwrap.fill("Base: " + base_long + ".", 72),
        "Changes:\n\n" + changelog,
        signoff,
    ])
    title = ("fastpath-5.10: polled I/O of mainline 5.16 for 5.10 LTS "
             "(%d patches, on %s)" % (n, base))
    cover = cover.replace("*** SUBJECT HERE ***", title, 1)
    cover = cover.replace("*** BLURB HERE ***", body, 1)
    with open(cover_path, "w") as f:
        f.write(cover)


main()
