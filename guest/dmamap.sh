# The data mapping of NVMe requests larger than two pages (patches
# 0070-0072).  When dma_need_unmap() is false for the controller
# (dma-direct, coherent, 64-bit mask, no swiotlb=force, no
# DMA_API_DEBUG), nvme-pci writes the PRPs from the bvecs and never calls
# dma_map_sg_attrs() for data; otherwise (swiotlb=force, or
# DMA_API_DEBUG: make check-long's dma-debug kernel) the scatterlist
# path maps them; the calls of nvme_prp_next() and dma_map_sg_attrs()
# show which path ran.  Either way, write+verify of
# every size from 512 B to 1 MiB at 512-byte steps, from page-aligned
# buffers and from buffers 512 bytes into a page (PRP1 with an offset,
# a short last page), polled where the namespace polls and by interrupt,
# with plain and registered buffers, must pass, and the PRP list pools
# must hold no more pages afterwards than before.  SGLs are switched off
# for it (nvme.sgl_threshold=0): QEMU's NVMe has them, and a request whose
# segments average 32 KiB or more would take the scatterlist path for
# its SGL whatever the DMA setup.

# the in-use count of the controller's PRP list pools ("prp list page",
# "prp list 256"), from /sys/bus/pci/devices/*/pools
nvme_prp_in_use() {
	local p
	p=$(readlink -f "/sys/block/$1/device/device")/pools
	[ -r "$p" ] || { echo "?"; return; }
	awk '/^prp list/ { n += $(NF - 3) } END { print n + 0 }' "$p"
}

nvme_map_verify() {
	local dev=$1 want=bvec why= poll p0 p1 n pn f job h fb al off=0 sgl
	local sp=/sys/module/nvme/parameters/sgl_threshold
	if ! grep -q " dma_need_unmap$" /proc/kallsyms; then
		tap_skip nvme_map_verify "no dma_need_unmap() in this kernel"
		return
	fi
	grep -qw "swiotlb=force" /proc/cmdline && want=sg
	[ -d /sys/kernel/debug/dma-api ] && want=sg
	poll=$(cat /sys/block/$dev/queue/io_poll)
	p0=$(nvme_prp_in_use "$dev")
	sgl=$(cat $sp 2>/dev/null) && echo 0 >$sp || {
		tap_fail nvme_map_verify "cannot switch SGLs off ($sp)"
		rc=1
		return
	}
	fprof_start dma_map_sg_attrs || {
		echo "$sgl" >$sp
		tap_fail nvme_map_verify "no function profiler on dma_map_sg_attrs"
		rc=1
		return
	}
	# HIPRI FIXEDBUFS BUFFER-OFFSET RW BS QD BATCH MIB: random sizes, then
	# 512-byte sequential I/O from fio's back-to-back buffers, submitted
	# 32 at a time, whose bios the plug merges into one request wherever
	# they are physically contiguous, page-aligned or not
	for job in "1 0 0 randwrite 512-1m 16 4 16" "0 0 512 randwrite 512-1m 16 4 16" \
		"1 1 512 randwrite 512-1m 16 4 16" "0 1 0 randwrite 512-1m 16 4 16" \
		"1 0 0 write 512-512 32 32 2" "0 1 0 write 512-512 32 32 2"; do
		set -- $job
		h=$1 fb=$2 al=$3
		[ "$poll" = 1 ] || h=0
		run_timed 300 fio_verify map "$dev" $h --fixedbufs=$fb --iomem_align=$al \
			--rw=$4 --bsrange=$5 --size=$8M --offset=$((160 + off))M \
			--iodepth=$6 --iodepth_batch_submit=$7
		f=$?
		echo "# hipri $h fixedbufs $fb buffer offset $al $4 $5: fio exit $f"
		[ $f = 0 ] || why="${why:+$why; }hipri $h fixedbufs $fb offset $al $4 $5: $(fio_failure map $f)"
		off=$((off + 16))
	done
	set -- $(fprof_stop dma_map_sg_attrs nvme_prp_next)
	n=$1 pn=$2
	echo "$sgl" >$sp
	p1=$(nvme_prp_in_use "$dev")
	echo "# /dev/$dev (io_poll $poll): expected the $want path; dma_map_sg_attrs calls $n, nvme_prp_next calls $pn; PRP list pages in use $p0 -> $p1"
	# nvme_prp_next() (patch 0072) gives nvme_pci_setup_prps() each
	# segment of a request of more than two pages, from the bvecs or
	# from the scatterlist: its calls prove that the PRP path ran, and
	# with no dma_map_sg_attrs() call, that it ran from the bvecs
	if ! is_count "$n" || ! is_count "$pn"; then
		why="${why:+$why; }no count of dma_map_sg_attrs or nvme_prp_next calls ($n, $pn)"
	elif [ "$pn" -lt 64 ]; then
		why="${why:+$why; }$pn nvme_prp_next calls: the PRP list path hardly ran"
	elif [ "$want" = bvec ] && [ "$n" != 0 ]; then
		why="${why:+$why; }$n dma_map_sg_attrs calls where the bvecs should be mapped"
	elif [ "$want" = sg ] && { ! is_count "$n" || [ "$n" = 0 ]; }; then
		why="${why:+$why; }no dma_map_sg_attrs call: the scatterlist path did not run"
	fi
	[ "$p0" != "?" ] && [ "$p0" = "$p1" ] ||
		why="${why:+$why; }PRP list pages in use $p0 before, $p1 after"
	tap_result nvme_map_verify "$why"
}
