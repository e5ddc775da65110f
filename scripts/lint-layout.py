#!/usr/bin/env python3
"""lint-layout.py: docs/layout.md names every file git tracks, and
only files that exist.

The layout's indented block lists paths in its first column (four
spaces in, up to two spaces or the end of the line): items separated by
commas, a bare name taking the directory of the item before it
("scripts/vm.sh, check.sh"), and shell patterns for collections
("patches/*.patch").  The block after the line "Made by the commands"
lists what git does not keep, and is not checked.  Prints each file no
item names and each item that names no file; exits 1 if there is any.
"""
import fnmatch
import os
import re
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
layout = os.path.join(top, "docs", "layout.md")
items = []
with open(layout) as f:
    for line in f:
        if line.startswith("Made by the commands"):
            break
        m = re.match(r"^    (\S.*?)(?:\s{2,}|$)", line.rstrip("\n"))
        if not m:
            continue
        d = ""
        for it in re.split(r",\s*", m.group(1).strip().rstrip(",")):
            it = it.strip()
            if not it:
                continue
            if "/" in it:
                d = it[: it.rindex("/") + 1]
            else:
                it = d + it
            items.append(it)

files = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True,
                       text=True, check=True).stdout.split()
named = {it: [] for it in items}
bad = 0
for p in files:
    hit = False
    for it in items:
        if fnmatch.fnmatchcase(p, it):
            named[it].append(p)
            hit = True
    if not hit:
        print(f"docs/layout.md does not name {p}")
        bad = 1
for it, ps in named.items():
    if not ps:
        print(f"docs/layout.md names {it}, which git does not track")
        bad = 1
sys.exit(bad)
