#!/usr/bin/env python3
"""tests.py: the harness's tests, one a file (tests/GROUP/NAME), read
from their headers (docs/writing-tests.md).

  tests.py lint                  every test's header is whole and true
                                 to the manifests and the breaks
  tests.py select BOOT [PAT...]  the tests of BOOT (GROUP/NAME, in run
                                 order) that PAT names: a shell pattern
                                 on GROUP/NAME, on NAME or on GROUP
  tests.py boots PAT...          the boots that hold a test PAT names
  tests.py ids [--own] TEST...   the IDs (shell patterns) the TESTs report,
                                 and (without --own) those the runners
                                 report before them

lint fails (exit 1, one line each) on: a header field missing or
unknown; a boot no manifest or runner knows; two tests of one name or
one ID; an ID of a test that the manifest of one of its boots does not
list, or a manifest line no test of that boot reports; a break token
that harness/breaks/break.patch does not define; a test that a
manifest of guest/expected/breaks/ expects to fail and whose header
does not name that manifest's break; a "# time:" below the sum of the
bounds inside the test (run_timed N, wait_until N, end_job PID N, also
in the helpers it calls), which must run out first so that the test
reports why.
"""
import fnmatch
import os
import re
import shlex
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(TOP, "tests")
FIELDS = ("proves", "boots", "needs", "break")
OPTIONAL = ("ids", "order", "time")
# the boots of guest/boot.sh and guest/wide.sh; those with a manifest
# are checked against it
BOOTS = ("poll", "mpath", "nopoll", "userdisk", "dbbuf", "swiotlb",
         "eagain", "starved", "kselftests", "eagain-mpath", "wide")
# IDs the runners report themselves, before the tests (guest/boot.sh,
# guest/wide.sh)
PREAMBLE = ("dev_*", "kunit_*", "wide_root")


BOUND = re.compile(r"\b(?:run_timed|wait_until)\s+(\d+)|\bend_job\s+\S+\s+(\d+)")
FUNC = re.compile(r"^(?:# bound: ([^\n]+)\n)?(\w+)\(\)\s*\{(.*?)^\}", re.M | re.S)
PRIMS = ("run_timed", "wait_until", "end_job")


def bound_sum(text):
    return sum(int(a or b) for a, b in BOUND.findall(text))


def funcs_of(text):
    """function name -> (its body, its "# bound:" expression or None);
    a helper whose bound is one of its arguments says so in the comment
    line just above it: "# bound: $4", "# bound: 2*$3", "# bound: $3+60"
    """
    return {m.group(2): (m.group(3), m.group(1)) for m in FUNC.finditer(text)}


def call_args(body, name):
    """the argument lists of each call of NAME in BODY (best effort)"""
    out = []
    for m in re.finditer(r"(?<![\w$-])" + re.escape(name) + r"(?![\w-])([^\n;|&)]*)", body):
        try:
            out.append(shlex.split(m.group(1)))
        except ValueError:
            out.append([])
    return out


def eval_bound(expr, args):
    e = re.sub(r"\$(\d+)", lambda m: args[int(m.group(1)) - 1]
               if int(m.group(1)) <= len(args) else "x", expr)
    return int(eval(e)) if re.fullmatch(r"[\d+*() ]+", e) else 0


def worst(body, funcs, seen=()):
    """the sum of the bounds BODY runs through if every phase runs out:
    its own run_timed, wait_until and end_job bounds, and those of each
    helper it calls (a call site counts once, loops or not)"""
    tot = bound_sum(body)
    for f, (fbody, expr) in funcs.items():
        if f in PRIMS or f in seen:
            continue
        for args in call_args(body, f):
            tot += eval_bound(expr, args) if expr else worst(fbody, funcs, seen + (f,))
    return tot


def worst_time(path, helpers):
    """worst() of a test file, with the helpers it may call"""
    text = open(path).read()
    funcs = {**helpers, **funcs_of(text)}
    return worst(FUNC.sub("", text), funcs)


