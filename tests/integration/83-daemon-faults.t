#!/bin/bash
# Faults, each logged and recorded while the rest carries on: a remote
# that is unreachable, a force-pushed branch, a commit that does not
# build, a host that hangs (timeout: an infrastructure failure, retried,
# the host marked down), SIGHUP with a broken configuration, a full data
# directory.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 31

# The faults are under test here, not the detector: the checks below count
# the runs a commit's planning gives it. The sim host's samples follow the
# commits' shas, so with the clock's dates one run in a few made a
# detection suggestive and ask more runs of a commit (9 run items of the
# merge base, 5 OK runs of a head, where its planning gives 2). So the
# detector asks none (its runs and its baseline at the job's 2), and fixed
# dates make the samples the same in every run.
export GIT_AUTHOR_DATE="2026-11-30T12:00:00Z" GIT_COMMITTER_DATE="2026-11-30T12:00:00Z"
ROOT=$(up_init)
write_atom job.yaml
cat > hang.yaml <<'YAML'
suite: fio-basic
testcase: fio-basic
runtime: 30s
fio-setup-basic:
  rw: randread
  bs: 4k
  test_size: 4m
  time_based: 1
fio:
YAML
cfg() {
	cat > kreg.yaml <<YAML
$(lab_yaml)
  - name: gone
    url: $SCRATCH/no-such-repo
    poll_interval: 1
hosts:
  - name: simhost
    backend: sim
    seed: 3
    capacity: 2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 2% }
${1:-}
jobs:
  - file: job.yaml
    hosts: [simhost]
    runs: 2
${2:-}
detect:
  min_runs: 2
  max_runs: 2
  baseline_runs: 2
YAML
}
cfg
export KREG_CONFIG="$SCRATCH/kreg.yaml"
# SHA has N OK runs
tested() { [ "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$1' AND r.status = 'ok'")" = "$2" ]; }

# An unreachable remote: logged, recorded, the other repo tested.
run_kreg daemon --once --foreground
is "$RC" 0 "daemon --once with one repo unreachable"
like "$ERR" "repo gone: poll failed" "the failed poll is logged"
like "$(cat "$DATA_DIR"/logs/poll-1.log)" "gone.*no-such-repo" "its log names the repo and the url"
is "$(sql "SELECT count(*) FROM runs WHERE status = 'ok'")" 2 "the reachable repo's head was run"
run_kreg status
like "$OUT" "last poll failed: .*no-such-repo" "status shows the failed poll"

# A force-push: recorded as such, the merge base tested with the new head.
A=$(up_commit 1); up_push
run_kreg daemon --once
B=$(up_commit 2); up_push
run_kreg daemon --once
git -C "$UP" reset -q --hard "$A"
C=$(up_commit 3); up_push
run_kreg daemon --once --foreground
is "$RC" 0 "daemon --once after a force-push"
like "$(cat "$DATA_DIR"/logs/poll-0.log)" "main was force-pushed: ${B:0:12} -> ${C:0:12}; testing from their merge base ${A:0:12}" \
	"the force-push is logged with the merge base (in the poll's log)"
is "$(sql "SELECT forced || ' ' || base_sha FROM pushes WHERE new_sha = '$C'")" "1 $A" "and recorded"
is "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$C' AND r.status = 'ok'")" 2 \
	"the new head is tested"
is "$(sql "SELECT count(*) FROM work WHERE kind = 'run' AND commit_id = (SELECT id FROM commits WHERE sha = '$A')")" 2 \
	"the merge base is tested (once: it was a head before)"

# A commit that does not build: a result, not a retry.
D=$(up_commit 4 "Sim-Build: fails"); up_push
run_kreg daemon --once
is "$RC" 0 "daemon --once on a head that does not build"
is "$(sql "SELECT group_concat(DISTINCT state || ' ' || attempts) FROM work WHERE kind = 'run' AND commit_id = (SELECT id FROM commits WHERE sha = '$D')")" \
	"done 1" "its runs end at once, not retried"
