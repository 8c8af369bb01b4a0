#!/bin/bash
# The daemon on the local host: a pushed head is run with a short real fio
# job (two runs), stored with fio's samples and the kernel it ran on, by the
# daemon alone.
. "$KREG_SRC/tests/lib.sh"
command -v fio >/dev/null || skip_all "fio is not installed"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 9

ROOT=$(up_init)
cat > fio.yaml <<'YAML'
suite: fio-basic
testcase: fio-basic
runtime: 1s
nr_task: 1
fio-setup-basic:
  rw: randread
  bs: 4k
  ioengine: sync
  iodepth: 1
  direct: 0
  test_size: 4m
  time_based: 1
fio:
YAML
cat > kreg.yaml <<YAML
$(lab_yaml)
hosts:
  - name: here
    backend: local
    target: $DATA_DIR/target
    capacity: 1
jobs:
  - file: fio.yaml
    runs: 2
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 120 "the daemon runs the first head it sees on the local host" idle_at "$ROOT"
HEAD=$(up_commit 1)
up_push
wait_for 400 "and the next pushed head" idle_at "$HEAD"
daemon_stop
is "$DRC" 0 "it stops on SIGTERM"

# the job's two, and what the detector asked to judge it (the thin
# baseline's runs go to the first head; real fio's noise may ask more)
N=$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$HEAD' AND r.status = 'ok'")
ok "at least the job's two OK fio runs of the pushed head are stored (got $N)" test "$N" -ge 2
ok "each with fio.read_iops samples above zero" test \
	"$(sql "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id JOIN runs r ON r.id = s.run_id JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$HEAD' AND m.name = 'fio.read_iops' AND s.value > 0")" = "$N"
is "$(sql "SELECT DISTINCT kernel FROM runs")" "$(uname -r)" "runs.kernel is the running kernel (uname -r)"
run=$(sql "SELECT output FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$HEAD' LIMIT 1")
ok "fio's raw JSON is kept in the run's folder" test -s "$run/fio.json"
ok "fio wrote in the host's target only" test -d "$DATA_DIR/target"
no_sanitizer_in_logs "no sanitizer report"
done_testing
