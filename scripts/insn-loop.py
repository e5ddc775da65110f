#!/usr/bin/env python3
"""insn-loop.py LABEL:PROBE=PROFILE...: the kernel's guest instructions
per read of each profile (scripts/insn-profile.sh with TOP=100000),
split three ways, as a Markdown table: the kernel's work outside the
poll loop, the poll loop, and the idle loop (what a vCPU runs while it
waits for an interrupt).  User space ([user]) is left out.  With a
mainline profile of the same probe, the ratio of the counts outside the
loops.  GATE=1: exit 1 when a label's count outside the loops is above
mainline's for the same probe."""
import collections
import os
import re
import sys

# the poll loop's functions, in 5.10 with the series and in mainline:
# while a polled read waits on the device, only these run
LOOP = re.compile(r'^(io_do_iopoll|io_iopoll_check|io_iopoll_getevents|'
                  r'iocb_bio_iopoll|bio_poll|__bio_poll|blk_poll|blk_mq_poll|'
                  r'blk_hctx_poll|blk_mq_poll_hybrid|nvme_poll|nvme_poll_cq|'
                  r'null_poll|dm_poll_bio|nvme_ns_head_poll)$')
# the idle loop's: while a read by interrupt waits, the vCPU halts here
IDLE = re.compile(r'^(do_idle|cpu_startup_entry|default_idle|'
                  r'default_idle_call|arch_cpu_idle|arch_cpu_idle_enter|'
                  r'arch_cpu_idle_exit|cpuidle_idle_call|cpu_idle_poll|'
                  r'native_safe_halt|halt|default_enter_idle|'
                  r'tick_nohz_idle_\w+|tick_nohz_\w*idle\w*|'
                  r'mwait_idle\w*|acpi_idle\w*|intel_idle\w*|poll_idle)$')


def load(path):
    """function -> instructions per read, from insn-fold.py's table"""
    per = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[0] not in ('function', 'total', 'group'):
                try:
                    per[w[0]] = float(w[1])
                except ValueError:
                    pass
    if not per:
        sys.exit(f'insn-loop: no profile in {path}')
    return per


def split(per):
    loop = sum(v for k, v in per.items() if LOOP.match(k))
    idle = sum(v for k, v in per.items() if IDLE.match(k))
    kern = sum(per.values()) - per.get('[user]', 0.0)
    return kern - loop - idle, loop, idle


def main():
    rows = collections.OrderedDict()
    labels = []
    for arg in sys.argv[1:]:
        key, path = arg.split('=', 1)
        label, probe = key.split(':', 1)
        rows.setdefault(probe, {})[label] = split(load(path))
        if label not in labels:
            labels.append(label)
    others = [x for x in labels if x != 'mainline']
    ref = 'mainline' in labels
    head = ['probe'] + [f'{x}: outside / poll loop / idle' for x in labels]
    if ref:
        head += [f'{x}/mainline outside' for x in others]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    bad = []
    for probe, by in rows.items():
        cells = [probe]
        for label in labels:
            o = by.get(label)
            cells.append('%.1f / %.1f / %.1f' % o if o else '-')
        m = by.get('mainline')
        for label in others if ref else []:
            o = by.get(label)
            if m and o:
                cells.append(f'{o[0] / m[0]:.3f}')
                if o[0] > m[0]:
                    bad.append(f'{probe}: {label} {o[0]:.1f} > mainline {m[0]:.1f}')
            else:
                cells.append('-')
        print('| ' + ' | '.join(cells) + ' |')
    for b in bad:
        print(f'above mainline outside the loops: {b}', file=sys.stderr)
    sys.exit(1 if bad and os.environ.get('GATE') == '1' else 0)


main()
