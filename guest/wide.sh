# wide.sh: make check-wide's guest.  Run by busybox from the test
# initramfs ("sh /fp/wide.sh [GROUP...]"), it mounts the Debian 12 root of
# the first virtio disk (vda) with the label's modules (vdb) at
# /lib/modules, and runs itself there ("wide.sh run", under Debian's sh)
# so that the tests use Debian's own tools: mdadm, lvm2, cryptsetup,
# xfsprogs, btrfs-progs, nvme-cli, sg3-utils, fio.  One TAP line per
# test (all groups, or the GROUPs named); every fio job writes
# a pattern and reads it back verified (crc32c); every phase is bounded.
# Devices: nvme0n1 (512 MiB, poll queues), nvme1n1 (metadata with
# protection information), null_blk through configfs, and what the
# tests make on top of them.
. /fp/common.sh
rc=0
R=/mnt/deb

if [ -z "${WIDE_FUNCS:-}" ] && [ "${1:-}" != run ]; then
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
		/bin/sh /fp/wide.sh run "$@"
	rc=$?
	sync
	exit $rc
fi

# ---- the tests (Debian's sh, in the Debian root) ----

# "wide.sh GROUP..." runs only those groups (the words after "wide_" of
# the functions below; partitions always runs when a group needs it)
[ "${1:-}" != run ] || shift
GROUPS_WANTED="$*"
want() {
	[ -z "$GROUPS_WANTED" ] && return 0
	case " $GROUPS_WANTED " in *" $1 "*) return 0 ;; esac
	return 1
}

NV=
PI=
for c in /sys/class/nvme/nvme*; do
	case $(cat $c/serial 2>/dev/null | tr -d ' ') in
	fp0) NV=$(ls -d $c/nvme*n1 2>/dev/null | head -1) ;;
	fp1) PI=$(ls -d $c/nvme*n1 2>/dev/null | head -1) ;;
	esac
