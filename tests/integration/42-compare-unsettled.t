#!/bin/bash
# kreg compare shows a suggestive change that the runs so far cannot settle
# (issue 14's seed case: -66% at 3 v 3, the culprit's runs noisy), marked in
# the table and in --json, with the runs a side that would settle it; and
# lkp_changed is LKP's own verdict.
. "$KREG_SRC/tests/lib.sh"
plan 12

M=fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec
printf '{"%s": [570.11, 573.42, 576.73], "fxmark.other.works/sec": [100, 101, 99]}' "$M" > base.json
printf '{"%s": [158.0, 194.68, 231.36], "fxmark.other.works/sec": [100, 100.5, 99.7]}' "$M" > culprit.json

run_kreg compare base.json culprit.json
is "$RC" 0 "compare exits 0"
like "$OUT" "^    573\.42           -66\.0%\?    194\.68 ± 15%  $M\$" "the seed case's row is shown by default, marked"
like "$OUT" '^\? unsettled: the runs so far suggest a change' "the mark is explained under the table"
like "$OUT" "^  $M: -66\.0%, 3 v 3 runs; 5 runs a side would settle it\$" "with the runs a side that would settle it"
unlike "$OUT" "fxmark\.other" "the unchanged metric is not listed"
no_sanitizer_report "no sanitizer report"

run_kreg compare --json base.json culprit.json
is "$RC" 0 "--json exits 0"
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys
d = json.load(sys.stdin)
for m in d["metrics"]:
    c = m["columns"][1]
    print(m["metric"], c["verdict"], c["unsettled"], c["runs_needed"], c["lkp_changed"], c["ranges_apart"])')" \
	"$M unknown True 5 True True" "--json lists it as unknown, unsettled, with runs_needed and LKP's verdict"

# with the 5 runs a side it asked for, it is settled: a regression, no mark
printf '{"%s": [570.11, 573.42, 576.73, 571.9, 574.6]}' "$M" > base5.json
printf '{"%s": [158.0, 194.68, 231.36, 180.2, 205.5]}' "$M" > culprit5.json
run_kreg compare --json base5.json culprit5.json
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; c=json.load(sys.stdin)["metrics"][0]["columns"][1]; print(c["verdict"], c["unsettled"])')" \
	"regression False" "5 runs a side settle it"
run_kreg compare base5.json culprit5.json
unlike "$OUT" "unsettled" "and the table has no mark"

# LKP's own rule: a -3% step with the ranges apart is under its 5% skip
printf '{"fio.read_iops": [100, 100.5, 101]}' > b3.json
printf '{"fio.read_iops": [97, 97.5, 98]}' > c3.json
run_kreg compare --all --json b3.json c3.json
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; c=json.load(sys.stdin)["metrics"][0]["columns"][1]; print(c["lkp_changed"], c["ranges_apart"], c["verdict"])')" \
	"False True no change" "lkp_changed is LKP's verdict (small change skipped); ranges_apart is kreg's range test"
no_sanitizer_report "no sanitizer report"
done_testing
