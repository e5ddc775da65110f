#!/usr/bin/env python3
"""bench-report.py RESULTS_DIR: the table of make bench from summary.tsv.

icount mode: the median of each label's runs, the spread (max - min) over
the median, and the ratio last label / first label.  wall mode: labels
were booted in pairs whose order flips every round (A B, B A, ...); the
ratio is taken per round (a pair) and the median of those ratios is
reported.  Also writes
ratios.dat for the chart.
"""
import collections
import os
import statistics
import sys

out = sys.argv[1]
rows = collections.defaultdict(list)   # (probe, mode, label) -> [values]
rounds = collections.defaultdict(dict)  # (probe, mode, round) -> {label: v}
units = {}
labels = []
with open(os.path.join(out, "labels.txt")) as f:
    for line in f:
        labels.append(line.split()[0])
with open(os.path.join(out, "summary.tsv")) as f:
    next(f)
    for line in f:
        probe, mode, label, rnd, value, unit = line.rstrip("\n").split("\t")
        rows[(probe, mode, label)].append(float(value))
        rounds[(probe, mode, rnd)].setdefault(label, []).append(float(value))
        units[probe] = unit

notes = {}
with open(os.path.join(out, "notes.txt")) as f:
    for line in f:
        label, rest = line.split(": ", 1)
        probe, text = rest.rstrip("\n").split(" ", 1)
        notes.setdefault(probe, []).append(f"{label}: {text}")

# a label's icount runs of a probe that completed by interrupt measure
# timer ticks, not instructions: drop that label's icount values
for probe, texts in notes.items():
    for t in texts:
        label, text = t.split(": ", 1)
        if "not polled: left out of icount" in text:
            rows.pop((probe, "icount", label), None)

# the ratio compares the last label of the series with the first; a
# mainline reference, when there, gets a column of its own
mainline = "mainline" if "mainline" in labels else None
series = [x for x in labels if x != "mainline"]
ref, new = series[0], series[-1]
probes = []
for (probe, mode, _label) in rows:
    if (probe, mode) not in probes:
        probes.append((probe, mode))


def fmt(v):
    if v is None:
        return "-"
    if v >= 1e6:
        return f"{v / 1e6:.3f}M"
    if v >= 1e3:
        return f"{v / 1e3:.1f}k"
    return f"{v:.2f}"


def spread(vals):
    if len(vals) < 2:
        return None
    m = statistics.median(vals)
    return (max(vals) - min(vals)) / m * 100 if m else None


head = ["probe", "mode"] + labels + [f"{new}/{ref}", "spread %"]
if mainline:
    head.append(f"{new}/mainline")
table = []
chart = collections.OrderedDict()
for probe, mode in probes:
    med = {}
    spreads = []
    for label in labels:
        vals = rows.get((probe, mode, label))
        med[label] = statistics.median(vals) if vals else None
        s = spread(vals) if vals else None
        if s is not None:
            spreads.append(s)
    ratio = None
    if mode == "wall":
        pairs = []
        for (p, m, _r), by in rounds.items():
            if p == probe and m == mode and ref in by and new in by:
                a, b = statistics.median(by[ref]), statistics.median(by[new])
                if a:
                    pairs.append(b / a)
        if pairs:
            ratio = statistics.median(pairs)
            spreads = [spread(pairs)] if len(pairs) > 1 else spreads
    elif med.get(ref) and med.get(new) is not None:
        ratio = med[new] / med[ref]
    cells = [probe + f" ({units[probe]})", mode]
    cells += [fmt(med[label]) for label in labels]
    cells += [f"{ratio:.3f}" if ratio else "-",
              f"{max(spreads):.1f}" if spreads else "-"]
    if mainline:
        m = med.get(mainline)
        cells.append(f"{med[new] / m:.3f}" if m and med.get(new) else "-")
    table.append(cells)
    # the chart shows like-for-like rates only: no CPU shares, nothing
    # that runs differently on one label (see the notes)
    if ratio and units[probe] != "%" and probe not in notes:
        chart.setdefault(probe, {})[mode] = ratio

widths = [max(len(r[i]) for r in table + [head]) for i in range(len(head))]
for r in [head] + table:
    print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
print()
print("icount: guest time counts instructions (-icount shift=0,sleep=off); "
      "only probes that complete inline, by polling or in guest time "
      "(null_blk softirq and timer) are run there.")
print("wall: plain TCG, labels booted in pairs (A B, B A, ...); ratio = "
      "median of per-pair ratios, spread = range of those ratios.")
for probe in notes:
    for n in notes[probe]:
        print(f"note: {probe}: {n}")

# a probe against its reference, per label: the multipath head against
# one path of the same subsystem (boots of their own), polled 4 KiB
# through dm-linear against the raw namespace of the same boot
for probe, base, title in (
        ("mpath-head-4k", "mpath-single-4k", "multipath head / one path"),
        ("dm-linear-nvme-4k", "nvme-4k", "dm-linear / raw NVMe, polled 4 KiB")):
    for mode in ("icount", "wall"):
        for label in labels:
            a, b = rows.get((probe, mode, label)), rows.get((base, mode, label))
            if a and b:
                r = statistics.median(a) / statistics.median(b)
                print(f"{title} ({mode}, {label}): {r:.3f}")

with open(os.path.join(out, "ratios.dat"), "w") as f:
    for probe, by in chart.items():
        f.write(f"{probe} {by.get('icount', 0):.4f} {by.get('wall', 0):.4f}\n")
