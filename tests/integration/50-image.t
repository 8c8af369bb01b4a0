#!/bin/bash
# kreg image: the guest initramfs holds the programs, their libraries and an
# /init that reads the job line by line; per-run files are never in it.
# Beside it, for qemu hosts, the programs on a read-only ext2 disk of their
# own and a lean initramfs (/init, busybox, symlinks into the disk).
. "$KREG_SRC/tests/lib.sh"
for p in busybox fio dbench cpio ldd mke2fs debugfs e2fsck; do
	command -v $p >/dev/null || [ -x /sbin/$p ] || skip_all "no $p"
done
plan 39

export KREG_DATA_DIR="$SCRATCH/data"

run_kreg image build
is "$RC" 0 "kreg image build exits 0"; [ "$RC" = 0 ] || echo "# $ERR"
is "$OUT" "$SCRATCH/data/images/kreg-initrd.cpio" "and prints the default path"
like "$ERR" "[0-9]+ files \\([0-9]+ shared libraries\\)" "saying what went in"
like "$ERR" "programs' disk, [0-9.]+ MB, and the lean initramfs, [0-9.]+ MB" "and what qemu boots"
no_sanitizer_report "no sanitizer report"
ok "a stamp records what it was made of" test -s data/images/kreg-initrd.cpio.stamp

list=$(cpio -it --quiet < data/images/kreg-initrd.cpio)
like "$list" "^init\$" "the image has /init"
like "$list" "^bin/busybox\$" "busybox"
like "$list" "^usr/bin/fio\$" "fio"
like "$list" "^usr/bin/dbench\$" "dbench"
like "$list" "^sbin/mke2fs\$" "mke2fs"
fio_lib=$(ldd "$(command -v fio)" | awk '/libaio/ { print $3 }' | sed 's|^/||')
like "$list" "^$fio_lib\$" "the shared libraries fio loads ($fio_lib)"
like "$list" "^lib64/ld-linux-x86-64.so.2\$" "and the loader"
like "$list" "^dev/console\$" "a console before devtmpfs"

mkdir x && (cd x && cpio -id --quiet < ../data/images/kreg-initrd.cpio)
ok "/init is executable" test -x x/init
ok "the guest's fio is the host's" cmp x/usr/bin/fio "$(command -v fio)"

# The programs' disk: an ext2 file system holding the same files, sized to
# fit, whole (e2fsck), labelled with the serial /init looks for.
I=data/images
progs=$I/kreg-initrd.progs
ok "the programs' disk is beside the image" test -s $progs
ok "a whole file system (e2fsck -fn)" e2fsck -fn $progs
info=$(dumpe2fs -h $progs 2>/dev/null)
like "$info" "Filesystem volume name: +kreg-progs" "labelled kreg-progs"
free=$(echo "$info" | awk -F: '/^Free blocks/ { print $2 }')
total=$(echo "$info" | awk -F: '/^Block count/ { print $2 }')
ok "sized to fit: $free of $total blocks free (under 10%)" test $((free * 10)) -lt $total
d() { debugfs -R "$1" $progs 2>/dev/null; }
d "dump /usr/bin/fio progs-fio" && ok "the disk's fio is the host's" cmp progs-fio "$(command -v fio)"
like "$(d "stat /usr/bin/fio")" "Mode: +0755" "executable"
like "$(d "ls -p /sbin")" "/mkfs.ext4/" "the mkfs tools in /sbin"
like "$(d "ls -p /lib64")" "/ld-linux-x86-64.so.2/" "the loader"
[ -f /usr/share/dbench/client.txt ] &&
	d "dump /usr/share/dbench/client.txt progs-client" &&
	ok "dbench's loadfile" cmp progs-client /usr/share/dbench/client.txt ||
	ok "dbench's loadfile (none here)" true
is "$(d "ls /bin" | grep -c busybox)" 0 "busybox is not on it: it is in the lean image"

# The lean initramfs: what boots, and symlinks into the disk's mount.
lean=$(cpio -itv --quiet < $I/kreg-initrd-lean.cpio)
like "$lean" " init\$" "the lean image has /init"
like "$lean" " bin/busybox\$" "busybox"
like "$lean" " usr -> progs/usr\$" "/usr a symlink into the programs' mount"
like "$lean" " lib64 -> progs/lib64\$" "/lib64 too (the loader's path)"
like "$lean" " etc/kreg-progs\$" "the mark /init looks for"
ok "nothing of the programs in it" bash -c "! grep -q 'usr/bin/fio' <<< \"\$1\"" _ "$lean"
ok "it is small: $(stat -c %s $I/kreg-initrd-lean.cpio) bytes" \
	test "$(stat -c %s $I/kreg-initrd-lean.cpio)" -lt 10000000

run_kreg image show
is "$RC" 0 "kreg image show exits 0"
like "$OUT" "progs +$SCRATCH/data/images/kreg-initrd.progs: [0-9.]+ MB" "naming the programs' disk and its size"
like "$OUT" "perf +.*-perf.cpio: not built" "and what is not built"

run_kreg image init
like "$OUT" "KREG-OUTPUT-BEGIN" "kreg image init prints the script with its markers"

run_kreg image build --output /proc/kreg-test.cpio
is "$RC" 1 "an output kreg cannot write fails"
like "$ERR" "/proc/kreg-test.cpio" "naming the path"
done_testing
