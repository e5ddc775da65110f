#!/usr/bin/env python3
"""eagain-table.py LABEL=LOG...: the EAGAIN-CELL lines of make check's
eagain boot (tests/eagain/) in each LOG, as one markdown table: per
cell and label, the CQEs that ended with -EAGAIN (writes+reads) and,
where there were any, the I/Os completed, the other errors and the
blocks read back wrong.  A cell run on two devices at once (the shared
null_blk tags) is summed.  A run that printed no counts shows as
"stalled" when it was still running at its time bound (exit 124, or
137: killed), else as "no result", with its exit status.  A label may come more than
once, with the logs of its several boots."""
import re
import sys

CELL = re.compile(r'^EAGAIN-CELL (\S+) (\d+) (\S+): ios (\S+)\+(\S+) '
                  r'-EAGAIN (\S+)\+(\S+) errors (\S+)\+(\S+) bad (\S+) exit (\d+)')


def size(bs):
    bs = int(bs)
    return f'{bs >> 20} MiB' if bs >= 1 << 20 else f'{bs >> 10} KiB'


def main(args):
    labels, cells, orders = [], {}, {}
    for arg in args:
        label, _, path = arg.partition('=')
        if label not in labels:
            labels.append(label)
        with open(path, errors='replace') as f:
            for line in f:
                m = CELL.match(line.strip())
                if not m:
                    continue
                key = (m[1], m[2], m[3])
                order = orders.setdefault(label, [])
                if key not in order:
                    order.append(key)
                c = cells.setdefault((label, key), [0] * 7 + [[]])
                if not all(m[g].isdigit() for g in range(4, 11)):
                    # run_timed's 124: still running at its bound
                    c[7].append(f'stalled (exit {m[11]})' if m[11] in ('124', '137')
                                else f'no result (exit {m[11]})')
                    continue
                for i, g in enumerate(range(4, 11)):
                    c[i] += int(m[g])
    # the rows in the order of the label that ran the most cells
    order = max(orders.values(), key=len, default=[])
    for o in orders.values():
        order += [k for k in o if k not in order]
    print('| device | size | SQEs | ' + ' | '.join(labels) + ' |')
    print('|---|---|---|' + '---|' * len(labels))
    for key in order:
        row = [key[0], size(key[1]), key[2].replace('+', ' ')]
        for label in labels:
            c = cells.get((label, key))
            if c is None:
                row.append('not run')
                continue
            wios, rios, weag, reag, werr, rerr, bad, lost = c
            if lost:
                row.append(', '.join(lost))
                continue
            s = f'{weag}+{reag}'
            if weag or reag or werr or rerr or bad or not wios or not rios:
                s += f' (of {wios}+{rios} I/Os'
                if werr or rerr:
                    s += f', {werr}+{rerr} errors'
                if bad:
                    s += f', {bad} bad'
                s += ')'
            row.append(s)
        print('| ' + ' | '.join(row) + ' |')


if __name__ == '__main__':
    main(sys.argv[1:])
