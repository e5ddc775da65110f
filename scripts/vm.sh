#!/usr/bin/env bash
# vm.sh [options] [--] COMMAND...: boot a label's kernel under QEMU (q35,
# TCG) with an emulated NVMe and run COMMAND in the guest with sh.
# Exit status: the command's; 1 if the kernel splatted (BUG, WARNING,
# Oops, KASAN, lockdep, RCU stall, hung task) or logged a request
# timeout, abort or controller reset that no test announced, even when
# the command passed; 124 if the guest hung; 125 if it died before
# reporting (panic).
. "$(dirname "$0")/lib.sh"

usage() {
	cat <<USAGE
usage: vm.sh [options] [--] COMMAND...
  --label L          kernel of build/L (default: patched)
  --smp N            vCPUs (default: 1)
  --cpu MODEL        QEMU -cpu (default: max)
  --mem MB           memory (default: 1024)
  --poll-queues N    nvme.poll_queues (default: 1)
  --mpath            NVMe subsystem, two controllers sharing namespace 1
  --no-nvme          no NVMe device
  --disk-mb N        namespace size (default: 256)
  --nvme-ns PROPS    a second NVMe controller (serial fp1) with one
                     namespace of --disk-mb MiB and these nvme-ns
                     properties (e.g. "ms=8,pi=1": metadata, protection)
  --virtio IMG       IMG as a virtio disk (vda, vdb, ... in order), its
                     writes discarded at exit (snapshot=on; repeatable)
  --nullb "K=V ..."  null_blk module parameters (built in: null_blk.K=V)
  --append "..."     more kernel parameters (repeatable)
  --icount           -icount shift=0,sleep=off (guest time counts instructions)
  --files DIR        copy DIR's files into the guest's /fp (repeatable)
  --timeout S        seconds before the guest counts as hung (default: 600)
  --log FILE         the command's output (default: a file in build/logs);
                     the kernel console goes to FILE.kernel, the verdict
                     to FILE.verdict, the test the guest ended in (if it
                     ended inside one) to FILE.test
  --show-command     print the QEMU command line and exit
environment: FP_QEMU_OPTS (more QEMU options, split on blanks),
  FP_NVME_OPTS (more properties of the single NVMe, e.g. ",ioeventfd=on"),
  FP_BOOT_TIMEOUT (seconds a boot may take before it counts as hung and
  the guest is booted again, three boots in all; default: 60)
USAGE
	exit 2
}

label=patched smp=1 cpu=max mem=1024 pq=1 mpath=0 nvme=1 disk_mb=256 nullb= append=
icount=0 timeout=600 logf= show=0 files=() nvme_ns= virtio=()
while (($#)); do
	case $1 in
	--label) label=$2; shift ;;
	--smp) smp=$2; shift ;;
	--cpu) cpu=$2; shift ;;
	--mem) mem=$2; shift ;;
	--poll-queues) pq=$2; shift ;;
	--mpath) mpath=1 ;;
	--no-nvme) nvme=0 ;;
	--disk-mb) disk_mb=$2; shift ;;
	--nvme-ns) nvme_ns=$2; shift ;;
	--virtio) virtio+=("$2"); shift ;;
	--nullb) nullb=$2; shift ;;
	--append) append+="${append:+ }$2"; shift ;;
	--icount) icount=1 ;;
	--files) files+=("$2"); shift ;;
	--timeout) timeout=$2; shift ;;
	--log) logf=$2; shift ;;
	--show-command) show=1 ;;
	--) shift; break ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