done
NV=${NV##*/} PI=${PI##*/}

# wfio NAME DEV HIPRI SECS OPTS...: fio_verify (16 MiB at QD 16 unless
# OPTS say otherwise) on DEV, a /dev path, bounded by SECS.  Prints why
# it failed, nothing if it passed.
wfio() {
	local name=$1 t=$2 hipri=$3 secs=$4 r
	shift 4
	# fio would make a regular file of a missing node
	[ -b "$t" ] || { echo "$name: $t is not a block device"; return; }
	run_timed "$secs" fio_verify "$name" "${t#/dev/}" "$hipri" --iodepth=16 --size=16M "$@"
	r=$?
	[ $r = 0 ] || echo "$name: $(fio_failure "$name" $r)"
}

# wfio_both NAME TARGET SECS OPTS...: wfio with hipri 0 and 1; the second
# may run polled or (a device that cannot poll) by interrupt, as 5.10's
# io_uring does; both must pass and end in time
wfio_both() {
	local name=$1 t=$2 secs=$3
	shift 3
	{
		wfio "$name-irq" "$t" 0 "$secs" "$@"
		wfio "$name-hipri" "$t" 1 "$secs" --offset=16M "$@"
	} | paste -sd';'
}

mods() {
	local m
	for m in "$@"; do
		modprobe "$m" 2>/tmp/modprobe.out || {
			echo "modprobe $m: $(head -1 /tmp/modprobe.out)"
			return 1
		}
	done
}

# --- partitions of the polled NVMe: p1 (128 MiB) for the tests that
# write a device, p2 (the rest) for file systems, dm and LVM
wide_partitions() {
	local why=
	if [ -z "$NV" ]; then
		tap_fail wide_nvme_partition_polled "no NVMe namespace of serial fp0"
		rc=1
		return 1
	fi
	printf 'label: gpt\n,128M\n,\n' >/tmp/parts
	run_timed 30 sh -c "sfdisk -q /dev/$NV </tmp/parts" >/tmp/sfdisk.out 2>&1 ||
		why="sfdisk: $(head -1 /tmp/sfdisk.out)"
	wait_until 10 test -b /dev/${NV}p2 || why="${why:-no /dev/${NV}p2}"
	[ -n "$why" ] || why=$(polled_io part ${NV}p1 0 "$NV")
	tap_result wide_nvme_partition_polled "$why"
	[ -b /dev/${NV}p2 ]
}

# dm_make NAME TABLE: a device-mapper device; prints its node, /dev/dm-N
# (without udev nothing makes /dev/mapper/NAME), or why it failed on
# stderr.  dm_gone NAME...: remove those that exist; prints why one
# could not be removed
dm_make() {
	local n
	run_timed 30 dmsetup create "$1" --table "$2" >/tmp/dm.out 2>&1 || {
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

# dm_one TEST NAME TABLE SECS FIO-OPTION...: TEST is wfio_both on a dm
# device NAME of TABLE, which must go away after
dm_one() {
	local test=$1 name=$2 table=$3 secs=$4 x why=
	shift 4
	x=$(dm_make $name "$table" 2>/tmp/dm.why) || why=$(cat /tmp/dm.why)
	[ -n "$why" ] || why=$(wfio_both $name $x $secs "$@")
	why="$why$(dm_gone $name)"
	tap_result $test "$why"
}

# --- device mapper targets over the NVMe partition and over null_blk:
# io_uring on each, polled and not (dm cannot poll on 5.10: the polled
# I/O completes by interrupt), verified; nothing may be left behind
wide_dm() {
	local nb why t size d n x b c o s
	nb=$(nullb_create wdm size=256 memory_backed=1 irqmode=1) || {
		tap_fail wide_dm "no null_blk for dm"
		rc=1
		return
	}
	why=$(mods dm-mod dm-crypt dm-snapshot dm-flakey dm-delay)
	if [ -n "$why" ]; then
		tap_fail wide_dm_modules "$why"
		rc=1
		run_timed 30 nullb_remove wdm
		return
	fi
	size=262144 # sectors: 128 MiB
	for t in nvme:/dev/${NV}p2 nullb:/dev/$nb; do
		d=${t#*:} n=${t%%:*}

		dm_one wide_dm_linear_$n fp-lin "0 $size linear $d 0" 120
		dm_one wide_dm_stripe_$n fp-str "0 $size striped 2 128 $d 0 $d $size" 120 --bs=64k

		why=
		head -c 32 /dev/urandom >/tmp/key
		run_timed 30 cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 256 \
			--key-file /tmp/key --size $size "$d" fp-crypt >/tmp/dm.out 2>&1 ||
			why="cryptsetup: $(head -1 /tmp/dm.out)"
		x=/dev/$(dmsetup info -c --noheadings -o blkdevname fp-crypt 2>/dev/null)
		[ -n "$why" ] || [ -b $x ] || why="fp-crypt: no block device"
		[ -n "$why" ] || why=$(wfio_both "crypt-$n" $x 180)
		why="$why$(dm_gone fp-crypt)"
		tap_result wide_dm_crypt_$n "$why"

		dm_one wide_dm_delay_$n fp-dly "0 $size delay $d 0 2" 180 --size=4M

		# a snapshot (transient, its copy-on-write store the second
		# half of the device) and its origin: write the origin (the
		# old chunks are copied first), then the snapshot itself
		why=
		b=$(dm_make fp-base "0 $size linear $d 0" 2>/tmp/dm.why) &&
			c=$(dm_make fp-cow "0 $size linear $d $size" 2>>/tmp/dm.why) &&
			s=$(dm_make fp-snap "0 $size snapshot $b $c N 16" 2>>/tmp/dm.why) &&
			o=$(dm_make fp-org "0 $size snapshot-origin $b" 2>>/tmp/dm.why) ||
			why=$(paste -sd';' /tmp/dm.why)
		[ -n "$why" ] || why=$(wfio_both "snap-org-$n" $o 180 --size=8M)
		[ -n "$why" ] || why=$(wfio_both "snap-$n" $s 180 --size=8M --offset=64M)
		why="$why$(dm_gone fp-org fp-snap fp-cow fp-base)"
		tap_result wide_dm_snapshot_$n "$why"

		# flakey: writes fail with -EIO 1 s of every 2; fio must end
		# in time and see only EIO, then the device works again
		why=
		x=$(dm_make fp-flk "0 $size flakey $d 0 1 1 1 error_writes" 2>/tmp/dm.why) || why=$(cat /tmp/dm.why)
		if [ -z "$why" ]; then
			run_timed 60 fio --name=flk --filename=$x --ioengine=io_uring \
				--direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=16M --time_based \
				--runtime=4 --continue_on_error=all --output-format=normal >/tmp/fio-flk.out 2>&1
			local r=$? e
			e=$(fio_other_errnos /tmp/fio-flk.out 5)
			echo "# dm-flakey on $n: fio exit $r, $(grep -m1 'errors *: total=' /tmp/fio-flk.out)" >&2
			if [ $r = 124 ]; then
				why="fio on dm-flakey still running after 60 s"
			elif ! grep -q 'Input/output error' /tmp/fio-flk.out; then
				why="no write failed with EIO on dm-flakey (fio exit $r)"
			elif [ -n "$e" ]; then
				why="an error other than EIO: $e"
			fi
			run_timed 30 dmsetup load fp-flk --table "0 $size linear $d 0" &&
				run_timed 30 dmsetup resume fp-flk ||
				why="${why:+$why; }cannot reload dm-flakey as linear"
			[ -n "$why" ] || why=$(wfio "flk-after-$n" $x 0 120 --size=8M)
		fi
		why="$why$(dm_gone fp-flk)"
		tap_result wide_dm_flakey_$n "$why"
	done
	# nothing of dm may be left on the devices the next tests use
	x=$(dmsetup ls 2>/dev/null | grep -v 'No devices found')
	if [ -n "$x" ]; then
		tap_fail wide_dm_cleanup "left behind: $(echo $x)"
		rc=1
		dmsetup remove_all >/dev/null 2>&1
	fi
	run_timed 30 nullb_remove wdm
}

# --- LVM on the NVMe partition and a null_blk: a linear LV, a snapshot
# of it under writes
wide_lvm() {
	local nb why= lvm="lvm" cfg lv snap
	# without udev (LVM makes no /dev/VG nodes then: the LVs are used by
	# their dm-N); null_blk is not among LVM's known device types
	cfg='activation { udev_sync = 0 udev_rules = 0 monitoring = 0 } devices { obtain_device_list_from_udev = 0 types = [ "nullb", 16 ] }'
	nb=$(nullb_create wlvm size=256 memory_backed=1 irqmode=1) || {
		tap_fail wide_lvm "no null_blk for LVM"
		rc=1
		return
	}
	export LVM_SUPPRESS_FD_WARNINGS=1
	{
		run_timed 30 $lvm pvcreate -y --config "$cfg" /dev/${NV}p2 /dev/$nb &&
			run_timed 30 $lvm vgcreate --config "$cfg" fpvg /dev/${NV}p2 /dev/$nb &&
			run_timed 30 $lvm lvcreate -y --config "$cfg" -n lv -L 96M -i 2 fpvg
	} >/tmp/lvm.out 2>&1 || why="lvm: $(grep -v '^ *WARNING' /tmp/lvm.out | paste -sd';')"
	lv=/dev/$(dmsetup info -c --noheadings -o blkdevname fpvg-lv 2>/dev/null)
	[ -n "$why" ] || why=$(wfio_both lv $lv 180)
	if [ -z "$why" ]; then
		run_timed 30 $lvm lvcreate -y --config "$cfg" -s -n snap -L 64M fpvg/lv >/tmp/lvm.out 2>&1 ||
			why="lvcreate -s: $(grep -v '^ *WARNING' /tmp/lvm.out | paste -sd';')"
		snap=/dev/$(dmsetup info -c --noheadings -o blkdevname fpvg-snap 2>/dev/null)
		[ -n "$why" ] || why=$(wfio_both lv-under-snap $lv 180 --size=8M --offset=48M)
		[ -n "$why" ] || why=$(wfio snap $snap 0 180 --size=8M)
	fi
	run_timed 60 $lvm vgremove -y -f --config "$cfg" fpvg >/tmp/lvm.out 2>&1 ||
		why="${why:+$why; }vgremove: $(grep -v '^ *WARNING' /tmp/lvm.out | paste -sd';')"
	run_timed 30 $lvm pvremove -y --config "$cfg" /dev/${NV}p2 /dev/$nb >/dev/null 2>&1
	dm_gone fpvg-snap fpvg-lv-real fpvg-snap-cow fpvg-lv >/dev/null
	run_timed 30 nullb_remove wlvm
	tap_result wide_lvm "$why"
}

# --- md raid0, raid1, raid10 on four null_blk devices; raid1 has a
# member failed, removed and added back under I/O
wide_md() {
	local i devs= why lvl md=/dev/md0 r
	why=$(mods raid0 raid1 raid10)
	if [ -n "$why" ]; then
		tap_fail wide_md_modules "$why"
		rc=1
		return
	fi
	for i in 0 1 2 3; do
		devs="$devs /dev/$(nullb_create wmd$i size=128 memory_backed=1 irqmode=1)" || {
			tap_fail wide_md "no null_blk for md"
			rc=1
			return
		}
	done
	for lvl in 0 1 10; do
		why=
		run_timed 60 mdadm --create $md --run --quiet --level=$lvl --raid-devices=4 \
			--assume-clean --metadata=1.2 $devs >/tmp/md.out 2>&1 ||
			why="mdadm --create: $(tail -1 /tmp/md.out)"
		[ -n "$why" ] || why=$(wfio_both "md$lvl" $md 180)
		if [ -z "$why" ] && [ $lvl = 1 ]; then
			# fail one member while fio writes, take it out, add
			# it back: md rebuilds it; then all must verify
			fio --name=md1-load --filename=$md --ioengine=io_uring --direct=1 \
				--rw=randwrite --bs=4k --iodepth=16 --size=32M --offset=64M \
				--verify=crc32c --verify_fatal=1 --do_verify=1 \
				--output-format=terse >/tmp/fio-md1-load.out 2>&1 &
			local f=$!
			sleep 1
			run_timed 30 mdadm $md --fail ${devs##* } >/tmp/md.out 2>&1 &&
				sleep 1 && run_timed 30 mdadm $md --remove ${devs##* } >>/tmp/md.out 2>&1 &&
				run_timed 30 mdadm $md --add ${devs##* } >>/tmp/md.out 2>&1 ||
				why="mdadm fail/remove/add: $(tail -1 /tmp/md.out)"
			end_job $f 180
			r=$?
			[ $r = 0 ] || why="${why:+$why; }fio during the member's failure: $(fio_failure md1-load $r)"
			wait_until 180 grep -q idle /sys/block/md0/md/sync_action ||
				why="${why:+$why; }the rebuild did not end in 180 s"
			[ "$(cat /sys/block/md0/md/degraded)" = 0 ] ||
				why="${why:+$why; }still degraded after the rebuild"
			# the same job again, only its verify: what it wrote
			# must read back from the rebuilt array
			[ -n "$why" ] || why=$(wfio md1-after $md 0 180 --size=32M --offset=64M --verify_only=1)
		fi
		run_timed 60 mdadm --stop $md >/dev/null 2>&1 || why="${why:+$why; }mdadm --stop failed"
		mdadm --zero-superblock $devs 2>/dev/null
		tap_result wide_md_raid$lvl "$why"
	done
	for i in 0 1 2 3; do run_timed 30 nullb_remove wmd$i; done
}

# --- loop over a file of an ext4 on the NVMe, direct I/O on and off
wide_loop() {
	local why lo dio
	why=$(mods loop)
	if [ -n "$why" ] || ! run_timed 60 ext4_mount ${NV}p2 /mnt/lo >/tmp/lo.out 2>&1; then
		tap_fail wide_loop "${why:-ext4: $(head -1 /tmp/lo.out)}"
		rc=1
		return
	fi
	run_timed 30 fallocate -l 96M /mnt/lo/f
	for dio in on off; do
		why=
		lo=$(losetup --direct-io=$dio --show -f /mnt/lo/f 2>/tmp/lo.out) || why="losetup: $(head -1 /tmp/lo.out)"
		if [ -z "$why" ]; then
			[ "$(cat /sys/block/${lo#/dev/}/loop/dio)" = "$([ $dio = on ] && echo 1 || echo 0)" ] ||
				why="$lo: dio is $(cat /sys/block/${lo#/dev/}/loop/dio), asked $dio"
			[ -n "$why" ] || why=$(wfio_both "loop-$dio" $lo 180)
			[ -n "$why" ] || why=$(wfio_both "loop-$dio-64k" $lo 180 --bs=64k --offset=40M)
			run_timed 30 losetup -d $lo || why="${why:+$why; }losetup -d failed"
		fi
		tap_result wide_loop_dio_$dio "$why"
	done
	run_timed 60 umount /mnt/lo || { tap_fail wide_loop "umount hung or failed"; rc=1; }
}

# --- zram and brd
wide_ram() {
	local why= z
	if why=$(mods zram); then
		z=$(cat /sys/class/zram-control/hot_add 2>/dev/null || echo 0)
		echo 128M >/sys/block/zram$z/disksize || why="zram$z: disksize refused"
		[ -n "$why" ] || why=$(wfio_both zram /dev/zram$z 180)
		echo 1 >/sys/block/zram$z/reset 2>/dev/null
	fi
	tap_result wide_zram "$why"
	why=
	if ! modprobe brd rd_nr=1 rd_size=65536 2>/tmp/modprobe.out; then
		why="modprobe brd: $(head -1 /tmp/modprobe.out)"
	else
		wait_until 5 test -b /dev/ram0 || why="no /dev/ram0"
		[ -n "$why" ] || why=$(wfio_both brd /dev/ram0 180)
		run_timed 30 modprobe -r brd 2>/dev/null
	fi
	tap_result wide_brd "$why"
}

# --- SCSI: scsi_debug with 4 commands at a time, then with delays and
# with medium errors injected
wide_scsi() {
	local why= sd h e
	if ! modprobe scsi_debug dev_size_mb=128 max_queue=4 medium_error_start=8192 \
		medium_error_count=8 2>/tmp/modprobe.out ||
		! modprobe sd_mod 2>>/tmp/modprobe.out; then
		tap_fail wide_scsi_debug "modprobe: $(head -1 /tmp/modprobe.out)"
		rc=1
		return
	fi
	h=/sys/bus/pseudo/drivers/scsi_debug
	wait_until 10 sh -c "ls -d /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/* >/dev/null 2>&1"
	sd=$(ls -d $h/adapter*/host*/target*/*/block/* 2>/dev/null | head -1)
	sd=${sd##*/}
	if [ -z "$sd" ]; then
		tap_fail wide_scsi_debug "no disk of scsi_debug"
		rc=1
		return
	fi
	echo "# scsi_debug: $sd, can_queue $(cat /sys/block/$sd/device/queue_depth) depth, nr_requests $(cat /sys/block/$sd/queue/nr_requests)"
	why=$(wfio_both sd /dev/$sd 180)
	[ -n "$why" ] || why=$(wfio_both sd-256k /dev/$sd 180 --bs=256k --size=32M --offset=64M)
	tap_result wide_scsi_debug "$why"
	# every command delayed 2 jiffies
	echo 2 >$h/delay
	why=$(wfio_both sd-delay /dev/$sd 180 --size=4M)
	echo 1 >$h/delay
	tap_result wide_scsi_debug_delay "$why"
	# a medium error on sectors 8192-8199 (opts 2): a read of them
	# fails with -ENODATA (BLK_STS_MEDIUM, as on 5.10) and no other
	# error, nothing hangs, the disk reads and writes after
	echo 2 >$h/opts
	why=
	run_timed 60 fio --name=sd-mederr --filename=/dev/$sd --ioengine=io_uring --direct=1 \
		--rw=read --bs=4k --iodepth=8 --offset=0 --size=8M --continue_on_error=all \
		--output-format=normal >/tmp/fio-sd-mederr.out 2>&1
	local r=$?
	echo 0 >$h/opts
	e=$(fio_other_errnos /tmp/fio-sd-mederr.out 61)
	if [ $r = 124 ]; then
		why="fio still running after 60 s on medium errors"
	elif ! grep -q 'No data available' /tmp/fio-sd-mederr.out; then
		why="no read failed with ENODATA on the medium error (fio exit $r: $(grep -m1 -E 'err=|error' /tmp/fio-sd-mederr.out | cut -c1-120))"
	elif [ -n "$e" ]; then
		why="an error other than ENODATA: $e"
	fi
	echo "# scsi_debug medium error: fio exit $r, $(grep -m1 -oE 'err=[ 0-9]*/[^,]*, [^,]*, error=[^,]*' /tmp/fio-sd-mederr.out)"
	[ -n "$why" ] || why=$(wfio sd-after /dev/$sd 0 120 --size=4M)
	tap_result wide_scsi_debug_medium_error "$why"
	run_timed 30 modprobe -r scsi_debug || { tap_fail wide_scsi_debug_unload "modprobe -r hung or failed"; rc=1; }
}

# --- the NVMe target over its loop transport, backed by a file (bvec
# direct I/O, as loop's) and by the NVMe partition
wide_nvmet() {
	local why back n c dev t=/sys/kernel/config/nvmet
	why=$(mods nvmet nvme-loop)
	if [ -n "$why" ]; then
		tap_fail wide_nvmet "$why"
		rc=1
		return
	fi
	mkdir -p /mnt/nt
	run_timed 60 ext4_mount ${NV}p2 /mnt/nt >/dev/null 2>&1 && run_timed 30 fallocate -l 96M /mnt/nt/f
	[ -s /etc/nvme/hostnqn ] || nvme gen-hostnqn >/etc/nvme/hostnqn 2>/dev/null
	mkdir -p $t/ports/1 && echo loop >$t/ports/1/addr_trtype
	for back in file:/mnt/nt/f nvme:/dev/${NV}p1; do
		n=fp-${back%%:*}
		why=
		mkdir $t/subsystems/$n && echo 1 >$t/subsystems/$n/attr_allow_any_host &&
			mkdir $t/subsystems/$n/namespaces/1 &&
			printf %s "${back#*:}" >$t/subsystems/$n/namespaces/1/device_path &&
			echo 1 >$t/subsystems/$n/namespaces/1/enable &&
			ln -s $t/subsystems/$n $t/ports/1/subsystems/$n || why="nvmet configfs for $back refused"
		if [ -z "$why" ]; then
			run_timed 30 nvme connect -t loop -n $n >/tmp/nvme.out 2>&1 || why="nvme connect: $(head -1 /tmp/nvme.out)"
		fi
		dev=
		if [ -z "$why" ]; then
			# nvmet's namespaces are multipath ones: the disk is
			# the subsystem's head, not the controller's path
			for c in /sys/class/nvme-subsystem/nvme-subsys*; do
				[ "$(cat $c/subsysnqn 2>/dev/null)" = $n ] && dev=$(ls -d $c/nvme*n1 2>/dev/null | head -1)
			done
			wait_until 10 test -b /dev/${dev##*/} || why="no namespace of $n"
		fi
		[ -n "$why" ] || why=$(wfio_both "nvmet-${back%%:*}" /dev/${dev##*/} 180)
		run_timed 30 nvme disconnect -n $n >/dev/null 2>&1 || why="${why:+$why; }nvme disconnect failed"
		rm -f $t/ports/1/subsystems/$n
		echo 0 >$t/subsystems/$n/namespaces/1/enable 2>/dev/null
		rmdir $t/subsystems/$n/namespaces/1 $t/subsystems/$n 2>/dev/null
		tap_result wide_nvmet_loop_${back%%:*} "$why"
	done
	rmdir $t/ports/1 2>/dev/null
	run_timed 60 umount /mnt/nt 2>/dev/null
	modprobe -r nvme-loop nvmet 2>/dev/null
}

# --- file systems: a mixed job (io_uring and libaio direct, psync
# buffered with fsync), verified; unmount; the file system's own check
# (io_uring polled too where the file system can poll: 5.10's btrfs has
# no ->iopoll, and io_uring refuses IOPOLL on it)
wide_fs_job() {
	local r hipri=
	[ "$2" = nopoll ] || hipri="--name=uring-hipri --ioengine=io_uring --hipri=1 --direct=1 --rw=randwrite --bs=16k --iodepth=8"
	run_timed 240 fio --directory="$1" --size=16M --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --output-format=terse \
		--name=uring --ioengine=io_uring --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
		$hipri \
		--name=aio --ioengine=libaio --direct=1 --rw=randwrite --bs=64k --iodepth=8 \
		--name=psync --ioengine=psync --rw=write --bs=8k --fsync=16 >/tmp/fio-fs.out 2>&1
	r=$?
	[ $r = 0 ] || echo "$(fio_failure fs $r)"
}

wide_fs() {
	local fs why mkfs fsck
	for fs in ext4 xfs btrfs; do
		why=
		case $fs in
		ext4) mkfs="mkfs.ext4 -q -F" fsck="e2fsck -fn" ;;
		xfs) mkfs="mkfs.xfs -q -f" fsck="xfs_repair -n" ;;
		btrfs) mkfs="mkfs.btrfs -q -f" fsck="btrfs check --readonly" ;;
		esac
		[ $fs = ext4 ] || why=$(mods $fs)
		mkdir -p /mnt/fs
		if [ -z "$why" ]; then
			run_timed 60 $mkfs /dev/${NV}p2 >/tmp/mkfs.out 2>&1 && run_timed 60 mount -t $fs /dev/${NV}p2 /mnt/fs 2>>/tmp/mkfs.out ||
				why="mkfs or mount: $(tail -1 /tmp/mkfs.out)"
		fi
		if [ -z "$why" ]; then
			why=$(wide_fs_job /mnt/fs $([ $fs = btrfs ] && echo nopoll))
			run_timed 60 umount /mnt/fs || why="${why:+$why; }umount hung or failed"
		fi
		[ -n "$why" ] || run_timed 120 $fsck /dev/${NV}p2 >/tmp/fsck.out 2>&1 ||
			why="$fsck: $(grep -v '^$' /tmp/fsck.out | tail -1)"
		tap_result wide_fs_$fs "$why"
	done
	# btrfs raid1 over two null_blk devices, checksums scrubbed
	local a b
	why=
	a=$(nullb_create wbt0 size=256 memory_backed=1 irqmode=1) &&
		b=$(nullb_create wbt1 size=256 memory_backed=1 irqmode=1) || why="no null_blk for btrfs raid1"
	if [ -z "$why" ]; then
		run_timed 60 mkfs.btrfs -q -f -d raid1 -m raid1 /dev/$a /dev/$b >/tmp/mkfs.out 2>&1 &&
			btrfs device scan /dev/$a /dev/$b >/dev/null 2>&1 &&
			run_timed 60 mount -t btrfs /dev/$a /mnt/fs 2>>/tmp/mkfs.out || why="mkfs or mount: $(tail -1 /tmp/mkfs.out)"
	fi
	if [ -z "$why" ]; then
		why=$(wide_fs_job /mnt/fs nopoll)
		run_timed 120 btrfs scrub start -B /mnt/fs >/tmp/scrub.out 2>&1 || why="${why:+$why; }scrub: $(grep -i error /tmp/scrub.out | head -1)"
		grep -q 'no errors found\|Error summary: *no errors' /tmp/scrub.out || why="${why:+$why; }scrub: $(grep -i error /tmp/scrub.out | head -1)"
		run_timed 60 umount /mnt/fs || why="${why:+$why; }umount hung or failed"
	fi
	[ -n "$why" ] || run_timed 120 btrfs check --readonly /dev/$a >/tmp/fsck.out 2>&1 ||
		why="btrfs check: $(tail -1 /tmp/fsck.out)"
	run_timed 30 nullb_remove wbt0 2>/dev/null
	run_timed 30 nullb_remove wbt1 2>/dev/null
	tap_result wide_fs_btrfs_raid1 "$why"
}

# --- schedulers and writeback throttling under polled and unpolled I/O
wide_sched() {
	local s why q=/sys/block/$NV/queue
	modprobe bfq 2>/dev/null
	modprobe kyber-iosched 2>/dev/null
	echo 2000 >$q/wbt_lat_usec || { tap_fail wide_wbt "wbt_lat_usec refused"; rc=1; }
	for s in none mq-deadline kyber bfq; do
		why=
		echo $s >$q/scheduler 2>/dev/null && grep -q "\[$s\]" $q/scheduler ||
			why="scheduler $s refused: $(cat $q/scheduler)"
		[ -n "$why" ] || why=$(wfio_both "sched-$s" /dev/${NV}p1 180 --size=8M)
		tap_result wide_sched_$s "$why"
	done
	echo none >$q/scheduler
	echo -1 >$q/wbt_lat_usec 2>/dev/null
}

# --- blk-cgroup: io.max holds a polled reader to its rate, and io.stat
# counts what it read; io.latency and io.cost on, I/O still verified
wide_cgroup() {
	local cg=/sys/fs/cgroup mm why= n ios rd p
	if ! grep -qw io $cg/cgroup.controllers 2>/dev/null; then
		tap_fail wide_cgroup_io_max "no io controller in cgroup2 ($(cat $cg/cgroup.controllers 2>&1))"
		rc=1
		return
	fi
	echo +io >$cg/cgroup.subtree_control
	mkdir -p $cg/fp
	mm=$(cat /sys/block/$NV/dev)
	echo "$mm riops=100" >$cg/fp/io.max || why="io.max refused"
	if [ -z "$why" ]; then
		poll_mark $NV
		sh -c "echo \$\$ >$cg/fp/cgroup.procs; exec fio --name=cgmax --filename=/dev/${NV}p1 \
			--ioengine=io_uring --hipri=1 --direct=1 --rw=randread --bs=4k --iodepth=8 \
			--time_based --runtime=5 --output-format=terse" >/tmp/fio-cgmax.out 2>&1 &
		end_job $! 90
		n=$?
		# terse v3: field 6 is the KiB read
		ios=$(awk -F';' '/^3;/ { print int($6 / 4) }' /tmp/fio-cgmax.out)
		p=$(poll_check cgmax $NV "${ios:-0}")
		rd=$(sed -n "s/^$mm rbytes=[0-9]* wbytes=[0-9]* rios=\([0-9]*\).*/\1/p" $cg/fp/io.stat)
		echo "# io.max riops=100: fio exit $n, $ios reads in 5 s; io.stat rios ${rd:-none}" >&2
		if [ $n != 0 ]; then
			why="fio in the cgroup: $(fio_failure cgmax $n)"
		elif [ -z "$ios" ] || [ "$ios" -gt 600 ] || [ "$ios" -lt 250 ]; then
			why="$ios reads in 5 s at riops=100"
		elif [ -z "$rd" ] || [ "$rd" -lt "$ios" ]; then
			why="io.stat counted ${rd:-no} reads of fio's $ios"
		else
			why=$p
		fi
	fi
	echo "$mm riops=max" >$cg/fp/io.max 2>/dev/null
	tap_result wide_cgroup_io_max "$why"
	why=
	echo "$mm target=10000" >$cg/fp/io.latency 2>/dev/null || why="io.latency refused"
	echo "$mm enable=1" >$cg/io.cost.qos 2>/dev/null || why="${why:+$why; }io.cost.qos refused"
	if [ -z "$why" ]; then
		sh -c "echo \$\$ >$cg/fp/cgroup.procs; WIDE_FUNCS=1 . /fp/wide.sh; wfio_both cglat /dev/${NV}p1 180 --size=8M" >/tmp/cglat.out 2>&1
		why=$(paste -sd';' /tmp/cglat.out)
	fi
	echo "$mm enable=0" >$cg/io.cost.qos 2>/dev/null
	echo "$mm target=0" >$cg/fp/io.latency 2>/dev/null
	tap_result wide_cgroup_latency_cost "$why"
	rmdir $cg/fp 2>/dev/null
}

# --- bio integrity: the namespace with protection information
wide_integrity() {
	local why=
	if [ -z "$PI" ]; then
		why="no NVMe namespace of serial fp1"
	elif [ ! -e /sys/block/$PI/integrity/format ] ||
		[ "$(cat /sys/block/$PI/integrity/format)" = none ]; then
		why="$PI: no integrity profile ($(cat /sys/block/$PI/integrity/format 2>&1))"
	else
		echo "# $PI: integrity $(cat /sys/block/$PI/integrity/format), tag $(cat /sys/block/$PI/integrity/tag_size)"
		why=$(wfio int-irq /dev/$PI 0 180)
		[ -n "$why" ] || why=$(polled_io int-hipri "$PI" 0)
	fi
	tap_result wide_integrity_polled "$why"
}

# poll_queued DISK: each poll hctx's queued count, "hctxN:Q" words
poll_queued() {
	local h
	for h in /sys/kernel/debug/block/$1/hctx*; do
		[ "$(cat $h/type 2>/dev/null)" = poll ] && printf '%s:%s ' "${h##*/}" "$(cat $h/queued)"
	done
}

# --- CPU hotplug under polled I/O with two poll queues: one fio job on
# each CPU, both poll hctxs carry I/O; CPU 1 goes offline, its poll hctx
# goes inactive and the I/O goes on polled (the job of CPU 1 moves);
# CPU 1 comes back; everything verifies
wide_hotplug() {
	local why= f h st q0 q1 q2 x y t t0
	[ "$(hctx_count $NV poll)" -ge 2 ] || {
		tap_fail wide_cpu_hotplug_polled "$NV has $(hctx_count $NV poll) poll hctxs (2 wanted)"
		rc=1
		return
	}
	# (fio's own clock: under TCG the TSC it calibrates can run fast on
	# a slow kernel, and its 30 s then end early; clock_gettime does not)
	t0=$(date +%s)
	fio --filename=/dev/${NV}p1 --ioengine=io_uring --hipri=1 --direct=1 \
		--clocksource=clock_gettime \
		--rw=randwrite --bs=4k --iodepth=16 --size=8M --time_based --runtime=30 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_backlog=64 \
		--output-format=terse \
		--name=hp0 --cpus_allowed=0 --offset=0 \
		--name=hp1 --cpus_allowed=1 --offset=16M >/tmp/fio-hp.out 2>&1 &
	f=$!
	sleep 2
	q0=$(poll_queued $NV)
	sleep 2
	q1=$(poll_queued $NV)
	echo "# hotplug: poll hctxs before $q0, 2 s later $q1"
	for x in $q0; do
		for y in $q1; do
			[ "${x%%:*}" = "${y%%:*}" ] && [ "${y#*:}" -gt "${x#*:}" ] || continue
			x=
			break
		done
		[ -z "$x" ] || why="${why:+$why; }${x%%:*} carried no polled I/O with a job on each CPU"
	done
	# (30 s of fio: on the debug kernel, jobs of 10 s had ended before
	# CPU 1 was offline)
	t=$(date +%s)
	run_timed 60 sh -c 'echo 0 >/sys/devices/system/cpu/cpu1/online' ||
		why="${why:+$why; }CPU 1 did not go offline"
	echo "# CPU 1 offline in $(($(date +%s) - t)) s"
	st=
	for h in /sys/kernel/debug/block/$NV/hctx*; do
		[ "$(cat $h/type)" = poll ] && grep -q INACTIVE $h/state && st="$st ${h##*/}"
	done
	echo "# CPU 1 offline: inactive poll hctxs:${st:- none}"
	[ -n "$st" ] || why="${why:+$why; }no poll hctx went inactive with CPU 1"
	q1=$(hctx_queued $NV poll)
	sleep 2
	q2=$(hctx_queued $NV poll)
	echo "# CPU 1 offline: poll hctxs +$((q2 - q1)) in 2 s"
	if ! running $f; then
		why="${why:+$why; }fio (30 s) ended before CPU 1 was offline for 2 s ($(($(date +%s) - t0)) s after it started)"
	elif [ $((q2 - q1)) -le 0 ]; then
		why="${why:+$why; }no polled I/O with CPU 1 offline"
	fi
	run_timed 60 sh -c 'echo 1 >/sys/devices/system/cpu/cpu1/online' ||
		why="${why:+$why; }CPU 1 did not come back"
	end_job $f 120
	f=$?
	[ $f = 0 ] || why="${why:+$why; }$(fio_failure hp $f)"
	[ -z "$why" ] || sed 's/^/# fio| /' /tmp/fio-hp.out | cut -c1-200 | head -20
	tap_result wide_cpu_hotplug_polled "$why"
}

# --- memory pressure: polled I/O in a memory cgroup held at its limit
# by a buffered writer of the same cgroup (memory.events must count
# "max"); then with the bio slabs failing allocations (slub_debug=A on
# the command line marks them for failslab): the mempool reserve must
# carry the I/O, and failslab must have failed some
wide_memory() {
	local cg=/sys/fs/cgroup why= s n mx fs=/sys/kernel/debug/failslab
	echo +memory >$cg/cgroup.subtree_control 2>/dev/null
	mkdir -p $cg/fpm /mnt/mc
	if ! echo 32M >$cg/fpm/memory.max 2>/dev/null; then
		why="memory.max refused"
	elif ! run_timed 60 ext4_mount ${NV}p2 /mnt/mc >/tmp/mc.out 2>&1; then
		why="ext4: $(head -1 /tmp/mc.out)"
	else
		sh -c "echo \$\$ >$cg/fpm/cgroup.procs; exec fio --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --output-format=terse \
			--name=memcg-hipri --filename=/dev/${NV}p1 --ioengine=io_uring --hipri=1 \
			--direct=1 --rw=randwrite --bs=64k --iodepth=16 --size=32M \
			--name=memcg-buffered --filename=/mnt/mc/f --ioengine=psync --rw=write \
			--bs=1M --size=160M" >/tmp/fio-memcg.out 2>&1 &
		end_job $! 240
		n=$?
		[ $n = 0 ] || why="$(fio_failure memcg $n)"
		mx=$(sed -n 's/^max //p' $cg/fpm/memory.events)
		echo "# memcg: max 32M, events $(tr '\n' ' ' <$cg/fpm/memory.events)"
		[ "${mx:-0}" -gt 0 ] || why="${why:+$why; }the cgroup never reached its limit"
		run_timed 60 umount /mnt/mc || why="${why:+$why; }umount hung or failed"
	fi
	rmdir $cg/fpm 2>/dev/null
	tap_result wide_memcg_polled "$why"
	why=
	n=0
	for s in /sys/kernel/slab/bio-*; do
		[ "$(cat $s/failslab 2>/dev/null)" = 1 ] && n=$((n + 1))
	done
	echo "# failslab: $n bio slabs marked: $(ls -d /sys/kernel/slab/bio-* | tr '\n' ' ')"
	if [ ! -d $fs ]; then
		why="no $fs"
	elif [ $n = 0 ]; then
		why="no bio slab is marked for failslab (slub_debug=A,bio-*)"
	else
		# only the marked slabs (cache-filter), sleeping allocations
		# too, one in five, at most 100000 times
		echo Y >$fs/cache-filter
		echo N >$fs/ignore-gfp-wait
		echo 0 >$fs/verbose
		echo 100000 >$fs/times
		echo 20 >$fs/probability
		why=$(wfio_both failslab /dev/${NV}p1 180 --size=8M)
		echo 0 >$fs/probability
		n=$(cat $fs/times)
		echo "# failslab: $((100000 - n)) bio allocations failed"
		[ "$n" -lt 100000 ] || why="${why:+$why; }failslab failed no bio allocation"
		[ -n "$why" ] || why=$(wfio failslab-after /dev/${NV}p1 1 120 --size=4M)
	fi
	tap_result wide_failslab_bio "$why"
}

[ -z "${WIDE_FUNCS:-}" ] || return 0

echo "# $(uname -r), $(cat /etc/debian_version), $(fio --version), nvme $NV (poll_queues $(cat /sys/module/nvme/parameters/poll_queues)), PI $PI"
# the groups on the NVMe's partitions, then the others
nv_groups="dm lvm loop nvmet fs sched cgroup hotplug memory"
nv=
for g in $nv_groups; do
	want $g && nv=1
done
if [ -n "$nv" ] && wide_partitions; then
	for g in $nv_groups; do
		want $g && wide_$g
	done
fi
for g in md ram scsi integrity; do
	want $g && wide_$g
done
exit $rc
