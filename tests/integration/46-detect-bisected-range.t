#!/bin/bash
# A range a bisection holds ends the level of every metric of its job and
# host (usecase/detect.c): the bisection's step commits are on the line,
# and a metric the bisection does not run on (a latency bucket here) moved
# at its culprit. Judged again at the head against the old baseline, that
# move was suspected at the culprit, asked confirmation runs there and
# bisected over a range of its own, as the real-kernel demo did (72 runs,
# two bisections, for one change). Now the detection at the bisected head
# asks nothing, and a step after the range, at a newer head, is judged
# against the level after it and suspected.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 8

up_init > shas
for n in $(seq 1 12); do up_commit "$n"; done >> shas
up_push
write_atom job.yaml
cat > kreg.yaml <<YAML
data_dir: $DATA_DIR
repos:
  - name: src
    url: $UP
    branches: [main]
hosts:
  - name: hosta
    backend: sim
    seed: 11
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 2% }
jobs:
  - file: job.yaml
    runs: 3
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
run_kreg db init
is "$RC" 0 "db init"

# commit n is id n + 1 (the root is 1). The base c0..c6 has 8 runs each;
# the push c7..c11 was bisected to c9 (steps at c9 and c8, 3 runs each;
# the head c11 12 runs); c12, pushed after, has 8.
#   fio.read_iops        -30% from c9 on: the bisected regression
#   fio.latency_4ms%     x3 from c9 on: nobody bisects it; +40% more at c12
cat > line.py <<'PY'
import random, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
shas = open(sys.argv[2]).read().split()
rnd = random.Random(46)
db.execute("INSERT INTO repos (id, name, url) VALUES (1, 'src', 'x')")
db.execute("INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'job-4k-2s-randread-16m', 'fio-basic', 'x', 'h')")
db.execute("INSERT INTO hosts (id, name, backend) VALUES (1, 'hosta', 'sim')")
db.execute("INSERT INTO metrics (id, name) VALUES (1, 'fio.read_iops'), (2, 'fio.latency_4ms%')")
runs = {c: 8 for c in range(0, 7)}
runs.update({8: 3, 9: 3, 11: 12, 12: 8})
prev = ''
for c, sha in enumerate(shas):
    db.execute("INSERT INTO commits (id, repo_id, sha, parents, subject) VALUES (?, 1, ?, ?, ?)",
               (c + 1, sha, prev, "commit %d" % c))
    prev = sha
    for _ in range(runs.get(c, 0)):
        run = db.execute("INSERT INTO runs (job_id, commit_id, host_id, started, status) VALUES (1, ?, 1, 0, 'ok')",
                         (c + 1,)).lastrowid
        iops = 10000 * (0.7 if c >= 9 else 1)
        lat = 2.0 * (3 if c >= 9 else 1) * (1.4 if c >= 12 else 1)
        db.execute("INSERT INTO samples (run_id, metric_id, value) VALUES (?, 1, ?), (?, 2, ?)",
                   (run, iops * (1 + 0.01 * rnd.gauss(0, 1)), run, lat * (1 + 0.02 * rnd.gauss(0, 1))))
# the regression at the head c11, bisected to c9
db.execute("INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id, "
           "culprit_commit_id, change, state, created, updated) VALUES (1, 1, 1, 1, 1, 8, 12, 10, -0.3, 'bisected', 0, 0)")
db.execute("INSERT INTO bisections (id, regression_id, repo_id, job_id, host_id, metric_id, good_commit_id, "
           "bad_commit_id, state, culprit_commit_id, created, updated) VALUES (1, 1, 1, 1, 1, 1, 8, 12, 'found', 10, 0, 0)")
db.execute("UPDATE regressions SET bisection_id = 1")
db.commit()
PY
python3 line.py "$DATA_DIR/kreg.db" shas
C12=$(sed -n 13p shas)

round=0
detect_at() {	# the detection item of commit id $1, held as the daemon's worker holds it
	round=$((round + 1))
	sql "INSERT INTO work (kind, key, commit_id, job_id, host_id, state, lease_owner, lease_expires,
		attempts, created, updated) VALUES ('detect', 'detect:$1:$round', $1, 1, 1, 'running', 'test',
		strftime('%s','now') + 600, 1, 0, 0)"
	run_kreg work "$(sql "SELECT id FROM work WHERE key = 'detect:$1:$round'")" --lease test --attempt 1
}

detect_at 12
is "$RC" 0 "the detection at the bisected head"
unlike "$ERR" "fio.latency_4ms%: (suspected|.*more runs)" \
	"the latency bucket's move at the culprit is not suspected again"
is "$(sql "SELECT count(*) FROM work WHERE kind = 'run'")" 0 "no runs are asked inside the bisected range"
is "$(sql "SELECT count(*) FROM regressions")" 1 "nothing new is suspected there"

detect_at 13
is "$RC" 0 "the detection at a newer head"
like "$ERR" "detect: fio.latency_4ms%: suspected change \+[34][0-9]\.[0-9]% at ${C12:0:12}" \
	"a step after the bisected range is suspected, at its commit"
no_sanitizer_report "no sanitizer report"
done_testing
