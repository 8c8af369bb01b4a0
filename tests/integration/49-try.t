#!/bin/bash
# kreg try: does a fix fix a regression? A regression bisected on a sim host
# to the commit with a -20% Sim-Effect; its revert as a format-patch mail,
# applied on the culprit, brings the level back: the three-column table
# (last good, culprit, culprit plus fix) and "fixed". A patch that recovers
# half is "partly fixed" with the share, one that changes nothing "not
# fixed"; --commit takes a commit of the repo, --branch REPO:BRANCH a
# branch's head. Every try is stored and `kreg regression show` lists it.
# A patch that does not apply, a fix that does not build, an unknown
# regression and one without a culprit exit 1 naming why. kreg regression
# retest runs the culprit and its parent again and sees the drop again.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/bisect-lib.sh"
plan 50

TRAILERS_20="Sim-Effect: $METRIC -20%"
make_repo "$SCRATCH/src"
write_config kreg.yaml 7
sed -i 's/noise: 5%, outlier_rate: 1%/noise: 2%/' kreg.yaml	# a half fix told apart from both ends
export KREG_CONFIG="$SCRATCH/kreg.yaml"
run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric "$METRIC"
like "$OUT" "found: ${SHA_20:0:12} is the first bad commit" "the regression is bisected to commit 20"
# the bisection's regression row, as the daemon's detection makes it
sql "INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	culprit_commit_id, bisection_id, change, state, created, updated)
	SELECT 1, repo_id, job_id, host_id, metric_id, good_commit_id, bad_commit_id,
	culprit_commit_id, id, -0.2, 'bisected', 0, 0 FROM bisections WHERE id = 1;
	UPDATE bisections SET regression_id = 1 WHERE id = 1"
PARENT=$(git -C src rev-parse "$SHA_20^")

# patches made in a clone, as a developer would
git clone -q src dev
git -C dev config user.name "Dev Eloper"; git -C dev config user.email dev@example.org
git -C dev checkout -q -b fix "$SHA_20"
git -C dev revert --no-edit "$SHA_20" >/dev/null
git -C dev format-patch -1 --stdout > revert.patch
echo half >> dev/file5
git -C dev commit -qam "half a fix

Sim-Effect: $METRIC +12.5%"
git -C dev format-patch -1 --stdout > half.patch
git -C dev checkout -q -b noop "$SHA_20"
echo nothing >> dev/file5
git -C dev commit -qam "a change that changes nothing"
git -C dev format-patch -1 --stdout > noop.patch
git -C dev checkout -q -b broken "$SHA_20"
echo broken >> dev/file5
git -C dev commit -qam "a fix that breaks the build

Sim-Build: fails"
git -C dev format-patch -1 --stdout > broken.patch
git -C dev checkout -q "$BAD"
echo late >> dev/file60
git -C dev commit -qam "touches a file the culprit does not have"
git -C dev format-patch -1 --stdout > late.patch

run_kreg try 1 --patch revert.patch
is "$RC" 0 "try the revert: exit 0"
like "$OUT" "^ *${PARENT:0:16} +${SHA_20:0:16}[0-9a-f]* +[0-9a-f]{16}" \
	"the table's head: last good, culprit, culprit plus fix"
like "$OUT" "^ +[0-9.]+ .* -[12][0-9]\.[0-9]%\?? .* [0-9.]+ .*$METRIC" "the culprit's column: the drop (marked ? while its 3 v 3 runs do not settle it)"
like "$OUT" "^regression 1: fixed by [0-9a-f]{12}$" "the verdict: fixed"
like "$OUT" "of the regression recovered" "with the share recovered"
FIX=$(printf '%s\n' "$OUT" | sed -n 's/^regression 1: fixed by //p')
is "$(git -C "$SCRATCH/data/repos/src.git" log -1 --format=%s "$FIX" 2>/dev/null)" \
	"Revert \"commit 20\"" "the fix is a commit of the mirror with the patch's subject"
is "$(git -C "$SCRATCH/data/repos/src.git" rev-parse "$FIX^")" "$SHA_20" "on top of the culprit"
RUNS=$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha LIKE '$FIX%'")
ok "the fix was run at least 3 times ($RUNS)" test "$RUNS" -ge 3
no_sanitizer_report "no sanitizer report"

BEFORE=$(sql "SELECT count(*) FROM runs")
run_kreg try 1 --patch revert.patch
like "$OUT" "regression 1: fixed by ${FIX}" "the same patch again: the same commit, the same verdict"
is "$(sql "SELECT count(*) FROM runs")" "$BEFORE" "and its stored runs are used: no new run"

run_kreg try 1 --patch half.patch
is "$RC" 0 "try half a fix: exit 0"
like "$OUT" "^regression 1: partly fixed \(([3-7][0-9])% recovered\) by [0-9a-f]{12}$" \
	"partly fixed, the share recovered (half, in the model)"

run_kreg try 1 --patch noop.patch
is "$RC" 0 "try a patch that changes nothing: exit 0"
like "$OUT" "^regression 1: not fixed by [0-9a-f]{12}$" "not fixed"

REVERT_ON_BAD=$(git -C dev revert --no-edit "$SHA_20" >/dev/null && git -C dev rev-parse HEAD)
git -C src fetch -q "$SCRATCH/dev" "$REVERT_ON_BAD"
git -C src branch -q fixed "$REVERT_ON_BAD"
run_kreg try 1 --commit fixed
is "$RC" 0 "try --commit: exit 0" 
like "$OUT" "^regression 1: fixed by ${REVERT_ON_BAD:0:12}$" "a commit reverting the culprit on the branch: fixed"

