#!/bin/bash
# The daemon closes the loop: left alone on a sim host it bisects a drop
# and mails the report (an SMTP server on loopback). Commits pushed later
# that say "Fixes: <culprit>" or "Closes: <the report's page>" but change
# nothing are tried against the regression and found not to fix it (the
# regression stays open); the revert of the culprit pushed next is tried
# and marks the regression fixed by kreg with the share recovered. Every
# try is answered by mail in the report's thread (In-Reply-To and
# References its Message-ID): the verdict, the share and the table the try
# stored (last good, culprit, culprit plus fix); the revert's answer is the
# thread's one "fixed" mail. Nobody runs a command, until `kreg try
# --queue` hands the daemon a patch (half a fix: partly fixed, answered
# too), one that does not apply (answered at once, exit 1) and one that
# does not build (answered so).
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
trap 'smtp_stop; _daemon_cleanup' EXIT
plan 72

export GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000"
daemon_mail_lab

daemon_start
tested_heads "$ROOT" 3
for i in 4 5 6; do up_commit $i >/dev/null; done
echo 7 > "$UP/seven.c"	# a file of its own: its revert applies
git -C "$UP" add seven.c
git -C "$UP" commit -qm "commit 7

Sim-Effect: fio.read_iops -20%"
CULPRIT=$(git -C "$UP" rev-parse HEAD)
for i in 8 9 10; do HEAD=$(up_commit $i); done
up_push
mailed() { [ "$(ls "$SCRATCH"/smtp/*.eml 2>/dev/null | wc -l)" -ge "$1" ]; }
wait_for 600 "the daemon bisects the drop and mails the report" mailed 1
wait_for 300 "and it goes idle" idle_at "$HEAD"
is "$(sql "SELECT c.sha FROM regressions g JOIN commits c ON c.id = g.culprit_commit_id WHERE g.id = 1")" \
	"$CULPRIT" "regression 1's culprit is commit 7"

# "Fixes:" the culprit, and "Closes:" the report's page (the tag its mail
# asks a fix for), but no fix
NOFIX1=$(up_commit 11 "Fixes: ${CULPRIT:0:12} (\"commit 7\")")
NOFIX=$(up_commit 12 "Closes: https://kreg.example.org/lab/regression-r1.html")
up_push
tried() { [ "$(sql "SELECT count(*) FROM tries WHERE regression_id = 1")" -ge "$1" ]; }
wait_for 300 "commits saying they fix the culprit are tried, untold" tried 2
wait_for 300 "and the daemon goes idle" idle_at "$NOFIX"
is "$(sql "SELECT group_concat(x, ', ') FROM (SELECT t.source || ' ' || t.verdict || ' ' || c.sha AS x
	FROM tries t JOIN commits c ON c.id = t.fix_commit_id ORDER BY t.source)")" \
	"fixes not_fixed $NOFIX1, link not_fixed $NOFIX" "neither fixed it, and that is stored"
isnt_fixed=$(sql "SELECT state FROM regressions WHERE id = 1")
ok "the regression stays open ($isnt_fixed)" test "$isnt_fixed" != fixed

