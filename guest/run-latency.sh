# Scheduling latency beside I/O (scripts/latency.sh): cyclictest
# (Debian 12's rt-tests, its libraries in /fp/rt) on both CPUs, a thread
# each at SCHED_FIFO 95 waking every 1 ms for 20 s, first with the
# machine idle, then beside fio's io_uring random reads at QD 32 on a
# null_blk of one hardware queue that completes in ->queue_rq() by the
# block softirq (irqmode=1, not memory-backed: the device of patch 69).
# Prints "LAT idle ..." and "LAT io ..." lines: the worst and the mean
# wakeup latency over both threads, in microseconds, and fio's IOPS.
. /fp/common.sh
ct() {
	/fp/rt/ld-linux-x86-64.so.2 --library-path /fp/rt /fp/rt/cyclictest \
		-m -q -p 95 -i 1000 -t 2 -a -D "$1"
}
# ct's summary: "T: 0 ( pid) P:95 I:1000 C: n Min: a Act: b Avg: c Max: d"
ct_sum() {
	awk '/^T:/ { for (i = 1; i < NF; i++) { if ($i == "Avg:") a += $(i + 1); if ($i == "Max:" && $(i + 1) > m) m = $(i + 1) } n++ }
		END { if (n) printf "max_us %d avg_us %d", m, a / n; else print "none" }' "$1"
}
[ -x /fp/rt/cyclictest ] || { echo "LAT no /fp/rt/cyclictest"; exit 1; }
grep -q PREEMPT /proc/version && echo "# $(cat /proc/version)"
run_timed 60 ct 20 >/tmp/ct-idle.out 2>&1 || { echo "LAT cyclictest failed: $(tail -1 /tmp/ct-idle.out)"; exit 1; }
echo "LAT idle $(ct_sum /tmp/ct-idle.out) iops 0"
nb=$(nullb_create lat submit_queues=1 irqmode=1 size=1024) || { echo "LAT no null_blk"; exit 1; }
fio --name=lat --filename=/dev/$nb --ioengine=io_uring --direct=1 --rw=randread --bs=4k \
	--iodepth=32 --iodepth_batch_submit=8 --time_based --runtime=24 \
	--output-format=terse >/tmp/fio-lat.out 2>&1 &
p=$!
sleep 2
run_timed 60 ct 20 >/tmp/ct-io.out 2>&1 || { echo "LAT cyclictest failed: $(tail -1 /tmp/ct-io.out)"; exit 1; }
end_job $p 60 || { echo "LAT fio failed: $(tail -1 /tmp/fio-lat.out)"; exit 1; }
iops=$(awk -F';' '$1 == 3 { print $8; exit }' /tmp/fio-lat.out)
echo "LAT io $(ct_sum /tmp/ct-io.out) iops ${iops:-?}"
run_timed 30 nullb_remove lat