def header(path):
    h = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = re.match(r"^# ([a-z]+): (.*)$", line.rstrip("\n"))
            if m:
                h[m.group(1)] = m.group(2).strip()
    return h


def load():
    tests = []
    for g in sorted(os.listdir(TESTS)):
        gd = os.path.join(TESTS, g)
        if not os.path.isdir(gd):
            continue
        for n in sorted(os.listdir(gd)):
            if n == "rc":
                continue
            h = header(os.path.join(gd, n))
            tests.append({
                "path": f"{g}/{n}", "group": g, "name": n, "h": h,
                "boots": h.get("boots", "").split(),
                "ids": h.get("ids", n).split(),
                "order": int(h.get("order", "50")) if h.get("order", "50").isdigit() else -1,
            })
    return tests


def named(t, pats):
    return not pats or any(fnmatch.fnmatchcase(t["path"], p) or fnmatch.fnmatchcase(t["name"], p)
                           or fnmatch.fnmatchcase(t["group"], p) for p in pats)


def manifest_ids(path):
    ids = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                ids.append(line.split()[0])
    return ids


def break_tokens():
    toks = set()
    with open(os.path.join(TOP, "harness", "breaks", "break.patch")) as f:
        for line in f:
            if line.startswith("diff "):
                break
            m = re.match(r"^  ([a-z]+|c/PREFIX)\s", line)
            if m:
                toks.add(m.group(1))
    return toks


def breaks_of(t):
    """the break tokens a test's header names: its first word, tokens
    separated by commas ("nobatch,fewbatch", "c/dm-"), or "none" or
    "base" """
    v = t["h"].get("break", "").split()
    return [w for w in v[0].split(",") if w] if v else []


