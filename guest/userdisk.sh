# userdisk.sh, sourced by boot.sh (boot "userdisk"): the iopoll kselftest
# on an NVMe that holds a user's data.  The boot has one namespace shared
# by two controllers with NVMe multipathing off, so that it shows as two
# disks (nvme0n1, nvme1n1).  The first gets a GPT with three partitions:
# an ext4 on the first with a known file, mounted read-only (so that
# nothing but a test can change the disk); the second made swap and the
# third taken by dm-linear, each in its own step; then the ext4 mounted
# in another mount namespace only, where only an exclusive open sees it.
# The kselftest runs with nothing named, then naming the disk, the other
# disk of the namespace or a partition while each of them is in use.
# Every test that would write to an NVMe must skip with the refusal as
# its reason, and the whole disk but the swap partition must be as before
# (read past the page cache); e2fsck finds the file system clean at the
# end and the file is as written.
# Proves: patch 0001 writes only to a device it was given, and refuses
# one in use.  Fails with: fp_break=nodevcheck (harness/breaks/break.patch:
# the kselftest takes the first NVMe namespace and refuses none).

UD_MNT=/mnt/user
# sectors of 512 bytes: p1 32 MiB, p2 and p3 8 MiB each, 16 MiB free
UD_P2=67584 UD_P3=83968

# ud_range DISK SKIP [COUNT]: "range SKIP: BYTES bytes SHA256" of DISK's
# 64 KiB blocks from SKIP on (COUNT of them), read past the page cache;
# the bytes counted, so that a read that failed is no match
ud_range() {
	dd if=/dev/$1 of=/tmp/ud-range bs=64k skip=$2 ${3:+count=$3} iflag=direct 2>/dev/null
	echo "range $2: $(wc -c </tmp/ud-range) bytes $(sha256sum </tmp/ud-range | cut -d' ' -f1)"
	rm -f /tmp/ud-range
}

# ud_sums DISK: what must not change: the partition table (sfdisk -d), and
# every sector but the swap partition's
ud_sums() {
	echo 3 >/proc/sys/vm/drop_caches
	/sbin/sfdisk -d /dev/$1 2>&1
	ud_range $1 0 $((UD_P2 / 128))
	ud_range $1 $((UD_P3 / 128))
}

# ud_run NAME PLAIN MPATH: the kselftest with IOPOLL_DEV=PLAIN and
# IOPOLL_MPATH_DEV=MPATH (unset when empty), its output in
# /tmp/ud-NAME.out; fails (prints why) unless it ran to its end, every
# test that takes an NVMe skipped for a missing or refused device, and
# the disk's sums are unchanged
ud_run() {
	local name=$1 krc=0
	(
		unset IOPOLL_DEV IOPOLL_MPATH_DEV
		[ -z "$2" ] || export IOPOLL_DEV=$2
		[ -z "$3" ] || export IOPOLL_MPATH_DEV=$3
		exec /fp/iopoll_test
	) >/tmp/ud-$name.out 2>&1 </dev/null &
	end_job $! 300 || krc=$?
	# the harness runs each test in a process group of its own
	killall -KILL iopoll_test 2>/dev/null
	# a test that needs no block device (tmpfs, pipe) may pass; null_blk's
	# skip here (configfs is unmounted); all the others take an NVMe
	awk '
		/^#  RUN / { t = $3 }
		/^1\.\.[0-9]+/ { plan = substr($0, 4) + 0 }
		/^(not )?ok [0-9]+/ {
			n++
			if (t ~ /^nullb\./ || t == "global.iopoll_tmpfs_file" || t == "global.iopoll_pipe")
				next
			nv++
			if ($0 !~ / # SKIP /) { print t " was not refused: " $0; bad = 1; next }
			r = $0
			sub(/.* # SKIP /, "", r)
			if (r !~ /^IOPOLL_(MPATH_)?DEV( is not set: |=.* refused: )/) {
				print t " skipped for another reason: " r; bad = 1
			}
		}
		END {
			if (!plan || n != plan) { print "the kselftest reported " n + 0 " of " plan + 0 " tests"; bad = 1 }
			if (!nv) { print "no test of an NVMe reported"; bad = 1 }
			exit bad
		}' /tmp/ud-$name.out >/tmp/ud-$name.why
	case $krc in 0 | 1) ;; *) echo "the kselftest: exit $krc" >>/tmp/ud-$name.why ;; esac
	ud_sums "$UD_DISK" >/tmp/ud-$name.sums
	cmp -s /tmp/ud-before.sums /tmp/ud-$name.sums ||
		echo "the disk changed: $(diff /tmp/ud-before.sums /tmp/ud-$name.sums | grep '^[-+][^-+]' | head -4 | tr '\n' ' ')" >>/tmp/ud-$name.why
	if [ -s /tmp/ud-$name.why ]; then
		head -3 /tmp/ud-$name.why | tr '\n' ' '
		return 1
	fi
}

