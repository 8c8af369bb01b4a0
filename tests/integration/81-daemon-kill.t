#!/bin/bash
# kill -9 campaign: a daemon on two sim hosts tests 16 pushed heads (a few
# hundred runs) and bisects the one drop among them, while the test kills
# it, or one of its workers, at random moments (at least 20 times) and
# starts it again. At the end: every planned run stored exactly once, no
# sample twice, nothing built twice, the same culprit as a campaign nobody
# killed, and `kreg db check` passes.
#
# Runs the optimised kreg when it is there (the campaign is about the
# queue surviving kills, and the sanitizer build is ten times slower);
# 80-daemon-sim runs the same code under the sanitizers.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
[ -x "${KREG_RELEASE:-}" ] && KREG=$KREG_RELEASE
plan 12

HEADS=14
EFFECT_AT=11		# the head whose push brings the culprit
RANDOM=4242

ROOT=$(up_init)
write_atom job.yaml
write_cfg() {
	cat > "$1" <<YAML
$(lab_yaml "$2")
hosts:
  - name: hosta
    backend: sim
    seed: 11
    capacity: 4
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 4% }
  - name: hostb
    backend: sim
    seed: 12
    capacity: 4
    metrics:
      - { metric: fio.write_iops, base: 8000, noise: 3% }
jobs:
  - file: job.yaml
    runs: 8
YAML
}
write_cfg kreg.yaml "$DATA_DIR"
write_cfg clean.yaml "$SCRATCH/clean"

# The heads, made ahead: head EFFECT_AT brings four commits, the second of
# them with the effect.
for h in $(seq 1 $HEADS); do
	if [ "$h" = "$EFFECT_AT" ]; then
		up_commit "$h.1" >/dev/null
		CULPRIT=$(up_commit "$h.2" "Sim-Effect: fio.read_iops -15%")
		up_commit "$h.3" >/dev/null
	fi
	eval "HEAD_$h=\$(up_commit $h)"
done
git -C "$UP" update-ref refs/heads/main "$ROOT"

# The campaign nobody kills: --once after each push.
export KREG_CONFIG="$SCRATCH/clean.yaml"
"$KREG" daemon --once >>clean.log 2>&1
for h in $(seq 1 $HEADS); do
	eval "git -C \"\$UP\" update-ref refs/heads/main \$HEAD_$h"
	"$KREG" daemon --once >>clean.log 2>&1
done
CLEAN=$(sqlite3 "$SCRATCH/clean/kreg.db" "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id WHERE b.state = 'found'")
is "$CLEAN" "$CULPRIT" "the campaign nobody killed finds the commit with the effect"

# The killed campaign: each head is pushed while the daemon runs; the
# daemon, or one of its workers, is killed at a random moment.
export KREG_CONFIG="$SCRATCH/kreg.yaml"
git -C "$UP" update-ref refs/heads/main "$ROOT"
kills=0 daemon_kills=0 worker_kills=0 h=0
while [ $kills -lt 24 ]; do
	if [ $h -lt $HEADS ]; then
		h=$((h + 1))
		eval "git -C \"\$UP\" update-ref refs/heads/main \$HEAD_$h"
	fi
	daemon_start
	# the head is seen (planned), then the kill comes at a random moment
	for _ in $(seq 1 100); do
		[ "$(sql "SELECT head FROM branches WHERE name = 'main'" 2>/dev/null)" = "$(git -C "$UP" rev-parse main)" ] && break
		sleep 0.1
	done
	sleep "$((RANDOM % 15 / 10)).$((RANDOM % 10))"
	if [ $((RANDOM % 2)) = 0 ] && w=$(pgrep -P "$DPID" | shuf -n 1 --random-source=<(yes)) && [ -n "$w" ]; then
		kill -KILL "$w" 2>/dev/null && worker_kills=$((worker_kills + 1)) && kills=$((kills + 1))
		sleep "0.$((RANDOM % 10))"
	fi
	kill -KILL "$DPID" 2>/dev/null && daemon_kills=$((daemon_kills + 1)) && kills=$((kills + 1))
	wait "$DPID" 2>/dev/null
	DPID=
done
while [ $h -lt $HEADS ]; do
	h=$((h + 1))
	eval "git -C \"\$UP\" update-ref refs/heads/main \$HEAD_$h"
	"$KREG" daemon --once >>daemon.log 2>&1
done
# Then it runs to the end, unkilled.
"$KREG" daemon --once >>daemon.log 2>&1
is "$?" 0 "after $kills kills ($daemon_kills of the daemon, $worker_kills of a worker) the daemon finishes the campaign"
ok "at least 20 kills" test "$kills" -ge 20

is "$(sql "SELECT count(*) FROM work WHERE state != 'done'")" 0 "every work item is done"
planned=$(sql "SELECT count(*) FROM work WHERE kind = 'run'")
ok "a few hundred planned runs ($planned)" test "$planned" -ge 200
is "$(sql "SELECT count(DISTINCT w.run_id) FROM work w JOIN runs r ON r.id = w.run_id WHERE w.kind = 'run' AND r.status = 'ok'")" \
	"$planned" "every planned run is stored, each in a run of its own"
# A run item done twice would draw the same sample twice: the sim seeds on
# the planned run's number.
is "$(sql "SELECT count(*) FROM (SELECT r.job_id, r.host_id, r.commit_id, s.metric_id, s.value FROM runs r JOIN samples s ON s.run_id = r.id WHERE r.status = 'ok' GROUP BY 1, 2, 3, 4, 5 HAVING count(*) > 1)")" \
	0 "no sample is stored twice"
is "$(sql "SELECT count(*) FROM runs r WHERE r.status = 'ok' AND (SELECT count(*) FROM samples s WHERE s.run_id = r.id) != 1")" \
	0 "every OK run has its one sample"
is "$(sql "SELECT count(*) FROM (SELECT tree, config_hash FROM builds GROUP BY 1, 2 HAVING count(*) > 1)")" \
	0 "no tree and kernel config built twice"
is "$(sql "SELECT count(*) FROM runs WHERE status = 'running'")" 0 "no run is left 'running'"
is "$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id WHERE b.state = 'found'")" \
	"$CLEAN" "the bisection's answer is the unkilled campaign's"
run_kreg db check
is "$RC" 0 "kreg db check passes"
done_testing
