#!/usr/bin/env python3
"""insn-groups.py LABEL=PROFILE...: guest instructions per I/O by what the
functions do, side by side, from the tables scripts/insn-profile.sh
printed (run it with TOP=100000 so that every function is listed).  The
names differ between 5.10 and mainline; each function goes to the first
group whose pattern matches its name.  Prints a Markdown table."""
import re
import sys

GROUPS = [
    ('libaio', r'aio|ioctx|reqs_available|^__?io_submit_one|read_events|'
     r'^__(x64|se|do)_sys_io_(submit|getevents)|^iocb_(put|destroy)'),
    ('io_uring', r'^(__)?io_|io_uring|^io_wq|^kiocb_|^__kiocb'),
    ('driver (null_blk, nvme)', r'^(null|nullb|nvme)_|^__nvme|^__null'),
    ('request and bio allocation',
     r'blk_mq_get_tags?$|_alloc_request|rq_ctx_init|get_cached_request|'
     r'^bio_alloc|^bio_init|^bio_put|^bio_free|^bio_uninit|mempool|'
     r'kmem_cache|slab|^kmalloc|^kfree|sbitmap_get|sbitmap_queue_get|'
     r'__sbitmap|blk_mq_rq_time_init|rq_list'),
    ('poll and completion',
     r'poll|end_request|complete_request|blk_update_request|^bio_endio|'
     r'_end_io|account_io_done|sbitmap_queue_clear|free_request|'
     r'blk_stat_|release_pages|^bio_advance|flush_tag_batch|'
     r'blk_mq_complete|req_bio_endio|__blk_mq_end|blk_done_softirq|'
     r'trigger_softirq|raise_softirq'),
    ('submission (block layer)',
     r'submit_bio|blk_queue_enter|bio_queue_enter|merge|split|'
     r'integrity_prep|plug|try_issue|issue_directly|start_request|'
     r'add_timer|account_io_start|disk_map_sector|update_io_ticks|'
     r'^part_|rq_qos|bio_to_request|rq_bio_prep|get_driver_tag|'
     r'blk_crypto|blk_mq_sched|dispatch|run_hw_queue|blk_cgroup|blkg|'
     r'blk_mq_map_queue|^blk_'),
    ('direct I/O and VFS',
     r'blkdev_|^__blkdev|generic_file|iov_iter|^bio_iov|bio_add_page|'
     r'filemap|atime|current_time|rw_verify_area|import|fsnotify|'
     r'security_|^fops_|^rw_|^vfs_|bvec|^dio_|blkdev_dio|fput|fget|'
     r'I_BDEV|make_vfs'),
    ('time', r'ktime|clock|read_tsc|timekeeping'),
    ('user space', r'^\[user\]$'),
    # the interrupt-driven probes: what completes and wakes the task
    # (not the irq-saving spinlocks: those stay with the locks)
    ('interrupts, softirqs, timers',
     r'^(?!_raw_spin).*(irq|hrtimer|apic|timer|sysvec|common_interrupt)|'
     r'^tick_'),
    ('scheduler, wakeups, idle',
     r'sched|^pick_next|wake_up|wake_q|ttwu|enqueue|dequeue|update_curr|'
     r'_switch|^finish_task|idle|^select_task|^check_preempt|^set_next|'
     r'^put_prev|update_load|update_cfs|^reweight|^psi_|^prepare_task|'
     r'^context_switch|cond_resched|^preempt_|^prepare_to_wait|'
     r'^finish_wait|autoremove_wake|^__wake|^do_wait|wait_event|'
     r'^schedule|^io_schedule'),
]


def parse(path):
    per = {}
    total = None
    for line in open(path):
        f = line.split()
        if len(f) >= 2 and f[0] == 'total':
            total = float(f[1])
            continue
        if len(f) >= 3 and f[2].endswith('%'):
            try:
                per[f[0]] = float(f[1])
            except ValueError:
                pass
    return per, total


def main():
    cols = []
    for arg in sys.argv[1:]:
        label, path = arg.split('=', 1)
        cols.append((label, *parse(path)))
    names = [g for g, _ in GROUPS] + ['other (locks, syscall entry, ...)']
    sums = []
    for label, per, total in cols:
        s = dict.fromkeys(names, 0.0)
        for fn, v in per.items():
            for g, pat in GROUPS:
                if re.search(pat, fn):
                    s[g] += v
                    break
            else:
                s[names[-1]] += v
        sums.append((s, total if total is not None else sum(per.values())))
    print('| group | ' + ' | '.join(c[0] for c in cols) + ' |')
    print('| --- |' + ' ---: |' * len(cols))
    for g in names:
        if not any(s[g] for s, _ in sums):
            continue  # (no libaio in an io_uring profile)
        print('| %s | ' % g + ' | '.join('%.0f' % s[g] for s, _ in sums) + ' |')
    print('| **total** | ' + ' | '.join('**%.0f**' % t for _, t in sums) + ' |')


if __name__ == '__main__':
    main()
