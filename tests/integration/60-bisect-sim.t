#!/bin/bash
# kreg bisect on a sim host: a 64-commit history with merges built here, a
# -20% effect injected by a trailer at a commit on a topic branch; the
# bisection names it, verifies it (revert included when configured), reuses
# samples, tells "not reproduced" from a guess, and refuses bad input.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/bisect-lib.sh"
plan 34

ROOT_SUBJECT=$(printf 'root \033[31mred')
TRAILERS_33="Sim-Effect: $METRIC -20%"
make_repo "$SCRATCH/src"
write_config kreg.yaml 7
export KREG_CONFIG="$SCRATCH/kreg.yaml"

run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric "$METRIC"
is "$RC" 0 "bisect start runs to the end"
like "$OUT" "found: ${SHA_33:0:12} is the first bad commit" "it names the commit with the effect (on a topic branch)"
like "$OUT" "simulated samples" "the progress says the samples are simulated"
like "$OUT" "^step ${SHA_33:0:12} commit 33" "each step is printed with its commit and subject"
no_sanitizer_report "no sanitizer report"

run_kreg bisect status 1
is "$RC" 0 "bisect status 1"
like "$OUT" "state: +found" "status: found"
like "$OUT" "culprit: +$SHA_33 \(confidence (0\.9|1\.0)" "status: the culprit and its confidence"
like "$OUT" "sim: simulated samples" "status: labelled sim"
builds=$(sql "SELECT builds FROM bisections WHERE id = 1")
ok "at most ceil(log2 64) + 3 builds beyond the two ends ($builds in all)" test "$builds" -le 11
is "$(sql "SELECT runs FROM bisections WHERE id = 1")" "$(sql "SELECT count(*) FROM runs")" \
	"the bisection's run count is every run it stored"
is "$(sql "SELECT sum(runs) FROM bisect_steps WHERE bisection_id = 1")" \
	"$(sql "SELECT runs FROM bisections WHERE id = 1")" "and the steps' runs add up to it"
is "$(sql "SELECT DISTINCT kernel FROM runs")" "sim" "every run says it ran on kernel 'sim'"
is "$(sql "SELECT count(*) FROM bisect_steps WHERE bisection_id = 1 AND role = 'verify-culprit'")" 1 \
	"the culprit was run again to verify it"
is "$(sql "SELECT count(*) FROM bisect_steps s JOIN commits c ON c.id = s.commit_id
	   WHERE bisection_id = 1 AND role = 'verify-parent' AND c.sha = '$SHA_32'")" 1 \
	"and its parent too"

run_kreg bisect log 1
is "$RC" 0 "bisect log 1"
like "$OUT" "^# bisection 1 of src on host simhost \(sim: simulated samples\)" "log: header, labelled sim"
like "$OUT" "higher is better" "log: the metric's direction"
like "$OUT" "^ +1 +good +${GOOD:0:12} +good +[0-9]+ +[0-9]+ +[0-9.e+]+ +root" "log: the good end first, with runs and mean"
like "$OUT" "step +${SHA_33:0:12} +bad" "log: the culprit's step, judged bad"
like "$OUT" "^# found: $SHA_33 is the first bad commit" "log: the outcome"
unlike "$OUT" $'\033' "log: no terminal escape from a commit subject gets through"
like "$OUT" "root \?\[31mred" "log: the escape is shown as ?"

# Verify by revert too; the new bisection reuses the first one's samples.
write_config kreg.yaml 7 "  verify_revert: true"
run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric "$METRIC"
is "$RC" 0 "a second bisection with verify_revert"
like "$OUT" "reverting it on bad restores the good side" "the revert of the culprit on bad restores good"
is "$(sql "SELECT count(*) FROM bisect_steps WHERE bisection_id = 2 AND role = 'revert'")" 1 \
	"a revert step was run"
runs1=$(sql "SELECT runs FROM bisections WHERE id = 1")
runs2=$(sql "SELECT runs FROM bisections WHERE id = 2")
ok "it reused the first bisection's samples ($runs2 new runs, against $runs1)" test "$runs2" -lt "$runs1"

# No effect in the range: not reproduced, not a guess.
run_kreg bisect start --repo src --good "$GOOD" --bad "$SHA_31" --job fio-read --host simhost \
	--metric "$METRIC"
is "$RC" 0 "a range without the regression ends"
like "$OUT" "not reproduced" "as not reproduced"
is "$(sql "SELECT state || ':' || coalesce(culprit_commit_id, 'none') FROM bisections WHERE id = 3")" \
	"not_reproduced:none" "with no culprit stored"

# Bad input.
run_kreg bisect start --repo src --good "$BAD" --bad "$GOOD" --job fio-read --host simhost --metric "$METRIC"
like "$RC:$ERR" "^1:.*is not an ancestor of bad" "good after bad is refused, saying why"
run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host nohost --metric "$METRIC"
like "$RC:$ERR" "^1:.*no host named 'nohost'" "an unknown host is named"
run_kreg bisect start --repo src --good "$GOOD"
like "$RC:$ERR" "^2:.*are all needed" "missing options are a usage error"
run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost --metric fio.nope
like "$RC:$ERR" "^1:.*draws no metric 'fio.nope' \(it draws: $METRIC, fio.write_iops\)" \
	"a metric the sim host does not draw is refused, naming those it does"
done_testing
