# Shared shell helpers of the fastpath-5.10 harness.  Sourced, not run.
# shellcheck shell=bash

set -euo pipefail

FP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FP_CACHE=${FASTPATH_CACHE:-$HOME/.cache/fastpath}
FP_BUILD=${FASTPATH_BUILD:-$FP_TOP/build}
FP_JOBS=${FASTPATH_JOBS:-$(nproc)}

# The pin: BASE, or bases/<BASE_VERSION> when the caller names an older
# one (make check BASE_VERSION=5.10.223).  An older pin keeps its own
# queue (QUEUE_COMMIT: the project commit whose patches/ it applies) and
# its own build directory.
fp_want_base=${BASE_VERSION:-}
# shellcheck source=../BASE
. "$FP_TOP/BASE"
FP_PATCHES=$FP_TOP/patches
if [[ -n $fp_want_base && $fp_want_base != "$BASE_VERSION" ]]; then
	[[ -f $FP_TOP/bases/$fp_want_base ]] ||
		{ echo "error: no pin for BASE_VERSION=$fp_want_base (have: $BASE_VERSION $(ls "$FP_TOP/bases"))" >&2; exit 1; }
	# shellcheck disable=SC1090
	. "$FP_TOP/bases/$fp_want_base"
	FP_BUILD=${FASTPATH_BUILD:-$FP_TOP/build/$BASE_VERSION}
	FP_PATCHES=$FP_CACHE/queues/$BASE_VERSION-${QUEUE_COMMIT:0:12}/patches
	if [[ ! -f $FP_PATCHES/series ]]; then
		mkdir -p "${FP_PATCHES%/patches}"
		git -C "$FP_TOP" archive "$QUEUE_COMMIT" patches |
			tar -C "${FP_PATCHES%/patches}" -x ||
			{ echo "error: cannot read the $BASE_VERSION queue from commit $QUEUE_COMMIT (a full clone has it)" >&2; exit 1; }
	fi
fi
export BASE_VERSION

FP_GIT=$FP_CACHE/git/linux-$BASE_VERSION.git
FP_IDENT_NAME="fastpath-5.10 developers"
FP_IDENT_EMAIL="dev@fastpath.invalid"
# Debian's archive (.../debian, .../debian-security), for every root,
# source download and package the scripts fetch; part of the cache keys
FP_DEBIAN_MIRROR=http://deb.debian.org

# A guest's kernel log fails its run on a splat, and on a request
# timeout, abort or controller reset that no test announced
# (scripts/vm.sh, scripts/check-deb.sh).
# kmemleak's report comes from the scan the guest's init runs at the end
# (debug kernels); CONFIG_DMA_API_DEBUG reports through WARN().
FP_SPLAT_RE='(BUG:|WARNING:|Oops|general protection fault|Kernel panic|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|rcu: INFO|self-detected stall|blocked for more than|soft lockup|hard LOCKUP|kernel BUG at|INFO: trying to register non-static key|rcu_tasks detected stalls|page allocation failure|dma_pool_destroy.*busy|suspected memory leaks)'
FP_FAULT_RE='timed out|timeout|completion polled|aborting|reset(ting)? controller'

# kernel_faults KLOG [RE]: the lines of the kernel log KLOG that match
# RE (FP_FAULT_RE), "N: line" each, outside the windows a test announces.
# A request timeout, an abort or a controller reset is a fault even when
# the I/O then succeeded (a timeout handler can complete a request a
# broken ->poll() lost).  Only a test that causes one on purpose may: it
# writes "expect-fault begin" and "expect-fault end" to /dev/kmsg around it;
# "expect-fault begin (only /RE/)" excuses only the messages that match RE,
# and never a timeout ("timeout", "timed out"): a reset a test causes is
# no excuse for a request that timed out meanwhile.
kernel_faults() {
	awk -v re="${2:-$FP_FAULT_RE}" '
	/expect-fault begin/ {
		inwin = 1
		only = ""
		if (match($0, /expect-fault begin \(only \/.*\/\)/))
			only = substr($0, RSTART + 26, RLENGTH - 28)
		next
	}
	/expect-fault end/ { inwin = 0; next }
	/^\[ *[0-9]+\.[0-9]+\] / && $0 ~ re && !/Running liburing test/ &&
		(!inwin || (only != "" && ($0 !~ only || $0 ~ /time(d )?out/))) { print NR ": " $0 }
	' "$1"
}

log() { printf '%s\n' "${FP_PREFIX:-}$*" >&2; }
die() { printf '%s\n' "${FP_PREFIX:-}error: $*" >&2; exit 1; }

# stage NAME CMD...: run CMD and print how long it took.
stage() {
	local name=$1 t0=$SECONDS rc=0
	shift
	log "== $name"
	# CMD runs in a subshell with errexit off (set +e is inherited):
	# a function run as a stage checks its own steps.
	set +e
	("$@")
	rc=$?
	set -e
	if ((rc)); then
		log "== $name: $((SECONDS - t0)) s, failed"
	else
		log "== $name: $((SECONDS - t0)) s"
	fi
	return "$rc"
}

