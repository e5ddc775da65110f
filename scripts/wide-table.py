#!/usr/bin/env python3
"""wide-table.py LABEL=LOG...: the TAP lines of make check-wide's guests
(guest/wide.sh), one markdown table with a column per label, then the
verdict.  The last label is compared with the first (base): a test that
passed there and failed, or is missing, on the last fails the run (exit
1); a test that failed on both is listed with both reasons.  A run
whose verdict was not "tests" or "ok" (a hung guest, a kernel splat, a
request timeout: scripts/vm.sh's LOG.verdict) fails check-wide on the
last label, and is listed on the others."""
import re
import sys

TAP = re.compile(r'^(ok|not ok) - (\S+)(?:: (.*?))?(?: # SKIP (.*))?$')


def read(path):
    res, order = {}, []
    with open(path, errors='replace') as f:
        for line in f:
            m = TAP.match(line.rstrip('\n'))
            if not m:
                continue
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
    return res, order, verdict, why


def cell(s):
    return s.replace('|', '\\|')[:160]


def main(args):
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
    # the kernel under test must end its run cleanly; base's own hang,
    # splat or timeout is listed, not counted
    last = runs[-1]
    if last[3] not in ('ok', 'tests'):
        bad.append(f'{last[0]}: the guest run ended "{last[3]}"')
    for r in runs:
        if not r[1]:
            bad.append(f'{r[0]}: no test reported')
        elif r is not last and r[3] not in ('ok', 'tests'):
            print(f'  ({r[0]}\'s run ended "{r[3]}": listed, not counted)')
    if len(runs) >= 2:
        base, last = runs[0], runs[-1]
        both = []
        for n in order:
            b, p = base[1].get(n, 'missing'), last[1].get(n, 'missing')
            if b == 'ok' and p != 'ok':
                bad.append(f'{n}: passes on {base[0]}, on {last[0]} {p}')
            elif b.startswith('FAIL') and p.startswith('FAIL'):
                both.append(f'{n}: {base[0]} {b}; {last[0]} {p}')
        if both:
            print('\nFailing on both (listed, not counted):')
            for x in both:
                print('- ' + cell(x))
    if bad:
        print('\nRegressions and failed runs:')
        for x in bad:
            print('- ' + cell(x))
        print(f'\ncheck-wide: {len(bad)} failed')
        return 1
    print('\ncheck-wide: no test passes on base and fails on patched')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
