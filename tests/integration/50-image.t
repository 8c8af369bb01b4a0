#!/bin/bash
# kreg image: the guest initramfs holds the programs, their libraries and an
# /init that reads the job line by line; per-run files are never in it.
. "$KREG_SRC/tests/lib.sh"
for p in busybox fio dbench cpio ldd; do
	command -v $p >/dev/null || [ -x /sbin/$p ] || skip_all "no $p"
done
plan 18

export KREG_DATA_DIR="$SCRATCH/data"

run_kreg image build
is "$RC" 0 "kreg image build exits 0"; [ "$RC" = 0 ] || echo "# $ERR"
is "$OUT" "$SCRATCH/data/images/kreg-initrd.cpio" "and prints the default path"
like "$ERR" "[0-9]+ files \\([0-9]+ shared libraries\\)" "saying what went in"
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

run_kreg image init
like "$OUT" "KREG-OUTPUT-BEGIN" "kreg image init prints the script with its markers"

run_kreg image build --output /proc/kreg-test.cpio
is "$RC" 1 "an output kreg cannot write fails"
like "$ERR" "/proc/kreg-test.cpio" "naming the path"
done_testing
