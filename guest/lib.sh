# Guest-side helpers (busybox sh), sourced by the guest scripts.

# Results as TAP lines at the start of a console line; the host counts them.
tap_ok() { echo "ok - $1"; }
tap_fail() { echo "not ok - $1${2:+: $2}"; }
tap_skip() { echo "ok - $1 # SKIP $2"; }

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

# the first plain (not multipath head) NVMe namespace
nvme_plain() {
	local d
	for d in /sys/block/nvme*n*; do
		d=${d##*/}
		case $d in *c*) continue ;; esac
		ls -d /sys/block/"${d%n*}"c*n"${d##*n}" >/dev/null 2>&1 && continue
		echo "$d"
		return 0
	done
	return 1
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
