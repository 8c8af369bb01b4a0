#!/bin/bash
# A level that comes back part of the way is not judged on the head's
# first runs when its verdict waits on them (docs/bisect.md, "Recovery":
# the uncertain middle): on a sim host with a noisy metric, a drop is
# bisected, then a commit brings about two thirds of it back; the head's
# first 3 runs leave "partly" and "fixed" apart only by the last good
# against it, which they do not settle: the detect item asks the runs
# that settle it (of the head and of the last good), judges again once
# they are in, and only then says the level is partly back: not
# bisected.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 14

export GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000"
ROOT=$(up_init)
write_atom job.yaml
sim_lab_yaml 11 2 5% 3 > kreg.yaml
export KREG_CONFIG="$SCRATCH/kreg.yaml"
runs_of() { sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$1' AND r.status = 'ok'"; }

daemon_start
tested_heads "$ROOT" 3
for i in 4 5 6; do GOOD=$(up_commit $i); done
CULPRIT=$(up_commit 7 "Sim-Effect: fio.read_iops -30%")
for i in 8 9 10; do HEAD=$(up_commit $i); done
up_push
bisected() { [ "$(sql "SELECT state FROM regressions WHERE culprit_commit_id IS NOT NULL")" = bisected ]; }
wait_for 600 "the daemon bisects the drop" bisected
wait_for 300 "and it goes idle" idle_at "$HEAD"
GOOD_RUNS=$(runs_of "$GOOD")

# about two thirds of the way back: 0.7 x 1.3 = 0.91 of the level before
up_commit 11 "Sim-Effect: fio.read_iops +30%" >/dev/null
HEAD=$(up_commit 12)
up_push
wait_for 600 "the head is tested" idle_at "$HEAD"
LOG=$(cat "$DATA_DIR"/logs/*.log)
like "$LOG" "recovery: regression 1: fio\.read_iops at ${HEAD:0:12} is [5-8][0-9]% back, not settled with 3 runs: [1-9][0-9]* more of it, [1-9][0-9]* of the last good, [0-9]+ of the culprit, then judged again" \
	"the head's first runs leave the level unsettled: the runs that settle it are asked"
ok "the head got them: $(runs_of "$HEAD") runs" test "$(runs_of "$HEAD")" -gt 3
ok "so did the last good: $GOOD_RUNS, then $(runs_of "$GOOD")" test "$(runs_of "$GOOD")" -gt "$GOOD_RUNS"
like "$LOG" "recovery: regression 1: fio\.read_iops at ${HEAD:0:12} is partly back \([0-9]+% of the regression recovered\): not bisected" \
	"judged again with them: partly back, not bisected"
is "$(grep -c "at ${HEAD:0:12} is partly back" <<<"$LOG")" 1 "said once, after the runs, not on the first ones"
is "$(sql "SELECT count(*) FROM bisections WHERE recovers IS NOT NULL") $(sql "SELECT state FROM regressions WHERE id = 1")" \
	"0 bisected" "no recovery bisection: the regression stays open"
daemon_stop
no_sanitizer_in_logs "no sanitizer report"
done_testing
