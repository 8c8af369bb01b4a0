#!/bin/bash
# A bisection reaching a commit that already has stored samples of its job,
# host and metric (the daemon's runs, an earlier bisection's) uses them and
# runs only what is missing; its judgements are on the log scale, so the
# noise is relative (issue 14, part 4).
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/bisect-lib.sh"
plan 10

TRAILERS_33="Sim-Effect: $METRIC -96%"
make_repo "$SCRATCH/src"
write_config kreg.yaml 11
export KREG_CONFIG="$SCRATCH/kreg.yaml"

run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric "$METRIC"
is "$RC" 0 "a first bisection of a -96% effect"
like "$OUT" "found: ${SHA_33:0:12} is the first bad commit" "names the commit"
unlike "$(sql "SELECT group_concat(verdict) FROM bisect_steps WHERE bisection_id = 1")" "unknown" \
	"no step is left unknown at -96%"
like "$(sql "SELECT detail FROM bisect_steps WHERE bisection_id = 1 AND role = 'step' LIMIT 1")" \
	"noise=[0-9.]+%" "the noise is relative (log scale)"
runs33=$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$SHA_33'")

# A second bisection over an overlapping range reaches commits run before.
run_kreg bisect start --repo src --good "$SHA_1" --bad "$BAD" --job fio-read --host simhost \
	--metric "$METRIC"
is "$RC" 0 "a second bisection over an overlapping range"
like "$OUT" "found: ${SHA_33:0:12} is the first bad commit" "names the same commit"
like "$OUT" "^step [0-9a-f]{12} commit [0-9]+.*: [0-9]+ stored samples used, 0 runs" \
	"a step at a commit with stored samples runs nothing more"
reused=$(sql "SELECT count(*) FROM bisect_steps WHERE bisection_id = 2 AND role = 'step' AND runs = 0")
ok "steps without runs of their own: $reused" test "$reused" -ge 1
is "$(sql "SELECT sum(runs) FROM bisect_steps WHERE bisection_id = 2")" \
	"$(sql "SELECT runs FROM bisections WHERE id = 2")" "the steps' runs still add up to the bisection's"
no_sanitizer_report "no sanitizer report"
done_testing
