# wide.sh: make check-wide's guest.  Run by busybox from the test
# initramfs ("sh /fp/wide.sh"), it mounts the Debian 12 root of the
# first virtio disk (vda) with the label's modules (vdb) at
# /lib/modules, and runs itself there ("wide.sh run", under Debian's sh)
# so that the tests use Debian's own tools: mdadm, lvm2, cryptsetup,
# xfsprogs, btrfs-progs, nvme-cli, sg3-utils, fio.  There it partitions
# the NVMe the tests share, then runs every test of tests/ whose
# "# boots:" names wide (only those of FP_TESTS, "GROUP/NAME ...", if
# the host set it), one at a time (run_tests, guest/common.sh), with
# guest/wide-lib.sh's helpers (FP_TEST_LIB).  Every fio job writes a
# pattern and reads it back verified (crc32c); every phase is bounded.
# Devices: nvme0n1 (512 MiB, poll queues), nvme1n1 (metadata with
# protection information), null_blk through configfs, and what the
# tests make on top of them.
. /fp/common.sh
rc=0
R=/mnt/deb

if [ "${1:-}" != run ]; then
	mkdir -p $R
	if ! mount -t ext4 /dev/vda $R; then
		tap_fail wide_root "cannot mount the Debian root (vda)"
		exit 1
	fi
	mount -t ext4 -o ro /dev/vdb $R/lib/modules || {
		tap_fail wide_root "cannot mount the modules (vdb)"
		exit 1
	}
	for m in /proc /sys /dev /tmp /sys/kernel/debug /sys/kernel/config /fp; do
		mkdir -p $R$m
		mount --bind $m $R$m
	done
	mount -t tmpfs tmpfs $R/run
	mkdir -p $R/run/lock $R/etc/nvme
	mount -t cgroup2 cgroup2 $R/sys/fs/cgroup 2>/dev/null
	# the kernel's own module requests (an I/O scheduler, a crypto
	# algorithm) go to Debian's modprobe too
	printf '#!/bin/sh\nexec chroot %s /sbin/modprobe "$@"\n' $R >/tmp/modprobe
	chmod +x /tmp/modprobe
	echo /tmp/modprobe >/proc/sys/kernel/modprobe
	chroot $R /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		FP_TESTS="${FP_TESTS:-}" FP_TIME_SCALE="${FP_TIME_SCALE:-1}" \
		FP_TEST_LIB=/fp/wide-lib.sh /bin/sh /fp/wide.sh run
	rc=$?
	sync
	exit $rc
fi

# ---- the tests (Debian's sh, in the Debian root) ----
. "$FP_TEST_LIB"

echo "# $(uname -r), $(cat /etc/debian_version), $(fio --version), nvme $NV (poll_queues $(cat /sys/module/nvme/parameters/poll_queues)), PI $PI"
# the NVMe's partitions, which the tests on NV use: p1 (128 MiB) for the
# tests that write a device, p2 (the rest) for file systems, dm and LVM
# (tests/partitions/wide_nvme_partition_polled proves p1 polls)
if [ -n "$(test_list wide)" ]; then
	why=
	if [ -z "$NV" ]; then
		why="no NVMe namespace of serial fp0"
	else
		printf 'label: gpt\n,128M\n,\n' >/tmp/parts
		run_timed 30 sh -c "sfdisk -q /dev/$NV </tmp/parts" >/tmp/sfdisk.out 2>&1 ||
			why="sfdisk: $(head -1 /tmp/sfdisk.out)"
		wait_until 10 test -b /dev/${NV}p2 || why="${why:-no /dev/${NV}p2}"
	fi
	[ -z "$why" ] || tap_result wide_root "$why"
fi
run_tests wide
exit $rc
