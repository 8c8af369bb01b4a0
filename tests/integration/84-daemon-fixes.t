#!/bin/bash
# The daemon closes the loop: left alone on a sim host it bisects a drop
# and mails the report (an SMTP server on loopback). Commits pushed later
# that say "Fixes: <culprit>" or "Closes: <the report's page>" but change
# nothing are tried against the regression and found not to fix it (the
# regression stays open); the revert of the culprit pushed next is tried,
# marks the regression fixed by kreg with the share recovered, and the
# follow-up mail goes into the report's thread (In-Reply-To its
# Message-ID). Nobody runs a command.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"
[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
trap 'smtp_stop; _daemon_cleanup' EXIT
plan 22

export GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000"
SMTP_PORT=$(smtp_free_port)
smtp_start "$SCRATCH/smtp"
ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(sim_lab_yaml 7 2 2% 3)
mail:
  smtp_url: smtp://127.0.0.1:$SMTP_PORT
  from: "kreg robot <kreg@lab.example.org>"
  cc: ["Lab List <lab@example.org>"]
web:
  base_url: https://kreg.example.org/lab
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

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

# the revert
git -C "$UP" revert --no-edit "$CULPRIT" >/dev/null
REVERT=$(git -C "$UP" rev-parse HEAD)
ok "the revert is made" test "$REVERT" != "$NOFIX"
up_push
fixed() { [ "$(sql "SELECT state FROM regressions WHERE id = 1")" = fixed ]; }
wait_for 300 "the revert of the culprit is tried and marks the regression fixed" fixed
wait_for 300 "the follow-up mail goes out" mailed 2
wait_for 300 "and the daemon goes idle" idle_at "$REVERT"
daemon_stop
is "$DRC" 0 "the daemon stops"

is "$(sql "SELECT source || ' ' || verdict FROM tries WHERE id = 3")" "revert fixed" "the try: the revert, fixed"
is "$(sql "SELECT fixed_by FROM regressions WHERE id = 1")" "$REVERT" "fixed by the revert"
run_kreg regression show 1
like "$OUT" "fixed $REVERT by kreg .*tried by kreg: [0-9]+% of the regression recovered" \
	"regression show: fixed by kreg, with the share recovered"
FIRST=$(ls "$SCRATCH"/smtp/*.eml | sort -V | head -1)
SECOND=$(ls "$SCRATCH"/smtp/*.eml | sort -V | sed -n 2p)
like "$(tr -d '\r' < "$FIRST")" "Closes: https://kreg.example.org/lab/regression-r1.html" \
	"the report asks a fix for the Closes: tag the daemon looks for"
is "$(mail_header "$SECOND" In-Reply-To)" "$(mail_header "$FIRST" Message-ID)" \
	"the follow-up is in the report's thread (In-Reply-To its Message-ID)"
no_sanitizer_in_logs "no sanitizer report"
done_testing
