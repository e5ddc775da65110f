# Out-of-order polled completion (scripts/reap-order.sh): one io_uring
# with IOPOLL reads of 4 KiB and 128 KiB mixed (half each by count, QD 32,
# 20 s) on the NVMe, so that a small read often completes while a large
# one ahead of it in the ring's poll list is still in flight.  Prints the
# job's IOPS and the median and 99th percentile of the 4 KiB reads'
# completion latency (from fio's per-I/O log), one "REAP" line.
. /fp/common.sh
dev=$(nvme_plain) || { echo "REAP no NVMe namespace"; exit 1; }
fio --name=fill --filename=/dev/$dev --ioengine=io_uring --direct=1 --rw=write \
	--bs=1M --size=64M --output-format=terse >/dev/null 2>&1 || { echo "REAP fill failed"; exit 1; }
cd /tmp || exit 1
fio --name=mix --filename=/dev/$dev --ioengine=io_uring --hipri=1 --direct=1 \
	--rw=randread --bssplit=4k/50:128k/50 --size=64M --iodepth=32 \
	--iodepth_batch_submit=8 --iodepth_batch_complete_min=1 --time_based \
	--runtime=20 --ramp_time=2 --write_lat_log=mix --log_avg_msec=0 \
	--output-format=terse >/tmp/fio-mix.out 2>&1 || { echo "REAP fio failed"; cat /tmp/fio-mix.out; exit 1; }
iops=$(awk -F';' '$1 == 3 { print $8; exit }' /tmp/fio-mix.out)
# lat log: msec, latency (ns), direction, block size, ...
awk -F', *' '$4 == 4096 { print $2 }' mix_clat.1.log | sort -n >/tmp/lat4k
n=$(wc -l </tmp/lat4k)
# no 4 KiB sample (a log of another layout, a job that did nothing) is
# a failure, not a latency of 0
[ "$n" -gt 0 ] || { echo "REAP no 4 KiB latency sample in mix_clat.1.log"; exit 1; }
p50=$(awk -v n="$n" 'NR == int(n * 0.50) + 1 { print int($1 / 1000); exit }' /tmp/lat4k)
p99=$(awk -v n="$n" 'NR == int(n * 0.99) + 1 { print int($1 / 1000); exit }' /tmp/lat4k)
echo "REAP iops $iops reads4k $n p50_us $p50 p99_us $p99"
