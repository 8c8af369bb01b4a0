#!/bin/bash
# The daemon follows a regression to its end when nobody says what fixed
# it: on a sim host it bisects a drop and mails the report (an SMTP server
# on loopback); later commits bring the level back by a commit that
# neither reverts the culprit nor says Fixes: or Closes:. The head's level
# is back (fixed, as a try would judge it): the daemon bisects the
# recovery (the search's sense reversed), names the commit that brought it
# back, tries it as the fix, marks the regression fixed with the share
# recovered, and answers in the report's thread; the detector's row of
# the rise at that head is marked the recovery of the regression, not a
# finding of its own. A restart does nothing twice. A second regression
# only partly comes back: said, not bisected, left open, the detector's
# row of that rise marked its partial recovery; then a commit
# that says Fixes: its culprit brings it back: the try path marks it
# fixed, and no recovery bisection is started.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
trap 'smtp_stop; _daemon_cleanup' EXIT
plan 49

export GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000"
daemon_mail_lab
mails() { ls "$SCRATCH"/smtp/*.eml 2>/dev/null | wc -l; }
mailed() { [ "$(mails)" -ge "$1" ]; }

daemon_start
tested_heads "$ROOT" 3
for i in 4 5 6; do up_commit $i >/dev/null; done
CULPRIT=$(up_commit 7 "Sim-Effect: fio.read_iops -20%")
for i in 8 9 10; do HEAD=$(up_commit $i); done
up_push
wait_for 600 "the daemon bisects the drop and mails the report" mailed 1
wait_for 300 "and it goes idle" idle_at "$HEAD"
is "$(sql "SELECT state || ' ' || c.sha FROM regressions g JOIN commits c ON c.id = g.culprit_commit_id
	WHERE g.id = 1")" "reported $CULPRIT" "regression 1: reported, its culprit commit 7"

# three heads more at the regression's level, then the level comes back
# at commit 14: no revert, no Fixes:, no Closes:
for i in 11 12 13; do
	HEAD=$(up_commit $i)
	up_push
	wait_for 300 "head $i pushed: tested" idle_at "$HEAD"
done
FIX=$(up_commit 14 "Sim-Effect: fio.read_iops +25%")
up_commit 15 >/dev/null; HEAD=$(up_commit 16)
HEAD16=$HEAD
up_push
fixed() { [ "$(sql "SELECT state FROM regressions WHERE id = $1")" = fixed ]; }
wait_for 900 "the daemon bisects the recovery and marks the regression fixed" fixed 1
wait_for 120 "its answer goes out" mailed 2
wait_for 300 "and it goes idle" idle_at "$HEAD"
is "$(sql "SELECT count(*) || ' ' || group_concat(g.sha || '..' || b.sha || ' ' || x.state || ' '
	|| coalesce(c.sha, '-')) FROM bisections x JOIN commits g ON g.id = x.good_commit_id
	JOIN commits b ON b.id = x.bad_commit_id LEFT JOIN commits c ON c.id = x.culprit_commit_id
	WHERE x.recovers = 1")" "1 $(git -C "$UP" rev-parse HEAD~3)..$HEAD found $FIX" \
	"one recovery bisection, from the last bad head to the head back at the level: commit 14"
is "$(sql "SELECT fixed_by FROM regressions WHERE id = 1")" "$FIX" "regression 1 is fixed by commit 14"
is "$(sql "SELECT source || ' ' || verdict FROM tries WHERE regression_id = 1")" "recovery fixed" \
	"commit 14 tried as the fix: fixed"
SHARE=$(sql "SELECT printf('%.0f', share * 100) FROM tries WHERE regression_id = 1")
ok "the share recovered is stored ($SHARE%)" test "${SHARE:-0}" -ge 90
like "$(sql "SELECT note FROM regression_marks WHERE regression_id = 1 AND mark = 'fixed'")" \
	"^found by bisecting the recovery, tried by kreg: $SHARE% of the regression recovered" \
	"the mark says how kreg found it, with the share"
is "$(sql "SELECT group_concat(kind, ' ') FROM outbox WHERE regression_id = 1")" "first try" \
	"the report and the answer of the try: the thread's fixed mail, none besides"
FIRST=$(ls "$SCRATCH"/smtp/*.eml | sort -V | head -1)
ANSWER=$(ls "$SCRATCH"/smtp/*.eml | sort -V | sed -n 2p)
REPORT_ID=$(mail_header "$FIRST" Message-ID)
is "$(mail_header "$ANSWER" In-Reply-To) $(mail_header "$ANSWER" References)" "$REPORT_ID $REPORT_ID" \
	"the answer is in the report's thread"
BODY=$(mail_body "$ANSWER")
like "$BODY" "^verdict: fixed, $SHARE% of the regression recovered$" "the answer: fixed, with the share"
like "$BODY" "found by bisecting the recovery" "the answer says how the commit was found"
like "$BODY" "^fix: +$FIX \(\"commit 14\"\)" "the answer names commit 14"
# the recovery bisection's range starts a level at the head, so the
# detector calls no rise there; a rise it called before is marked the
# recovery of regression 1 (a duplicate of it): none is a finding of its own
is "$(sql "SELECT count(*) FROM regressions WHERE id != 1 AND (coalesce(triage, '') != 'duplicate'
	OR duplicate_of != 1)")" 0 "the rise at the head is no regression row of its own"
run_kreg status
like "$OUT" "recovery bisection [0-9]+ \([0-9a-f]{12}\.\.${HEAD16:0:12}\): found, fixed by $FIX" \
	"kreg status: the recovery bisection, labelled, with what it found"

# a restart does nothing twice, nor does the next head
daemon_stop
is "$DRC" 0 "the daemon stops"
daemon_start
NEXT=$(up_commit 17)
up_push
wait_for 300 "restarted, the next head is tested" idle_at "$NEXT"
is "$(sql "SELECT count(*) FROM bisections WHERE recovers IS NOT NULL") $(sql "SELECT count(*) FROM tries") $(mails)" \
	"1 1 2" "after a restart and a head: one recovery bisection, one try, two mails"

# regression 2: a drop that only partly comes back
CULPRIT2=$(up_commit 18 "Sim-Effect: fio.read_iops -20%")
HEAD=$(up_commit 19)
up_push
R2=
reported2() {
	R2=$(sql "SELECT id FROM regressions WHERE culprit_commit_id = (SELECT id FROM commits
		WHERE sha = '$CULPRIT2') AND state = 'reported'")
	[ -n "$R2" ]
}
wait_for 600 "the second drop is bisected and reported" reported2
wait_for 300 "and the daemon goes idle" idle_at "$HEAD"
up_commit 20 "Sim-Effect: fio.read_iops +10%" >/dev/null
HEAD=$(up_commit 21)
up_push
wait_for 300 "a head partly back is tested" idle_at "$HEAD"
is "$(sql "SELECT state FROM regressions WHERE id = $R2")" reported "partly back: the regression stays open"
is "$(sql "SELECT count(*) FROM bisections WHERE recovers = $R2")" 0 "and no recovery bisection"
like "$(cat "$DATA_DIR"/logs/*.log)" "recovery: regression $R2: fio.read_iops at ${HEAD:0:12} is partly back \([0-9]+% of the regression recovered\): not bisected" \
	"the detection's log says so"
PARTLY_ROW=$(sql "SELECT id FROM regressions WHERE bad_commit_id = (SELECT id FROM commits
	WHERE sha = '$HEAD')")
is "$(sql "SELECT g.triage || ' ' || g.duplicate_of || ' ' || m.who || ': ' || m.note
	FROM regressions g JOIN regression_marks m ON m.regression_id = g.id WHERE g.id = '$PARTLY_ROW'")" \
	"duplicate $R2 kreg: the recovery of regression $R2 (partly back)" \
	"the detector's row of the partial rise is marked the recovery of regression $R2, by kreg"

# a commit that says Fixes: its culprit brings it all back: the try path's
FIXES=$(up_commit 22 "Sim-Effect: fio.read_iops +13.64%
Fixes: ${CULPRIT2:0:12} (\"commit 18\")")
HEAD=$(up_commit 23)
up_push
wait_for 600 "the Fixes: commit is tried and marks the regression fixed" fixed "$R2"
wait_for 300 "and the daemon goes idle" idle_at "$HEAD"
is "$(sql "SELECT source || ' ' || verdict || ' ' || c.sha FROM tries t JOIN commits c
	ON c.id = t.fix_commit_id WHERE regression_id = $R2")" "fixes fixed $FIXES" \
	"the try of the Fixes: commit fixed it"
is "$(sql "SELECT count(*) FROM bisections WHERE recovers = $R2")" 0 \
	"no recovery bisection: a commit names the culprit"
daemon_stop
is "$DRC" 0 "the daemon stops"

# the pages: regression 1 fixed by commit 14, found by bisecting the recovery
run_kreg report -o "$SCRATCH/site"
is "$RC" 0 "kreg report writes the site"
lab_check text "$SCRATCH/site/regression-r1.html"
PAGE=$CHECK_OUT
like "$PAGE" "^Fixed by ${FIX:0:12} at $SHARE% of the regression recovered \(found by bisecting the recovery\)\. Closed: fixed$" \
	"the page: fixed by commit 14, found by bisecting the recovery"
like "$PAGE" "UTCrecovery bisection started${HEAD16:0:12}the level came back at ${HEAD16:0:12}: recovery bisection [0-9]+ of" \
	"its life: the recovery bisection started"
like "$PAGE" "UTCrecovery bisected${FIX:0:12}the first commit back at the level before: ${FIX:0:12}" \
	"and what it found"
like "$PAGE" "UTCfix tried${FIX:0:12}try [0-9]+, recovery ${FIX:0:12} \(\"commit 14\"\): fixed, $SHARE% of the regression recovered$" \
	"the try of commit 14"
lab_check text "$SCRATCH/site/index.html"
CLOSED=$(sed -n '/^Closed/,/^Branches/p' <<<"$CHECK_OUT")
like "$CLOSED" "^fixed.*recovery bisection [0-9]+: found.*fio\.read_iops.*${CULPRIT:0:12} commit 7" \
	"the index: regression 1 closed, its recovery bisection labelled"
like "$CLOSED" "^duplicate.*\+[0-9.]+%.*fio\.read_iops" "the partial rise: closed, a duplicate"
lab_check links "$SCRATCH/site"
is "$?" 0 "every link of the site resolves"
no_sanitizer_in_logs "no sanitizer report"
done_testing
