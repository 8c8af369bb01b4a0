#!/bin/bash
# A run item given up still leads to a judgement, and a daemon's own
# restart is not an attempt of its items:
#   - the daemon is killed (-9) while the head's runs are on the host: the
#     next daemon takes them back with their attempt not counted;
#   - one run item of the head whose push brings a -25% drop has its
#     worker killed (-9) at each attempt until the daemon gives it up: the
#     head's three other runs are still judged and the drop is found, where
#     it used to show "regressions: none" until a later push.
# The runs of the sim host are made slow (KREG_SIM_RUN_DELAY_MS) only while
# the test kills; each wait is bounded far above what it takes.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 20

ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(sim_lab_yaml 5 4 2% 4)
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 120 "the first head is tested (the baseline)" idle_at "$ROOT"
for i in 1 2; do
	SHA=$(up_commit $i)
	up_push
	wait_for 120 "head $i tested" idle_at "$SHA"
done
daemon_stop

HEAD=$(up_commit 3 "Sim-Effect: fio.read_iops -25%")
up_push
# the head's run items running, each with its run row started
head_runs() { sql "SELECT count(*) FROM work w JOIN runs r ON r.id = w.run_id JOIN commits c ON c.id = w.commit_id WHERE c.sha = '$HEAD' AND w.kind = 'run' AND w.state = 'running' AND r.status = 'running' AND r.owner_pid IN ($(pgrep -d, -P "$DPID" || echo 0))"; }
all_running() { [ "$(head_runs)" = 4 ]; }

export KREG_SIM_RUN_DELAY_MS=60000
daemon_start
wait_for 120 "the head's four runs are on the host" all_running
kill -KILL "$DPID"; wait "$DPID" 2>/dev/null; DPID=
daemon_start
wait_for 120 "after kill -9 of the daemon, the next one runs them again" all_running
is "$(sql "SELECT group_concat(w.attempts) FROM work w JOIN commits c ON c.id = w.commit_id WHERE c.sha = '$HEAD' AND w.kind = 'run'")" \
	"1,1,1,1" "the daemon's death is not counted as an attempt of its items"
like "$(sql "SELECT error FROM work w JOIN commits c ON c.id = w.commit_id WHERE c.sha = '$HEAD' AND w.kind = 'run' LIMIT 1")" \
	"not counted" "the item says why it was taken back"

# One item's worker killed at each of its attempts.
X=$(sql "SELECT min(w.id) FROM work w JOIN commits c ON c.id = w.commit_id WHERE c.sha = '$HEAD' AND w.kind = 'run'")
x_pid() { sql "SELECT r.owner_pid FROM work w JOIN runs r ON r.id = w.run_id WHERE w.id = $X AND w.state = 'running' AND r.status = 'running'"; }
x_started() { p=$(x_pid); [ -n "$p" ] && [ "$p" != "$LAST" ] && kill -0 "$p"; }
others_done() { [ "$(sql "SELECT count(*) FROM work w JOIN commits c ON c.id = w.commit_id WHERE c.sha = '$HEAD' AND w.kind = 'run' AND w.state = 'done'")" = 3 ]; }
kills=0 LAST=
while [ "$(sql "SELECT state FROM work WHERE id = $X")" != failed ] && [ $kills -lt 6 ]; do
	wait_for 120 "work $X: attempt $((kills + 1)) running" x_started || break
	# its last death comes after the head's other runs are stored: the
	# given-up item is the group's last to end (its fifth attempt started
	# at least 30 s of backoff after them; they take the same 60 s)
	[ $kills = 4 ] && wait_for 120 "the head's other three runs are stored first" others_done
	LAST=$(x_pid)
	kill -KILL "$LAST"
	kills=$((kills + 1))
	for _ in $(seq 1 100); do
		[ "$(sql "SELECT state FROM work WHERE id = $X")" != running ] && break
		sleep 0.1
	done
done
is "$kills:$(sql "SELECT state || ' ' || attempts FROM work WHERE id = $X")" "5:failed 5" \
	"the item is given up after five deaths of its own worker"
like "$(cat daemon.log)" "work $X: run: the worker ended without a result \\(killed by signal 9\\).*; gave up; its commit's other runs are judged without it" \
	"the daemon says so, and that the other runs are judged"

# The slow runs end with this daemon; the next one runs at full speed.
kill -KILL "$DPID"; wait "$DPID" 2>/dev/null; DPID=
unset KREG_SIM_RUN_DELAY_MS
daemon_start
found() { [ "$(sql "SELECT count(*) FROM regressions g JOIN commits c ON c.id = g.bad_commit_id WHERE c.sha = '$HEAD'")" -ge 1 ]; }
wait_for 180 "the head's drop is found without the given-up run" found
is "$(sql "SELECT g.change BETWEEN -0.3 AND -0.2 FROM regressions g JOIN commits c ON c.id = g.bad_commit_id WHERE c.sha = '$HEAD'")" \
	1 "a change of about -25%"
wait_for 180 "the daemon goes idle" idle_at "$HEAD"
run_kreg status
like "$OUT" "run +failed +1" "kreg status shows the given-up run"
daemon_stop
no_sanitizer_in_logs "no sanitizer report"
done_testing
