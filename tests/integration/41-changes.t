#!/bin/bash
# kreg changes: change points along a branch's first-parent line, from the
# runs in the database; side branches left out; subjects made printable.
. "$KREG_SRC/tests/lib.sh"
plan 23

export KREG_DATA_DIR="$SCRATCH/data"
run_kreg db init
is "$RC" 0 "db init"

# 40 commits on master (c20 merges a side commit), 3 runs each of
# fio.read_iops (-15% from c25), fio.read_clat_mean_us (+20% from c25) and
# fio.write_iops (flat), 3% noise, seeded; the side commit's runs are wild.
python3 - "$SCRATCH/data/kreg.db" <<'PY' > shas
import hashlib, random, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rnd = random.Random(4)
sha = lambda s: hashlib.sha1(s.encode()).hexdigest()
db.execute("INSERT INTO repos (id, name, url) VALUES (1, 'linux', 'file:///dev/null')")
db.execute("INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'fio-randread', 'fio', 'x', 'h')")
db.execute("INSERT INTO hosts (id, name, backend) VALUES (1, 'lab1', 'local')")
metrics = {'fio.read_iops': 1, 'fio.read_clat_mean_us': 2, 'fio.write_iops': 3}
for name, i in metrics.items():
    db.execute("INSERT INTO metrics (id, name) VALUES (?, ?)", (i, name))
run = 0
def add_runs(cid, level):
    global run
    for k in range(3):
        run += 1
        db.execute("INSERT INTO runs (id, job_id, commit_id, host_id, started, status) VALUES (?, 1, ?, 1, 0, 'ok')", (run, cid))
        for name, i in metrics.items():
            v = level[name] * (1 + 0.03 * rnd.gauss(0, 1))
            db.execute("INSERT INTO samples (run_id, metric_id, value) VALUES (?, ?, ?)", (run, i, v))
side = sha("side")
db.execute("INSERT INTO commits (id, repo_id, sha, parents, subject) VALUES (100, 1, ?, ?, 'side work')", (side, sha("c10")))
add_runs(100, {'fio.read_iops': 100, 'fio.read_clat_mean_us': 9000, 'fio.write_iops': 10})
prev = ''
for c in range(40):
    s = sha("c%d" % c)
    parents = prev + (' ' + side if c == 20 else '')
    subject = "block: reduce \x1b[31mkblockd CPU" if c == 25 else "commit %d" % c
    db.execute("INSERT INTO commits (id, repo_id, sha, parents, subject) VALUES (?, 1, ?, ?, ?)", (c + 1, s, parents, subject))
    level = {'fio.read_iops': 1000 * (0.85 if c >= 25 else 1),
             'fio.read_clat_mean_us': 500 * (1.2 if c >= 25 else 1), 'fio.write_iops': 300}
    if c != 12:          # one commit never tested
        add_runs(c + 1, level)
    prev = s
    print(s)
db.execute("INSERT INTO branches (repo_id, name, head) VALUES (1, 'master', ?)", (prev,))
db.commit()
PY
C24=$(sed -n 25p shas); C25=$(sed -n 26p shas); C26=$(sed -n 27p shas); C30=$(sed -n 31p shas)

run_kreg changes --job fio-randread --host lab1 --metric fio.read_iops --repo linux --branch master
is "$RC" 0 "changes exits 0"
like "$OUT" "^fio.read_iops: 40 commits, 39 with runs, 117 runs$" "the first-parent line only: 40 commits, the side commit left out"
like "$OUT" "^  ${C25:0:12} +-1[4-6]\.[0-9]%  [0-9.]+ -> [0-9.]+  p=[0-9.e-]+  bisect ${C24:0:12}\.\.${C25:0:12}  block: reduce \?\[31mkblockd CPU$" \
	"the change point is at c25, with the range to bisect and a printable subject"
