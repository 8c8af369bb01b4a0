#!/bin/bash
# The detection step on a level that creeps: the daemon, untold, tests
# each pushed head of a repository whose commits each carry
# "Sim-Effect: fio.read_iops +1.5%". The detector sees the newest heads
# above their baseline, but the segmentation (stats/segment.h) sees a
# drift through them and no step, so nothing is suspected and nothing is
# bisected. A real -20% step pushed on top of the drift is still suspected
# at its commit.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 7

ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
data_dir: $DATA_DIR
repos:
  - name: src
    url: $UP
    branches: [main]
    poll_interval: 1
hosts:
  - name: simhost
    backend: sim
    seed: 44
    capacity: 2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 1% }
      - { metric: fio.write_iops, base: 8000, noise: 1% }
jobs:
  - file: job.yaml
    runs: 3
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 60 "the daemon tests the first head (the baseline)" idle_at "$ROOT"

# 16 heads, one commit each, each 1.5% faster than its parent: +27% in all
stuck=
for i in $(seq 1 16); do
	SHA=$(up_commit $i "Sim-Effect: fio.read_iops +1.5%")
	up_push
	for _ in $(seq 1 600); do idle_at "$SHA" && break; sleep 0.2; done
	idle_at "$SHA" || { stuck=$i; break; }
done
ok "each of the 16 drifting heads tested${stuck:+ (stuck at $stuck)}" test -z "$stuck"
logs=$(cat "$SCRATCH/daemon.log" "$DATA_DIR"/logs/*.log 2>/dev/null)
like "$logs" "detect: fio.read_iops at [0-9a-f]{12}: a drift, not a step: \+[0-9.]+% over [0-9]+ commits from [0-9a-f]{12} \(\+1\.[0-9]*% a commit\); nothing suspected" \
	"the detector's call is seen to be a drift, with its slope (+1.5% a commit)"
is "$(sql "SELECT count(*) FROM regressions")" 0 "no regression suspected along the drift"
is "$(sql "SELECT count(*) FROM bisections")" 0 "and nothing bisected"

# a real step on top of the drift
CULPRIT=$(up_commit 17 "Sim-Effect: fio.read_iops -20%")
up_push
for _ in $(seq 1 600); do idle_at "$CULPRIT" && break; sleep 0.2; done
for i in 18 19; do HEAD=$(up_commit $i); up_push; sleep 2; done
suspected() { [ "$(sql "SELECT count(*) FROM regressions r JOIN commits c ON c.id = r.bad_commit_id WHERE c.sha = '$CULPRIT'")" -ge 1 ]; }
wait_for 120 "a -20% step pushed after the drift is suspected at its commit" suspected
daemon_stop
is "$DRC" 0 "the daemon stops cleanly"
no_sanitizer_in_logs "no sanitizer report"
done_testing
