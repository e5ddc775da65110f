# Guest-side helpers (busybox sh), sourced by the guest scripts.

# Results as TAP lines at the start of a console line; the host counts them.
# Each is followed by the guest's uptime, "# at S s", so that the log
# shows what each test cost.
tap_at() { echo "# at $(cut -d' ' -f1 /proc/uptime) s"; }
tap_ok() { echo "ok - $1"; tap_at; }
tap_fail() { echo "not ok - $1${2:+: $2}"; tap_at; }
tap_skip() { echo "ok - $1 # SKIP $2"; tap_at; }
# tap_result NAME WHY: ok if WHY is empty, else not ok with it (and rc=1)
tap_result() {
	if [ -z "$2" ]; then
		tap_ok "$1"
	else
		tap_fail "$1" "$2"
		rc=1
	fi
}

# is_count VALUE: VALUE is a count (digits only): not empty, not "?" (a
# counter that matched nothing), not negative
is_count() {
	case $1 in '' | *[!0-9]*) return 1 ;; esac
}

# preemptible: the kernel is preemptible (CONFIG_PREEMPT, PREEMPT_RT),
# where patch 69 leaves the block softirq raised while issuing to
# ksoftirqd, as 5.10 does
preemptible() {
	case $(uname -v) in *PREEMPT*) return 0 ;; esac
	return 1
}

# hctx_queued DISK [TYPE]: requests allocated on the hctxs of DISK (and
# of its hidden multipath paths), only on those of TYPE (e.g. poll) if given
hctx_queued() {
	local s=0 h d
	for d in /sys/kernel/debug/block/$1 /sys/kernel/debug/block/${1%n*}c*n${1##*n}; do
		for h in "$d"/hctx*; do
			[ -f "$h/queued" ] || continue
			[ -z "$2" ] || [ "$(cat "$h/type" 2>/dev/null)" = "$2" ] || continue
			s=$((s + $(cat "$h/queued")))
		done
	done
	echo "$s"
}

# NVMe interrupts, all queues and CPUs
nvme_irqs() {
	awk '/nvme/ { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts
}

# hctx_count DISK TYPE: how many hctxs of TYPE (default, read, poll) DISK has
hctx_count() {
	local n=0 h
	for h in /sys/kernel/debug/block/$1/hctx*; do
		[ "$(cat "$h/type" 2>/dev/null)" = "$2" ] && n=$((n + 1))
	done
	echo $n
}

# devices_check BOOT: the devices the host asked for on the kernel command
# line for BOOT (poll, nopoll, mpath, starved) must be there, one TAP line
# each.  A test that needs a device and does not find it skips; this is
# what makes such a skip a failure.
devices_check() {
	local d h n
	case $1 in
	poll | starved | nopoll | dbbuf | swiotlb | eagain | userdisk)
		d=$(nvme_plain)
		if [ -z "$d" ]; then
			tap_fail dev_nvme "no plain NVMe namespace"
			rc=1
		elif [ $1 = nopoll ]; then
			n=$(hctx_count "$d" poll)
			if [ "$n" = 0 ] && [ "$(cat /sys/block/$d/queue/io_poll)" = 0 ]; then
				tap_ok dev_nvme_without_poll_queues
			else
				tap_fail dev_nvme_without_poll_queues "/dev/$d: $n poll hctxs, io_poll=$(cat /sys/block/$d/queue/io_poll)"
				rc=1
			fi
		else
			n=$(hctx_count "$d" poll)
			if [ "$n" -ge 1 ] && [ "$(cat /sys/block/$d/queue/io_poll)" = 1 ]; then
				tap_ok dev_nvme_poll_queues
			else
				tap_fail dev_nvme_poll_queues "/dev/$d: $n poll hctxs, io_poll=$(cat /sys/block/$d/queue/io_poll)"
				rc=1
			fi
		fi
		;;
	mpath)
		n=0
		for h in /sys/block/nvme*c*n*; do
			[ -e "$h" ] || continue
			[ "$(cat "$h/queue/io_poll")" = 1 ] && n=$((n + 1))
		done
		d=$(ls -d /sys/block/nvme*n* 2>/dev/null | grep -v 'c[0-9]*n' | head -1)
		if [ -n "$d" ] && [ $n = 2 ]; then
			tap_ok dev_nvme_mpath
		else
			tap_fail dev_nvme_mpath "head '${d##*/}', $n paths with poll queues (2 wanted)"
			rc=1
		fi
		;;
	esac
	# null_blk poll queues: the series adds them; the manifest says where
	if [ -e /sys/kernel/config/nullb ]; then
		mkdir /sys/kernel/config/nullb/devchk 2>/dev/null
		if [ -e /sys/kernel/config/nullb/devchk/poll_queues ]; then
			tap_ok dev_nullb_poll_queues
		else
			tap_skip dev_nullb_poll_queues "null_blk has no poll_queues attribute"
		fi
		rmdir /sys/kernel/config/nullb/devchk 2>/dev/null
	else
		tap_fail dev_nullb_poll_queues "no null_blk configfs"
		rc=1
	fi
	# SMP: the boots run on two vCPUs so that races can show
	n=$(grep -c ^processor /proc/cpuinfo)
	if [ "$n" -ge 2 ]; then
		tap_ok dev_smp
	else
		tap_fail dev_smp "$n CPU online"
		rc=1
	fi
}

