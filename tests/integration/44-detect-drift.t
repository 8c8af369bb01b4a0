#!/bin/bash
# The daemon's detection step (usecase/detect.c) on a level that creeps: the
# detector sees the newest commits above their baseline (and asks for runs
# to place a step that is not there), but the segmentation
# (stats/segment.h) sees a drift through them and no step, so the worker
# reports one drift with its slope, suspects nothing and runs nothing. A
# step on a flat level, and a step on top of a drift, are still suspected
# at their commit. The history is stored samples (3 runs a commit, 1%
# noise, seeded); each detection is one `kreg work` item, as the daemon's
# worker runs it, and the runs it queues are played from the same model.
. "$KREG_SRC/tests/lib.sh"
plan 16

DATA_DIR="$SCRATCH/data"
cat > kreg.yaml <<YAML
data_dir: $DATA_DIR
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
run_kreg db init
is "$RC" 0 "db init"
sql() { sqlite3 -cmd ".timeout 10000" "$DATA_DIR/kreg.db" "$1"; }

# One first-parent line of 40 commits, c0..c39, the head c39:
#   fio.read_iops      flat over c0..c23, then +1.5% a commit over c24..c39
#   fio.write_iops     flat, then -20% from c37 (3 commits at the new level)
#   fio.read_bw_MBps   +1.5% a commit over c24..c36, then -20% from c37
# A second line, branch 'late', the same c0..c36 then c37'..c39' (ids
# 137..139) that keep creeping: there the detection sees drifts alone.
cat > model.py <<'PY'
import hashlib, random, sqlite3, sys
db = sqlite3.connect(sys.argv[2])
rnd = random.Random(44 + int(sys.argv[3]) if len(sys.argv) > 3 else 44)
sha = lambda s: hashlib.sha1(s.encode()).hexdigest()
metrics = {'fio.read_iops': 1, 'fio.write_iops': 2, 'fio.read_bw_MBps': 3}
def creep(c):
    return 1.015 ** max(0, c - 23)
def level(cid):
    c, late = (cid - 1, False) if cid <= 40 else (cid - 100, True)
    step = 0.8 if c >= 37 and not late else 1
    return {'fio.read_iops': 10000 * creep(c), 'fio.write_iops': 5000 * step,
            'fio.read_bw_MBps': 400 * creep(c if late else min(c, 36)) * step}
def add_run(cid):
    run = db.execute("INSERT INTO runs (job_id, commit_id, host_id, started, status) VALUES (1, ?, 1, 0, 'ok')", (cid,)).lastrowid
    for name, v in level(cid).items():
        db.execute("INSERT INTO samples (run_id, metric_id, value) VALUES (?, ?, ?)",
                   (run, metrics[name], v * (1 + 0.01 * rnd.gauss(0, 1))))
if sys.argv[1] == 'init':
    db.execute("INSERT INTO repos (id, name, url) VALUES (1, 'linux', 'file:///dev/null')")
    db.execute("INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'fio-randread', 'fio', 'x', 'h')")
    db.execute("INSERT INTO hosts (id, name, backend) VALUES (1, 'lab1', 'local')")
    for name, i in metrics.items():
        db.execute("INSERT INTO metrics (id, name) VALUES (?, ?)", (i, name))
    prev = ''
    for cid in list(range(1, 41)) + [137, 138, 139]:
        s = sha("c%d" % (cid - 1)) if cid <= 40 else sha("late%d" % cid)
        if cid == 137:
            prev = sha("c36")
        db.execute("INSERT INTO commits (id, repo_id, sha, parents, subject) VALUES (?, 1, ?, ?, ?)",
                   (cid, s, prev, "commit %d" % cid))
        for k in range(3):
            add_run(cid)
        print(s)
        prev = s
else:
    # the run items the detection queued, done as the daemon's worker would
    for wid, cid in db.execute("SELECT id, commit_id FROM work WHERE kind = 'run' AND state = 'queued'").fetchall():
        add_run(cid)
        db.execute("UPDATE work SET state = 'done' WHERE id = ?", (wid,))
db.commit()
PY
python3 model.py init "$DATA_DIR/kreg.db" > shas
C24=$(sed -n 25p shas); C37=$(sed -n 38p shas)