# need_pkgs PKG...: install the Debian 12 packages that are missing.
# Callers running at once (make check's background jobs) take turns.
need_pkgs() {
	local missing=() p
	missing_pkgs() {
		missing=()
		for p in "$@"; do
			dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
				missing+=("$p")
		done
	}
	missing_pkgs "$@"
	((${#missing[@]})) || return 0
	[[ $(id -u) == 0 ]] || die "need root to install ${missing[*]}"
	mkdir -p "$FP_CACHE"
	exec 8>"$FP_CACHE/.apt-lock"
	flock 8
	missing_pkgs "$@"
	((${#missing[@]})) || { exec 8>&-; return 0; }
	log "installing: ${missing[*]}"
	if [[ ! -e $FP_CACHE/.apt-updated ]] ||
		[[ -n $(find "$FP_CACHE/.apt-updated" -mmin +720) ]]; then
		apt-get update -q >/dev/null 8>&- || die "apt-get update failed"
		mkdir -p "$FP_CACHE" && touch "$FP_CACHE/.apt-updated"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/dev/null 8>&- || die "apt-get install ${missing[*]} failed"
	exec 8>&-
}

# Packages of each job.
FP_PKGS_BUILD=(build-essential flex bison bc libelf-dev libssl-dev ccache
	cpio xz-utils git kmod perl python3 python3-ply python3-git rsync lz4)
FP_PKGS_GUEST=(qemu-system-x86 busybox-static fio python3 dmsetup fdisk)
FP_PKGS_BENCH=(gnuplot-nox)

# probe_build NAME DIR: the static guest program probes/NAME.c as DIR/NAME
probe_build() {
	gcc -O2 -Wall -Werror -static -o "$2/$1" "$FP_TOP/probes/$1.c"
}

# module_build NAME DIR KDIR: the kernel module probes/NAME.c built
# against the kernel build in KDIR (its modules_prepare run first), as
# DIR/NAME.ko; the compiler's output on stderr when it fails
module_build() {
	local tmp rc=0
	tmp=$(mktemp -d)
	cp "$FP_TOP/probes/$1.c" "$tmp/" && echo "obj-m := $1.o" >"$tmp/Kbuild" &&
		make -s -C "$3" modules_prepare >"$tmp/log" 2>&1 &&
		make -s -C "$3" M="$tmp" modules >"$tmp/log" 2>&1 &&
		cp "$tmp/$1.ko" "$2/" || { rc=1; cat "$tmp/log" >&2; }
	rm -rf "$tmp"
	return $rc
}

# guest_files DIR KDIR: what make check's boots find in /fp besides the
# harness (guest/, tests/), for vm.sh --files: fprof-at-boot (the
# guests switch the function profiler on before their command starts,
# guest/fprof.sh), the probes the tests run (fp-eagain, the eagain
# boot's -EAGAIN counter; fp-shortread, tests/uring/short_read_eof;
# fp-fusewrite, tests/uring/fuse_write_eagain_once; fp-held, polled
# reads left unreaped; fp-align, tests/uring/fixed_buf_alignment; the modules of FP_MODULES, built against KDIR:
# fp_rcu_unlock, tests/rcu/; fp_plug_order,
# tests/queuerqs/nullb_queue_rqs_order) and the kselftests KDIR built.
# Prints what is missing, a line each, and returns 1 if anything is.
# the probe modules, built against the kernel under test (module_build)
FP_MODULES="fp_rcu_unlock fp_plug_order"
guest_files() {
	local p rc=0
	: >"$1/fprof-at-boot"
	for p in fp-eagain fp-shortread fp-fusewrite fp-held fp-align; do
		probe_build "$p" "$1" || { echo "probes/$p.c did not build"; rc=1; }
	done
	for p in $FP_MODULES; do
		module_build "$p" "$1" "$2" || { echo "probes/$p.c did not build"; rc=1; }
	done
	for p in iopoll_test uring_test; do
		cp "$2/tools/testing/selftests/iopoll/$p" "$1/" 2>/dev/null ||
			{ echo "kselftest $p was not built"; rc=1; }
	done
	return $rc
}

# The devices of make check's "eagain" boot (scripts/check.sh, make
# eagain-matrix): one tag per NVMe queue, and a null_blk tag set of 2
# shared by its devices (blocking=1: see the starved boot in check.sh)
FP_EAGAIN_BOOT=(--poll-queues 1 --append "nvme.io_queue_depth=2"
	--nullb "shared_tags=1 hw_queue_depth=2 submit_queues=1 poll_queues=1 nr_devices=0 blocking=1")

# guest_run TIMEOUT OUT KLOG MAP QEMU...: run the QEMU command of a
# guest that writes "FASTPATH-START" to OUT when its command starts and
# its kernel console to KLOG; QEMU's own output is appended to OUT.
# Returns QEMU's exit status, or 124 when the guest hung: it ran TIMEOUT
# s, or three boots in a row had not started the command
# FP_BOOT_TIMEOUT s (default 60; a boot takes 2 to 10 s) after QEMU did.
# FP_BOOT_SECS is then the s the last boot took to start the command
# (empty if it never did).
# A hang leaves OUT.hung: the kernel log of each hung boot and where its
# vCPUs were (scripts/vm-cpus.py over a QMP socket, named with MAP,
# System.map, when it exists), and guest_run says which hang it was.
# A caller's EXIT trap calls guest_stop, so that a QEMU still running
# when the caller dies goes with it.
#
# Why a hung boot is booted again: on two vCPUs under TCG (QEMU 7.2)
# 14 boots in 510 of vanilla 5.10.262 stopped after "sched_clock:
# Marking stable".  In the 12 whose vCPUs were dumped, both had taken an
# int3 at the static-key site in sched_clock_cpu(), whose memory (read
# through the monitor in 5) already held the patched NOP: QEMU had kept
# a translation of the breakpoint after text_poke_bp() was done.  No
# handler claims that int3, and the two oopses deadlock on die_lock and
# logbuf_lock before printing anything.
guest_run() {
	local timeout=$1 out=$2 klog=$3 map=$4
	shift 4
	local boot_timeout=${FP_BOOT_TIMEOUT:-60} sock pid rc try t0 el started crashed cpus when
	[[ -f $map ]] || map=
	sock=$(mktemp -u "${TMPDIR:-/tmp}/fp-qmp.XXXXXX")
	rm -f "$out.hung"
	for try in 1 2 3; do
		: >"$out"
		# timeout(1) is the backstop should this script die first; a
		# signal sent to it reaches QEMU, and a KILL 10 s later
		timeout -k 10 $((timeout + 60)) "$@" -qmp "unix:$sock,server=on,wait=off" \
			</dev/null >>"$out" 2>&1 &
		pid=$! rc=0 t0=$SECONDS started=0 crashed=0 FP_GUEST_PID=$! FP_BOOT_SECS=
		while kill -0 "$pid" 2>/dev/null; do
			((started)) || ! grep -q '^FASTPATH-START' "$out" ||
				started=1 FP_BOOT_SECS=$((SECONDS - t0))
			if ((SECONDS - t0 >= timeout || (!started && SECONDS - t0 >= boot_timeout))); then
				rc=124
				break
			fi
			if ((started)); then sleep 0.5; else sleep 0.1; fi
		done
		if ((rc == 124)); then
			el=$((SECONDS - t0))
			cpus=$(python3 "$FP_TOP/scripts/vm-cpus.py" "$sock" ${map:+"$map"} 2>&1) || true
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			when=after
			((started)) || when=before
			{
				echo "== boot $try: hung $el s after QEMU started, $when its command started"
				echo "$cpus"
				echo "== boot $try: the kernel log"
				tr -d '\r' <"$klog"
			} >>"$out.hung"
		else
			wait "$pid" || rc=$?
			# TCG's cross-modified code bug (docs/emulator.md): an
			# int3 of text patching nobody claims, taken at boot
			# before the command started, as the hangs above
			if ((!started)) && grep -q 'int3: 0000 \[#1\]' "$klog"; then
				crashed=1
				{
					echo "== boot $try: an int3 crash before its command started"
					echo "== boot $try: the kernel log"
					tr -d '\r' <"$klog"
				} >>"$out.hung"
			fi
		fi
		rm -f "$sock"
		FP_GUEST_PID=
		((!started && try < 3 && (rc == 124 || crashed))) || break
		if ((crashed)); then
			log "guest crashed on an int3 of text patching before its command started (boot $try); booting again (see $out.hung)"
		else
			log "guest hung before its command started (boot $try: kernel log ends '$(tail -n 1 "$klog" | tr -d '\r')'; $(grep -m1 '^vCPU 0' <<<"$cpus" | cut -d' ' -f1-5)); booting again (see $out.hung)"
		fi
	done
	if ((rc == 124)); then
		if ((started)); then
			log "guest hung: no exit after $timeout s (where its vCPUs were: $out.hung)"
		else
			log "guest hung: three boots in a row, before its command started (see $out.hung)"
		fi
	fi
	return "$rc"
}
# guest_stop: end the QEMU of a guest_run in progress (for EXIT traps).
guest_stop() {
	[[ -z ${FP_GUEST_PID:-} ]] || kill "$FP_GUEST_PID" 2>/dev/null || true
}

# deb_guest_boot NAME LOG KLOG MAP KERNEL INITRD ROOTIMG APPEND: boot a
# Debian 11 guest image (make check-deb) under QEMU: q35, TCG, two
# vCPUs, DEB_GUEST_MEM MiB (1024), ROOTIMG on virtio, a 256 MiB emulated
# NVMe beside it (NVMe image: ROOTIMG's directory), KERNEL and INITRD
# with APPEND; /fp/deb-init's output (ttyS1) and QEMU's go to LOG, the
# console to KLOG (vCPU addresses of a hang named with MAP, if any),
# within CHECK_DEB_TIMEOUT s (900) and FP_BOOT_TIMEOUT s to start (240:
# initramfs-tools' udev and root mount come first).  Then LOG gets
# "not ok - NAME_kernel_log" for a splat or a timeout, abort or reset no
# test announced (kernel_faults), and "not ok - NAME_guest" for a guest
# that hung, died before reporting, or failed without saying which test.
# Returns guest_run's status (124: hung).
deb_guest_boot() {
	local name=$1 log=$2 klog=$3 map=$4 kernel=$5 initrd=$6 img=$7 append=$8 rc=0 faults
	truncate -s 256M "${img%/*}/nvme.img"
	trap guest_stop EXIT
	FP_BOOT_TIMEOUT=${FP_BOOT_TIMEOUT:-240} guest_run "${CHECK_DEB_TIMEOUT:-900}" "$log" "$klog" "$map" \
		qemu-system-x86_64 -machine q35 -cpu max -smp 2 -m "${DEB_GUEST_MEM:-1024}" -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		-drive file="$img",if=virtio,format=raw \
		-drive file="${img%/*}/nvme.img",if=none,id=nv0,format=raw \
		-device nvme,serial=fpdeb0,drive=nv0 \
		-serial file:"$klog" -serial stdio -monitor none -display none || rc=$?
	sed -i 's/\r$//' "$log" "$klog"
	cat "$log" >&2
	[[ -z $FP_BOOT_SECS ]] || log "the guest's command started $FP_BOOT_SECS s after QEMU did"
	if grep -Eq "$FP_SPLAT_RE" "$klog"; then
		grep -En -A10 "$FP_SPLAT_RE" "$klog" | head -40 | sed 's/^/  k| /' >&2
		echo "not ok - ${name}_kernel_log: a kernel splat" >>"$log"
	fi
	faults=$(kernel_faults "$klog")
	if [[ -n $faults ]]; then
		head -20 <<<"$faults" | sed 's/^/  k| /' >&2
		echo "not ok - ${name}_kernel_log: a request timeout, abort or reset no test announced" >>"$log"
	fi
	if ((rc == 124)); then
		echo "not ok - ${name}_guest: hung; kernel log $klog" >>"$log"
	elif ! grep -q '^FASTPATH-EXIT: ' "$log"; then
		tail -20 "$klog" | sed 's/^/  k| /' >&2
		echo "not ok - ${name}_guest: died before reporting (qemu exit $rc)" >>"$log"
	elif ! grep -q '^FASTPATH-EXIT: 0$' "$log" && ! grep -q '^not ok ' "$log"; then
		echo "not ok - ${name}_guest: $(grep '^FASTPATH-EXIT: ' "$log")" >>"$log"
	fi
	return "$rc"
}

# debian_root_make TAR SUITE VARIANT INCLUDE [APT-ARGS [FILE]]: TAR, a
# Debian SUITE root (debootstrap's VARIANT, plus INCLUDE, comma-separated),
# unless the cache has it; with APT-ARGS, then "apt-get APT-ARGS" run
# there against SUITE and its security suite (in the root only; the
# host's apt never sees them), FILE copied to /tmp/src/ for it first;
# where that fails (a package the mirror has not got in the security
# suite), again with "-t SUITE": the point release's versions.
# One maker at a time (make check's background one, or a job's own).
debian_root_make() {
	local tar=$1 suite=$2 variant=$3 include=$4 apt=${5:-} file=${6:-} tmp
	mkdir -p "${tar%/*}"
	exec 9>"${tar%/*}/.lock"
	flock 9
	if [[ ! -f $tar ]]; then
		need_pkgs debootstrap debian-archive-keyring
		tmp=$(mktemp -d "$FP_CACHE/debootstrap.XXXXXX")
		log "debootstrap $suite ($variant + $include) into $tmp"
		debootstrap --variant="$variant" --include="$include" \
			--keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
			"$suite" "$tmp/root" "$FP_DEBIAN_MIRROR/debian" >"$tmp.log" 2>&1 ||
			{ tail -20 "$tmp.log" >&2; rm -rf "$tmp"; die "debootstrap $suite failed (log: $tmp.log)"; }
		if [[ -n $apt ]]; then
			log "$suite: apt-get $apt"
			echo "deb $FP_DEBIAN_MIRROR/debian-security $suite-security main" \
				>>"$tmp/root/etc/apt/sources.list"
			cp /etc/resolv.conf "$tmp/root/etc/resolv.conf"
			if [[ -n $file ]]; then
				mkdir -p "$tmp/root/tmp/src"
				cp "$file" "$tmp/root/tmp/src/"
			fi
			# what the mirror has not got in the security suite (its
			# copy lacks 5.10.262-1's rt images) from the point release
			in_root "$tmp/root" sh -c "apt-get -q update &&
				{ apt-get -q -y --no-install-recommends $apt ||
					{ echo 'fastpath: again from the point release' &&
						apt-get -q -y --no-install-recommends -t $suite $apt; }; } &&
				apt-get clean" >>"$tmp.log" 2>&1 ||
				{ tail -20 "$tmp.log" >&2; rm -rf "$tmp"; die "apt-get $apt in the $suite root failed (log: $tmp.log)"; }
			! grep -q '^fastpath: again from the point release' "$tmp.log" ||
				log "$suite: $suite-security lacked some of it on $FP_DEBIAN_MIRROR: apt-get -t $suite $apt"
			rm -rf "$tmp/root/tmp/src" "$tmp/root/var/lib/apt/lists/"*_dists_*
		fi
		tar -C "$tmp/root" -czf "$tar.tmp" . && mv "$tar.tmp" "$tar" ||
			die "cannot write $tar"
		rm -rf "$tmp" "$tmp.log"
	fi
	exec 9>&-
}

# debian_root_tar SUITE PACKAGES [APT]: a Debian SUITE root (debootstrap
# minbase, plus PACKAGES, comma-separated; then APT, space-separated,
# installed there from SUITE and its security suite) made once per suite
# and package lists and kept as a tarball in the cache; prints its path.
debian_root_tar() {
	local suite=$1 include=$2 apt=${3:-} key tar
	key=$(echo "$suite $FP_DEBIAN_MIRROR/debian $include${apt:+ apt: $apt}" | sha256sum | cut -c1-12)
	tar=$FP_CACHE/debootstrap/$suite-minbase-$key.tar.gz
	debian_root_make "$tar" "$suite" minbase "$include" "${apt:+install $apt}" || exit 1
	echo "$tar"
}

# apt_src SUITE ARGS...: run apt-get against a private list holding only
# SUITE's (and its security suite's) *source* index.  The system's apt
# sources are never touched, and no binary package of SUITE is reachable.
apt_src() {
	local suite=$1 dir
	shift
	dir=$FP_CACHE/apt/$suite
	if [[ ! -f $dir/sources.list ]]; then
		mkdir -p "$dir/lists/partial"
		{
			echo "deb-src $FP_DEBIAN_MIRROR/debian $suite main"
			case $suite in
			sid | unstable | experimental) ;;
			*) echo "deb-src $FP_DEBIAN_MIRROR/debian-security $suite-security main" ;;
			esac
		} >"$dir/sources.list"
	fi
	apt-get -q -o Dir::Etc::sourcelist="$dir/sources.list" \
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$dir/lists" \
		-o APT::Sandbox::User=root "$@"
}

# apt_src_update SUITE: refresh SUITE's source index (at most twice a day).
apt_src_update() {
	local stamp=$FP_CACHE/apt/$1/.updated
	apt_src "$1" --version >/dev/null
	if [[ ! -e $stamp || -n $(find "$stamp" -mmin +720) ]]; then
		apt_src "$1" update >/dev/null || die "could not read $1's source index"
		touch "$stamp"
	fi
}

# src_download SUITE DIR APT-SOURCE-ARGS...: download a source package of
# SUITE (e.g. "liburing=2.3-3", with --tar-only before it if wanted) into
# DIR through the private source list, quietly; fails as apt-get does.
src_download() {
	local suite=$1 dir=$2
	shift 2
	apt_src_update "$suite"
	mkdir -p "$dir"
	(cd "$dir" && apt_src "$suite" source --download-only "$@" >/dev/null)
}

# src_orig SUITE PKG=VER TARBALL SHA256: a source package's tarball,
# downloaded into TARBALL's directory when missing, checked by its sha256
src_orig() {
	if [[ ! -f $3 ]]; then
		src_download "$1" "$(dirname "$3")" "$2" ||
			die "could not fetch $2's source from $1"
	fi
	check_sha256 "$3" "$4"
}

# apt_bin_download SUITE DIR PKG=VER: download one *binary* package of
# SUITE or its security suite (amd64) into DIR, checked against the
# suites' signed indexes, and print its path.  A private list and cache,
# as for sources: the package is only downloaded, never installed, and
# the system's apt never sees SUITE.
apt_bin_download() {
	local suite=$1 dest=$2 pkg=$3 dir f
	dir=$FP_CACHE/apt/$suite-bin
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dest"
	{
		echo "deb [arch=amd64] $FP_DEBIAN_MIRROR/debian $suite main"
		echo "deb [arch=amd64] $FP_DEBIAN_MIRROR/debian-security $suite-security main"
	} >"$dir/sources.list"
	local opts=(-q -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=-
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache"
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o APT::Sandbox::User=root)
	if [[ ! -e $dir/.updated || -n $(find "$dir/.updated" -mmin +720) ]]; then
		apt-get "${opts[@]}" update >/dev/null || die "could not read $suite-security's package index"
		touch "$dir/.updated"
	fi
	(cd "$dest" && apt-get "${opts[@]}" download "$pkg" >/dev/null) || return 1
	f=$(ls "$dest/${pkg%%=*}_${pkg#*=}_"*.deb 2>/dev/null | head -1)
	[[ -n $f ]] || f=$(ls "$dest/${pkg%%=*}_"*.deb | head -1)
	echo "$f"
}

# check_sha256 FILE SUM: die unless FILE exists with that checksum.
check_sha256() {
	local f=$1 want=$2 got
	[[ -f $f ]] || die "missing $f (expected sha256 $want)"
	got=$(sha256sum "$f" | cut -d' ' -f1)
	[[ $got == "$want" ]] ||
		die "$f: sha256 is $got, expected $want (BASE); delete it to fetch again"
}

# git_fp ARGS...: git on the cached base repository, as the project's identity.
git_fp() {
	git -c user.name="$FP_IDENT_NAME" -c user.email="$FP_IDENT_EMAIL" \
		--git-dir="$FP_GIT" "$@"
}

# kbuild_env: what every kernel build of the project shares: ccache in the
# cache directory, and fixed build stamps so that ccache hits across labels.
kbuild_env() {
	export CCACHE_DIR=${CCACHE_DIR:-$FP_CACHE/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export KBUILD_BUILD_TIMESTAMP="2024-07-27" KBUILD_BUILD_USER=fastpath KBUILD_BUILD_HOST=qemu
}

# worktree_owned DIR: DIR is a work tree of this pin's base repository.
worktree_owned() {
	[[ -e $1/.git && $(git -C "$1" rev-parse --path-format=absolute \
		--git-common-dir 2>/dev/null) == "$(cd "$FP_GIT" && pwd -P)" ]]
}
# worktree_at DIR COMMIT: DIR as a work tree of the base repository,
# detached at COMMIT; made anew if missing or made for another pin.
worktree_at() {
	local dir=$1 commit=$2
	if [[ -e $dir/.git ]] && ! worktree_owned "$dir"; then
		log "$dir belongs to another base: made anew"
		rm -rf "$dir"
	fi
	if [[ ! -e $dir/.git ]]; then
		rm -rf "$dir"
		mkdir -p "${dir%/*}"
		git_fp worktree prune
		git_fp worktree add -q --detach "$dir" "$commit"
	fi
	git -C "$dir" checkout -q -f --detach "$commit"
}

# base_tree: print the path of the base's source tree as its tarball
# has it (no .git: checkpatch.pl then checks the form of every cited
# commit, as it does for a user who runs it from the tarball), extracted
# once per base into the cache for the base's own scripts.
base_tree() {
	local dir=$FP_CACHE/base-src-$BASE_VERSION want
	want=$(git --git-dir="$FP_GIT" rev-parse base) || return 1
	if [[ $(cat "$dir/.fp-commit" 2>/dev/null) != "$want" ]]; then
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		git --git-dir="$FP_GIT" archive "$want" | tar -C "$dir.tmp" -x || return 1
		echo "$want" >"$dir.tmp/.fp-commit"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# series_files: the patch files of patches/series, in order.
series_files() {
	local p
	[[ -f $FP_PATCHES/series ]] || return 0
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		printf '%s\n' "$FP_PATCHES/$p"
	done <"$FP_PATCHES/series"
}

# am_series DIR [FILE...]: apply patch files onto the checkout in DIR with
# git am; on failure name the patch and show git's reason.
am_series() {
	local dir=$1 f out
	shift
	for f in "$@"; do
		[[ -f $f ]] || die "patches/series lists ${f##*/}, which does not exist"
		if ! out=$(git -C "$dir" -c user.name="$FP_IDENT_NAME" \
			-c user.email="$FP_IDENT_EMAIL" am -q --keep-cr "$f" 2>&1); then
			git -C "$dir" am --abort >/dev/null 2>&1 || true
			printf '%s\n' "$out" | sed 's/^/  git: /' >&2
			die "patch ${f##*/} does not apply"
		fi
	done
}

# am_work: the cached work tree where series, breaks and RT commits are
# made, checked out clean at COMMIT
am_work() {
	local dir=$FP_CACHE/am-work-$BASE_VERSION
	git_fp worktree prune
	[[ -d $dir ]] || git_fp worktree add -q --detach "$dir" base >&2 ||
		die "cannot make $dir"
	git -C "$dir" am --abort >/dev/null 2>&1 || true
	git -C "$dir" checkout -q -f --detach "$1" && git -C "$dir" clean -q -fdx ||
		die "cannot check $1 out in $dir"
	echo "$dir"
}

# fixed_commit DIR MESSAGE: commit what DIR has staged as the project,
# with a fixed date, so that the same content makes the same commit
fixed_commit() {
	GIT_AUTHOR_DATE="2024-07-27T00:00:00Z" GIT_COMMITTER_DATE="2024-07-27T00:00:00Z" \
		git -C "$1" -c user.name="$FP_IDENT_NAME" -c user.email="$FP_IDENT_EMAIL" \
		commit -q -m "$2"
}

# added_lines DIR BASE FILE: the numbers of FILE's lines that DIR's HEAD
# adds to BASE, one a line (for the warnings a build may not add)
added_lines() {
	git -C "$1" diff -U0 "$2" HEAD -- "$3" |
		sed -n 's/^@@ -[0-9,]* +\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
		awk '{ n = ($2 == "") ? 1 : $2; for (i = 0; i < n; i++) print $1 + i }'
}

# series_commit: the commit of base + the whole series, made once per
# content of patches/ and kept as refs/series/<hash>.
series_commit() {
	local files key ref dir
	mapfile -t files < <(series_files)
	key=$( (cat "$FP_PATCHES/series" 2>/dev/null; cat "${files[@]}" /dev/null) |
		sha256sum | cut -c1-16)
	ref=refs/series/$key
	if ! git --git-dir="$FP_GIT" rev-parse -q --verify "$ref" >/dev/null; then
		dir=$(am_work base) || exit 1
		((${#files[@]} == 0)) || am_series "$dir" "${files[@]}"
		git_fp update-ref "$ref" "$(git -C "$dir" rev-parse HEAD)"
	fi
	git --git-dir="$FP_GIT" rev-parse "$ref"
}

# test_selection BOOT PATTERN... (make check and check-wide TESTS=):
# SEL_LIST, the tests of BOOT the patterns name (GROUP/NAME, in run
# order, for the guest's FP_TESTS), and SEL_IDS, the IDs a guest of
# them reports (shell patterns, the runner's own lines among them, for
# manifest.sh's MANIFEST_ONLY); scripts/tests.py reads the headers
test_selection() {
	SEL_LIST=$("$FP_TOP/scripts/tests.py" select "$@" | paste -sd' ')
	SEL_IDS=$("$FP_TOP/scripts/tests.py" ids $SEL_LIST | paste -sd' ')
}

# The wide guest (make check-wide; check-breaks' manifests of boot
# wide): a Debian 12 root (debootstrap, cached) with the tools its tests
# use, the label's modules on a second disk, an NVMe of two poll queues
# and a second NVMe whose namespace carries protection information.
FP_WIDE_SUITE=bookworm
FP_WIDE_INCLUDE=kmod,procps,fio,e2fsprogs,xfsprogs,btrfs-progs,mdadm,lvm2,dmsetup,cryptsetup-bin,nvme-cli,sg3-utils,fdisk

# wide_root_image: the root's ext4 image (made once per root tarball)
wide_root_image() {
	local tar img tmp
	tar=$(debian_root_tar "$FP_WIDE_SUITE" "$FP_WIDE_INCLUDE") || die "no $FP_WIDE_SUITE root"
	img=$FP_CACHE/wide/root-$(sha256sum "$tar" | cut -c1-12).img
	if [[ ! -f $img ]]; then
		mkdir -p "${img%/*}"
		tmp=$(mktemp -d "$FP_CACHE/wide/root.XXXXXX")
		tar -C "$tmp" -xzf "$tar"
		mkdir -p "$tmp/lib/modules" "$tmp/fp" "$tmp/mnt"
		truncate -s 3G "$img.tmp"
		mkfs.ext4 -q -F -L fp-wide -d "$tmp" "$img.tmp" || die "mkfs.ext4 of the root failed"
		rm -rf "$tmp"
		mv "$img.tmp" "$img"
	fi
	echo "$img"
}

# wide_modules_image DIR: the modules of the build in DIR (build.sh
# built them), installed (stripped) into DIR/modules.img, a small ext4
# that the guest mounts at /lib/modules
wide_modules_image() {
	local dir=$1 tmp
	tmp=$(mktemp -d)
	make -s -C "$dir" INSTALL_MOD_PATH="$tmp" INSTALL_MOD_STRIP=1 modules_install >/dev/null ||
		die "${dir##*/}: modules_install failed"
	rm -f "$dir/modules.img"
	truncate -s 256M "$dir/modules.img"
	mkfs.ext4 -q -F -L fp-mods -d "$tmp/lib/modules" "$dir/modules.img" ||
		die "mkfs.ext4 of the modules failed"
	log "${dir##*/}: $(find "$tmp" -name '*.ko' | wc -l) modules, $(du -sm "$tmp" | cut -f1) MiB"
	rm -rf "$tmp"
}

# wide_vm ROOT DIRNAME LOG [VMOPT...] -- COMMAND...: boot the wide
# guest of build/DIRNAME (its modules.img made) on the root image ROOT;
# more vm.sh options (--append "fp_break=...") before the "--"
wide_vm() {
	local root=$1 l=$2 log=$3
	shift 3
	"$FP_TOP/scripts/vm.sh" --label "$l" --smp 2 --mem 2048 \
		--poll-queues 2 --disk-mb 512 --nvme-ns "ms=8,mset=0,pi=1" \
		--virtio "$root" --virtio "$FP_BUILD/$l/modules.img" \
		--append "slab_nomerge slub_debug=A,bio-*" --timeout "${WIDE_TIMEOUT:-3000}" \
		--log "$log" "$@"
}

# manifest_overlay OVER BASE: the manifest BASE (guest/expected/) with
# OVER's lines in place of those of the same IDs, and OVER's other lines
# after it: what differs on another kernel or guest, each with its reason
manifest_overlay() {
	awk 'FNR == NR { if ($1 !~ /^#/ && NF) { over[$1] = $0; order[n++] = $1 }; next }
		$1 in over { print over[$1]; done[$1] = 1; next } { print }
		END { for (i = 0; i < n; i++) if (!(order[i] in done)) print over[order[i]] }' "$1" "$2"
}

# tap_lines PREFIX LOG: the TAP result lines of a guest's LOG, each
# after PREFIX (a kselftest's skip line carries no test name: it is
# taken from the RUN line before it)
tap_lines() {
	awk -v p="$1" '
		/^#  RUN / { t = $3 }
		/^(not )?ok [0-9]+ # SKIP/ { sub(/ # SKIP/, " " t " # SKIP") }
		/^(not )?ok / { print p $0 }' "$2"
}

# breaks_commit: the series with harness/breaks/break.patch on top (the
# hand-broken kernel whose fp_break= tokens make tests fail; never part
# of the series), made once per series and break patch
breaks_commit() {
	local top key ref dir c
	top=$(series_commit) && [[ -n $top ]] || die "the series does not apply: no breaks label"
	key=$( (echo "$top"; cat "$FP_TOP/harness/breaks/break.patch") | sha256sum | cut -c1-16)
	ref=refs/breaks/$key
	c=$(git --git-dir="$FP_GIT" rev-parse -q --verify "$ref^{commit}" 2>/dev/null) || c=
	# a cached commit counts only if it sits on this series
	if [[ -z $c || $(git --git-dir="$FP_GIT" rev-parse "$c^" 2>/dev/null) != "$top" ]]; then
		dir=$(am_work "$top") || exit 1
		# strict: no fuzz, every file staged
		git -C "$dir" apply --index "$FP_TOP/harness/breaks/break.patch" ||
			die "harness/breaks/break.patch does not apply to the series"
		fixed_commit "$dir" "harness: break.patch (fp_break=)" || die "cannot commit the breaks"
		c=$(git -C "$dir" rev-parse HEAD)
		git_fp update-ref "$ref" "$c"
	fi
	echo "$c"
}

# debian_tar: the path of the base's Debian source package's
# debian.tar.xz (debian/patches/, debian/patches-rt/, the build rules),
# downloaded once into the cache and checked against its .dsc, whose
# orig tarball must be BASE's
dsc_sha256() { # DSC FILE: FILE's sha256 as the .dsc lists it
	awk -v f="$2" '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 } on && $3 == f { print $1 }' "$1"
}
debian_tar() {
	local src=$FP_CACHE/src name=${BASE_SRCPKG}_$BASE_SRCVER tar dsc sum
	dsc=$src/$name.dsc tar=$src/$name.debian.tar.xz
	if [[ ! -f $dsc || ! -f $tar ]]; then
		src_download "$BASE_SUITE" "$src" "$BASE_SRCPKG=$BASE_SRCVER" ||
			die "could not download $BASE_SRCPKG=$BASE_SRCVER from $BASE_SUITE's sources"
	fi
	[[ $(dsc_sha256 "$dsc" "$BASE_TARBALL") == "$BASE_SHA256" ]] ||
		die "$dsc is not the source package of BASE's $BASE_TARBALL"
	sum=$(dsc_sha256 "$dsc" "${tar##*/}")
	[[ -n $sum ]] || die "$dsc lists no ${tar##*/}"
	check_sha256 "$tar" "$sum" >&2
	echo "$tar"
}

# debian_config FLAVOUR: Debian 11's own amd64 kernel config of the
# base's Debian version (FLAVOUR none: linux-image-amd64's; rt:
# linux-image-rt-amd64's), from bullseye-security's linux-config-5.10
# package (downloaded and unpacked, never installed), on stdout
debian_config() {
	local pkg=linux-config-${BASE_VERSION%.*} ver=$BASE_SRCVER
	local file=config.amd64_${1}_amd64.xz dir deb
	dir=$FP_CACHE/debian-config/$pkg-$ver
	if [[ ! -f $dir/$file ]]; then
		deb=$(apt_bin_download "$BASE_SUITE" "$FP_CACHE/debian-config" "$pkg=$ver") ||
			die "could not download $pkg=$ver from $BASE_SUITE (security)"
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
		dpkg-deb -x "$deb" "$dir.tmp/x"
		find "$dir.tmp/x" -name 'config.amd64_*_amd64.xz' -exec cp {} "$dir.tmp/" \;
		rm -rf "$dir.tmp/x" "$dir"
		mv "$dir.tmp" "$dir"
	fi
	[[ -f $dir/$file ]] || die "$pkg=$ver has no $file"
	xz -dc "$dir/$file"
}

# rt_base_commit: the base as Debian builds its rt flavour
# (linux-image-rt-amd64): debian/patches/series, then the rt
# featureset's debian/patches-rt/series, each applied as Debian's rules
# apply them (quilt push --fuzz=0: offsets, no fuzz), made once per
# debian.tar.xz and kept as refs/rt/<hash>
rt_base_commit() {
	local tar key ref dir s p n=0
	tar=$(debian_tar) || exit 1
	# (v2: the files the patches add are in it)
	key=$( (echo v2; git --git-dir="$FP_GIT" rev-parse base; sha256sum <"$tar") | sha256sum | cut -c1-16)
	ref=refs/rt/$key
	if ! git --git-dir="$FP_GIT" rev-parse -q --verify "$ref" >/dev/null; then
		dir=$(am_work base)
		rm -rf "$dir/.fp-debian" && mkdir -p "$dir/.fp-debian"
		tar -C "$dir/.fp-debian" -xJf "$tar" debian/patches debian/patches-rt ||
			die "${tar##*/} has no debian/patches or debian/patches-rt"
		for s in patches patches-rt; do
			while read -r p _; do
				[[ -z $p || $p == \#* ]] && continue
				patch -d "$dir" -p1 --fuzz=0 -N -s -r - --no-backup-if-mismatch \
					<"$dir/.fp-debian/debian/$s/$p" >/dev/null ||
					die "Debian's $s/$p does not apply as quilt --fuzz=0 would"
				n=$((n + 1))
			done <"$dir/.fp-debian/debian/$s/series"
		done
		rm -rf "$dir/.fp-debian"
		# -f: the base's .gitignore ignores files new to it (the rt
		# patch set adds headers)
		git -C "$dir" add -A -f .
		fixed_commit "$dir" "Debian $BASE_SRCVER: debian/patches and debian/patches-rt ($n patches)" ||
			die "cannot commit Debian's patches"
		git_fp update-ref "$ref" "$(git -C "$dir" rev-parse HEAD)"
		log "Debian's rt tree: $n patches of ${tar##*/}"
	fi
	git --git-dir="$FP_GIT" rev-parse "$ref"
}

# rt_series_files: the series for Debian's rt tree: patches/series, with
# the RT variant of a patch (patches/rt/<same name>) in its place
rt_series_files() {
	local f
	while read -r f; do
		if [[ -f $FP_PATCHES/rt/${f##*/} ]]; then
			echo "$FP_PATCHES/rt/${f##*/}"
		else
			echo "$f"
		fi
	done < <(series_files)
}

# rt_series_commit: Debian's rt tree + the series (rt_series_files),
# made once per content and kept as refs/rt-series/<hash>
rt_series_commit() {
	local files key ref dir top
	top=$(rt_base_commit) && [[ -n $top ]] || exit 1
	mapfile -t files < <(rt_series_files)
	key=$( (echo "$top"; cat "${files[@]}" /dev/null) | sha256sum | cut -c1-16)
	ref=refs/rt-series/$key
	if ! git --git-dir="$FP_GIT" rev-parse -q --verify "$ref" >/dev/null; then
		dir=$(am_work "$top")
		((${#files[@]} == 0)) || am_series "$dir" "${files[@]}"
		git_fp update-ref "$ref" "$(git -C "$dir" rev-parse HEAD)"
	fi
	git --git-dir="$FP_GIT" rev-parse "$ref"
}

# label_base LABEL: the commit LABEL's series sits on (what w1_check and
# the lint diff against): Debian's rt tree for rt-*, else the base
label_base() {
	case $1 in
	rt-*) rt_base_commit ;;
	*) git --git-dir="$FP_GIT" rev-parse base ;;
	esac
}

# label_commit LABEL: base, patched (the whole series), pN (first N),
# breaks (patched and harness/breaks/break.patch), mainline (the
# reference of scripts/fetch-ref.sh), rt-base (Debian's rt tree,
# rt_base_commit) or rt-patched (that and the series, rt_series_commit).
label_commit() {
	local top n total
	case $1 in
	base) git --git-dir="$FP_GIT" rev-parse base ;;
	patched) series_commit ;;
	breaks) breaks_commit ;;
	tree) git -C "$FP_TOP/tree" rev-parse HEAD ;; # work in progress: tree/'s HEAD
	p[0-9]*)
		n=${1#p}
		top=$(series_commit)
		total=$(git --git-dir="$FP_GIT" rev-list --count base.."$top")
		((n <= total)) || die "label $1: the series has only $total patches"
		git --git-dir="$FP_GIT" rev-parse "$top~$((total - n))"
		;;
	mainline) git --git-dir="$FP_GIT" rev-parse "$("$FP_TOP/scripts/fetch-ref.sh")^{commit}" ;;
	# Debian's rt flavour of the base, without and with the series
	rt-base) rt_base_commit ;;
	rt-patched) rt_series_commit ;;
	*) die "unknown label '$1' (base, patched, pN, breaks, tree, mainline, rt-base or rt-patched)" ;;
	esac
}

# series_version: the series' version, N of mail/changelog's first "vN:"
series_version() {
	local v
	v=$(sed -n 's/^v\([0-9][0-9]*\):$/\1/p' "$FP_TOP/mail/changelog" | head -1)
	[[ -n $v ]] || die "mail/changelog has no 'vN:' line"
	echo "$v"
}

# series_sum FEATURESET: the sha256 of the series as it goes on
# Debian's tree of FEATURESET (none, or rt with the RT variants): the
# patch names and contents, in order
series_sum() {
	local f
	{
		if [[ $1 == rt ]]; then rt_series_files; else series_files; fi
	} | while read -r f; do
		echo "${f##*/}"
		cat "$f"
	done | sha256sum | cut -d' ' -f1
}

# host_check: the host is Debian 12, which the scripts' packages and
# tools are chosen from; one line saying so otherwise
host_check() {
	local os
	# "ID VERSION_ID PRETTY_NAME", read in a subshell
	# shellcheck disable=SC1091
	os=$(. /etc/os-release 2>/dev/null && echo "$ID $VERSION_ID $PRETTY_NAME") || true
	[[ $os == "debian 12 "* ]] && return
	[[ -n $os ]] && os=${os#* * } || os="a system without /etc/os-release"
	die "this host runs $os; the scripts need Debian 12 (bookworm): run them on one, or in a Debian 12 VM or container"
}

# disk_check DIR GIB WHAT: at least GIB GiB free where DIR is (or would be)
disk_check() {
	local d=$1 free
	while [[ ! -d $d ]]; do d=$(dirname "$d"); done
	free=$(df -P -k "$d" | awk 'NR == 2 { print int($4 / 1048576) }')
	((free >= $2)) ||
		die "$free GiB free on the disk of $1; $3 needs $2 GiB: free some, or set FASTPATH_BUILD (build directory) or FASTPATH_CACHE to a larger disk"
}

# in_root ROOT CMD...: run CMD in the chroot ROOT, as root, with a clean
# environment, /proc and /dev, and the binds of FP_ROOT_BINDS
# ("HOSTDIR:DIR ...", DIR inside ROOT), all in a mount namespace of its
# own: whatever CMD does, no mount outlives it
in_root() {
	local root=$1
	shift
	[[ -x $root/usr/bin/env ]] || die "$root is not a root file system"
	FP_ROOT_BINDS=${FP_ROOT_BINDS:-} unshare --mount --propagation private -- bash -c '
		set -e
		root=$1
		shift
		mount -t proc proc "$root/proc"
		mount --bind /dev "$root/dev"
		mount -t devpts -o newinstance devpts "$root/dev/pts" 2>/dev/null || true
		for b in $FP_ROOT_BINDS; do
			mkdir -p "$root/${b#*:}"
			mount --bind "${b%%:*}" "$root/${b#*:}"
		done
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
	' in_root "$root" "$@"
}

# debian_src_dsc: the base's Debian source package, its .dsc, orig and
# debian.tar.xz in the cache, each checked (the orig against BASE, the
# debian.tar.xz against the .dsc); prints the .dsc's path
debian_src_dsc() {
	local src=$FP_CACHE/src dsc
	dsc=$src/${BASE_SRCPKG}_$BASE_SRCVER.dsc
	debian_tar >/dev/null || exit 1
	check_sha256 "$src/$BASE_TARBALL" "$BASE_SHA256" >&2
	echo "$dsc"
}

# debian_build_root_tar PROFILES: Debian 11's root for building the
# base's source package: debootstrap's buildd variant (build-essential)
# of BASE_SUITE, and there, by apt-get build-dep of the .dsc with the
# build profiles PROFILES, the package's Build-Depends and
# Build-Depends-Arch (debian_root_make), plus ccache.  Made once per
# .dsc and profile list and kept as a tarball in the cache; prints its path.
debian_build_root_tar() {
	local profiles=$1 suite=$BASE_SUITE dsc key tar
	dsc=$(debian_src_dsc) || exit 1
	key=$( (echo "v1 $suite $FP_DEBIAN_MIRROR/debian $profiles"; sha256sum <"$dsc") | sha256sum | cut -c1-12)
	tar=$FP_CACHE/debootstrap/$suite-buildroot-$key.tar.gz
	debian_root_make "$tar" "$suite" buildd ccache,ca-certificates \
		"--arch-only -P $profiles build-dep /tmp/src/${dsc##*/}" "$dsc" || exit 1
	echo "$tar"
}