# expect_fault_begin WHAT [ONLY] / expect_fault_end: a window of the
# kernel log in which a timeout, abort or reset message is expected
# (scripts/vm.sh fails a run on such a message outside one).  With ONLY,
# an extended regular expression, only the fault messages that match it
# are excused inside the window: a recovery test excuses what its own
# reset prints, never a request timeout that rescued lost I/O.
expect_fault_begin() {
	if [ -n "${2:-}" ]; then
		echo "fastpath: expect-fault begin (only /$2/): $1" >/dev/kmsg
	else
		echo "fastpath: expect-fault begin: $1" >/dev/kmsg
	fi
}
expect_fault_end() { echo "fastpath: expect-fault end" >/dev/kmsg; }

# the messages an NVMe controller reset or removal may print (scripts/vm.sh
# never excuses a timeout in such a window, "timeout, reset controller"
# included)
NVME_RESET_ONLY='reset(ting)? controller|[Rr]emoving|[Rr]emoved'

# resets_under_job DEV PID: the controller of NVMe namespace DEV reset
# twice, a second apart, while the background job PID runs, inside a
# window that excuses only the resets' messages; then up to 120 s for
# PID to end (a bound on the phase: a request the 30 s timeout rescued
# fails the run anyway, its message is not one of the resets').  Sets
# JOB_RC to the job's exit status (137: killed) and RESET_WHY to what
# failed (empty if both resets went through).
resets_under_job() {
	local ctrl=/sys/class/nvme/${1%n*}/reset_controller i
	RESET_WHY=
	expect_fault_begin "NVMe controller resets" "$NVME_RESET_ONLY"
	for i in 1 2; do
		sleep 1
		run_timed 60 sh -c "echo 1 >$ctrl" ||
			RESET_WHY="${RESET_WHY:+$RESET_WHY; }reset $i failed or hung"
	done
	end_job "$2" 120
	JOB_RC=$?
	expect_fault_end
}

# poll_mark DISK: note DISK's poll hctx requests and the NVMe interrupts
# so far, for poll_check (in the same shell)
poll_mark() { POLL_MARK="$(hctx_queued "$1" poll) $(nvme_irqs)"; }

