#!/bin/bash
# kreg image: the guest initramfs holds the programs, their libraries and an
# /init that reads the job line by line; per-run files are never in it.
# Beside it, for qemu hosts, the programs on a read-only ext2 disk of their
# own and a lean initramfs (/init, busybox, symlinks into the disk).
. "$KREG_SRC/tests/lib.sh"
for p in busybox fio dbench cpio ldd mke2fs debugfs e2fsck; do
	command -v $p >/dev/null || [ -x /sbin/$p ] || skip_all "no $p"
done
plan 36

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

# The programs' disk: an ext2 file system holding the image's large files
# (16 MiB or more: ICU's data, dbench's loadfile), sized to fit, whole
# (e2fsck), labelled with the serial /init looks for.
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
large=$(cd x && find . -type f -size +16383k | sed 's|^\.||' | sort)
ok "the full image has large files ($(echo $large))" test -n "$large"
lean=$(cpio -itv --quiet < $I/kreg-initrd-lean.cpio)
on_disk=ok linked=ok
for f in $large; do
	d "dump $f progs-file" && cmp -s progs-file "x$f" || on_disk="$f is not"
	grep -q " ${f#/} -> /progs$f\$" <<< "$lean" || linked="$f is not"
done
is "$on_disk" ok "each is on the disk"
is "$linked" ok "and a symlink into its mount in the lean image"
like "$(d "stat $(echo "$large" | head -1)")" "Mode: +0[67][0-9][0-9]" "with its mode"

# The lean initramfs: the rest as in the full image, and the mark /init
# looks for.
like "$lean" " init\$" "the lean image has /init"
like "$lean" " bin/busybox\$" "busybox"
like "$lean" " usr/bin/fio\$" "fio: what a job runs is in memory as before"
like "$lean" " etc/kreg-progs\$" "the mark /init looks for"
list_lean=$(cpio -it --quiet < $I/kreg-initrd-lean.cpio | grep -v '^progs$' | grep -v '^etc/kreg-progs$')
is "$list_lean" "$list" "the same names as the full image"
ok "about half its size: $(stat -c %s $I/kreg-initrd-lean.cpio) bytes" \
	test "$(stat -c %s $I/kreg-initrd-lean.cpio)" -lt $(($(stat -c %s $I/kreg-initrd.cpio) * 2 / 3))

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
