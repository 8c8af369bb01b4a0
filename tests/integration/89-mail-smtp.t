#!/bin/bash
# The regression e-mail end to end, through a real SMTP server on loopback
# (Debian's python3-aiosmtpd): kreg bisects a regression on a sim host in a
# tree with a MAINTAINERS file, and `kreg mail send` writes the report once.
# With the server down it waits; when the server is back it goes out once,
# to the author, the committer, the maintainers, reviewers and lists of the
# files the culprit changes and the configured list. A server that answers
# 4xx and then 250 gets it on the next try; one that answers 5xx makes kreg
# give up after mail.attempts, keeping the reason. The author's name holds
# CR/LF and a header, the subject non-ASCII: no header is injected, both
# are RFC 2047 encoded, lines folded. Follow-ups thread under the report.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"

[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
plan 75

SMTP_PORT=$(smtp_free_port)
make_mail_repo "$SCRATCH/src"
mail_config kreg.yaml "$SCRATCH/data"
export KREG_CONFIG="$SCRATCH/kreg.yaml"
sql() { sqlite3 "$SCRATCH/data/kreg.db" "$1"; }

run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric fio.read_iops
is "$RC" 0 "kreg bisects the regression on the sim host"
like "$OUT" "found: ${SHA_9:0:12} is the first bad commit" "and names the commit with the effect"
cp -a "$SCRATCH/data" "$SCRATCH/data.bisected"

# The server is down: the message is written and waits.
run_kreg mail send
is "$RC" 0 "mail send with the server down: exit 0"
like "$OUT" "mail 1: report queued" "the report is queued"
like "$OUT" "mail 1: not sent \(attempt 1\): .*(Couldn't connect|Connection refused)" "it could not connect, and says so"
no_sanitizer_report "no sanitizer report"
run_kreg mail list
like "$OUT" "^1 +queued +1 " "mail list: queued after one attempt"
like "$OUT" "last error: .*connect" "mail list: the reason it waits"
ok "a .eml copy is in the outbox" test -f "$SCRATCH"/data/outbox/1-*.eml
is "$(ls "$SCRATCH"/data/outbox/*.eml | wc -l)" 1 "one .eml"

# Back: not before the backoff, at once with --retry; once.
smtp_start "$SCRATCH/smtp"
ok "the SMTP server is up" test -f "$SCRATCH/smtp/ready"
run_kreg mail send
like "$OUT" "0 sent, 1 waiting" "within the backoff it waits"
is "$(ls "$SCRATCH"/smtp/*.eml 2>/dev/null | wc -l)" 0 "nothing was sent yet"
run_kreg mail send --retry
is "$RC" 0 "mail send --retry: exit 0"
like "$OUT" "mail 1: sent to 7 recipients" "sent to seven recipients"
run_kreg mail send
like "$OUT" "0 queued, 0 written \(dry run\), 0 sent, 0 waiting" "a second send has nothing to do"
run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric fio.read_iops
like "$OUT" "found: ${SHA_9:0:12}" "a second bisection finds the same culprit"
run_kreg mail send
like "$OUT" "0 queued, 0 written \(dry run\), 0 sent" "and the regression is not mailed again"
is "$(ls "$SCRATCH"/smtp/*.eml | wc -l)" 1 "the server got exactly one message"
is "$(sql "SELECT count(*) || ' ' || state || ' ' || attempts FROM outbox")" "1 sent 2" \
	"one outbox row, sent, after two attempts"

M=$(ls "$SCRATCH"/smtp/*.eml)
is "$(mail_header "$M" Subject)" "[src:master] [blöck] ${SHA_9:0:10}: fio.read_iops $(sql "SELECT subject FROM outbox" | grep -o -- '-[0-9.]*%') regression" \
	"the subject: [repo:branch] [subsystem] sha10: metric -N.N% regression"
like "$(mail_header "$M" Subject)" '^\[src:master\] \[blöck\] [0-9a-f]{10}: fio.read_iops -[0-9]+\.[0-9]% regression$' \
	"with the change as -N.N%"
is "$(tail -n +2 "$SCRATCH/smtp/1.env" | sort | tr '\n' ' ')" \
	"axboe@kernel.dk committer@example.org john@example.org lab@example.org linux-block@vger.kernel.org linux-kernel@vger.kernel.org reviewer@example.org " \
	"the envelope: author, committer, MAINTAINERS' block people and lists, the lab list" 
is "$(head -1 "$SCRATCH/smtp/1.env")" "kreg@lab.example.org" "the envelope sender is mail.from"
like "$(mail_header "$M" To)" "^\"?Jöhn Dœ\?{1,2}Bcc: victim@example.org\"? <john@example.org>$" \
	"To: the author, the CR/LF in the name shown as ?, inside the name"
like "$(mail_header "$M" Cc)" "Jens Axboe <axboe@kernel.dk>.*Rev Iewer <reviewer@example.org>.*linux-block@vger.kernel.org" \
	"Cc: the maintainer, reviewer and list of block/, most specific first"
unlike "$(mail_header "$M" Cc)" "fs@example.org|torvalds" "not the maintainers of files it did not change"
unlike "$(mail_header_names "$M")" "^(Bcc|bcc)$" "no Bcc header was injected"
is "$(mail_header_names "$M" | tr '\n' ' ')" \
	"From To Cc Subject Date Message-ID MIME-Version Content-Type Content-Transfer-Encoding X-Kreg-Regression " \
	"exactly kreg's headers"
like "$(grep -a '^Subject:' "$M")" '^Subject: =\?UTF-8\?B\?' "the non-ASCII subject is RFC 2047 encoded"
like "$(grep -a '^To:' "$M")" '^To: =\?UTF-8\?B\?' "so is the author's name"
long=$(sed -n '1,/^\r$/p' "$M" | awk 'length($0) > 79' | wc -l)
is "$long" 0 "every header line is folded under 78 characters"
is "$(mail_header "$M" Message-ID)" "$(sql "SELECT message_id FROM outbox")" "the Message-ID is the outbox row's"
body=$(sed -n '/^\r$/,$p' "$M" | tr -d '\r')
like "$body" "kreg noticed a -[0-9.]+% regression of fio.read_iops on:" "the robot's opening line"
like "$body" "^commit: $SHA_9 \(\"blöck: make the queue slow\"\)" "commit: the full sha and subject"
like "$body" "^url: $SCRATCH/src" "the repo's url"
like "$body" "^\| Reported-by: kreg robot <kreg@lab.example.org>" "the Reported-by tag"
like "$body" "^\| Closes: https://kreg.example.org/regression-b1.html" "the Closes tag: the regression's page"
like "$body" "%stddev +%change +%stddev" "the comparison table's header"
like "$body" "^ +[0-9]+ .* -[0-9.]+% .*fio.read_iops$" "and its row for the metric"
like "$body" "bisection 1: found" "the bisection summary"
like "$body" "kreg bisect start --repo src --good $GOOD --bad $BAD" "how to reproduce it with kreg"
like "$body" "simulated samples" "the samples are said to be simulated"

run_kreg mail show 1
like "$OUT" "^# mail 1: sent, 2 attempts" "mail show: the state"
like "$OUT" "^Message-ID: <kreg\.h[0-9a-f]+@lab.example.org>" "mail show: the message as sent"

# 4xx, then 250: sent on the next try.
smtp_stop
cp -a "$SCRATCH/data.bisected" "$SCRATCH/data4"
mail_config kreg4.yaml "$SCRATCH/data4"
smtp_start "$SCRATCH/smtp4" tempfail:1
run_kreg -c kreg4.yaml mail send
like "$OUT" "not sent \(attempt 1\): the server said: 451 4.3.0" "a 4xx answer: not sent, the server's words kept"
run_kreg -c kreg4.yaml mail send --retry
like "$OUT" "mail 1: sent" "the next try: sent"
is "$(ls "$SCRATCH"/smtp4/*.eml | wc -l)" 1 "one message arrived"

# 5xx: given up after mail.attempts (2), the reason stored and shown.
smtp_stop
cp -a "$SCRATCH/data.bisected" "$SCRATCH/data5"
mail_config kreg5.yaml "$SCRATCH/data5"
smtp_start "$SCRATCH/smtp5" reject
run_kreg -c kreg5.yaml mail send
like "$OUT" "not sent \(attempt 1\): the server said: 554 5.7.1" "a 5xx answer, first attempt: kept for one more"
run_kreg -c kreg5.yaml mail send --retry
like "$OUT" "mail 1: given up after 2 attempts: the server said: 554 5.7.1 rejected" "the second: given up"
run_kreg -c kreg5.yaml mail list
like "$OUT" "^1 +failed +2 " "mail list: failed after two attempts"
like "$OUT" "last error: the server said: 554 5.7.1 rejected by kreg's test server" "mail list: the reason"
run_kreg -c kreg5.yaml mail show 1
like "$OUT" "^# last error: the server said: 554" "mail show: the reason"
run_kreg -c kreg5.yaml mail send
like "$OUT" "0 sent, 0 waiting, 0 given up" "a given-up message is not tried again without --retry"

# Dry run: only the .eml.
smtp_stop
cp -a "$SCRATCH/data.bisected" "$SCRATCH/datad"
mail_config kregd.yaml "$SCRATCH/datad" "  dry_run: true"
run_kreg -c kregd.yaml mail send
like "$OUT" "mail 1: report written .*dry run, not sent" "dry run: written, not sent"
ok "dry run: the .eml is there" test -f "$SCRATCH"/datad/outbox/1-*.eml
is "$(sqlite3 "$SCRATCH/datad/kreg.db" "SELECT state FROM outbox")" "dry_run" "dry run: the row says so"

# Follow-ups thread under the report. The detector (the daemon's) writes
# regressions rows; here one is written for the bisected regression.
cp -a "$SCRATCH/data.bisected" "$SCRATCH/datat"
mail_config kregt.yaml "$SCRATCH/datat"
sqlt() { sqlite3 "$SCRATCH/datat/kreg.db" "$1"; }
sqlt "INSERT INTO regressions (repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	culprit_commit_id, change, state, created, updated)
	SELECT repo_id, job_id, host_id, metric_id, good_commit_id, bad_commit_id, culprit_commit_id,
	-0.2, 'bisected', 1, 1 FROM bisections WHERE id = 1;
	UPDATE bisections SET regression_id = 1 WHERE id = 1;"
smtp_start "$SCRATCH/smtpt"
run_kreg -c kregt.yaml mail send
like "$OUT" "mail 1: report queued for r1" "a regressions row: its report"
is "$(sqlt "SELECT state FROM regressions")" "reported" "the regression is 'reported' once sent"
sqlt "UPDATE regressions SET state = 'fixed'"
run_kreg -c kregt.yaml mail send
like "$OUT" "mail 2: fixed queued for r1.fixed" "fixed: a follow-up"
F=$SCRATCH/smtpt/2.eml
R=$(mail_header "$SCRATCH/smtpt/1.eml" Message-ID)
is "$(mail_header "$F" In-Reply-To)" "$R" "the follow-up's In-Reply-To is the report's Message-ID"
is "$(mail_header "$F" References)" "$R" "and so is its References"
like "$(mail_header "$F" Subject)" "^Re: \[src:master\] \[blöck\]" "its subject: Re: the report's"
run_kreg -c kregt.yaml mail send
is "$(ls "$SCRATCH"/smtpt/*.eml | wc -l)" 2 "report and follow-up, each once"

# AUTH with the password from password_file; STARTTLS; SMTPS. The lab's own
# CA (a self-signed certificate for 127.0.0.1) is mail.ca_file.
smtp_stop
fresh() {  # NAME [mail lines]: a copy of the bisected lab and its config
	rm -rf "$SCRATCH/data-$1"
	cp -a "$SCRATCH/data.bisected" "$SCRATCH/data-$1"
	mail_config "kreg-$1.yaml" "$SCRATCH/data-$1" "${2:-}"
}
printf 's3cret\n' > pw && chmod 600 pw
printf 'wrong\n' > badpw && chmod 600 badpw
fresh auth "  username: kreg
  password_file: $SCRATCH/pw"
smtp_start "$SCRATCH/smtp-auth" ok auth:kreg:s3cret
run_kreg -c kreg-auth.yaml mail send --retry
like "$OUT" "mail 1: sent" "AUTH with the password from password_file: sent"
is "$(ls "$SCRATCH"/smtp-auth/*.eml 2>/dev/null | wc -l)" 1 "the server that requires AUTH took it"
fresh badauth "  username: kreg
  password_file: $SCRATCH/badpw"
run_kreg -c kreg-badauth.yaml mail send
like "$OUT" "not sent \(attempt 1\): .*(535|authentication|Login denied)" "a wrong password: not sent, the reason shown"
unlike "$OUT$ERR" "wrong" "the password is not printed"
smtp_stop

openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
ok "a certificate for the test server" test -s cert.pem
fresh starttls "  tls: true
  ca_file: $SCRATCH/cert.pem
  username: kreg
  password_file: $SCRATCH/pw"
smtp_start "$SCRATCH/smtp-starttls" ok starttls:cert.pem:key.pem auth:kreg:s3cret
run_kreg -c kreg-starttls.yaml mail send --retry
like "$OUT" "mail 1: sent" "STARTTLS (required) and AUTH: sent"
is "$(ls "$SCRATCH"/smtp-starttls/*.eml 2>/dev/null | wc -l)" 1 "the STARTTLS server took it"
fresh untrusted "  tls: true"
run_kreg -c kreg-untrusted.yaml mail send
like "$OUT" "not sent \(attempt 1\): .*certificate" "a certificate kreg does not trust: not sent, it says why"
smtp_stop

MAIL_URL="smtps://127.0.0.1:$SMTP_PORT" fresh smtps "  ca_file: $SCRATCH/cert.pem"
smtp_start "$SCRATCH/smtp-smtps" ok smtps:cert.pem:key.pem
run_kreg -c kreg-smtps.yaml mail send --retry
like "$OUT" "mail 1: sent" "SMTPS: sent"
is "$(ls "$SCRATCH"/smtp-smtps/*.eml 2>/dev/null | wc -l)" 1 "the SMTPS server took it"
no_sanitizer_report "no sanitizer report"
done_testing