# poll_check NAME DISK MIN: since poll_mark, DISK's poll hctxs took MIN
# requests or more with next to no NVMe interrupts (at most 64); logs
# the counts, prints why not, nothing if so
poll_check() {
	local q i
	q=$(($(hctx_queued "$2" poll) - ${POLL_MARK% *})) i=$(($(nvme_irqs) - ${POLL_MARK#* }))
	echo "# $1: poll hctx +$q, nvme irqs +$i" >&2
	[ $q -ge "$3" ] || { echo "$1: not polled (poll hctx +$q)"; return; }
	[ $i -le 64 ] || echo "$1: $i NVMe interrupts for polled I/O"
}

# polled_io NAME DEV OFFSET [DISK]: a verified 4 MiB hipri fio job at
# OFFSET of DEV (an NVMe namespace, a partition of DISK, or a multipath
# head) must run on the poll hctxs of DISK (default: DEV; 2048 requests
# or more, poll_check); prints why not, nothing if it did
polled_io() {
	local f
	poll_mark "${4:-$2}"
	run_timed 60 fio_verify "$1" "$2" 1 --size=4M --offset="$3" --iodepth=16
	f=$?
	[ $f = 0 ] || { echo "$1: $(fio_failure "$1" $f)"; return; }
	poll_check "$1" "${4:-$2}" 2048
}

# the first plain (not multipath head) NVMe namespace
nvme_plain() {
	local d
	for d in /sys/block/nvme*n*; do
		# (no NVMe at all: the pattern itself, which names no disk)
		[ -e "$d" ] || continue
		d=${d##*/}
		case $d in *c*) continue ;; esac
		ls -d /sys/block/"${d%n*}"c*n"${d##*n}" >/dev/null 2>&1 && continue
		echo "$d"
		return 0
	done
	return 1
}

# ext4_mount DEV DIR [MKE2FS-OPTION...]: a new ext4 on /dev/DEV, mounted
# on DIR; fails with mke2fs's or mount's output
ext4_mount() {
	local dev=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	/sbin/mke2fs -q -F -t ext4 "$@" /dev/$dev >/tmp/mkfs.out 2>&1 &&
		mount -t ext4 /dev/$dev "$dir" 2>>/tmp/mkfs.out || { cat /tmp/mkfs.out; return 1; }
}

# nullb_create NAME ATTR=VALUE...: a null_blk device made through configfs;
# prints its disk name.  Fails (2) when the kernel lacks an attribute.
nullb_create() {
	local d=/sys/kernel/config/nullb/$1 kv
	shift
	mkdir "$d" || return 1
	for kv in "$@"; do
		if [ ! -e "$d/${kv%%=*}" ]; then
			rmdir "$d"
			return 2
		fi
		echo "${kv#*=}" >"$d/${kv%%=*}" || { rmdir "$d"; return 1; }
	done
	echo 1 >"$d/power" || { rmdir "$d"; return 1; }
	# 5.10 names the disk by index; newer kernels by the configfs name
	if [ -e "/sys/block/${d##*/}" ]; then
		echo "${d##*/}"
	else
		echo "nullb$(cat "$d/index")"
	fi
}

nullb_remove() {
	echo 0 >"/sys/kernel/config/nullb/$1/power" && rmdir "/sys/kernel/config/nullb/$1"
}

# running PID: true while PID exists and is not a zombie
running() {
	local st
	st=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null) || return 1
	[ -n "$st" ] && [ "${st%% *}" != Z ]
}

not_running() { ! running "$1"; }

# end_job PID SECS: wait up to SECS for the background job PID to end, then
# kill it; returns its exit status (137 if it had to be killed), or 124
# if even SIGKILL did not end it in 10 s (a task stuck in the kernel: it
# is not waited for, so that the caller fails instead of hanging)
end_job() {
	wait_until "$2" not_running "$1" || {
		kill -KILL "$1" 2>/dev/null
		wait_until 10 not_running "$1" || return 124
	}
	wait "$1"
}

# fio_other_errnos FILE ERRNO...: the errnos of fio's "err=" fields in
# FILE other than 0 and the ERRNOs given, space separated
fio_other_errnos() {
	local f=$1 e out=
	shift
	for e in $(grep -oE 'err= *[0-9]+' "$f" | grep -oE '[0-9]+' | sort -un); do
		case " 0 $* " in *" $e "*) ;; *) out="$out $e" ;; esac
	done
	echo "${out# }"
}

# fio_failure NAME EXIT: one line on why fio job NAME (its output in
# /tmp/fio-NAME.out) ended with EXIT
fio_failure() {
	if grep -q 'Resource temporarily unavailable' /tmp/fio-$1.out; then
		echo "-EAGAIN (fio exit $2)"
	elif [ "$2" = 124 ]; then
		echo "fio still running after its time"
	else
		echo "fio exit $2: $(grep -m1 -i -E 'err=|error|fail|verify|bad' /tmp/fio-$1.out | cut -c1-160)"
	fi
}

# wait_until SECS CMD...: run CMD every 50 ms until it succeeds (0) or
# SECS have passed (1)
wait_until() {
	local i=0 n=$(($1 * 20))
	shift
	until "$@"; do
		[ $i -ge $n ] && return 1
		sleep 0.05
		i=$((i + 1))
	done
}

# fio_fill DEV SIZE [FIO-OPTIONS...]: DEV's first SIZE (after --offset,
# if given) written in 1 MiB blocks, so that later reads read written data
fio_fill() {
	local dev=$1 size=$2
	shift 2
	fio --name=fill --filename=/dev/"$dev" --rw=write --bs=1M --size="$size" \
		--direct=1 --ioengine=psync "$@" >/dev/null 2>&1
}

