#!/bin/bash
# make install honours PREFIX and DESTDIR and installs what a lab needs.
. "$KREG_SRC/tests/lib.sh"
plan 11

# A copy of the tree keeps the check from racing the build in the source.
make -s -C "$KREG_SRC" kreg >/dev/null 2>&1
dest="$SCRATCH/root"
make -s -C "$KREG_SRC" install PREFIX=/opt/kreg DESTDIR="$dest" >"$SCRATCH/install.log" 2>&1
is "$?" 0 "make install exits 0"
ok "the binary is in PREFIX/bin" test -x "$dest/opt/kreg/bin/kreg"
ok "the man page is installed" test -f "$dest/opt/kreg/share/man/man1/kreg.1"
ok "the example configuration is installed" test -f "$dest/opt/kreg/share/kreg/kreg.example.yaml"
ok "a configuration is put in /etc/kreg" test -f "$dest/etc/kreg/kreg.yaml"
ok "the systemd unit is installed" test -f "$dest/opt/kreg/lib/systemd/system/kreg.service"
like "$(cat "$dest/opt/kreg/lib/systemd/system/kreg.service")" "ExecStart=/opt/kreg/bin/kreg -c /etc/kreg/kreg.yaml daemon" \
	"the unit runs the installed binary with the installed configuration"
ok "the kernel demo's scripts, SMTP server and job are installed" test -x "$dest/opt/kreg/share/kreg/demo/kernel-demo.sh" \
	-a -x "$dest/opt/kreg/share/kreg/demo/series.sh" -a -x "$dest/opt/kreg/share/kreg/demo/smtp-server.py" \
	-a -f "$dest/opt/kreg/share/kreg/jobs/fio-blk-4k.yaml"
ok "the sim demo's script is installed, with the jobs it runs" test -x "$dest/opt/kreg/share/kreg/demo/sim-demo.sh" \
	-a -f "$dest/opt/kreg/share/kreg/jobs/fio-quick.yaml" -a -f "$dest/opt/kreg/share/kreg/jobs/dbench-quick.yaml"

# The installed kreg finds its shipped files under its own prefix, here
# below DESTDIR, and runs the installed demo (no source tree beside it).
out=$(cd "$SCRATCH" && "$dest/opt/kreg/bin/kreg" demo --sim --no-local --dir idemo 2>&1)
is "$?" 0 "the installed kreg runs the installed sim demo"
like "$out" "^kreg demo: done\. The lab stays in idemo" "to its end"
done_testing
