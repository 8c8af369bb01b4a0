#!/bin/bash
# A bisection killed (kill -9) mid-way resumes from its rows: the runs it
# stored are kept and reused, the one in flight is marked, and it ends with
# the same culprit, with fewer new runs than starting over would cost.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/bisect-lib.sh"
plan 16

TRAILERS_45="Sim-Effect: $METRIC -20%"
make_repo "$SCRATCH/src"
write_config kreg.yaml 11
export KREG_CONFIG="$SCRATCH/kreg.yaml"

# The same bisection uninterrupted, in its own data directory: the cost of
# starting over.
DATA_DIR="$SCRATCH/full" write_config full.yaml 11
KREG_CONFIG="$SCRATCH/full.yaml" run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" \
	--job fio-read --host simhost --metric "$METRIC"
like "$OUT" "found: ${SHA_45:0:12}" "uninterrupted, it finds commit 45"
full=$(DATA_DIR="$SCRATCH/full" sql "SELECT count(*) FROM runs")

# Each sim run takes 40 ms here, so the kill lands in the middle.
KREG_SIM_RUN_DELAY_MS=40 "$KREG" bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read \
	--host simhost --metric "$METRIC" >start.out 2>&1 &
pid=$!
for _ in $(seq 600); do
	n=$(sql "SELECT count(*) FROM runs" 2>/dev/null || echo 0)
	[ "${n:-0}" -ge 15 ] && break
	sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null
before=$(sql "SELECT count(*) FROM runs")
ok "killed after $before runs of $full" test "$before" -ge 15 -a "$before" -lt "$full"
is "$(sql "SELECT state FROM bisections WHERE id = 1")" "running" "the bisection is left running"
ok_before=$(sql "SELECT count(*) || ':' || printf('%.6f', sum(s.value)) FROM runs r JOIN samples s ON s.run_id = r.id WHERE r.status = 'ok'")

run_kreg bisect resume 1
is "$RC" 0 "bisect resume 1 runs to the end"
like "$OUT" "found: ${SHA_45:0:12} is the first bad commit" "and finds the same culprit"
no_sanitizer_report "no sanitizer report"
after=$(sql "SELECT count(*) FROM runs")
is "$(sql "SELECT count(*) || ':' || printf('%.6f', sum(s.value)) FROM runs r JOIN samples s ON s.run_id = r.id
	   WHERE r.status = 'ok' AND r.id <= $before")" "$ok_before" \
	"every sample stored before the kill is still there, unchanged"
ok "the resumed part ran $((after - before)) new runs, fewer than the $full of starting over" \
	test $((after - before)) -lt "$full"
is "$(sql "SELECT count(*) FROM runs WHERE status = 'running'")" 0 "no run is left running"
is "$(sql "SELECT runs FROM bisections WHERE id = 1")" "$(sql "SELECT count(*) FROM runs WHERE status != 'infra_failed' OR error NOT LIKE 'abandoned%'")" \
	"the bisection's cost counts every run that finished"
is "$(sql "SELECT builds FROM bisections WHERE id = 1")" \
	"$(sql "SELECT count(DISTINCT commit_id) FROM bisect_steps WHERE bisection_id = 1")" \
	"each commit it tried counts as one build, across the kill"
run_kreg bisect resume 1
like "$RC:$OUT" "^0:.*is over" "resuming a finished bisection says it is over"

# One process per action, as a daemon worker would: the same bisection,
# run for run, as the uninterrupted one.
DATA_DIR="$SCRATCH/steps" write_config steps.yaml 11
export KREG_CONFIG="$SCRATCH/steps.yaml"
run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric "$METRIC" --no-run
is "$RC:$(DATA_DIR="$SCRATCH/steps" sql "SELECT count(*) FROM runs")" "0:0" "start --no-run only creates it"
n=0
while [ $n -lt 200 ]; do
	n=$((n + 1))
	out=$("$KREG" bisect step 1 2>&1) || break
	printf '%s\n' "$out" | grep -q "goes on" || break
done
like "$out" "found: ${SHA_45:0:12} is the first bad commit" "one action per process ($n processes) finds it too"
is "$(DATA_DIR="$SCRATCH/steps" sql "SELECT count(*) FROM runs")" "$full" "with exactly the runs of one process"
is "$(DATA_DIR="$SCRATCH/steps" sql "SELECT builds FROM bisections")" \
	"$(DATA_DIR="$SCRATCH/full" sql "SELECT builds FROM bisections")" "and the same builds"
done_testing