git -C dev branch -q fixbranch fix~1	# the revert
run_kreg try 1 --branch "$SCRATCH/dev:fixbranch"
is "$RC" 0 "try --branch REPO:BRANCH (a path): exit 0"
like "$OUT" "^regression 1: fixed by $(git -C dev rev-parse --short=12 fixbranch)$" "the branch's head: fixed"
run_kreg try 1 --branch "$SCRATCH/dev:nosuch"
is "$RC" 1 "a branch that is not there: exit 1"
like "$ERR" "has no branch 'nosuch'|cannot fetch branch 'nosuch'" "it says so"

run_kreg try 1 --patch late.patch
is "$RC" 1 "a patch that does not apply: exit 1"
like "$ERR" "late.patch: the patch on culprit ${SHA_20:0:12} does not apply|late.patch: the patch does not apply on culprit ${SHA_20:0:12}" \
	"it says so, naming the patch and the culprit"
run_kreg try 1 --patch /dev/null
is "$RC" 1 "an empty patch: exit 1"
like "$ERR" "not a patch" "it says it is not a patch"
run_kreg try 1 --patch broken.patch
is "$RC" 1 "a fix that does not build: exit 1"
like "$ERR" "fix [0-9a-f]{12} does not build" "it says so"

run_kreg regression show 1
like "$OUT" "^  [0-9-]+ [0-9:]+ patch ${FIX:0:12} fixed \([0-9]+% recovered\)$" "regression show lists the tries"
like "$OUT" "^  [0-9-]+ [0-9:]+ commit ${REVERT_ON_BAD:0:12} fixed " "the commit tried too"
like "$OUT" "^  [0-9-]+ [0-9:]+ patch - no_apply$" "and the patch that did not apply"
is "$(sql "SELECT group_concat(verdict, ' ') FROM (SELECT verdict FROM tries ORDER BY id)")" \
	"fixed fixed partly not_fixed fixed fixed no_apply no_apply no_build" "every try is stored with its verdict"

# --queue: the fix made now, its try left to the daemon (84-daemon-fixes.t
# runs them); a patch that does not apply is stored at once, to be answered
run_kreg try 1 --queue --patch half.patch
like "$RC $(tail -1 <<<"$OUT")" "^0 regression 1: the try of [0-9a-f]{12} (is queued|was queued before) \(work [0-9]+\)" \
	"try --queue: queued, exit 0"
HALF=$(sed -n 's/.*the try of \([0-9a-f]*\) .*/\1/p' <<<"$OUT")
is "$(sql "SELECT w.kind || ' ' || w.state || ' ' || w.seq || ' ' || h.name FROM work w
	JOIN commits c ON c.id = w.commit_id JOIN hosts h ON h.id = w.host_id
	WHERE w.regression_id = 1 AND c.sha LIKE '$HALF%'")" "try queued 3 simhost" \
	"a try item of the patch's commit on the regression's host, from a patch (seq 3)"
run_kreg try 1 --queue --patch late.patch
is "$RC" 1 "try --queue of a patch that does not apply: exit 1"
is "$(sql "SELECT verdict || ' ' || answer FROM tries ORDER BY id DESC LIMIT 1") $(sql "SELECT count(*) FROM work WHERE kind = 'mail'")" \
	"no_apply 1 1" "its try stored to be answered, and a mail item queued"
# what that mail item does: the report, and the answer in its thread at once
LATE=$(sql "SELECT max(id) FROM tries")
run_kreg mail send --dry-run
is "$(sql "SELECT group_concat(kind || ' ' || mail_key, ', ') FROM outbox")" "first r1, try r1.try.$LATE" \
	"mail send: the report and, in the same pass, the answer of the queued try (no other try)"
is "$(sql "SELECT a.in_reply_to = f.message_id FROM outbox a, outbox f WHERE a.kind = 'try' AND f.kind = 'first'")" 1 \
	"the answer is in the report's thread"
like "$(sql "SELECT body FROM outbox WHERE kind = 'try'")" "^verdict: the patch does not apply on the culprit ${SHA_20:0:12}$" \
	"it says the patch does not apply"

run_kreg try 7 --patch revert.patch
is "$RC" 1 "an unknown regression: exit 1"
like "$ERR" "no regression 7" "named"
sql "INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	change, state, created, updated) SELECT 2, repo_id, job_id, host_id, metric_id, base_commit_id,
	base_commit_id, -0.1, 'confirmed', 0, 0 FROM regressions WHERE id = 1"
run_kreg try 2 --commit fixed
is "$RC" 1 "a regression without a culprit: exit 1"
like "$ERR" "regression 2 has no culprit \(state confirmed\)" "it says so"
run_kreg try 2 --queue --commit fixed
like "$RC $ERR" "^1 .*regression 2 has no culprit" "try --queue of a regression without a culprit: exit 1"
run_kreg try 1
is "$RC" 2 "neither --patch nor --commit: usage"

# retest: the culprit and its parent run again, fresh runs
BEFORE=$(sql "SELECT count(*) FROM runs")
run_kreg regression retest 1
is "$RC" 0 "regression retest: exit 0"
like "$OUT" "^regression 1: reproduced: $METRIC -[12][0-9]\.[0-9]% \(last good ${PARENT:0:12} [0-9.]+, culprit ${SHA_20:0:12} [0-9.]+; ([3-9]|10) and ([3-9]|10) fresh runs\)" \
	"the regression is seen again in fresh runs"
AFTER=$(sql "SELECT count(*) FROM runs")
ok "fresh runs were made ($BEFORE -> $AFTER)" test "$AFTER" -ge $((BEFORE + 6))
run_kreg regression retest 2
is "$RC" 1 "retest of a regression without a culprit: exit 1"
no_sanitizer_report "no sanitizer report"
done_testing