def lint(tests):
    bad = []
    toks = break_tokens()
    seen_name, seen_id = {}, {}
    for t in tests:
        p, h = t["path"], t["h"]
        for f in FIELDS:
            if not h.get(f):
                bad.append(f"{p}: no '# {f}:' line")
        for f in h:
            if f not in FIELDS + OPTIONAL:
                bad.append(f"{p}: unknown header field '{f}'")
        if t["order"] < 0:
            bad.append(f"{p}: order is not a number")
        if "time" in h and not h["time"].isdigit():
            bad.append(f"{p}: time is not a number of seconds")
        for b in t["boots"]:
            if b not in BOOTS:
                bad.append(f"{p}: boot '{b}' is none of {' '.join(BOOTS)}")
        if t["name"] in seen_name:
            bad.append(f"{p}: the name of {seen_name[t['name']]} too")
        seen_name[t["name"]] = p
        for i in t["ids"]:
            if i in seen_id:
                bad.append(f"{p}: ID {i} is {seen_id[i]}'s too")
            seen_id[i] = p
        for b in breaks_of(t):
            if b in ("none", "base"):
                continue
            if b.startswith("c/"):
                b = "c/PREFIX"
            if b not in toks:
                bad.append(f"{p}: break '{b}' is not defined in harness/breaks/break.patch")
    # each boot's manifest against the tests of that boot
    for b in BOOTS:
        mf = os.path.join(TOP, "guest", "expected", f"{b}.txt")
        if not os.path.exists(mf):
            continue
        mine = [t for t in tests if b in t["boots"]]
        ids = manifest_ids(mf)
        for i in ids:
            if any(fnmatch.fnmatchcase(i, p) for p in PREAMBLE):
                continue
            if not any(fnmatch.fnmatchcase(i, p) for t in mine for p in t["ids"]):
                bad.append(f"guest/expected/{b}.txt: {i} is reported by no test of boot {b}")
        for t in mine:
            for p in t["ids"]:
                if not any(fnmatch.fnmatchcase(i, p) for i in ids):
                    bad.append(f"{t['path']}: ID {p} is not in guest/expected/{b}.txt")
    # the breaks' manifests: a test they fail is of their boot and names
    # their break; a test of their boot (of their "# tests:", if they
    # have it) that names one of their breaks is one they fail
    bd = os.path.join(TOP, "guest", "expected", "breaks")
    for mfn in sorted(os.listdir(bd)) if os.path.isdir(bd) else []:
        with open(os.path.join(bd, mfn)) as f:
            text = f.read()

        def fld(name):
            m = re.search(rf"^# {name}:[ \t]*(.*)$", text, re.M)
            return m.group(1).strip() if m else ""

        def runs(t):
            return boot in t["boots"] and named(t, sel)

        # its tokens: the fp_break= of its "# append:" line
        m = re.search(r"\bfp_break=(\S+)", fld("append"))
        toks_of = m.group(1).split(",") if m else []
        boot, sel = fld("boot"), fld("tests").split()
        if boot not in BOOTS:
            bad.append(f"guest/expected/breaks/{mfn}: boot '{boot}' is none of {' '.join(BOOTS)}")
        ids = manifest_ids(os.path.join(bd, mfn))
        for i in ids:
            # state/ID: what the test of ID left behind (the runner's check)
            tid = i[len("state/"):] if i.startswith("state/") else i
            owner = [t for t in tests if any(fnmatch.fnmatchcase(tid, p) for p in t["ids"])]
            if not owner:
                bad.append(f"guest/expected/breaks/{mfn}: {i} is reported by no test")
            for t in owner:
                if not runs(t):
                    bad.append(f"guest/expected/breaks/{mfn}: {i} does not run on its boot {boot}"
                               + (f" with its tests {' '.join(sel)}" if sel else ""))
                if not set(breaks_of(t)) & set(toks_of):
                    bad.append(f"{t['path']}: fails in guest/expected/breaks/{mfn}, "
                               f"its '# break:' names none of {' '.join(toks_of)}")
        for t in filter(runs, tests):
            hit = set(breaks_of(t)) & set(toks_of)
            if hit and not any(fnmatch.fnmatchcase(i, p) for i in ids for p in t["ids"]):
                bad.append(f"{t['path']}: its '# break:' names {','.join(sorted(hit))}, "
                           f"which guest/expected/breaks/{mfn} runs, and the manifest "
                           f"does not list it")
    # the runner's bound comes after the test's own
    common = {}
    for lib in ("guest/common.sh", "guest/wide-lib.sh"):
        common.update(funcs_of(open(os.path.join(TOP, lib)).read()))
    for t in tests:
        rcf = os.path.join(TESTS, t["group"], "rc")
        helpers = {**common, **(funcs_of(open(rcf).read()) if os.path.exists(rcf) else {})}
        w = worst_time(os.path.join(TESTS, t["path"]), helpers)
        tm = int(t["h"]["time"]) if t["h"].get("time", "").isdigit() else 300
        if w > tm:
            bad.append(f"{t['path']}: time {tm} s is below its own bounds' sum, {w} s")
    for line in bad:
        print(line)
    return 1 if bad else 0


def main():
    tests = load()
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "lint":
        sys.exit(lint(tests))
    if cmd == "select" and args:
        sel = [t for t in tests if args[0] in t["boots"] and named(t, args[1:])]
        for t in sorted(sel, key=lambda t: (t["order"], t["path"])):
            print(t["path"])
    elif cmd == "boots" and args:
        print(" ".join(b for b in BOOTS if any(b in t["boots"] and named(t, args) for t in tests)))
    elif cmd == "ids":
        # --own: the tests' own IDs, not the boots' preamble
        if args[:1] == ["--own"]:
            args = args[1:]
        else:
            print("\n".join(PREAMBLE))
        for t in tests:
            if t["path"] in args:
                print("\n".join(t["ids"]))
    else:
        sys.exit(__doc__)


main()