is "$(printf '%s\n' "$OUT" | grep -c '^  [0-9a-f]\{12\} ')" 1 "and it is the only one"
like "$OUT" "^  newest: (none|more runs at [0-9a-f]{12}): " "the newest commits are judged too, no false alarm"
no_sanitizer_report "no sanitizer report"

run_kreg changes --job fio-randread --host lab1 --repo linux --branch master
is "$RC" 0 "every metric when none is named"
like "$OUT" "^fio.read_clat_mean_us: 40 commits" "the latency is listed"
like "$OUT" "^  ${C25:0:12} +\+[12][0-9]\.[0-9]%" "with its change at c25"
like "$OUT" "fio.write_iops: 40 commits, 39 with runs, 117 runs
  no change points" "the flat metric has none"

# The smallest change the detector sees, from the noise of the current
# level (c25..c39: 15 commits, 45 runs, 3% noise): none at 3 runs against
# 45 (the exact rank test's floor, 2/C(48,3), is over detect.confirm's
# 1e-4); 5.3% here at detect.max_runs (10), 5% at 12 runs.
run_kreg changes --job fio-randread --host lab1 --metric fio.read_iops --repo linux --branch master
like "$OUT" "^  noise: ±[23]\.[0-9]% a run \(45 runs of the baseline\); smallest change seen: none at 3 runs a commit, [345]\.[0-9]% at 10 \(detect.max_runs\) \(5%: ([6-9]|1[0-2]) runs\)$" \
	"the noise, and the smallest change seen at 3 and 10 runs a commit"
run_kreg changes --json --job fio-randread --host lab1 --metric fio.read_iops --repo linux --branch master
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; n=json.load(sys.stdin)["metrics"][0]["noise"]; print(0.02 < n["rsd"] < 0.04, n["baseline_runs"], n["runs"], n["mde"], 0.03 < n["mde_max_runs"] < 0.06, 5 < n["runs_for_5pct"] < 13)')" \
	"True 45 3 None True True" "--json has the noise, the runs and the smallest change seen"
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin)["metrics"][0]; c=d["change_points"][0]; print(len(d["change_points"]), c["commit"], c["prev"], c["bisect_good"], c["bisect_bad"], round(c["change"], 2) < -0.1)')" \
	"1 $C25 $C24 $C24 $C25 True" "--json has the change point, its parent, the range to bisect, the change"

run_kreg changes --job fio-randread --host lab1 --metric fio.read_iops --repo linux --head ${C30:0:10}
like "$OUT" "^fio.read_iops: 31 commits" "--head starts from that commit"
like "$OUT" "^  ${C25:0:12} " "and still finds c25"

run_kreg changes --job fio-randread --host lab1 --metric fio.read_iops --repo linux --branch master --limit 10
like "$OUT" "^fio.read_iops: 10 commits, 10 with runs, 30 runs
  no change points" "--limit keeps the newest commits only"

# right after the step, the detector calls it at c25
run_kreg changes --job fio-randread --host lab1 --metric fio.read_iops --repo linux --head $C26
like "$OUT" "newest: change at ${C25:0:12}: -1[4-6]\.[0-9]% from commit 25 on \(6 runs\)" "the detector calls the step at c25 two commits in"

# bad input
run_kreg changes --host lab1 --repo linux --branch master
is "$RC" 2 "--job is needed"
run_kreg changes --job fio-randread --host lab1 --repo linux --branch next
like "$ERR" "branch 'next' of 'linux' has not been polled yet" "an unknown branch is named"
run_kreg changes --job nojob --host lab1 --repo linux --branch master
like "$ERR" "job 'nojob' has no runs in the database" "an unknown job is named"
run_kreg changes --job fio-randread --host lab1 --repo linux --head 0123456789
is "$RC" 1 "an unknown head fails"
run_kreg changes --job fio-randread --host lab1 --repo linux --branch master --limit x
is "$RC" 2 "a bad --limit is a usage error"
done_testing
