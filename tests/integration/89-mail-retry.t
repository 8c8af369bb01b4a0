#!/bin/bash
# A mail that could not go out is sent later, once, without anyone asking.
# The daemon finds and bisects a drop with the SMTP server down: the mail
# waits `queued` with a retry item in the work queue due at its next try;
# the server comes back and the mail is delivered, exactly once, without
# a new push. A server that is down only delays a message: its connection
# failures do not count towards mail.attempts, only refusals (5xx) do. A
# server that takes a message and then does not answer is bounded by
# mail.timeout, and the message is not sent a second time.
# Real SMTP server on loopback (python3-aiosmtpd), real SQLite.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"
[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
trap 'smtp_stop; _daemon_cleanup' EXIT
plan 25

SMTP_PORT=$(smtp_free_port)
ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(sim_lab_yaml 7 2 5% 3)
mail:
  smtp_url: smtp://127.0.0.1:$SMTP_PORT
  from: "kreg robot <kreg@lab.example.org>"
  cc: ["Lab List <lab@example.org>"]
  backoff: 4
  timeout: 5
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
outbox() { sql "SELECT $1 FROM outbox WHERE id = 1"; }
tried() { [ "$(outbox attempts 2>/dev/null)" -ge "$1" ] 2>/dev/null; }
# a queued retry item due at the row's next try
retry_item() {
	[ "$(sql "SELECT count(*) FROM work w JOIN outbox o ON w.key = 'mail:retry:' || o.id || ':' || o.attempts
		WHERE o.state = 'queued' AND w.state = 'queued' AND w.not_before = o.next_attempt")" = 1 ]
}

daemon_start
wait_for 60 "the daemon tests the first head (the baseline)" idle_at "$ROOT"
for i in 1 2; do
	SHA=$(up_commit $i)
	up_push
	wait_for 60 "head $i pushed: tested" idle_at "$SHA"
done
for i in 6 7; do up_commit $i >/dev/null; done
CULPRIT=$(up_commit 8 "Sim-Effect: fio.read_iops -20%")
for i in 9 10; do HEAD=$(up_commit $i); done
up_push
wait_for 240 "with the SMTP server down, the daemon bisects the drop and tries its mail" tried 1
is "$(outbox state)" queued "the mail waits, queued"
like "$(outbox last_error)" "connect|Connection refused" "and says why"
wait_for 30 "it waits in the work queue: a retry item due at its next try" retry_item
wait_for 60 "the daemon tries again by itself" tried 2
wait_for 30 "and queues the next try" retry_item
is "$(outbox refusals)" 0 "connection failures are not refusals"
head_before=$(sql "SELECT count(*) FROM pushes")

smtp_start "$SCRATCH/smtp"
sent() { [ "$(outbox state)" = sent ]; }
wait_for 120 "the server is back: the mail is delivered without a new push" sent
is "$(ls "$SCRATCH"/smtp/*.eml 2>/dev/null | wc -l)" 1 "the server got it once"
is "$(sql "SELECT count(*) FROM pushes")" "$head_before" "no push came meanwhile"
like "$(mail_header "$SCRATCH/smtp/1.eml" Subject)" "${CULPRIT:0:10}: fio.read_iops" "it names the culprit"
sleep 6		# past the backoff: any retry item left would have run
is "$(ls "$SCRATCH"/smtp/*.eml | wc -l)" 1 "still once, a backoff later"
is "$(sql "SELECT count(*) FROM work WHERE kind = 'mail' AND state IN ('queued', 'running')")" 0 \
	"no mail item is left in the queue"
daemon_stop
no_sanitizer_in_logs "no sanitizer report"
smtp_stop

# Connection failures, then refusals: only the refusals count.
sed -i 's/^  timeout: 5$/  timeout: 5\n  attempts: 2/' kreg.yaml
sql "UPDATE outbox SET state = 'queued', attempts = 0, refusals = 0, next_attempt = 0, sent = NULL"
for i in 1 2 3; do run_kreg mail send --retry; done
smtp_start "$SCRATCH/smtp-reject" reject
run_kreg mail send --retry
like "$OUT" "mail 1: not sent \(attempt 4\): the server said: 554" "three connection failures, then a 5xx: not given up (mail.attempts: 2)"
run_kreg mail send --retry
like "$OUT" "mail 1: given up after 2 refusals \(5 attempts\)" "the second 5xx gives up"
run_kreg mail show 1
like "$OUT" "^# mail 1: failed, 5 attempts \(2 refused\)" "mail show: the attempts and the refusals among them"
smtp_stop

# A server that takes the message and then stalls: bounded, not sent twice.
sql "UPDATE outbox SET state = 'queued', attempts = 0, refusals = 0, next_attempt = 0, sent = NULL"
smtp_start "$SCRATCH/smtp-stall" stall:30
start=$(date +%s)
run_kreg mail send
took=$(( $(date +%s) - start ))
ok "mail.timeout (5 s) bounds a server that does not answer after the message ($took s)" test "$took" -lt 25
like "$OUT" "mail 1: maybe sent \(attempt 1\): no answer after the message's end" "kreg says it may have gone"
have_it() { [ -f "$SCRATCH/smtp-stall/1.eml" ]; }
ok "the server has it" have_it
is "$(outbox state)" failed "it is not tried again by itself"
run_kreg mail send
is "$(ls "$SCRATCH"/smtp-stall/*.eml | wc -l)" 1 "a second mail send sends nothing: the server got it once"
done_testing
