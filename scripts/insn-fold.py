#!/usr/bin/env python3
"""insn-fold.py SYSTEM_MAP BLOCKS PROBE_OUTPUT [TOP]: fold insn-prof's
per-block counts into kernel functions and print instructions per
operation (the ops count is the probe's "# ops NAME N" line).  With
GROUP=REGEX in the environment, also print the sum over the functions
whose names match REGEX (e.g. the request allocation path)."""
import bisect
import collections
import os
import re
import sys


def main():
    smap, blocks, probe = sys.argv[1:4]
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    syms = []
    for line in open(smap):
        addr, kind, name = line.split()[:3]
        if kind in 'tTwW':
            syms.append((int(addr, 16), name))
    syms.sort()
    addrs = [a for a, _ in syms]
    ops = None
    for line in open(probe):
        m = re.match(r'# ops (\S+) (\d+)', line)
        if m:
            ops = int(m.group(2))
    if not ops:
        sys.exit('insn-fold: the probe printed no "# ops" line')
    per = collections.Counter()
    window = ''
    for line in open(blocks):
        if line.startswith('#'):
            window = line.strip()
            continue
        vaddr, n = line.split()
        vaddr, n = int(vaddr, 16), int(n)
        if vaddr < 0xffff800000000000:
            per['[user]'] += n
            continue
        i = bisect.bisect_right(addrs, vaddr) - 1
        per[syms[i][1] if i >= 0 else '[kernel?]'] += n
    if window != '# window closed':
        sys.exit('insn-fold: the marked window did not close (%s)' % window)
    total = sum(per.values())
    print('%-44s %10s %6s' % ('function', 'insns/op', 'share'))
    for name, n in per.most_common(top):
        print('%-44s %10.1f %5.1f%%' % (name, n / ops, 100.0 * n / total))
    group = os.environ.get('GROUP')
    if group:
        members = [n for n in per if re.search(group, n)]
        g = sum(per[n] for n in members)
        print('%-44s %10.1f %5.1f%%  (%s)' % ('group', g / ops, 100.0 * g / total,
                                             ' '.join(sorted(members))))
    print('%-44s %10.1f  (%d ops)' % ('total', total / ops, ops))


main()
