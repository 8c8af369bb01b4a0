# Shared by the tests of the daemon's detection step on stored samples
# (45, 46): a real upstream repository whose main line is the history, its
# runs and samples written straight into the database, and the detection
# work item run as the daemon's worker runs it. Sources daemon-lib.sh.
#
#   stored_lab N LINES      $UP's main line of N commits after the root
#                           ("commit 1".."commit N"; their shas, oldest first,
#                           in $SCRATCH/shas), kreg.yaml with the sim host
#                           "hosta" and job.yaml, the database made, and the
#                           samples of LINES stored: one line per commit of
#                           the line, root first, "METRIC V V ...;METRIC V ..."
#                           (an empty line: no runs); commit i's id is i + 1;
#                           $STORED_TRAILER_i, when set, is commit i's trailer
#                           (a sim host's "Sim-Effect: METRIC -20%")
#   stored_atom             the jobs row's YAML made the atom of job.yaml, so
#                           the sim host can run it (stored_lab stores a stand-in)
#   sha_of ID               the sha of commit id ID
#   detect_at ID            the detection item of commit id ID, held and run as
#                           the daemon's worker does: $RC, $ERR as run_kreg's
#   run_item ID             a queued work item ID claimed and run as the daemon
#                           claims and runs it (a run on the sim host, a
#                           detection): $RC, $ERR as run_kreg's
. "$KREG_SRC/tests/integration/daemon-lib.sh"

stored_lab() {
	up_init > "$SCRATCH/shas"
	for n in $(seq 1 "$1"); do
		local trailer="STORED_TRAILER_$n"
		up_commit "$n" "${!trailer:-}"
	done >> "$SCRATCH/shas"
	up_push
	write_atom job.yaml
	cat > kreg.yaml <<YAML
$(lab_yaml)
hosts:
  - name: hosta
    backend: sim
    seed: 11
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 4% }
jobs:
  - file: job.yaml
    runs: 3
YAML
	export KREG_CONFIG="$SCRATCH/kreg.yaml"
	run_kreg db init
	is "$RC" 0 "db init"
	python3 - "$DATA_DIR/kreg.db" "$SCRATCH/shas" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
shas = open(sys.argv[2]).read().split()
lines = open(sys.argv[3]).read().split('\n')
db.execute("INSERT INTO repos (id, name, url) VALUES (1, 'src', 'x')")
# the atom's name, as `kreg job split job.yaml` gives it
db.execute("INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'job-4k-2s-randread-16m', 'fio-basic', 'x', 'h')")
db.execute("INSERT INTO hosts (id, name, backend) VALUES (1, 'hosta', 'sim')")
metrics = {}
prev = ''
for cid, sha in enumerate(shas, 1):
    db.execute("INSERT INTO commits (id, repo_id, sha, parents, subject) VALUES (?, 1, ?, ?, ?)",
               (cid, sha, prev, "commit %d" % (cid - 1) if cid > 1 else "root"))
    prev = sha
    per_metric = [m.split() for m in (lines[cid - 1] if cid <= len(lines) else '').split(';') if m.strip()]
    for k in range(max((len(m) - 1 for m in per_metric), default=0)):
        run = db.execute("INSERT INTO runs (job_id, commit_id, host_id, started, status) VALUES (1, ?, 1, 0, 'ok')",
                         (cid,)).lastrowid
        for m in per_metric:
            if m[0] not in metrics:
                metrics[m[0]] = db.execute("INSERT INTO metrics (name) VALUES (?)", (m[0],)).lastrowid
            db.execute("INSERT INTO samples (run_id, metric_id, value) VALUES (?, ?, ?)",
                       (run, metrics[m[0]], float(m[k + 1])))
db.commit()
PY
}

sha_of() { sed -n "${1}p" "$SCRATCH/shas"; }

_detect_round=0
detect_at() {
	_detect_round=$((_detect_round + 1))
	sql "INSERT INTO work (kind, key, commit_id, job_id, host_id, state, lease_owner, lease_expires,
		attempts, created, updated) VALUES ('detect', 'detect:$1:$_detect_round', $1, 1, 1, 'running',
		'test', strftime('%s','now') + 600, 1, 0, 0)"
	run_kreg work "$(sql "SELECT id FROM work WHERE key = 'detect:$1:$_detect_round'")" --lease test --attempt 1
}

run_item() {
	sql "UPDATE work SET state = 'running', lease_owner = 'test',
		lease_expires = strftime('%s','now') + 600, attempts = attempts + 1 WHERE id = $1"
	run_kreg work "$1" --lease test --attempt "$(sql "SELECT attempts FROM work WHERE id = $1")"
}

stored_atom() {
	"$KREG" job split job.yaml -o "$SCRATCH/atoms" >/dev/null &&
	python3 - "$DATA_DIR/kreg.db" "$SCRATCH"/atoms/*.yaml <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE jobs SET yaml = ? WHERE id = 1", (open(sys.argv[2]).read(),))
db.commit()
PY
}