FIRST=$(ls "$SCRATCH"/smtp/*.eml | sort -V | head -1)
REPORT_ID=$(mail_header "$FIRST" Message-ID)
# The received mail that answers try $1 (its Message-ID, from the outbox).
answer() {
	local mid
	mid=$(sql "SELECT message_id FROM outbox WHERE mail_key = 'r1.try.$1'")
	[ -n "$mid" ] && grep -lF "Message-ID: $mid" "$SCRATCH"/smtp/*.eml | head -1
}
# The answer of try $1 says verdict $2: in the thread, the share as stored,
# the table the try made.
check_answer() {
	local f body share report
	f=$(answer "$1")
	ok "try $1 is answered by mail" test -n "$f"
	[ -n "$f" ] || f=/dev/null
	is "$(mail_header "$f" In-Reply-To) $(mail_header "$f" References)" "$REPORT_ID $REPORT_ID" \
		"try $1's answer is in the report's thread"
	body=$(mail_body "$f")
	share=$(sql "SELECT printf('%.0f', share * 100) FROM tries WHERE id = $1")
	like "$body" "^verdict: $2, $share% of the regression recovered$" \
		"try $1's answer: $2, the share stored ($share%)"
	report=$(sql "SELECT report FROM tries WHERE id = $1")
	ok "try $1's answer carries the try's table" \
		test -n "$report" -a "${body/"$report"/}" != "$body"
}
mailed_answer() { [ -n "$(answer "$1")" ]; }
wait_for 120 "the answers go out" mailed_answer 2
check_answer 1 "not fixed"
check_answer 2 "not fixed"
T1=$(sql "SELECT t.id FROM tries t JOIN commits c ON c.id = t.fix_commit_id WHERE c.sha = '$NOFIX1'")
like "$(mail_body "$(answer "$T1")")" "^fix: +$NOFIX1 \(\"commit 11\"\)" "the answer names the commit tried"

# the revert
git -C "$UP" revert --no-edit "$CULPRIT" >/dev/null
REVERT=$(git -C "$UP" rev-parse HEAD)
ok "the revert is made" test "$REVERT" != "$NOFIX"
up_push
fixed() { [ "$(sql "SELECT state FROM regressions WHERE id = 1")" = fixed ]; }
wait_for 300 "the revert of the culprit is tried and marks the regression fixed" fixed
wait_for 120 "its answer goes out" mailed_answer 3
wait_for 300 "and the daemon goes idle" idle_at "$REVERT"
is "$(sql "SELECT source || ' ' || verdict FROM tries WHERE id = 3")" "revert fixed" "the try: the revert, fixed"
is "$(sql "SELECT fixed_by FROM regressions WHERE id = 1")" "$REVERT" "fixed by the revert"
check_answer 3 "fixed"
is "$(ls "$SCRATCH"/smtp/*.eml | wc -l) $(sql "SELECT group_concat(kind, ' ') FROM outbox")" \
	"4 first try try try" "one mail a try: the revert's answer is the thread's fixed mail, none besides"
run_kreg regression show 1
like "$OUT" "fixed $REVERT by kreg .*tried by kreg: [0-9]+% of the regression recovered" \
	"regression show: fixed by kreg, with the share recovered"
like "$(tr -d '\r' < "$FIRST")" "Closes: https://kreg.example.org/lab/regression-r1.html" \
	"the report asks a fix for the Closes: tag the daemon looks for"

# kreg try --queue: the patch applied now, the try the daemon's
git clone -q "$UP" dev
git -C dev config user.name "Dev Eloper"; git -C dev config user.email dev@example.org
git -C dev checkout -q "$CULPRIT"
echo half >> dev/seven.c
git -C dev commit -qam "half a fix

Sim-Effect: fio.read_iops +12.5%"
git -C dev format-patch -1 --stdout > half.patch
git -C dev checkout -q "$REVERT"
echo late >> dev/f
git -C dev commit -qam "touches lines the culprit does not have"
git -C dev format-patch -1 --stdout > late.patch
git -C dev checkout -q "$CULPRIT"
echo broken >> dev/seven.c
git -C dev commit -qam "a fix that breaks the build <script>alert(1)</script> & co

Sim-Build: fails"
git -C dev format-patch -1 --stdout > broken.patch
run_kreg try 1 --queue --patch half.patch
like "$RC $(tail -1 <<<"$OUT")" "^0 regression 1: the try of [0-9a-f]{12} is queued \(work [0-9]+\)" \
	"try --queue: the fix made and queued, exit 0"
run_kreg try 1 --queue --patch half.patch
like "$RC $(tail -1 <<<"$OUT")" "^0 regression 1: the try of [0-9a-f]{12} was queued before" "again: queued before"
wait_for 300 "the daemon tries it" tried 4
wait_for 120 "and answers it" mailed_answer 4
is "$(sql "SELECT source || ' ' || verdict FROM tries WHERE id = 4")" "patch partly" "half a fix: partly fixed"
check_answer 4 "partly fixed"
run_kreg try 1 --queue --patch late.patch
is "$RC" 1 "try --queue of a patch that does not apply: exit 1"
like "$ERR" "late.patch: the patch does not apply on culprit ${CULPRIT:0:12}" "it says so"
wait_for 120 "and that is answered too" mailed_answer 5
like "$(mail_body "$(answer 5)")" "^verdict: the patch does not apply on the culprit ${CULPRIT:0:12}$" \
	"the answer: the patch does not apply"
run_kreg try 1 --queue --patch broken.patch
is "$RC" 0 "try --queue of a fix that will not build: queued"
wait_for 300 "the daemon tries it" tried 6
wait_for 120 "and answers it" mailed_answer 6
like "$(mail_body "$(answer 6)")" "^verdict: the fix does not build$" "the answer: the fix does not build"
run_kreg try 7 --queue --patch half.patch
like "$RC $ERR" "^1 .*no regression 7" "try --queue of an unknown regression: exit 1"
wait_for 120 "the daemon goes idle" idle_at "$REVERT"
daemon_stop
is "$DRC" 0 "the daemon stops"
is "$(ls "$SCRATCH"/smtp/*.eml | wc -l)" 7 "seven mails in all: the report and six answers"

# the regression's whole life on its page; the index: open, then closed
run_kreg report -o "$SCRATCH/site"
is "$RC" 0 "kreg report writes the site"
SHARE3=$(sql "SELECT printf('%.0f', share * 100) FROM tries WHERE id = 3")
lab_check text "$SCRATCH/site/regression-r1.html"
PAGE=$CHECK_OUT
like "$PAGE" "^Fixed by ${REVERT:0:12} at $SHARE3% of the regression recovered\. Closed: fixed$" \
	"the page: fixed by the revert, at the share its try recovered; closed"
like "$PAGE" "^[0-9: -]+UTCfound.*the detector saw fio\.read_iops -[0-9.]+%" "its life: found"
like "$PAGE" "^[0-9: -]+UTCbisected${CULPRIT:0:12}culprit ${CULPRIT:0:12} \(\"commit 7\"\)" "bisected to the culprit"
like "$PAGE" "^[0-9: -]+UTCreported.*the report, first sent to 2 recipients: \[src:main\]" \
	"reported: the mail sent, with its date"
like "$PAGE" "UTCfix tried${REVERT:0:12}try 3, revert ${REVERT:0:12} .*: fixed, $SHARE3% of the regression recovered$" \
	"each fix tried: the revert, fixed, with its share"
like "$PAGE" "UTCfix triedtry 5, patch -: does not apply$" "the patch that did not apply"
like "$PAGE" "UTCmarked${REVERT:0:12}fixed $REVERT by kreg" "the mark that fixed it"
is "$(grep -c "UTCmailedthe answer of try [0-9], try sent to 2 recipients" <<<"$PAGE")" 6 "every answer mailed"
like "$PAGE" "\(\"a fix that breaks the build <script>alert\(1\)</script> & co\"\): does not build" \
	"a commit's subject shown as text"
lab_check safe "$SCRATCH/site"
is "$?" 0 "and escaped: no script on any page"
lab_check text "$SCRATCH/site/index.html"
like "$(sed -n '/^Closed/,/^Branches/p' <<<"$CHECK_OUT")" "^fixed-[0-9.]+%fio\.read_iops.*${CULPRIT:0:12} commit 7" \
	"the index: the fixed regression among the closed ones"
OPEN=$(sed -n '/^Open/,/^Closed/p' <<<"$CHECK_OUT")
ok "not among the open ones" test -n "$OPEN" -a "${OPEN/${CULPRIT:0:12}/}" = "$OPEN"
lab_check links "$SCRATCH/site"
is "$?" 0 "every link of the site resolves"
# The detector's rise at the revert (the level came back there) is the
# fix's, not a finding: marked a duplicate of regression 1, by kreg.
is "$(sql "SELECT count(*) FROM regressions r JOIN commits c ON c.id = r.bad_commit_id
	   WHERE c.sha = '$REVERT' AND r.change > 0 AND coalesce(r.triage, '') != 'duplicate'")" 0 \
	"the detector's rise at the revert is no finding of its own"
run_kreg regression list --closed
like "$OUT" "^1 +fixed +-[0-9.]+% +${CULPRIT:0:12} " "regression list --closed: fixed"
no_sanitizer_in_logs "no sanitizer report"
done_testing
