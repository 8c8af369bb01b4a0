#!/bin/bash
# Commits around the culprit that do not build (Sim-Build: fails) or do not
# boot (Sim-Boot: fails) are skipped; the bisection ends inconclusive with
# exactly the commits that could be the first bad one.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/bisect-lib.sh"
plan 11

# 36 (main, after the merge 35) does not boot; 37 carries the effect and
# does not build; 38 is the first testable bad commit.
TRAILERS_36="Sim-Boot: fails"
TRAILERS_37="Sim-Effect: $METRIC -20%
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
want=$(printf '%s\n' "$SHA_36" "$SHA_37" "$SHA_38" | sort | tr '\n' ' ')
is "$cands" "$want" "the candidates are the two broken commits and the first bad one after them"

run_kreg bisect log 1
like "$OUT" "${SHA_37:0:12} +skip .*does not build" "log: 37 skipped, does not build"
like "$OUT" "${SHA_36:0:12} +skip " "log: 36 skipped"
is "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id
	   WHERE c.sha = '$SHA_36' AND r.status = 'kernel_failed'")" 2 \
	"36 cost two runs that failed to boot, then no more"
is "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$SHA_37'")" 0 \
	"37 was never run"
like "$(sql "SELECT group_concat(role) FROM bisect_steps s JOIN commits c ON c.id = s.commit_id
	     WHERE bisection_id = 1 AND c.sha = '$SHA_35'")" "verify-parent" \
	"the good side of the boundary (the merge 35) was verified"
like "$OUT" "^# the first bad commit is one of: " "log: the list"
done_testing
