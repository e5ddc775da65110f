# The functions whose calls the tests count with ftrace's function
# profiler (fprof_start and fprof_stop in common.sh).  Switching the
# profiler on or off patches kernel text, and on two TCG vCPUs a patch
# can leave a stale int3 that crashes the guest (docs/emulator.md): make
# check's guests switch it on once, from /init before their command
# starts, where guest_run boots a crashed guest again, and the tests only
# read its counts.  Functions this kernel lacks are left out.
FPROF_FUNCS="fp_blk_mq_alloc_one_by_one blk_mq_get_tag blk_mq_get_tags
io_wq_worker_sleeping blk_mq_end_request_batch blk_mq_end_request bio_alloc_bioset bio_alloc_kiocb
dma_map_sg_attrs nvme_prp_next null_queue_rqs blk_mq_sched_insert_requests
fp_nvme_sq_doorbell_mmio nvme_queue_rqs nvme_queue_rq
rcu_read_unlock_strict __const_udelay"

# fprof_arm: the profiler on, on FPROF_FUNCS only; fails without it
fprof_arm() {
	local t=/sys/kernel/tracing f
	[ -f $t/function_profile_enabled ] || return 1
	for f in $FPROF_FUNCS; do
		echo "$f" >>$t/set_ftrace_filter 2>/dev/null
	done
	# an empty filter would profile every function
	grep -q '^[a-z_]' $t/set_ftrace_filter || return 1
	echo 1 >$t/function_profile_enabled
}