(($#)) || ((show)) || usage
FP_PREFIX="[vm $label] "
[[ -z $logf ]] || rm -f "$logf.verdict" "$logf.why" "$logf.test"

kernel=$FP_BUILD/$label/arch/x86/boot/bzImage
[[ -f $kernel ]] || ((show)) || die "no kernel $kernel: run scripts/build.sh ${label%%+*} first"
need_pkgs "${FP_PKGS_GUEST[@]}"

run=$(mktemp -d "${TMPDIR:-/tmp}/fp-vm.XXXXXX")
trap 'guest_stop; rm -rf "$run"' EXIT
[[ -n $logf ]] || { mkdir -p "$FP_BUILD/logs"; logf=$FP_BUILD/logs/vm-$label-$(date +%Y%m%d-%H%M%S).log; }

cmdline="console=ttyS0 panic=-1 oops=panic tsc=reliable loglevel=7 rdinit=/init"
((nvme)) && cmdline+=" nvme.poll_queues=$pq"
for kv in $nullb; do cmdline+=" null_blk.$kv"; done
[[ -z $append ]] || cmdline+=" $append"

qemu=(qemu-system-x86_64 -machine q35 -cpu "$cpu" ${FP_QEMU_OPTS:-} -smp "$smp" -m "$mem"
	-display none -monitor none -no-reboot
	-serial file:"$run/kernel.log" -serial stdio
	-kernel "$kernel" -initrd "$run/initrd" -append "$cmdline")
((icount)) && qemu+=(-icount shift=0,sleep=off)
if ((nvme)); then
	qemu+=(-drive "file=$run/nvme.img,if=none,id=d0,format=raw")
	if ((mpath)); then
		qemu+=(-device nvme-subsys,id=s0,nqn=fastpath
			-device nvme,serial=fp0,subsys=s0
			-device nvme,serial=fp0,subsys=s0
			-device nvme-ns,drive=d0,nsid=1,shared=on)
	else
		qemu+=(-device nvme,serial=fp0,drive=d0${FP_NVME_OPTS:-})
	fi
fi
if [[ -n $nvme_ns ]]; then
	qemu+=(-drive "file=$run/nvme1.img,if=none,id=d1,format=raw"
		-device nvme,serial=fp1,id=nv1
		-device "nvme-ns,drive=d1,bus=nv1,nsid=1,$nvme_ns")
fi
for d in "${virtio[@]}"; do
	[[ -f $d ]] || ((show)) || die "no disk image $d"
	qemu+=(-drive "file=$d,if=virtio,format=raw,snapshot=on")
done
if ((show)); then
	printf '%q ' "${qemu[@]}"
	echo
	exit 0
fi

# The per-run cpio: the command, the guest helpers, the files asked for.
mkdir -p "$run/ov/fp"
cp "$FP_TOP"/guest/*.sh "$run/ov/fp/" 2>/dev/null || true
# the tests, one a file (tests/GROUP/NAME: guest/common.sh runs them)
cp -a "$FP_TOP/tests" "$run/ov/fp/tests"
for d in "${files[@]}"; do cp -a "$d"/. "$run/ov/fp/"; done
printf '%s\n' "$*" >"$run/ov/fp/cmd"
(cd "$run/ov" && find . | cpio -o -H newc --quiet) >"$run/ov.cpio"
cat "$("$FP_TOP/scripts/initramfs.sh")" "$run/ov.cpio" >"$run/initrd"
((nvme)) && truncate -s "${disk_mb}M" "$run/nvme.img"
[[ -z $nvme_ns ]] || truncate -s "${disk_mb}M" "$run/nvme1.img"

printf '%q ' "${qemu[@]}" >"$logf.cmd"
rc=0
# Two serial lines: the kernel console on ttyS0 ($logf.kernel), the
# command's output on ttyS1 ($logf), so that on several vCPUs a kernel
# message never lands in the middle of a test's result line.  A hung
# guest leaves $logf.hung (where its vCPUs were, its kernel log); one
# that hangs before its command starts is booted again (guest_run).
guest_run "$timeout" "$logf" "$run/kernel.log" "${kernel%/arch/*}/System.map" "${qemu[@]}" || rc=$?
tr -d '\r' <"$logf" >"$logf.tmp" && mv "$logf.tmp" "$logf"
tr -d '\r' <"$run/kernel.log" >"$logf.kernel" 2>/dev/null || : >"$logf.kernel"
klog=$logf.kernel

# $logf.test: the test (GROUP/NAME) the guest was in when it ended, if
# the kernel log's last test mark (guest/common.sh's run_test) is a
# begin: a test the kernel died or hung in, which reported nothing
intest=$(sed -n 's/.*fastpath: test \(begin\|end\) \([^ ]*\).*/\1 \2/p' "$klog" | tail -n 1)
[[ $intest != "begin "* ]] || echo "${intest#begin }" >"$logf.test"

splat_re=$FP_SPLAT_RE
fault_re=$FP_FAULT_RE
status=$(sed -n 's/^FASTPATH-EXIT: \([0-9]*\).*/\1/p' "$logf" | tail -n 1)
fail() {
	log "$1; output: $logf, kernel log: $klog"
	tail -n "${2:-40}" "$logf" | sed 's/^/  | /' >&2
	tail -n "${2:-20}" "$klog" | sed 's/^/  k| /' >&2
}
# $logf.verdict says which of these ended the run (scripts/check.sh
# lets a label's manifest excuse only "tests": failures it expects), and
# $logf.why the kernel line that decided it, if one did (check.sh prints
# it at its end)
verdict() {
	echo "$1" >"$logf.verdict"
	if [[ -n ${2:-} ]]; then
		echo "$2" >"$logf.why"
	else
		rm -f "$logf.why"
	fi
}
if ((rc == 124)); then
	verdict hung "$(tail -n 1 "$klog")"
	fail "guest hung"
	exit 124
fi
if grep -Eq "$splat_re" "$klog"; then
	verdict splat "$(grep -Em1 "$splat_re|: [0-9a-f]{4} \[#[0-9]+\]" "$klog")"
	grep -En -A12 "$splat_re" "$klog" | head -60 | sed 's/^/  k| /' >&2
	fail "kernel splat in the console log" 0
	exit 1
fi
# a request timeout, abort or reset no test announced (kernel_faults)
faults=$(kernel_faults "$klog" "$fault_re")
if [[ -n $faults ]]; then
	verdict fault "$(head -n 1 <<<"$faults" | sed 's/^[0-9]*: //')"
	head -20 <<<"$faults" | sed 's/^/  k| /' >&2
	fail "unexpected timeout, abort or reset in the kernel log" 0
	exit 1
fi
if [[ -z $status ]]; then
	verdict died "$(tail -n 1 "$klog")"
	fail "guest died before reporting (qemu exit $rc)"
	exit 125
fi
if ((status != 0)); then
	verdict tests
	fail "guest command failed ($status)" 0
else
	verdict ok
fi
exit "$status"
