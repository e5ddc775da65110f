#!/usr/bin/env python3
"""insn-loop.py LABEL:PROBE=PROFILE...: the kernel's guest instructions
per read of each profile (scripts/insn-profile.sh with TOP=100000),
split three ways, as a Markdown table: the kernel's work outside the
poll loop, the poll loop, and the idle loop (what a vCPU runs while it
waits for an interrupt).  User space ([user]) is left out.  Several
profiles of one LABEL:PROBE give the median of each part and the spread
of the count outside the loops ((max - min) / median).  With a mainline
profile of the same probe, the ratio of the medians outside the loops.
GATE=1: exit 1 when a label's median outside the loops is above
mainline's for the same probe."""
import collections
import importlib.util
import os
import re
import statistics
import sys

# gcc's clones of a function (foo.isra.0, foo.constprop.0, foo.cold)
SUFFIX = r'(?:\.(?:isra|constprop|part|cold)(?:\.\d+)?)*$'
# The poll loop's functions, in 5.10 with the series and in mainline:
# while a polled read waits on the device, only these run.  5.10 inlines
# io_iopoll_check(), the wait loop, into the io_uring_enter system call,
# so the call's own body counts here too (a few instructions per read:
# one call reaps a batch).  nvme_poll_cq() is not here: it runs when a
# completion is there, as 5.10's nvme_process_cq() does.
LOOP = re.compile(r'^(?:__x64_sys_io_uring_enter|__do_sys_io_uring_enter|'
                  r'__se_sys_io_uring_enter|io_iopoll_check|io_do_iopoll|'
                  r'io_iopoll_getevents|io_uring_classic_poll|'
                  r'io_uring_hybrid_poll|iocb_bio_iopoll|bio_poll|__bio_poll|'
                  r'blk_poll|blk_mq_poll|blk_mq_poll_classic|blk_hctx_poll|'
                  r'blk_mq_poll_hybrid|nvme_poll|null_poll|dm_poll_bio|'
                  r'dm_poll_dm_io|nvme_ns_head_poll)' + SUFFIX)
# The idle loop's, with what it calls each time round: while a read by
# interrupt waits, the vCPU halts here (5.10 in amd_e400_idle() on QEMU's
# -cpu max, mainline in default_idle()).
IDLE = re.compile(r'^(?:cpu_startup_entry|do_idle|cpuidle_idle_call|'
                  r'arch_cpu_idle(?:_enter|_exit|_prepare)?|'
                  r'default_idle(?:_call)?|amd_e400_idle|mwait_idle\w*|'
                  r'cpu_idle_poll|poll_idle|native_safe_halt|halt|'
                  r'default_enter_idle|acpi_idle\w*|intel_idle\w*|'
                  r'tsc_verify_tsc_adjust|local_touch_nmi|'
                  r'tick_check_broadcast_expired|cpuidle_get_cpu_driver|'
                  r'cpuidle_not_available|tick_nohz_\w*idle\w*|'
                  r'tick_nohz_(?:next_event|tick_stopped|restart|stop_tick|'
                  r'retain_tick|irq_exit)|can_stop_idle_tick|rcu_needs_cpu|'
                  r'irq_work_needs_cpu|timekeeping_max_deferment|'
                  r'get_next_timer_interrupt|__next_timer_interrupt|'
                  r'hrtimer_get_next_event|timer_base_try_to_set_idle|'
                  r'fetch_next_timer_interrupt|timer_clear_idle|'
                  r'calc_load_nohz_(?:start|stop)|nohz_balance_enter_idle|'
                  r'nohz_run_idle_balance|kcpustat_dyntick_\w+|'
                  r'sched_clock_idle_(?:sleep|wakeup)_event|'
                  r'rcu_idle_(?:enter|exit)|rcu_eqs_(?:enter|exit)|'
                  r'rcu_dynticks_eqs_(?:enter|exit)|ct_idle_(?:enter|exit)|'
                  r'ct_kernel_(?:enter|exit)(?:_state)?|'
                  r'flush_smp_call_function_from_idle)' + SUFFIX)


def _parse():
    """insn-groups.py's reader of insn-fold.py's table"""
    spec = importlib.util.spec_from_file_location(
        'insn_groups', os.path.join(os.path.dirname(__file__), 'insn-groups.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.parse


parse = _parse()


def load(path):
    """function -> instructions per read (a GROUP= line is no function)"""
    per = parse(path)[0]
    per.pop('group', None)
    if not per:
        sys.exit(f'insn-loop: no profile in {path}')
    return per


def split(per):
    loop = sum(v for k, v in per.items() if LOOP.match(k))
    idle = sum(v for k, v in per.items() if IDLE.match(k))
    kern = sum(per.values()) - per.get('[user]', 0.0)
    return kern - loop - idle, loop, idle


def main():
    runs = collections.OrderedDict()
    labels = []
    for arg in sys.argv[1:]:
        key, path = arg.split('=', 1)
        label, probe = key.split(':', 1)
        runs.setdefault(probe, {}).setdefault(label, []).append(split(load(path)))
        if label not in labels:
            labels.append(label)
    others = [x for x in labels if x != 'mainline']
    ref = 'mainline' in labels
    head = ['probe'] + [f'{x}: outside (spread) / poll loop / idle' for x in labels]
    if ref:
        head += [f'{x}/mainline outside' for x in others]
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    bad = []
    for probe, by in runs.items():
        med = {}
        cells = [probe]
        for label in labels:
            rs = by.get(label)
            if not rs:
                cells.append('-')
                continue
            m = tuple(statistics.median(r[i] for r in rs) for i in range(3))
            med[label] = m
            outs = [r[0] for r in rs]
            spread = 100.0 * (max(outs) - min(outs)) / m[0] if m[0] else 0.0
            cells.append(f'{m[0]:.1f} ({spread:.1f}%, {len(rs)}) / {m[1]:.1f} / {m[2]:.1f}')
        m = med.get('mainline')
        for label in others if ref else []:
            o = med.get(label)
            if m and o:
                cells.append(f'{o[0] / m[0]:.3f}')
                if o[0] > m[0]:
                    bad.append(f'{probe}: {label} {o[0]:.1f} > mainline {m[0]:.1f}')
            else:
                cells.append('-')
        print('| ' + ' | '.join(cells) + ' |')
    sys.stdout.flush()
    for b in bad:
        print(f'above mainline outside the loops: {b}', file=sys.stderr)
    sys.exit(1 if bad and os.environ.get('GATE') == '1' else 0)


main()
