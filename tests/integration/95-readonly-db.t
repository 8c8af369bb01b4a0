#!/bin/bash
# Read commands open the database read-only (issue 13 item 10): a database
# the user may only read can still be described, checked, its bisections
# listed and its web site made (into a directory the user may write).
. "$KREG_SRC/tests/lib.sh"
export KREG_DATA_DIR="$SCRATCH/data"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
plan 10

run_kreg db init
is "$RC" 0 "db init"
chmod 444 data/kreg.db
chmod 555 data
# root may write anything: read as nobody then
as_reader() { "$@"; }
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip_all "running as root without setpriv"
	chmod 755 "$SCRATCH"
	as_reader() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
fi
run_ro() {
	as_reader "$KREG" "$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err"
	RC=$?
	OUT=$(cat "$SCRATCH/.out")
	ERR=$(cat "$SCRATCH/.err")
}

run_ro db info
is "$RC" 0 "db info reads a read-only database"
like "$OUT" "schema version: [0-9]+" "and describes it"
run_ro db check
is "$RC" 0 "db check reads it"
run_ro bisect status
is "$RC" 0 "bisect status reads it"
unlike "$ERR" "readonly database" "no 'attempt to write a readonly database'"
mkdir -m 777 "$SCRATCH/www"
run_ro report -o "$SCRATCH/www/site"
is "$RC" 0 "kreg report reads it ($ERR)"
ok "and writes the site" test -s "$SCRATCH/www/site/index.html"
# a command that writes still says why it cannot
printf 'runtime: 1s\nfio-setup-basic:\n  test_size: 1m\nfio:\n' > "$SCRATCH/a.yaml"
chmod 644 "$SCRATCH/a.yaml"
run_ro job run "$SCRATCH/a.yaml" --host local
is "$RC" 1 "job run cannot write there"
like "$ERR" "kreg.db|data" "and names the database or its directory"
chmod 755 data
done_testing
