#!/bin/bash
# Commits around the culprit that do not build (Sim-Build: fails) or do not
# boot (Sim-Boot: fails) are skipped; the bisection ends inconclusive with
# exactly the commits that could be the first bad one.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/bisect-lib.sh"
plan 18

# On main, 37 does not boot; 38 carries the effect and does not build; the
# topic 39..41 branches off 36, so the first testable bad commit is the
# merge 42 that brings 37 and 38 in.
TRAILERS_37="Sim-Boot: fails"
TRAILERS_38="Sim-Effect: $METRIC -20%
Sim-Build: fails"
make_repo "$SCRATCH/src"
write_config kreg.yaml 3
export KREG_CONFIG="$SCRATCH/kreg.yaml"

run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric "$METRIC"
is "$RC" 0 "bisect start runs to the end"
like "$OUT" "inconclusive: the first bad commit is one of 3 commits" "inconclusive, one of three"
no_sanitizer_report "no sanitizer report"

run_kreg bisect status 1
like "$OUT" "state: +inconclusive" "status: inconclusive"
cands=$(printf '%s\n' "$OUT" | sed -n '/candidates/,/message/p' | grep -Eo '[0-9a-f]{40}' | sort | tr '\n' ' ')
want=$(printf '%s\n' "$SHA_37" "$SHA_38" "$SHA_42" | sort | tr '\n' ' ')
is "$cands" "$want" "the candidates are the two broken commits and the merge that brings them in"

run_kreg bisect log 1
like "$OUT" "${SHA_38:0:12} +skip .*does not build" "log: 38 skipped, does not build"
like "$OUT" "${SHA_37:0:12} +skip " "log: 37 skipped"
is "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id
	   WHERE c.sha = '$SHA_37' AND r.status = 'kernel_failed'")" 2 \
	"37 cost two runs that failed to boot, then no more"
is "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$SHA_38'")" 0 \
	"38 was never run"
like "$(sql "SELECT group_concat(role) FROM bisect_steps s JOIN commits c ON c.id = s.commit_id
	     WHERE bisection_id = 1 AND c.sha = '$SHA_41'")" "verify-parent" \
	"the good side of the boundary (41, the topic's tip) was verified"
like "$OUT" "^# the first bad commit is one of: " "log: the list"

# A flaky host: a fifth of the runs fail in the infrastructure. They are
# stored as such, never as samples, and retried.
sed -i 's/^hosts:$/hosts:\
  - name: flaky\
    backend: sim\
    seed: 5\
    infra_fail_rate: 20%\
    metrics:\
      - { metric: '"$METRIC"', base: 10000, noise: 5% }/' kreg.yaml
run_kreg bisect start --repo src --good "$SHA_42" --bad "$BAD" --job fio-read --host flaky --metric "$METRIC"
is "$RC" 0 "on a flaky host the bisection still ends"
like "$OUT" "infra_failed: sim: infrastructure failure drawn" "the failed runs are reported"
is "$(sql "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id JOIN samples s ON s.run_id = r.id
	   WHERE h.name = 'flaky' AND r.status = 'infra_failed'")" 0 "failed runs left no samples"
infra=$(sql "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.name = 'flaky' AND r.status = 'infra_failed'")
ok "some runs failed ($infra) and were retried" test "$infra" -gt 0
like "$(sql "SELECT state FROM bisections WHERE id = 2")" "^not_reproduced$" \
	"42..64 holds no change: not reproduced, despite the failures"

# An end that does not build: the bisection fails, saying which and why.
run_kreg bisect start --repo src --good "$SHA_38" --bad "$BAD" --job fio-read --host simhost --metric "$METRIC"
like "$OUT" "the good end ${SHA_38:0:12} does not build" "an unbuildable good end is named"
is "$(sql "SELECT state FROM bisections WHERE id = 3")" "failed" "and the bisection is failed, not guessed"
done_testing
