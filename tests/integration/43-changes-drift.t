#!/bin/bash
# kreg changes on a history that creeps: stored samples of a metric that
# drifts +15% over 50 commits are one drift with its slope, not a
# staircase of steps; a step after the drift is still a step; a short
# history with one run a commit still shows its step.
. "$KREG_SRC/tests/lib.sh"
plan 14

export KREG_DATA_DIR="$SCRATCH/data"
run_kreg db init
is "$RC" 0 "db init"

# 60 commits on master, 3 runs each, 3% noise, seeded:
#   fio.read_iops   +15% along a line over c0..c49, then -10% at c50
#   fio.write_iops  flat
# and on branch 'short', 14 commits of one run each, +15% from c7.
python3 - "$SCRATCH/data/kreg.db" <<'PY' > shas
import hashlib, random, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rnd = random.Random(43)
sha = lambda s: hashlib.sha1(s.encode()).hexdigest()
db.execute("INSERT INTO repos (id, name, url) VALUES (1, 'linux', 'file:///dev/null')")
db.execute("INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'fio-randread', 'fio', 'x', 'h')")
db.execute("INSERT INTO hosts (id, name, backend) VALUES (1, 'lab1', 'local')")
metrics = {'fio.read_iops': 1, 'fio.write_iops': 2}
for name, i in metrics.items():
    db.execute("INSERT INTO metrics (id, name) VALUES (?, ?)", (i, name))
run = 0
def add_runs(cid, level, runs):
    global run
    for k in range(runs):
        run += 1
        db.execute("INSERT INTO runs (id, job_id, commit_id, host_id, started, status) VALUES (?, 1, ?, 1, 0, 'ok')", (run, cid))
        for name, i in metrics.items():
            v = level[name] * (1 + 0.03 * rnd.gauss(0, 1))
            db.execute("INSERT INTO samples (run_id, metric_id, value) VALUES (?, ?, ?)", (run, i, v))
prev = ''
for c in range(60):
    s = sha("c%d" % c)
    db.execute("INSERT INTO commits (id, repo_id, sha, parents, subject) VALUES (?, 1, ?, ?, ?)", (c + 1, s, prev, "commit %d" % c))
    read = 1000 * (1 + 0.15 * min(c, 49) / 49) * (0.9 if c >= 50 else 1)
    add_runs(c + 1, {'fio.read_iops': read, 'fio.write_iops': 300}, 3)
    prev = s
    print(s)
db.execute("INSERT INTO branches (repo_id, name, head) VALUES (1, 'master', ?)", (prev,))
prev = ''
for c in range(14):
    s = sha("s%d" % c)
    db.execute("INSERT INTO commits (id, repo_id, sha, parents, subject) VALUES (?, 1, ?, ?, ?)", (100 + c, s, prev, "short %d" % c))
    add_runs(100 + c, {'fio.read_iops': 1000 * (1.15 if c >= 7 else 1), 'fio.write_iops': 300}, 1)
    prev = s
    print(s)
db.execute("INSERT INTO branches (repo_id, name, head) VALUES (1, 'short', ?)", (prev,))
db.commit()
PY
C0=$(sed -n 1p shas); C49=$(sed -n 50p shas); C50=$(sed -n 51p shas); C47=$(sed -n 48p shas)
S6=$(sed -n 67p shas); S7=$(sed -n 68p shas)

run_kreg changes --job fio-randread --host lab1 --metric fio.read_iops --repo linux --branch master
is "$RC" 0 "changes exits 0"
like "$OUT" "^  drift ${C0:0:12}\.\.[0-9a-f]{12} +\+1[2-8]\.[0-9]% over [0-9]+ commits: \+0\.[23][0-9]*%/commit \(\+[23]\.[0-9]+ a commit\)  [0-9.]+ -> [0-9.]+$" \
	"the creep is one drift from c0, about +15% at +0.3%/commit"
is "$(printf '%s\n' "$OUT" | grep -c '^  drift ')" 1 "one drift"
like "$OUT" "^  ${C50:0:12}  +-(9|1[0-2])\.[0-9]%  [0-9.]+ -> [0-9.]+  p=[0-9.e-]+  bisect [0-9a-f]{12}\.\.${C50:0:12}  commit 50$" \
	"the step at c50 is a step"
is "$(printf '%s\n' "$OUT" | grep -c '^  [0-9a-f]\{12\} ')" 1 "and the only one: no staircase along the drift"

run_kreg changes --json --job fio-randread --host lab1 --metric fio.read_iops --repo linux --branch master
is "$(printf '%s' "$OUT" | python3 -c '
import json, sys
m = json.load(sys.stdin)["metrics"][0]
d = m["drifts"][0]
print(len(m["drifts"]), d["first"], 0.0025 < d["rel_slope"] < 0.0037, 2.5 < d["slope"] < 3.7,
      0.12 < d["change"] < 0.18, d["to"] > d["from"], len(m["change_points"]))')" \
	"1 $C0 True True True True 1" "--json has the drift: first commit, slope (true: 0.31%/commit, 3.06 a commit), change"
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin)["metrics"][0]["drifts"][0]; print(d["last"] in sys.argv[1:])' $(sed -n 45,50p shas))" \
	"True" "the drift ends at c44..c49 (it is c49)"

run_kreg changes --job fio-randread --host lab1 --metric fio.write_iops --repo linux --branch master
like "$OUT" "fio.write_iops: 60 commits, 60 with runs, 180 runs
  no change points" "the flat metric has neither steps nor drifts"

# 14 commits of one run: too short for E-Divisive's rank test
run_kreg changes --job fio-randread --host lab1 --metric fio.read_iops --repo linux --branch short
is "$RC" 0 "a short branch"
like "$OUT" "^fio.read_iops: 14 commits, 14 with runs, 14 runs$" "14 commits of one run"
like "$OUT" "^  ${S7:0:12}  +\+1[2-8]\.[0-9]%  .*bisect [0-9a-f]{12}\.\.[0-9a-f]{12}  short 7$" "its +15% step at s7 is found"
is "$(printf '%s\n' "$OUT" | grep -c '^  drift ')" 0 "and is not a drift"
no_sanitizer_report "no sanitizer report"
done_testing