# ud_reason NAME VAR WHY: the kselftest's skip reason for VAR (IOPOLL_DEV
# or IOPOLL_MPATH_DEV) in run NAME is WHY (prints what it was)
ud_reason() {
	local got
	got=$(grep -m1 "^ok [0-9]* # SKIP $2[ =]" /tmp/ud-$1.out | sed 's/^ok [0-9]* # SKIP //')
	[ "$got" = "$3" ] || echo "$2: \"$got\", not \"$3\""
}

# ud_test NAME PLAIN MPATH [VAR WHY]...: ud_run, then each skip reason
ud_test() {
	local name=$1 why
	why=$(ud_run "$1" "$2" "$3")
	shift 3
	while [ -z "$why" ] && [ $# -ge 2 ]; do
		why=$(ud_reason "$name" "$1" "$2")
		shift 2
	done
	tap_result "kselftest_$name" "$why"
}

# ud_fail NAME WHY: a test that could not be set up
ud_fail() {
	tap_fail "$1" "$2"
	rc=1
}

userdisk_refused() {
	local d=$(nvme_plain) d2= cfs= w p
	UD_DISK=$d
	for w in /sys/block/nvme*n*; do
		w=${w##*/}
		[ "$w" = "$d" ] || [ -n "$d2" ] || d2=$w
	done
	if [ -z "$d" ] || [ -z "$d2" ] || [ ! -x /sbin/sfdisk ] || [ ! -x /sbin/e2fsck ] ||
		[ ! -x /fp/iopoll_test ]; then
		ud_fail userdisk_made "needs two disks of one NVMe namespace (have '$d' '$d2'), sfdisk, e2fsck and the kselftest"
		return
	fi
	# the same namespace through both controllers
	[ "$(cat /sys/block/$d/wwid)" = "$(cat /sys/block/$d2/wwid)" ] || {
		ud_fail userdisk_made "$d and $d2 are not one namespace (wwid)"
		return
	}
	# a user's disk: GPT, an ext4 with a file, swap, a partition for dm
	w=$(printf 'label: gpt\nstart=2048, size=65536\nstart=%s, size=16384\nstart=%s, size=16384\n' \
		$UD_P2 $UD_P3 | /sbin/sfdisk -q /dev/$d 2>&1) || { ud_fail userdisk_made "sfdisk: $w"; return; }
	wait_until 10 test -b /dev/${d}p3 || { ud_fail userdisk_made "no /dev/${d}p3 after sfdisk"; return; }
	ext4_mount ${d}p1 $UD_MNT >/tmp/ud-mkfs.out || {
		ud_fail userdisk_made "ext4: $(head -1 /tmp/ud-mkfs.out)"
		return
	}
	dd if=/dev/urandom of=$UD_MNT/known bs=1M count=4 2>/dev/null
	sha256sum <$UD_MNT/known >/tmp/ud-before.file
	umount $UD_MNT
	dd if=/dev/urandom of=/dev/${d}p3 bs=1M count=8 oflag=direct 2>/dev/null
	mkswap /dev/${d}p2 >/dev/null 2>&1
	# read-only (noload: no journal replay), so that the sums hold
	mount -t ext4 -o ro,noload /dev/${d}p1 $UD_MNT || { ud_fail userdisk_made "mount -o ro"; return; }
	ud_sums "$d" >/tmp/ud-before.sums
	grep -q "^range 0: $((UD_P2 * 512)) bytes" /tmp/ud-before.sums || {
		ud_fail userdisk_made "could not read the disk: $(tr '\n' ' ' </tmp/ud-before.sums)"
		return
	}
	tap_ok userdisk_made
	# null_blk's tests, which use no NVMe, skip at once without configfs
	if grep -q ' /sys/kernel/config ' /proc/mounts; then
		umount /sys/kernel/config && cfs=1
	fi

	# nothing named: every NVMe test skips, nothing is written
	ud_test unnamed "" "" \
		IOPOLL_DEV "IOPOLL_DEV is not set: name a scratch NVMe namespace, whose data the tests overwrite" \
		IOPOLL_MPATH_DEV "IOPOLL_MPATH_DEV is not set: name a scratch NVMe multipath head, whose data the tests overwrite"
	# the disk named, a partition of it mounted
	ud_test refuses_mounted_partition_of_disk /dev/$d /dev/$d \
		IOPOLL_DEV "IOPOLL_DEV=/dev/$d refused: ${d}p1 is mounted on $UD_MNT" \
		IOPOLL_MPATH_DEV "IOPOLL_MPATH_DEV=/dev/$d refused: ${d}p1 is mounted on $UD_MNT"
	# the mounted partition named
	ud_test refuses_mounted_partition /dev/${d}p1 "" \
		IOPOLL_DEV "IOPOLL_DEV=/dev/${d}p1 refused: ${d}p1 is mounted on $UD_MNT"
	# the other disk of the namespace named (no partitions scanned there)
	ud_test refuses_other_disk_of_namespace /dev/$d2 "" \
		IOPOLL_DEV "IOPOLL_DEV=/dev/$d2 refused: ${d}p1 is mounted on $UD_MNT (the same namespace as $d)"

	umount $UD_MNT
	# the disk named, a partition of it swap
	if w=$(swapon /dev/${d}p2 2>&1); then
		ud_test refuses_swap_partition_of_disk /dev/$d "" \
			IOPOLL_DEV "IOPOLL_DEV=/dev/$d refused: ${d}p2 is swap"
		swapoff /dev/${d}p2
	else
		ud_fail kselftest_refuses_swap_partition_of_disk "swapon: $w"
	fi
	# the disk named, a partition of it held by dm
	if w=$(dmsetup create udtest --readonly --table "0 16384 linear /dev/${d}p3 0" 2>&1); then
		ud_test refuses_held_partition_of_disk /dev/$d "" \
			IOPOLL_DEV "IOPOLL_DEV=/dev/$d refused: ${d}p3 is held by $(ls /sys/block/$d/${d}p3/holders)"
		dmsetup remove udtest
	else
		ud_fail kselftest_refuses_held_partition_of_disk "dmsetup: $w"
	fi
	# the ext4 mounted in another mount namespace only: no mount here, no
	# holder; only the exclusive open sees it (the multipath head's test
	# alone names the disk: each refused test waits 3 s for it)
	mkdir -p /mnt/ns
	unshare -m sh -c "mount -t ext4 -o ro,noload /dev/${d}p1 /mnt/ns && touch /tmp/ud-ns && exec sleep 600" &
	p=$!
	if wait_until 10 test -e /tmp/ud-ns; then
		ud_test refuses_exclusively_open_disk "" /dev/$d \
			IOPOLL_MPATH_DEV "IOPOLL_MPATH_DEV=/dev/$d refused: open(O_EXCL): Device or resource busy"
	else
		ud_fail kselftest_refuses_exclusively_open_disk "no mount in another namespace (unshare -m)"
	fi
	kill $p 2>/dev/null
	wait $p 2>/dev/null
	# a partition in no use named: still refused, only whole namespaces
	mount -t ext4 -o ro,noload /dev/${d}p1 $UD_MNT
	ud_test refuses_partition /dev/${d}p3 "" \
		IOPOLL_DEV "IOPOLL_DEV=/dev/${d}p3 refused: a partition, name the whole namespace"

	[ -z "$cfs" ] || mount -t configfs configfs /sys/kernel/config
	# and the file system is whole, with the file as it was
	echo 3 >/proc/sys/vm/drop_caches
	sha256sum <$UD_MNT/known >/tmp/ud-after.file
	umount $UD_MNT
	if w=$(/sbin/e2fsck -fn /dev/${d}p1 2>&1); then
		w=
	else
		w="e2fsck: $(echo "$w" | tail -2 | tr '\n' ' ')"
	fi
	cmp -s /tmp/ud-before.file /tmp/ud-after.file || w="${w:+$w; }the known file changed"
	tap_result userdisk_data_unchanged "$w"
}
