#!/usr/bin/env python3
"""wide-table.py [--only IDS] LABEL=LOG...: the TAP lines of make
check-wide's guests (guest/wide.sh, the tests of boot wide), one
markdown table with a column per label, then the verdict.  Each label
is judged on its own results against its manifest (scripts/manifest.sh:
a fail line's text must be in the failure's message):
guest/expected/wide.txt for the series (patched, pN),
guest/expected/LABEL/wide.txt for another
label (base).  Any result other than what the manifest names fails the
run: a failure, a skip for another reason, a test that did not report,
a failure whose text is not the one its "fail" line names; the series'
manifest names no failure.  The last label (the kernel under test) must
have a manifest, and its run must end cleanly: a verdict other than
"tests" or "ok" (a hung guest, a kernel splat, a request timeout:
scripts/vm.sh's LOG.verdict) fails the run; another label's is listed.
A label without a manifest (mainline) is shown, not judged.  With
--only IDS (make check-wide TESTS=...: some tests only; IDS the space
separated IDs, shell patterns, of the tests that ran) only those of the
manifest are wanted: one that did not report still fails, and so does
an ID that is in no manifest (scripts/manifest.sh's MANIFEST_ONLY).
Exits 1 on any failure."""
import os
import subprocess
import tempfile
import re
import sys

TAP = re.compile(r'^(ok|not ok) - (\S+)(?:: (.*?))?(?: # SKIP (.*))?$')


def read(path):
    res, order, lines = {}, [], []
    with open(path, errors='replace') as f:
        for line in f:
            m = TAP.match(line.rstrip('\n'))
            if not m:
                continue
            lines.append(line.rstrip('\n'))
            name = m[2]
            if name not in order:
                order.append(name)
            if m[1] == 'ok':
                res.setdefault(name, ('skip: ' + m[4]) if m[4] else 'ok')
            else:
                res[name] = 'FAIL: ' + (m[3] or '')
    try:
        with open(path + '.verdict') as f:
            verdict = f.read().strip()
    except OSError:
        verdict = 'no verdict'
    why = ''
    try:
        with open(path + '.why') as f:
            why = f.read().strip()
    except OSError:
        pass
    return res, order, verdict, why, lines


def cell(s):
    return s.replace('|', '\\|')[:160]


def main(args):
    # --only IDS: some tests only (TESTS): the manifests are compared for
    # their IDs only
    only = ''
    if args[:1] == ['--only']:
        only, args = args[1], args[2:]
    runs = []
    for arg in args:
        label, _, path = arg.partition('=')
        runs.append((label, *read(path)))
    order = []
    for r in runs:
        order += [n for n in r[2] if n not in order]
    print('| test | ' + ' | '.join(r[0] for r in runs) + ' |')
    print('|---|' + '---|' * len(runs))
    for n in order:
        print(f'| {n} | ' + ' | '.join(cell(r[1].get(n, 'missing')) for r in runs) + ' |')
    print()
    bad = []
    for r in runs:
        print(f'- {r[0]}: {sum(v == "ok" for v in r[1].values())} passed, '
              f'{sum(v.startswith("FAIL") for v in r[1].values())} failed, '
              f'guest verdict {r[3]}{" (" + r[4] + ")" if r[4] else ""}')
    last = runs[-1]
    if last[3] not in ('ok', 'tests'):
        bad.append(f'{last[0]}: the guest run ended "{last[3]}"')
    for r in runs:
        # a run where nothing reported (a failed chroot) is no pass
        if not r[1]:
            bad.append(f'{r[0]}: no test reported')
        if r is not last and r[3] not in ('ok', 'tests'):
            print(f'  ({r[0]}\'s run ended "{r[3]}": listed, not counted)')
        mf = manifest_of(r[0])
        if not mf:
            if r is last:
                bad.append(f'{r[0]}: no manifest ({manifest_path(r[0])})')
            else:
                print(f'  ({r[0]}: no manifest, not judged)')
            continue
        bad += judge(r[0], r[5], mf, only)
    if bad:
        print('\nNot as the manifests say:')
        for x in bad:
            print('- ' + cell(x))
    passed = sum(v == 'ok' for v in last[1].values())
    print(f'\ncheck-wide: {passed} passed, {len(bad)} failed')
    return 1 if bad else 0


TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def manifest_path(label):
    """guest/expected/wide.txt for the series, LABEL/wide.txt otherwise"""
    base = label.split('+')[0]
    if base == 'patched' or re.fullmatch(r'p[0-9]+', base):
        return os.path.join(TOP, 'guest/expected/wide.txt')
    return os.path.join(TOP, 'guest/expected', base, 'wide.txt')


def manifest_of(label):
    path = manifest_path(label)
    return path if os.path.isfile(path) else None


def judge(label, lines, mf, only=''):
    """LABEL's TAP lines against manifest MF (its IDs that ONLY's shell
    patterns match, if given): what is not as it says (scripts/manifest.sh's
    findings, and every failure that it did not mark as expected)"""
    with tempfile.TemporaryDirectory() as tmp:
        res, mark = os.path.join(tmp, 'results'), os.path.join(tmp, 'marked')
        with open(res, 'w') as f:
            for line in lines:
                f.write(f'{label} wide: {line}\n')
        p = subprocess.run([os.path.join(TOP, 'scripts/manifest.sh'), res, label,
                            'wide', mf], capture_output=True, text=True,
                           env=dict(os.environ, MANIFEST_MARK=mark, MANIFEST_ONLY=only))
        out = [x.split(': ', 1)[1] for x in p.stdout.splitlines() if ': ' in x]
        if p.returncode and not out:
            out = [f'manifest.sh exit {p.returncode}: {p.stderr.strip()[:200]}']
        try:
            with open(mark) as f:
                marked = f.read().splitlines()
        except OSError:
            marked = []
    for x in marked:
        line = x.split(': ', 1)[1] if ': ' in x else x
        if line.startswith('not ok') and ' # TODO expected here: ' not in line:
            out.append(line)
    return [f'{label}: {x}' for x in out]


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