# fio_verify NAME DEV HIPRI FIO-OPTIONS...: 4k random writes then a crc32c
# verify read on /dev/DEV through io_uring (polled if HIPRI is 1), sized
# and queued by FIO-OPTIONS; fio's output goes to /tmp/fio-NAME.out
fio_verify() {
	local name=$1 dev=$2 hipri=$3
	shift 3
	fio --name="$name" --filename=/dev/$dev --ioengine=io_uring --hipri="$hipri" \
		--direct=1 --rw=randwrite --bs=4k --verify=crc32c --verify_fatal=1 \
		--do_verify=1 "$@" --output-format=terse >/tmp/fio-$name.out 2>&1
}

# run_timed SECS CMD...: CMD's exit status, or 124 if it still runs after
# SECS; it then gets SIGINT and, 5 s later, SIGKILL, and is not waited
# for, so that a task stuck in the kernel (a hung queue freeze) fails the
# caller instead of hanging it.
run_timed() {
	local secs=$1 pid i=0
	shift
	"$@" &
	pid=$!
	while running $pid; do
		if [ $i -ge $((secs * 20)) ]; then
			kill -INT $pid 2>/dev/null
			(sleep 5; kill -KILL $pid) 2>/dev/null &
			return 124
		fi
		sleep 0.05
		i=$((i + 1))
	done
	wait $pid
}

# mpath_head: the NVMe multipath head (nvmeXnY; its paths are nvmeXcZnY)
mpath_head() {
	local h
	h=$(ls -d /sys/block/nvme*n* 2>/dev/null | grep -v 'c[0-9]*n' | head -1)
	echo "${h##*/}"
}

# ---- helpers of several groups of tests ----