like "$(sql "SELECT error FROM work WHERE kind = 'run' AND commit_id = (SELECT id FROM commits WHERE sha = '$D') LIMIT 1")" \
	"does not build" "and say it does not build"

# A host that hangs: the run times out, an infrastructure failure, retried
# with backoff; three in a row and the host is down.
cfg "  - { name: hang, backend: local, target: $DATA_DIR/target, timeout: 1 }" \
	"  - { file: hang.yaml, hosts: [hang], runs: 1 }"
E=$(up_commit 5); up_push
run_kreg daemon --once --foreground
is "$RC" 0 "daemon --once with a hanging host"
is "$(sql "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.name = 'hang' AND r.status = 'infra_failed' AND r.error LIKE '%timed out%'")" \
	3 "three runs timed out, each stored as an infrastructure failure"
is "$(sql "SELECT w.state || ' ' || w.attempts FROM work w JOIN hosts h ON h.id = w.host_id WHERE h.name = 'hang'")" \
	"queued 3" "the item was retried and waits for the host"
is "$(sql "SELECT state FROM hosts WHERE name = 'hang'")" down "the host is marked down (probed again later)"
like "$(cat "$DATA_DIR"/logs/work-*.log)" "host .*: 3 infrastructure failures in a row: marked down" \
	"which is logged (in the worker's log)"
is "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id JOIN hosts h ON h.id = r.host_id WHERE c.sha = '$E' AND h.name = 'simhost' AND r.status = 'ok'")" \
	2 "the other host's runs of the head carried on"

# SIGHUP with a broken configuration: refused, the old one kept.
cfg
daemon_start
wait_for 30 "a daemon runs" grep -q "daemon: started" daemon.log
cp kreg.yaml good.yaml
printf 'hosts:\n  - name: x\n    backend: nonsense\n' >> kreg.yaml
kill -HUP "$DPID"
wait_for 30 "SIGHUP with a broken kreg.yaml is refused" grep -q "is broken; keeping the configuration" daemon.log
like "$(cat daemon.log)" "kreg.yaml:[0-9]+:[0-9]+: " "its problems are logged as FILE:LINE:COL"
F=$(up_commit 6); up_push
wait_for 60 "the daemon and its workers carry on with the old configuration" tested "$F" 2
unlike "$(cat "$DATA_DIR"/logs/poll-*.log)" "duplicate key" "no poll read the broken file"
cp good.yaml kreg.yaml

# A full data directory: work pauses with one log line, resumes with space.
if [ "$(id -u)" = 0 ] && mkdir -p "$SCRATCH/small" && mount -t tmpfs -o size=24m tmpfs "$SCRATCH/small" 2>/dev/null; then
	trap 'umount "$SCRATCH/small" 2>/dev/null; _daemon_cleanup' EXIT
	daemon_stop
	mv "$DATA_DIR" "$SCRATCH/small/data"
	ln -s "$SCRATCH/small/data" "$DATA_DIR"
	daemon_start
	started_twice() { [ "$(grep -c "daemon: started" daemon.log)" = 2 ]; }
	wait_for 60 "a daemon runs on the small file system" started_twice
	dd if=/dev/zero of="$SCRATCH/small/filler" bs=1M count=20 >/dev/null 2>&1
	G=$(up_commit 7); up_push
	wait_for 30 "with the data directory full, work pauses with a log line" grep -q "work paused until space returns" daemon.log
	ok "nothing of the new head runs meanwhile" test "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$G'")" = 0
	rm -f "$SCRATCH/small/filler"
	wait_for 60 "space back: work resumes and the head is tested" tested "$G" 2
	is "$(grep -c "work paused until space returns" daemon.log)" 1 "the pause was logged once"
else
	for i in 1 2 3 4 5; do echo "ok - # SKIP needs root to mount a small tmpfs"; done
	_tap_n=$((_tap_n + 5))
fi
daemon_stop
is "$DRC" 0 "the daemon stops cleanly"
no_sanitizer_in_logs "no sanitizer report"
done_testing
