#!/bin/bash
# kreg regression list|show|mark: a person closes a regression as invalid,
# noise, a duplicate of another or fixed by a commit, and reopens it; every
# mark is kept with who and why. A closed regression leaves the open list
# and kreg status says its mark; a mark that makes no sense is refused with
# its reason, and nothing is changed by it.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/stored-lib.sh"
plan 43

# 12 commits on a line; two regressions of fio.read_iops: #1 bisected to
# c9 (its samples -30% from c9 on), #2 confirmed at c12 (-12% more); the
# rows' own changes are the detector's estimates, not what a list shows.
: > line.txt
for i in $(seq 0 8); do echo "fio.read_iops 10000 10010 9990" >> line.txt; done
for i in 9 10 11; do echo "fio.read_iops 7000 7007 6993" >> line.txt; done
echo "fio.read_iops 6160 6170 6150" >> line.txt
stored_lab 12 line.txt
sql "INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	culprit_commit_id, change, state, created, updated) VALUES
	(1, 1, 1, 1, 1, 8, 12, 10, -0.25, 'bisected', 0, 0),
	(2, 1, 1, 1, 1, 12, 13, NULL, -0.1, 'confirmed', 0, 0)"
C9=$(sha_of 10); C11=$(sha_of 12)

run_kreg regression list
is "$RC" 0 "list: exit 0"
like "$OUT" "^1 +bisected +-30\.0% ${C9:0:12} fio.read_iops \(job-4k-2s-randread-16m on hosta\)$" \
	"list: the bisected regression, its change (the culprit against its parent) and culprit"
like "$OUT" "^2 +confirmed +-12\.0% - +fio.read_iops \(job-4k-2s-randread-16m on hosta\) \[the bad commit against the last good one\]$" \
	"list: the confirmed one, no culprit yet: its figure says what it compares"
run_kreg regression show 1
like "$OUT" "^change: +-30\.0%, the culprit against its parent$" "show: the same figure, and what it compares"

# The figure of a list is the page's and the mail's (the report model's):
# kreg status --json and the site's regressions.json agree, and so do the
# list's text and the regression page's.
run_kreg report -o site
is "$RC" 0 "the site is written"
run_kreg status --json
is "$(printf '%s' "$OUT" | python3 -c '
import json, sys
st = {r["id"]: (round(r["change"], 6), r["figure"]) for r in json.load(sys.stdin)["regressions"]}
site = {r["regression_id"]: round(r["change"], 6) for r in json.load(open("site/regressions.json"))}
print(sorted(st) == sorted(site) and all(st[i][0] == site[i] for i in st), st[1][1], st[2][1])')" \
	"True -30.0% -12.0%" "status --json: each regression's change is the site's (not the rows' -25% and -10%)"
for id in 1 2; do
	run_kreg regression list
	FIG=$(printf '%s\n' "$OUT" | awk -v id=$id '$1 == id { print $3 }')
	ok "regression $id: the list's figure ($FIG) heads its page" grep -q -- "<h1>.*$FIG" "site/regression-r$id.html"
done

# a duplicate, with who and why
run_kreg regression mark 2 duplicate-of 1 --by alice --note "the same step, seen later"
is "$RC" 0 "mark duplicate-of: exit 0"
is "$OUT" "regression 2: duplicate 1" "it says what it did"
run_kreg regression list
unlike "$OUT" "^2 " "the duplicate left the open list"
run_kreg regression list --closed
like "$OUT" "^2 +duplicate +-12\.0%" "and is listed closed, as a duplicate"
run_kreg regression show 2
like "$OUT" "^state: +duplicate \(closed\)$" "show: its state is the mark"
like "$OUT" "^found: +confirmed$" "show: what kreg found is kept"
like "$OUT" "^duplicate of: regression 1$" "show: of which"
like "$OUT" "^  [0-9-]+ [0-9:]+ duplicate 1 by alice \(was confirmed\): the same step, seen later$" \
	"show: the mark, by whom, what it replaced and why"
run_kreg status
like "$OUT" "#2 duplicate " "kreg status says the mark"
run_kreg regression mark 2 duplicate-of 1
like "$OUT" "already" "the same mark again changes nothing"
is "$(sql "SELECT count(*) FROM regression_marks")" 1 "one mark row"

