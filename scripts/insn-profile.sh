#!/usr/bin/env bash
# insn-profile.sh LABEL [vm.sh options] -- PROBE ARGS...: run one fp-bench
# probe in LABEL's guest under -icount with the insn-prof QEMU plugin and
# print where the instructions of the marked window went, per kernel
# function and per operation.  The probe marks its timed loop (see
# probes/fp-bench.c, mark()), so boot and setup are not counted.
#   TOP   functions to list (default: 40)
#   OUT   directory for the raw counts (default: a temporary one)
#   GROUP regex of functions to sum as a group (insn-fold.py)
# Examples: scripts/insn-profile.sh base -- nop 32 1
#   GROUP='^blk_mq_get_tags?$' scripts/insn-profile.sh patched -- \
#     '. /fp/common.sh; d=$(nullb_create s irqmode=0 hw_queue_depth=48 poll_queues=1);
#      fp-bench uring /dev/$d 4096 128 32 32 1 poll'
# PROBE ARGS that start with nop, uring, aio, pvsync2 or psync run
# fp-bench; anything else runs as a guest shell command (which should run
# fp-bench).
. "$(dirname "$0")/lib.sh"

(($# >= 3)) || die "usage: insn-profile.sh LABEL [vm.sh options] -- PROBE ARGS..."
label=$1
shift
vmopts=()
while (($#)) && [[ $1 != -- ]]; do
	vmopts+=("$1")
	shift
done
[[ ${1:-} == -- ]] && shift
(($#)) || die "no probe given"
need_pkgs "${FP_PKGS_BUILD[@]}" "${FP_PKGS_GUEST[@]}"

# The plugin API header comes from Debian's QEMU source of the installed
# version, fetched as source only; the plugin is cached by that version.
qver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
plugin=$FP_CACHE/plugin/insn-prof-${qver//[:+~]/_}-$(sha256sum "$FP_TOP/probes/insn-prof.c" | cut -c1-12).so
if [[ ! -f $plugin ]]; then
	src=$FP_CACHE/src/qemu-$qver
	if [[ ! -f $src/qemu-plugin.h ]]; then
		src_download bookworm "$src" "qemu=$qver" || die "could not fetch qemu $qver's source"
		tar -xJf "$src"/qemu_*.orig.tar.xz -C "$src" --wildcards --strip-components=3 \
			'*/include/qemu/qemu-plugin.h' || die "no qemu-plugin.h in qemu's source"
	fi
	mkdir -p "$(dirname "$plugin")"
	gcc -O2 -Wall -shared -fPIC -I"$src" -o "$plugin" "$FP_TOP/probes/insn-prof.c" ||
		die "building the plugin failed"
fi

out=${OUT:-$(mktemp -d)}
mkdir -p "$out/guest"
probe_build fp-bench "$out/guest" || die "probes/fp-bench.c did not build"
# a probe of fp-bench, or a guest shell command that runs one
case $1 in
nop | uring | aio | pvsync2 | psync) cmd="fp-bench $*" ;;
*) cmd="$*" ;;
esac
FP_QEMU_OPTS="${FP_QEMU_OPTS:-} -plugin $plugin,out=$out/blocks.txt" \
	"$FP_TOP/scripts/vm.sh" --label "$label" --icount --smp 1 --files "$out/guest" \
	--log "$out/console.log" "${vmopts[@]}" -- "$cmd" >"$out/probe.txt" ||
	die "guest failed (log: $out/console.log)"
python3 "$FP_TOP/scripts/insn-fold.py" "$FP_BUILD/$label/System.map" \
	"$out/blocks.txt" "$out/console.log" "${TOP:-40}"
