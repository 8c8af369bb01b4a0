#!/bin/bash
# kreg status: the builds and runs queued or running, and the time they
# will take from this lab's own stored durations: a build clean (the
# first its repo and kernel config compiled here) or incremental at this
# lab's mean of each, runs at their host's mean run, capacity at a time,
# the builds first and then the busiest host; a build under way is said
# as what it is. The expected figures are worked out here from the
# database, not copied from kreg.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 11

ROOT=$(up_init)
write_atom job.yaml
sim_lab_yaml 7 2 5% 3 "  - { name: vm, backend: qemu }" > kreg.yaml
export KREG_CONFIG="$SCRATCH/kreg.yaml"
run_kreg db init
is "$RC" 0 "db init"
# the daemon's poll, by itself: the head's build for vm, 3 runs on each host
run_kreg work --poll src
is "$RC:$(sql "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM work WHERE state = 'queued' ORDER BY id)")" \
	"0:run run run build run run run" "the poll queues a build and six runs"

run_kreg status
like "$OUT" "^estimate: 1 build \(1 clean, none timed here yet\), simhost: 3 runs, none timed here yet, 2 at once, vm: 3 runs, none timed here yet: no estimate, this lab has timed none of it yet$" \
	"a lab that has timed nothing yet gives no figure"

# This lab's history: builds of its ssh config (the first, clean, then
# incremental ones; one taken from the shared cache in no time, one that
# failed), runs on both hosts (and a failed one that hung).
NOW=$(date +%s)
python3 - "$DATA_DIR/kreg.db" "$NOW" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
now = int(sys.argv[2])
job = db.execute("SELECT job_id FROM work WHERE kind = 'run' LIMIT 1").fetchone()[0]
for i, (cfg, secs, status) in enumerate([("ssh", 312, "ok"), ("ssh", 41, "ok"), ("ssh", 0, "ok"),
                                          ("ssh+XFS_FS", 53, "ok"), ("ssh", 7, "failed")]):
    db.execute("INSERT INTO builds (commit_id, tree, config_name, config_hash, status, seconds, started, finished) "
               "VALUES (1, ?, ?, 'h', ?, ?, ?, ?)", ("t%d" % i, cfg, status, secs, now - 5000, now - 5000 + secs))
for host, secs, status in [(1, 10, "ok"), (1, 13, "ok"), (1, 14, "ok"), (2, 30, "ok"), (2, 35, "ok"),
                           (2, 900, "infra_failed")]:
    db.execute("INSERT INTO runs (job_id, commit_id, host_id, started, finished, status) VALUES (?, 1, ?, ?, ?, ?)",
               (job, host, now - 4000, now - 4000 + secs, status))
db.commit()
PY

# The estimate from the database, by the rules above.
expect() {
	python3 - "$DATA_DIR/kreg.db" "$(date +%s)" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
now = int(sys.argv[2])
base = lambda c: (c or "").split("+")[0]
rows = db.execute("SELECT b.id, b.seconds, b.status, c.repo_id, b.config_name FROM builds b "
                  "JOIN commits c ON c.id = b.commit_id WHERE b.status != 'running' AND b.seconds > 0 "
                  "ORDER BY b.id").fetchall()
first = {}
for i, s, st, repo, cfg in rows:
    first.setdefault((repo, base(cfg)), i)
clean = [s for i, s, st, repo, cfg in rows if st == "ok" and first[(repo, base(cfg))] == i]
incr = [s for i, s, st, repo, cfg in rows if st == "ok" and first[(repo, base(cfg))] != i]
mean = lambda v: sum(v) / len(v)
left = 0
for state, repo, cfg, cid in db.execute("SELECT w.state, c.repo_id, w.config_name, w.commit_id FROM work w "
                                         "JOIN commits c ON c.id = w.commit_id WHERE w.kind = 'build' "
                                         "AND w.state IN ('queued', 'running') ORDER BY w.id"):
    est = mean(incr) if (repo, base(cfg)) in first else mean(clean)
    first.setdefault((repo, base(cfg)), 0)
    if state == "running":
        started = db.execute("SELECT started FROM builds WHERE status = 'running' AND commit_id = ?", (cid,)).fetchone()[0]
        est = max(0, est - (now - started))
    left += est
cap = {"simhost": 2, "vm": 1}
busiest = 0
for host, n in db.execute("SELECT h.name, count(*) FROM work w JOIN hosts h ON h.id = w.host_id "
                          "WHERE w.kind = 'run' AND w.state IN ('queued', 'running') GROUP BY h.name"):
    m = db.execute("SELECT avg(r.finished - r.started) FROM runs r JOIN hosts h ON h.id = r.host_id "
                   "WHERE h.name = ? AND r.status = 'ok'", (host,)).fetchone()[0]
    busiest = max(busiest, n * m / cap[host])
print(round(left + busiest), round(mean(clean)), round(mean(incr)))
PY
}
secs() { local s=$1; if [ "$s" -lt 60 ]; then echo "$s s"; else printf '%d min %02d s\n' $((s / 60)) $((s % 60)); fi; }

read -r LEFT CLEAN INCR <<< "$(expect)"
is "$CLEAN $INCR" "312 47" "the lab's clean build (the ssh config's first) and incremental mean (41 and 53 s: a config's needs build in its directory)"
run_kreg status
like "$OUT" "^estimate: 1 build \(1 clean, about $(secs "$CLEAN")\), simhost: 3 runs, about 12 s each, 2 at once, vm: 3 runs, about 33 s each: about $(secs "$LEFT") left$" \
	"the queue: the head's clean build, the runs at each host's mean, and the time left ($LEFT s)"
run_kreg status --json
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; e=json.load(sys.stdin)["estimate"]; print(e["seconds_left"], e["clean_builds"], e["incremental_builds"], e["runs"])')" \
	"$LEFT 1 0 6" "status --json: the same estimate"

# The build under way: said as what it is, and what it has done is off
# the estimate.
sql "UPDATE work SET state = 'running' WHERE kind = 'build';
	INSERT INTO builds (commit_id, tree, config_name, config_hash, status, started)
	VALUES (1, 'head', 'qemu', 'h2', 'running', $(( $(date +%s) - 100 )))"
run_kreg status
like "$OUT" "
  building a kernel \(clean, about $(secs "$CLEAN"); 1 min [45][0-9] s so far\)
" "a build under way: clean, this lab's figure, how long so far"
like "$OUT" "
running:
  - +work 4: build ${ROOT:0:12}, attempt 0
regressions:" "and the running list names it (its commit), and nothing else"
run_kreg status --json
GOT=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["estimate"]["seconds_left"])')
read -r LEFT CLEAN INCR <<< "$(expect)"
ok "the time left is less what it has done ($GOT s, $LEFT s worked out here)" test $((GOT - LEFT)) -ge -5 -a $((GOT - LEFT)) -le 5

# A second head: its build is incremental now that the first is queued.
SHA=$(up_commit 1)
up_push
run_kreg work --poll src
run_kreg status
like "$OUT" "^estimate: 2 builds \(1 clean, about $(secs "$CLEAN"); 1 incremental, about $(secs "$INCR")\), " \
	"a second head's build after it is incremental"
no_sanitizer_report "no sanitizer report"
done_testing