# refused, naming why; nothing changes
run_kreg regression mark 1 duplicate-of 2
is "$RC" 1 "a loop of duplicates: exit 1"
like "$ERR" "regression 2 is a duplicate of 1 already: no loop" "the loop is named"
run_kreg regression mark 1 duplicate-of 1
like "$ERR" "cannot be a duplicate of itself" "a duplicate of itself is refused"
run_kreg regression mark 1 duplicate-of 99
like "$ERR" "no regression 99" "a duplicate of an unknown regression is refused"
run_kreg regression mark 7 noise
like "$ERR" "no regression 7" "an unknown regression is named"
run_kreg regression mark 1 wontfix
is "$RC" 2 "an unknown mark: usage error"
run_kreg regression mark 1 fixed-by nosuchcommit
like "$ERR" "fixed-by 'nosuchcommit': not a stored commit of the regression's repo, nor a full sha" \
	"an unknown fixing commit is refused"
is "$(sql "SELECT state || ' ' || coalesce(triage, '-') FROM regressions WHERE id = 1")" "bisected -" \
	"and regression 1 is untouched"

# noise, then fixed by a stored commit (a prefix), then reopened whole
run_kreg regression mark 1 noise --note $'\e[31mred\e[0m'
is "$RC" 0 "mark noise"
run_kreg regression show 1
like "$OUT" "noise by .*: \\\\e\[31mred\\\\e\[0m$" "a note is shown escaped"
run_kreg regression mark 1 fixed-by "${C11:0:10}"
is "$OUT" "regression 1: fixed $C11" "fixed-by takes a stored commit's prefix, stores its sha"
run_kreg regression show 1
like "$OUT" "^state: +fixed \(closed\)$" "fixed"
like "$OUT" "^fixed by: $C11$" "by that commit"
run_kreg regression mark 1 reopen --by bob
is "$RC" 0 "reopen"
is "$(sql "SELECT state || ' ' || coalesce(triage, '-') || ' ' || coalesce(fixed_by, '-') FROM regressions WHERE id = 1")" \
	"bisected - -" "reopen takes back every mark since it was opened: bisected again"
run_kreg regression list
like "$OUT" "^1 +bisected " "and it is open again"
run_kreg regression mark 1 reopen
like "$ERR" "regression 1 has no mark since it was last opened: nothing to reopen" \
	"reopening an open regression says why not"
run_kreg regression mark 1 fixed-by 0123456789abcdef0123456789ABCDEF01234567
is "$OUT" "regression 1: fixed 0123456789abcdef0123456789abcdef01234567" \
	"a full sha kreg has not seen is taken as the fix"

# regressions sharing a culprit (repo, job, host): one line in kreg
# status, the lead the biggest change when no bisection ran on one, the
# others under it; --json keeps each, naming its lead
sql "INSERT INTO metrics (id, name) VALUES (50, 'fio.write_iops'), (51, 'fio.read_clat_mean_ns');
	INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	culprit_commit_id, change, state, created, updated) VALUES
	(3, 1, 1, 1, 50, 8, 12, 10, -0.45, 'bisected', 0, 0),
	(4, 1, 1, 1, 51, 8, 12, 10, 0.2, 'bisected', 0, 0)"
run_kreg status
is "$(printf '%s\n' "$OUT" | grep -c '^  #[0-9]')" 2 "kreg status: one line per culprit (and one without a culprit)"
like "$OUT" "^  #3 bisected +fio.write_iops -45\.0% \(the bad head against the detector's baseline\) at " \
	"its lead: the biggest change (a metric without samples: the detector's estimate, said so)"
like "$OUT" "^      the same culprit: (#1 fio.read_iops -30\.0%, #4 fio.read_clat_mean_ns \+20\.0%|#4 fio.read_clat_mean_ns \+20\.0%, #1 fio.read_iops -30\.0%)$" \
	"the others under it"
run_kreg status --json
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys
r=json.load(sys.stdin)["regressions"]
print(len(r), sorted((x["id"], x["lead"], x["group"]) for x in r))')" \
	"4 [(1, False, 3), (2, True, None), (3, True, 3), (4, False, 3)]" "status --json: every regression, its lead named"
no_sanitizer_report "no sanitizer report"
done_testing