# the detection work item of a commit, held as the daemon's worker holds it
round=0
detect_at() {
	round=$((round + 1))
	sql "INSERT INTO work (kind, key, commit_id, job_id, host_id, state, lease_owner,
		lease_expires, attempts, created, updated)
	     VALUES ('detect', 'detect:$1:$round', $1, 1, 1, 'running', 'test', strftime('%s','now') + 600, 1, 0, 0)"
	run_kreg work "$(sql "SELECT id FROM work WHERE key = 'detect:$1:$round'")" --lease test --attempt 1
}
queued_runs() { sql "SELECT count(*) FROM work WHERE kind = 'run' AND state = 'queued'"; }

# late's head: drifts alone; a step was suspected there before the drift
# showed (its confirmation runs are in)
sql "INSERT INTO regressions (job_id, host_id, metric_id, base_commit_id, bad_commit_id, change,
	state, created, updated) VALUES (1, 1, 1, 137, 139, 0.03, 'suspected', 0, 0)"
detect_at 139
is "$RC" 0 "detection at the head of a creeping line"
like "$ERR" "detect: fio.read_iops at [0-9a-f]{12}: a drift, not a step: \+[0-9.]+% over [0-9]+ commits from [0-9a-f]{12} \(\+1\.[0-9]*% a commit\); nothing suspected" \
	"the detector's call is one drift, with its slope (+1.5% a commit)"
first=$(printf '%s\n' "$ERR" | sed -n 's/.*fio.read_iops.*a drift, not a step: .* commits from \([0-9a-f]*\) .*/\1/p' | head -1)
ok "the drift starts where the creep does (c24 = ${C24:0:12}, found ${first:-none})" \
	test -n "$first" -a "$(sql "SELECT id BETWEEN 23 AND 27 FROM commits WHERE sha LIKE '$first%'")" = 1
like "$ERR" "detect: fio.read_bw_MBps at [0-9a-f]{12}: a drift, not a step" "so is the other creeping metric's"
is "$(queued_runs)" 0 "no runs asked to place a step along the drift"
is "$(sql "SELECT count(*) FROM regressions WHERE state != 'not_reproduced'")" 0 "nothing suspected along the drift"
is "$(sql "SELECT state FROM regressions WHERE bad_commit_id = 139")" "not_reproduced" \
	"the step suspected at the head before is not reproduced: it is a drift"

# master's head: the drift, a step on a flat level, a step on top of a
# drift; the runs each detection asks for are made, then it runs again
log=
for i in 1 2 3 4 5; do
	detect_at 40
	[ "$RC" = 0 ] || break
	log="$log
$ERR"
	[ "$(queued_runs)" = 0 ] && break
	python3 model.py runs "$DATA_DIR/kreg.db" $i
done
is "$RC" 0 "detections at the head of master ($round in all)"
like "$log" "detect: fio.read_iops at [0-9a-f]{12}: a drift, not a step" "fio.read_iops is a drift there too"
unlike "$log" "fio.read_iops: .*more runs|fio.read_iops: suspected" "and gets no runs and no suspicion"
is "$(sql "SELECT count(*) FROM regressions r JOIN metrics m ON m.id = r.metric_id
	   WHERE m.name = 'fio.read_iops' AND r.state = 'suspected'")" 0 "no fio.read_iops row is suspected"
is "$(sql "SELECT c.sha FROM regressions r JOIN metrics m ON m.id = r.metric_id
	   JOIN commits c ON c.id = r.bad_commit_id WHERE m.name = 'fio.write_iops' AND r.state = 'suspected'")" \
	"$C37" "the -20% step on a flat level is suspected at its commit"
is "$(sql "SELECT c.sha FROM regressions r JOIN metrics m ON m.id = r.metric_id
	   JOIN commits c ON c.id = r.bad_commit_id WHERE m.name = 'fio.read_bw_MBps' AND r.state = 'suspected'")" \
	"$C37" "the -20% step on top of a drift is suspected at its commit"
unlike "$log" "fio.read_bw_MBps at [0-9a-f]{12}: a drift" "and is never taken for a drift"
no_sanitizer_report "no sanitizer report"
done_testing
