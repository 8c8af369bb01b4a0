#!/bin/bash
# A lab's first push: the daemon has seen one head (the baseline) and then
# a push brings a regression. With the job's 3 runs of the baseline the
# detector cannot call anything (3 runs against 3 never reach the confirm
# level) and waits for more history; with detect.baseline_runs: 10 the
# first head gets 10 runs and the very first push is detected, confirmed
# and bisected to the commit with the effect (what `kreg demo` relies on).
# Two metrics move at that commit, a throughput down and a latency up: one
# bisection, on the throughput's drop, and one mail for the culprit.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 13

ROOT=$(up_init)
write_atom job.yaml
config() {  # baseline_runs
	cat > kreg.yaml <<YAML
$(lab_yaml)
hosts:
  - name: simhost
    backend: sim
    seed: 11
    capacity: 2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 5% }
      - { metric: fio.read_clat_mean_ns, base: 100000, noise: 5% }
jobs:
  - file: job.yaml
    runs: 3
detect:
  baseline_runs: $1
YAML
}
export KREG_CONFIG="$SCRATCH/kreg.yaml"
runs_of() { sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$1' AND r.status = 'ok'"; }

# Without: the job's 3 runs of the baseline, and the first push waits.
config 0
daemon_start
wait_for 60 "the daemon tests the first head it sees" idle_at "$ROOT"
is "$(runs_of "$ROOT")" 3 "the baseline gets the job's 3 runs"
for i in 1 2; do up_commit $i >/dev/null; done
HEAD=$(up_commit 3 "Sim-Effect: fio.read_iops -30%")
up_push
wait_for 60 "the pushed head is tested" idle_at "$HEAD"
is "$(sql "SELECT count(*) FROM regressions")" 0 \
	"with 3 runs of the baseline only, the first push's -30% is not called (too little baseline)"
daemon_stop

# With baseline_runs: 10, a new lab judges its first push.
rm -rf "$DATA_DIR" "$UP"
ROOT=$(up_init)
config 10
daemon_start
wait_for 60 "the daemon tests the first head it sees" idle_at "$ROOT"
is "$(runs_of "$ROOT")" 10 "the baseline gets baseline_runs runs"
for i in 1 2; do up_commit $i >/dev/null; done
CULPRIT=$(up_commit 3 "Sim-Effect: fio.read_iops -30%
Sim-Effect: fio.read_clat_mean_ns +60%")
HEAD=$(up_commit 4)
up_push
bisected() { [ "$(sql "SELECT state FROM bisections WHERE id = 1")" = found ]; }
wait_for 180 "the first push's regression is confirmed and bisected" bisected
is "$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id WHERE b.id = 1")" \
	"$CULPRIT" "to the commit with the effect"
is "$(sql "SELECT m.name FROM bisections b JOIN metrics m ON m.id = b.metric_id")" "fio.read_iops" \
	"one bisection, on the throughput's drop (-30%) rather than the latency's rise (+60%)"
is "$(sql "SELECT count(*) FROM regressions WHERE bisection_id = 1")" 2 "both metrics ride on it"
mailed() { [ "$(sql "SELECT count(*) FROM work WHERE kind = 'mail' AND state = 'done'")" -ge 1 ]; }
wait_for 60 "the culprit's mail is made" mailed
like "$(sql "SELECT count(*) || ' ' || group_concat(subject) FROM outbox")" \
	"^1 .*${CULPRIT:0:10}: fio.read_iops -[0-9.]+% regression$" "one mail for the culprit, named by the throughput"
daemon_stop
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