# tags_busy DISK [TYPE]: busy tags and sched_tags over all hctxs of DISK
# (only the hctxs of TYPE: default, read, poll)
tags_busy() {
	local s=0 f b n=0
	for f in /sys/kernel/debug/block/$1/hctx*/tags /sys/kernel/debug/block/$1/hctx*/sched_tags; do
		[ -f "$f" ] || continue
		[ -z "$2" ] || [ "$(cat "${f%/*}/type" 2>/dev/null)" = "$2" ] || continue
		b=$(sed -n 's/^busy=//p' "$f" | head -1)
		# sched_tags is empty without a scheduler
		[ -n "$b" ] || continue
		case $b in *[!0-9]*) echo "?"; return ;; esac
		s=$((s + b)) n=$((n + 1))
	done
	# no tags file read: "?", which no check takes for 0
	[ $n -gt 0 ] && echo $s || echo "?"
}

# no_busy_tags DISK: no tag of DISK is busy
no_busy_tags() { [ "$(tags_busy "$1")" = 0 ]; }

T=/sys/kernel/tracing

# fprof_counts: each profiled function's calls so far, summed over the
# CPUs ("FUNC N" lines)
fprof_counts() {
	cat $T/trace_stat/function* 2>/dev/null |
		awk '$2 ~ /^[0-9]+$/ { c[$1] += $2 } END { for (f in c) print f, c[f] }'
}

# fprof_start FUNC...: count the FUNCs' calls from now on, with the
# profiler /init switched on (guest/fprof.sh: FUNC must be in its list);
# fails without it or when the first FUNC is not profiled (the others
# may be absent from this kernel)
fprof_start() {
	[ "$(cat $T/function_profile_enabled 2>/dev/null)" = 1 ] || return 1
	grep -qx "$1" $T/set_ftrace_filter || return 1
	fprof_counts >/tmp/fprof.start
}

# fprof_stop FUNC...: prints each FUNC's calls since fprof_start, in the
# order given; "?" for a FUNC the profiler does not count (not in its
# filter), which no check takes for a number (is_count)
fprof_stop() {
	fprof_counts | awk -v fs="$*" -v st="$(cat /tmp/fprof.start)" \
		-v on="$(cat $T/set_ftrace_filter 2>/dev/null)" '
		BEGIN {
			m = split(on, l, "\n")
			for (i = 1; i <= m; i++) {
				split(l[i], kv, " ")
				prof[kv[1]] = 1
			}
			m = split(st, l, "\n")
			for (i = 1; i <= m; i++) {
				split(l[i], kv, " ")
				s[kv[1]] = kv[2]
			}
		}
		{ c[$1] = $2 }
		END {
			n = split(fs, f, " ")
			for (i = 1; i <= n; i++)
				printf "%s%s", (f[i] in prof) ? c[f[i]] - s[f[i]] : "?", i < n ? " " : "\n"
		}'
}

# dm_make NAME TABLE: a device-mapper device of TABLE (one target a
# line); prints its node, /dev/dm-N (without udev nothing makes
# /dev/mapper/NAME), or why it failed on stderr.  dm_gone NAME...:
# remove those that exist; prints why one could not be removed
# bound: 30
dm_make() {
	local n
	run_timed 30 sh -c 'printf "%s\n" "$2" | dmsetup create "$1"' sh "$1" "$2" \
		>/tmp/dm.out 2>&1 || {
		echo "dmsetup create $1: $(grep -v '^ *$' /tmp/dm.out | tail -1)" >&2
		return 1
	}
	n=$(dmsetup info -c --noheadings -o blkdevname "$1" 2>/dev/null)
	[ -b "/dev/$n" ] || {
		echo "$1: no block device (${n:-none})" >&2
		return 1
	}
	echo "/dev/$n"
}

dm_gone() {
	local x
	for x in "$@"; do
		dmsetup info "$x" >/dev/null 2>&1 || continue
		run_timed 30 dmsetup remove "$x" >/dev/null 2>&1 || echo "dmsetup remove $x failed"
	done
}

# polled_since DISK N: DISK's poll hctxs have allocated more than N requests
polled_since() { [ "$(hctx_queued "$1" poll)" -gt "$2" ]; }

# the path disks of head $1, one per line
mpath_paths() {
	local d
	for d in /sys/block/${1%n*}c*n${1##*n}; do
		[ -e "$d" ] && echo "${d##*/}"
	done
}

# the lines a multipath head logged when it found no usable path and
# requeued a bio (ratelimited: a lower bound), so far
mpath_requeues() { dmesg | grep -c 'no usable path - requeuing' || true; }

ctrl_live() { [ "$(cat /sys/class/nvme/$1/state 2>/dev/null)" = live ]; }

# the nvme controller (nvmeN) of path disk $1 (nvmeXcNnY)
path_ctrl() { local c=${1#nvme*c}; echo "nvme${c%%n*}"; }

# mpath_iopolicy POLICY: every NVMe subsystem's iopolicy set to POLICY;
# mpath_iopolicy_now: the policy now (the first subsystem's), to set back
mpath_iopolicy() {
	local f
	for f in /sys/class/nvme-subsystem/*/iopolicy; do
		[ -f "$f" ] && echo "$1" >"$f"
	done
}
mpath_iopolicy_now() { cat /sys/class/nvme-subsystem/*/iopolicy 2>/dev/null | head -1; }


# verify_fio NAME DEV SIZE [FIO-OPTIONS...]: polled write+verify, QD 64
# submitted 32 at a time
verify_fio() {
	local name=$1 dev=$2 size=$3
	shift 3
	fio_verify "$name" "$dev" 1 --size="$size" --iodepth=64 \
		--iodepth_batch_submit=32 --iodepth_batch_complete_min=1 "$@"
}

# ---- the test runner: tests/GROUP/NAME, one test per file ----
# A test file starts with its header, "# FIELD: VALUE" lines
# (docs/writing-tests.md): proves, boots, needs, break, and optionally
# ids (default: the file's name), order (default 50) and time (the
# runner's bound on the whole test, default 300 s).  Its body is sh,
# run in a shell of its own with this file, FP_TEST_LIB (a runner's own
# helpers: the wide guest's) and its group's rc sourced, FP_BOOT set to
# the boot's name and rc=0; it prints its TAP lines
# (tap_result, tap_ok, tap_skip) and leaves rc at 1 if it failed.

# test_field FILE FIELD: the value of FILE's "# FIELD: " header line
test_field() { sed -n "/^[^#]/q; s/^# $2: //p" "$1" | head -1; }

# test_list BOOT: the tests (GROUP/NAME) that name BOOT in "# boots:",
# only those of FP_TESTS if it is set, in the order of "# order:", then
# by name (one awk over every file's header)
test_list() {
	awk -v boot=" $1 " -v sel=" ${FP_TESTS:-} " '
		function emit() {
			if (n != "" && index(" " b " ", boot) && (sel == "  " || index(sel, " " n " ")))
				print o, n
		}
		FNR == 1 {
			emit()
			n = FILENAME; sub(/.*\/tests\//, "", n); o = 50; b = ""; h = 1
			if (n ~ /\/rc$/) n = ""
		}
		h && !/^#/ { h = 0 }
		h && /^# boots: / { b = substr($0, 10) }
		h && /^# order: / { o = substr($0, 10) + 0 }
		END { emit() }' /fp/tests/*/* | sort -k1,1n -k2,2 | cut -d' ' -f2
}

# test_state: what is there that a test may leave behind and the next
# would trip over, one a line: CPU 1 offline, a null_blk, a mount under
# /mnt, a dm, md or bound loop device, swap on
test_state() {
	local d
	[ "$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null || echo 1)" = 1 ] ||
		echo "CPU 1 offline"
	for d in /sys/kernel/config/nullb/*/; do
		[ -d "$d" ] && echo "null_blk ${d%/}"
	done
	awk '$2 ~ /^\/mnt\// { print "a mount on " $2 }' /proc/mounts
	for d in /sys/block/dm-* /sys/block/md[0-9]*; do
		[ -e "$d" ] && echo "${d##*/}"
	done
	for d in /sys/block/loop*/loop/backing_file; do
		[ -e "$d" ] && echo "${d%/loop/backing_file}"
	done
	[ "$(wc -l </proc/swaps)" -le 1 ] || echo "swap on"
}

# run_test BOOT GROUP/NAME: one test in its own sh and session (setsid:
# its process group holds all it starts), bounded by its time; its
# begin and end marked in the kernel log.  A watchdog gives a test still
# running after its time SIGTERM, all its processes, and SIGKILL 10 s
# later; the test fails as "state/NAME" (no test of a manifest), as does
# one that left state behind (test_state: what was not there before
# it, in /tmp/state.before, which run_tests keeps).  setsid keeps the
# PID only because a job of a shell without job control (set -m) never
# leads its process group.  Returns 1 if it failed.
run_test() {
	local f=/fp/tests/$2 t r pid wd why= left
	# (FP_TIME_SCALE: a slower kernel's factor, the debug build's)
	t=$(test_field "$f" time)
	t=$((${t:-300} * ${FP_TIME_SCALE:-1}))
	echo "== $2: $(test_field "$f" proves)"
	echo "fastpath: test begin $2" >/dev/kmsg
	rm -f /tmp/test.killed
	FP_BOOT=$1 setsid sh -c '. /fp/common.sh
		[ -z "${FP_TEST_LIB:-}" ] || . "$FP_TEST_LIB"
		rc=0
		[ ! -f "/fp/tests/${1%/*}/rc" ] || . "/fp/tests/${1%/*}/rc"
		. "/fp/tests/$1"
		exit $rc' run_test "$2" </dev/null &
	pid=$!
	setsid sh -c 'sleep $1; : >/tmp/test.killed; kill -TERM -$2; sleep 10; kill -KILL -$2' \
		watchdog "$t" $pid >/dev/null 2>&1 &
	wd=$!
	wait $pid
	r=$?
	if [ -f /tmp/test.killed ]; then
		why="still running after its $t s: killed"
		wait_until 10 sh -c "! kill -0 -$pid" 2>/dev/null
	fi
	# what the test's processes left running (a killed test's, or
	# the timers of run_timed) ends with it, and so does the watchdog
	kill -KILL -$pid 2>/dev/null
	kill -KILL -$wd 2>/dev/null
	echo "fastpath: test end $2" >/dev/kmsg
	# a fault window the killed test left open closes with it
	[ -z "$why" ] || expect_fault_end
	left=$({ echo -; test_state; } | grep -vxF -f /tmp/state.before | sed 's,/sys/[a-z/]*/,,' | paste -sd, | sed 's/,/, /g')
	[ -z "$left" ] || why="${why:+$why; }left behind: $left"
	# the tests after it need both CPUs (dev_smp checked them once)
	[ "$(cat /sys/devices/system/cpu/cpu1/online 2>/dev/null || echo 1)" = 1 ] ||
		echo 1 >/sys/devices/system/cpu/cpu1/online
	# what the next test finds (the "-" line: busybox's grep -v -f of
	# an empty file prints nothing)
	{ echo -; test_state; } >/tmp/state.before
	if [ -n "$why" ]; then
		tap_fail "state/${2#*/}" "$why"
		r=1
	fi
	[ $r = 0 ]
}

# run_tests BOOT: run_test for each of test_list BOOT; rc=1 if one failed
run_tests() {
	local n
	{ echo -; test_state; } >/tmp/state.before
	for n in $(test_list "$1"); do
		run_test "$1" "$n" || rc=1
	done
}
