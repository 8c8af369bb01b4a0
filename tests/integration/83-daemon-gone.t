#!/bin/bash
# One daemon per database, whatever the path it is reached by, and a
# daemon whose database or data directory is deleted stops:
#   - a hard link to the database, named in another kreg.yaml: the second
#     daemon finds the database locked and names the first one's pid;
#   - rm -rf of the data directory: the daemon stops at once, exit
#     non-zero, its last log line naming the database; after `kreg db
#     init` a daemon starts on the new database, alone.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 13

ROOT=$(up_init)
write_atom job.yaml
cfg() {
	cat <<YAML
$(lab_yaml)
database: $1
hosts:
  - name: simhost
    backend: sim
    seed: 3
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 2% }
jobs:
  - { file: job.yaml, runs: 2 }
YAML
}
cfg "$DATA_DIR/kreg.db" > kreg.yaml
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 120 "the daemon tests the first head" idle_at "$ROOT"

mkdir other
ln "$DATA_DIR/kreg.db" other/linked.db
cfg "$SCRATCH/other/linked.db" > other.yaml
KREG_CONFIG="$SCRATCH/other.yaml" run_kreg daemon --once --foreground
like "$RC:$ERR" "^1:.*another kreg daemon \\(pid $DPID\\) runs on $SCRATCH/other/linked.db" \
	"a second daemon on a hard link of the database is refused, naming the first one's pid"
is "$(sql "SELECT count(*) FROM work WHERE state = 'queued'")" 0 "and did nothing to it"
run_kreg status
like "$OUT" "daemon: running \\(pid $DPID\\)" "kreg status names the daemon holding the lock"
rm other/linked.db

rm -rf "$DATA_DIR"
stopped() { ! kill -0 "$DPID" 2>/dev/null; }
wait_for 30 "the daemon stops when its data directory is deleted" stopped
wait "$DPID" 2>/dev/null; DRC=$?; DPID=
ok "with a non-zero exit status ($DRC)" test "$DRC" != 0
like "$(cat daemon.log)" "error\\]: the database $DATA_DIR/kreg.db was deleted.*: stopping" \
	"its log names the database and says it was deleted"
is "$(grep -c "poll failed" daemon.log)" 0 "no poll failing each second meanwhile"

run_kreg db init
is "$RC" 0 "kreg db init makes a new database"
: > daemon.log
daemon_start
wait_for 120 "a daemon starts on it and tests the head" idle_at "$ROOT"
run_kreg daemon --once --foreground
like "$RC:$ERR" "^1:.*another kreg daemon \\(pid $DPID\\)" "a second one on the new database is refused"

# The database file replaced under a running daemon (a restore from a
# backup, say): it stops too.
cp "$DATA_DIR/kreg.db" restored.db
mv restored.db "$DATA_DIR/kreg.db"
wait_for 30 "the daemon stops when its database is replaced" stopped
like "$(cat daemon.log)" "the database $DATA_DIR/kreg.db was replaced by another file: stopping" "and says so"
DPID=
done_testing
