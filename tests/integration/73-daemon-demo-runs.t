#!/bin/bash
# The real-kernel demo's shape on a sim host, and the runs it costs: a
# base measured 10 times (the demo's detect.baseline_runs), a push of 20
# commits with one that does not build and a -97% drop of read IOPS and
# bandwidth at commit 14, in the qemu guest's noise (18% a run), the job 3
# runs a commit. Runs are spent where something is in doubt only:
#   - the head, 3 runs against 10 (the rank test cannot call 3 against 10
#     at the confirm level however far apart), asks at once for 3 more of
#     itself and 3 of the base (6 against 13 can be called), and its drop,
#     far beyond the noise, is confirmed with no confirmation runs: 6 runs
#     of its own, where it had 11 (the real demo's had 12: 9 before
#     "suspected", 3 to confirm);
#   - the verification checks the culprit and its parent with the runs
#     the search stored there and runs none (it ran 3 of each again).
# Fixed commit dates: the same shas, so the same sim samples, every run.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 10

export GIT_AUTHOR_DATE="2026-11-30T12:00:00Z" GIT_COMMITTER_DATE="2026-11-30T12:00:00Z"
ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(lab_yaml)
hosts:
  - name: vm
    backend: sim
    seed: 7
    capacity: 1
    metrics:
      - { metric: fio.read_iops, base: 3550, noise: 18% }
      - { metric: fio.read_bw_MBps, base: 13.9, noise: 18% }
jobs:
  - file: job.yaml
    runs: 3
detect:
  baseline_runs: 10
  metrics:
    - { pattern: "fio.*_iops", direction: higher, floor: 5% }
    - { pattern: "fio.*_bw*", direction: higher, floor: 5% }
bisect:
  runs_per_step: 3
  max_builds: 12
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
runs_of() { sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$1'"; }

daemon_start
wait_for 60 "the daemon tests the first head it sees" idle_at "$ROOT"
for i in $(seq 1 20); do
	case $i in
	10) up_commit $i "Sim-Build: fails" >/dev/null ;;
	14) CULPRIT=$(up_commit $i "Sim-Effect: fio.read_iops -97%
Sim-Effect: fio.read_bw_MBps -97%") ;;
	*) HEAD=$(up_commit $i) ;;
	esac
done
up_push
over() { [ "$(sql "SELECT state FROM bisections WHERE id = 1")" = found ] && idle_at "$HEAD"; }
wait_for 240 "the push's drop is confirmed, bisected and verified" over
daemon_stop

is "$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id")" "$CULPRIT" \
	"to the commit with the effect"
is "$(runs_of "$HEAD")" 6 "the head is confirmed with 6 runs of its own"
is "$(runs_of "$ROOT")" 13 "the base got the 3 more it needed at the same time"
LOGS=$(cat "$DATA_DIR"/logs/work-*.log)
like "$LOGS" "fio.read_iops: .* 3 more runs of it, and 3 of 0 \(a thin baseline: 10 runs\)" \
	"the head asked for both sides' runs at once"
like "$LOGS" "fio.read_iops: suspected regression -9[67]\.[0-9]% at ${HEAD:0:12} .*settled: no confirmation runs" \
	"far beyond the noise, it needs no confirmation runs"
is "$(sql "SELECT group_concat(role || ':' || runs, ' ') FROM bisect_steps WHERE role LIKE 'verify%' ORDER BY seq")" \
	"verify-culprit:0 verify-parent:0" "the verification ran nothing: the search's runs are stored there"
is "$(sql "SELECT count(*) FROM runs")" 34 "34 runs in all (13 base, 6 head, 15 bisection)"
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
