#!/bin/bash
# A lab's first push: the daemon has seen one head (the baseline) and then
# a push brings a regression. On the defaults the baseline has the job's 3
# runs, and 3 runs against 3 never reach the confirm level: the detector
# asks the baseline's commit for the runs it needs at once (10 more:
# stats/detect.c) instead of waiting for history that may never come, and
# the first push is confirmed and bisected untold. detect.baseline_runs
# stays an override: with 10, the first head gets 10 runs up front. Two
# metrics move at the culprit, a throughput down and a latency up: one
# bisection, on the throughput's drop, and one mail for the culprit.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 15

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

# On the defaults: the job's 3 runs of the baseline, then the first push.
config 0
daemon_start
wait_for 60 "the daemon tests the first head it sees" idle_at "$ROOT"
is "$(runs_of "$ROOT")" 3 "the baseline gets the job's 3 runs"
for i in 1 2; do up_commit $i >/dev/null; done
HEAD=$(up_commit 3 "Sim-Effect: fio.read_iops -30%")
up_push
found() { [ "$(sql "SELECT state FROM bisections WHERE id = 1")" = found ]; }
wait_for 180 "on the defaults, the first push's -30% is confirmed and bisected" found
is "$(runs_of "$ROOT")" 13 "the detector asked the baseline for the 10 runs it needed, at once"
is "$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id WHERE b.id = 1")" \
	"$HEAD" "to the pushed commit, the one with the effect"
like "$(cat "$DATA_DIR"/logs/work-*.log)" "too little baseline: 3 runs before commit [0-9]+, 13 wanted: 10 more runs of 0" \
	"the worker's log says why it asked"
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
wait_for 180 "the first push's regression is confirmed and bisected" found
is "$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id WHERE b.id = 1")" \
	"$CULPRIT" "to the commit with the effect"
is "$(sql "SELECT m.name FROM bisections b JOIN metrics m ON m.id = b.metric_id")" "fio.read_iops" \
	"one bisection, on the throughput's drop (-30%) rather than the latency's rise (+60%)"
# the drop, far beyond the noise, is confirmed at once and starts the
# bisection; the latency's rise waits for its confirmation runs, then rides
rides() { [ "$(sql "SELECT count(*) FROM regressions WHERE bisection_id = 1 AND state = 'bisected'")" = 2 ]; }
wait_for 60 "both metrics ride on it, and take its outcome" rides
mailed() { [ "$(sql "SELECT count(*) FROM work WHERE kind = 'mail' AND state = 'done'")" -ge 1 ]; }
wait_for 60 "the culprit's mail is made" mailed
like "$(sql "SELECT count(*) || ' ' || group_concat(subject) FROM outbox")" \
	"^1 .*${CULPRIT:0:10}: fio.read_iops -[0-9.]+% regression$" "one mail for the culprit, named by the throughput"
daemon_stop
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
