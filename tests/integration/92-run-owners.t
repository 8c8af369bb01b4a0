#!/bin/bash
# Runs have an owner (issue 13 items 2, 3): a killed `kreg job run` leaves
# its run 'running'; `kreg db check` names it and the next run reaps it; and
# `kreg bisect resume` reaps only dead owners' runs, never those of another
# live process. Real fio, real kreg processes, kill -9.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/bisect-lib.sh"

command -v fio >/dev/null || skip_all "fio is not installed"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
plan 15

pids=()
stop_all() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	_cleanup
}
trap stop_all EXIT

# wait_for SQL VALUE: until the query gives VALUE (at most 60 s)
wait_for() {
	for _ in $(seq 600); do
		[ "$(sql "$1" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

make_repo "$SCRATCH/src"
write_config kreg.yaml 11
# and a local host with real fio, in the hosts list
sed -i "/^bisect:/i\\  - name: local\\n    backend: local\\n    target: $SCRATCH/target" kreg.yaml
mkdir -p target
export KREG_CONFIG="$SCRATCH/kreg.yaml"

# --- item 3: kill -9 of a `kreg job run` with real fio
cat > slow.yaml <<'YAML'
runtime: 60s
fio-setup-basic:
  rw: read
  test_size: 1m
  time_based: 1
fio:
YAML
cat > quick.yaml <<'YAML'
runtime: 1s
fio-setup-basic:
  rw: read
  test_size: 1m
fio:
YAML
"$KREG" job run slow.yaml --host local >slow.out 2>&1 &
victim=$!
pids+=($victim)
ok "a kreg job run of a 60 s fio job is running" wait_for "SELECT count(*) FROM runs WHERE status = 'running'" 1
children=$(pgrep -P $victim | tr '\n' ' ')
kill -9 $victim
wait $victim 2>/dev/null
for c in $children; do kill -9 -- -"$c" "$c" 2>/dev/null; done
is "$(sql "SELECT status FROM runs WHERE id = 1")" "running" "kill -9 leaves its run 'running'"

run_kreg db check
is "$RC" 1 "kreg db check fails"
like "$OUT" "run 1: left running by pid $victim, which is gone" "naming the run and its dead owner"

# A live run is not stuck: another slow run, checked while it runs.
"$KREG" job run slow.yaml --host local >live.out 2>&1 &
live=$!
pids+=($live)
ok "a second kreg job run is running" wait_for "SELECT count(*) FROM runs WHERE status = 'running' AND id = 2" 1
is "$(sql "SELECT status || ': ' || error FROM runs WHERE id = 1")" \
	"infra_failed: abandoned: its process ended before it finished (its owner, pid $victim, died)" \
	"the next run's start reaped the dead owner's run"
run_kreg db check
is "$RC" 0 "db check passes while the live run goes on"
unlike "$OUT" "run 2" "and does not name the live run"
kill -TERM $live
wait $live 2>/dev/null

# foreign_key_check: a sample of a run that does not exist
sqlite3 data/kreg.db "PRAGMA foreign_keys = OFF; INSERT INTO metrics (name) VALUES ('x.y');
	INSERT INTO samples (run_id, metric_id, value) VALUES (999, (SELECT id FROM metrics WHERE name = 'x.y'), 1)"
run_kreg db check
is "$RC" 1 "db check finds a sample of a missing run"
like "$ERR" "foreign key check: samples row .* refers to a missing runs row" "and says what"
sqlite3 data/kreg.db "DELETE FROM samples WHERE run_id = 999"

# --- item 2: bisect resume reaps only dead owners' runs
KREG_SIM_RUN_DELAY_MS=200 "$KREG" bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read \
	--host simhost --metric "$METRIC" >b1.out 2>&1 &
b1=$!
pids+=($b1)
first=$(sql "SELECT coalesce(max(id), 0) FROM runs")
for _ in $(seq 600); do
	[ "$(sql "SELECT count(*) FROM runs WHERE id > $first")" -ge 4 ] &&
		[ "$(sql "SELECT count(*) FROM runs WHERE id > $first AND status = 'running'")" = 1 ] && break
	sleep 0.05
done
kill -9 $b1
wait $b1 2>/dev/null
# A second bisection of the same job, host and ends, live, 5 s a run.
KREG_SIM_RUN_DELAY_MS=5000 "$KREG" bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read \
	--host simhost --metric "$METRIC" >b2.out 2>&1 &
b2=$!
pids+=($b2)
mark=$(sql "SELECT max(id) FROM runs")
ok "the second bisection has a run going" \
	wait_for "SELECT count(*) > 0 FROM runs WHERE id > $mark AND status = 'running'" 1
live_run=$(sql "SELECT max(id) FROM runs WHERE status = 'running'")
run_kreg bisect resume 1
is "$RC" 0 "bisect resume 1 runs to the end"
ok "the live bisection's run finished as its own" \
	wait_for "SELECT status FROM runs WHERE id = $live_run" ok
unlike "$(cat b2.out)" "finished twice|not running" "the live bisection did not lose its run"
is "$(sql "SELECT count(*) FROM runs WHERE status = 'running' AND id > $first AND id <= $mark")" 0 \
	"no run of the killed bisection is left running"
kill -TERM $b2
wait $b2 2>/dev/null

done_testing
