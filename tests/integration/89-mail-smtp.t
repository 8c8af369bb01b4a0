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
plan 141

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
like "$OUT" "mail 1: first queued" "the first mail, naming the culprit, is queued"
like "$OUT" "mail 1: not sent \(attempt 1\): .*(Couldn't connect|Connection refused)" "it could not connect, and says so"
no_sanitizer_report "no sanitizer report"
run_kreg mail list
like "$OUT" "^1 +queued +1 " "mail list: queued after one attempt"
like "$OUT" "last error: .*connect" "mail list: the reason it waits"
ok "a .eml copy is in the outbox" test -f "$SCRATCH"/data/outbox/1-*.eml
is "$(ls "$SCRATCH"/data/outbox/*.eml | wc -l)" 1 "one .eml"
# The copy on disk has LF line ends (what git mailinfo and git am read
# cleanly); the message as it goes on the wire keeps CRLF.
E=$(ls "$SCRATCH"/data/outbox/1-*.eml)
is "$(tr -cd '\r' < "$E" | wc -c)" 0 "the .eml has LF line ends, no CR"
git mailinfo "$SCRATCH/mi.msg" "$SCRATCH/mi.patch" < "$E" > "$SCRATCH/mi.info" 2> "$SCRATCH/mi.err"
is "$(cat "$SCRATCH/mi.err")" "" "git mailinfo reads the .eml without a warning"
like "$(grep '^Subject:' "$SCRATCH/mi.info")" "fio.read_iops -[0-9.]+% regression" \
	"git mailinfo finds its subject"
is "$(sql "SELECT instr(message, char(13) || char(10)) > 0 FROM outbox WHERE id = 1")" 1 \
	"the stored wire message keeps CRLF"

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
	"axboe@kernel.dk commit.ter@example.org john@example.org lab@example.org linux-block@vger.kernel.org linux-kernel@vger.kernel.org reviewer@example.org " \
	"the envelope: author, committer, MAINTAINERS' block people and lists, the lab list" 
is "$(head -1 "$SCRATCH/smtp/1.env")" "kreg@lab.example.org" "the envelope sender is mail.from"
like "$(mail_header "$M" To)" "^\"?Jöhn Dœ\?{1,2}Bcc: victim@example.org\"? <john@example.org>$" \
	"To: the author, the CR/LF in the name shown as ?, inside the name"
like "$(mail_header "$M" Cc)" "Jens Axboe <axboe@kernel.dk>.*Rev Iewer <reviewer@example.org>.*linux-block@vger.kernel.org" \
	"Cc: the maintainer, reviewer and list of block/, most specific first"
unlike "$(mail_header "$M" Cc)" "fs@example.org|torvalds" "not the maintainers of files it did not change"
is "$(mail_header "$M" Cc | grep -o 'Commit Ter[^,]*')" "$(git -C "$SCRATCH/src" log -1 --use-mailmap --format='%cN <%cE>' "$SHA_9")" \
	"the committer as the tree's .mailmap names them (the same as git log --use-mailmap)"
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
like "$body" "^https://git.example.org/src.git master$" "the repo's public url (commit_url's) and branch"
unlike "$body" "$SCRATCH/src" "not the lab's fetch path"
fig=$(table_figure "$body")
like "$fig" '^-[0-9]+\.[0-9]%$' "the table's culprit column has the metric's %change"
like "$(mail_header "$M" Subject)" " fio.read_iops $fig regression\$" "the subject's figure is the table's culprit column"
like "$body" "kreg noticed a $fig regression of fio.read_iops on:" "so is the first line's"
like "$body" "^kreg's figure, $fig, is the %change of the culprit column: the culprit against its parent\.$" \
	"and the mail says what the figure compares"
like "$body" "^commit:\$" "0-day's commit: block"
like "$body" "^  ${SHA_8:0:10} \(\"fs: commit 8\"\)  parent\$" "the culprit's parent with its subject and role"
like "$body" "^  ${SHA_9:0:10} \(\"blöck: make the queue slow\"\)  culprit\$" "the culprit"
like "$body" "^  ${BAD:0:10} \(\"fs: commit 16\"\)  bad head\$" "the bad head"
like "$body" "^ +parent +culprit +bad head\$" "a label above each column of the table"
like "$body" "^ {13}\\\\ {10}\\| {16}\\\\ {10}\\| {16}\\\\\$" "0-day's \\ | \\ line"
like "$body" "^  step  commit +role +verdict +runs +mean  subject\$" "the bisection table's header"
steps=$(grep -E '^ +[0-9]+  [0-9a-f]{12}  ' <<<"$body")
like "$steps" "^ +[0-9]+  [0-9a-f]{12}  [a-z-]+ +[a-z]+ +[0-9]+ +[0-9]+(\.[0-9]{2})?  " "the steps: seq, commit, role, verdict, runs, mean"
is "$(grep -cE '^.{61}[0-9]  [^ ]' <<<"$steps")" "$(wc -l <<<"$steps")" \
	"every step's mean ends in the same column (62)"
like "$body" "^\| Reported-by: kreg robot <kreg@lab.example.org>" "the Reported-by tag"
like "$body" "^\| Closes: https://kreg.example.org/regression-b1.html" "the Closes tag: the regression's page"
like "$body" "%stddev +%change +%stddev" "the comparison table's header"
like "$body" "^ +[0-9]+ .* -[0-9.]+% .*fio.read_iops$" "and its row for the metric"
like "$body" "bisection 1: found" "the bisection summary"
like "$body" "^The materials to reproduce are available at:\$" "0-day's To reproduce: where the materials are"
like "$body" "^https://kreg.example.org/reproduce-b1/\$" "beside the regression's page, under web.base_url"
like "$body" "^        git checkout $SHA_9   # the culprit\$" "the kernel to build and boot"
like "$body" "^        sh reproduce.sh /mnt/test\$" "reproduce.sh to run on it"
unlike "$body" "kreg job run" "no kreg command: reproducing needs no kreg"
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
like "$OUT" "mail 1: given up after 2 refusals \(2 attempts\): the server said: 554 5.7.1 rejected" "the second: given up"
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
like "$OUT" "mail 1: first written .*dry run, not sent" "dry run: written, not sent"
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
like "$OUT" "mail 1: first queued for r1" "a regressions row: its first mail"
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

# mail.confirmed: a regression confirmed and still being bisected gets a
# first mail without a culprit, to the configured lists only; the culprit,
# once found, follows in its thread (not a second first mail). The daemon
# (usecase/detect.c, then daemon/worker.c) moves a regression so; here the
# rows are written as it writes them, the bisection caught mid-way.
smtp_stop
cp -a "$SCRATCH/data.bisected" "$SCRATCH/datac"
mail_config kregc.yaml "$SCRATCH/datac" "  confirmed: true"
sqlc() { sqlite3 "$SCRATCH/datac/kreg.db" "$1"; }
CID=$(sqlc "SELECT culprit_commit_id FROM bisections WHERE id = 1")
sqlc "INSERT INTO regressions (repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	change, base_mean, bad_mean, state, created, updated)
	SELECT repo_id, job_id, host_id, metric_id, good_commit_id, bad_commit_id,
	-0.2, 10000, 8000, 'bisecting', 1, 1 FROM bisections WHERE id = 1;
	UPDATE bisections SET regression_id = 1, state = 'running', culprit_commit_id = NULL WHERE id = 1;"
smtp_start "$SCRATCH/smtpc"
run_kreg -c kregc.yaml mail send
like "$OUT" "mail 1: confirmed queued for r1 \(1 recipients\)" "mail.confirmed: the bisecting regression's mail is queued"
like "$OUT" "mail 1: sent to 1 recipients" "and sent"
C1=$SCRATCH/smtpc/1.eml
is "$(tail -n +2 "$SCRATCH/smtpc/1.env" | tr '\n' ' ')" "lab@example.org " \
	"no culprit: only the configured list gets it"
is "$(mail_header "$C1" To)" "Lab List <lab@example.org>" "To: the lab list"
cbody=$(sed -n '/^\r$/,$p' "$C1" | tr -d '\r')
cfig=$(table_figure "$cbody")
is "$(mail_header "$C1" Subject)" \
	"[src:master] ${GOOD:0:10}..${BAD:0:10}: fio.read_iops $cfig regression (not bisected yet)" \
	"its subject names the range, no commit, no subsystem; the figure its table's (not the row's -20%)"
like "$cbody" "kreg confirmed a $cfig regression of fio.read_iops between:" "the opening line"
like "$cbody" "^kreg's figure, $cfig, is the %change of the bad column: the bad commit against the last good one\.$" \
	"the figure: the bad commit against the last good one"
like "$cbody" "^good: $GOOD \(\"root\"\)" "the last good commit"
like "$cbody" "^bad:  $BAD \(\"fs: commit 16\"\)" "the first commit seen bad"
like "$cbody" "kreg is bisecting it \(bisection 1\); it writes again in this" "where the bisection is"
unlike "$cbody" "^(commit: |author:)" "no commit is blamed"
like "$cbody" "^\| Closes: https://kreg.example.org/regression-r1.html" "the Closes tag: the regression's page"
is "$(sqlc "SELECT state FROM regressions")" "bisecting" "the regression is not 'reported' by it"
run_kreg -c kregc.yaml mail send
like "$OUT" "0 queued, 0 written \(dry run\), 0 sent" "still bisecting: nothing more to say"

sqlc "UPDATE bisections SET state = 'found', culprit_commit_id = $CID WHERE id = 1;
	UPDATE regressions SET state = 'bisected', culprit_commit_id = $CID;"
run_kreg -c kregc.yaml mail send
like "$OUT" "mail 2: bisected queued for r1.culprit.${SHA_9:0:12} \(7 recipients\)" \
	"bisected: the culprit follows in the thread, to the culprit's people"
C2=$SCRATCH/smtpc/2.eml
R1=$(mail_header "$C1" Message-ID)
like "$R1" "^<kreg\.r1\.[0-9a-f]+@lab.example.org>$" "the first mail's Message-ID is the regression's"
is "$(mail_header "$C2" In-Reply-To)" "$R1" "the culprit's mail: In-Reply-To the confirmed one"
is "$(mail_header "$C2" References)" "$R1" "and References it"
c2body=$(sed -n '/^\r$/,$p' "$C2" | tr -d '\r')
like "$(mail_header "$C2" Subject)" "^Re: \[src:master\] \[blöck\] ${SHA_9:0:10}: fio.read_iops $(table_figure "$c2body") regression$" \
	"its subject: Re: with the culprit and its subsystem, the figure its table's"
is "$(tail -n +2 "$SCRATCH/smtpc/2.env" | sort | tr '\n' ' ')" \
	"axboe@kernel.dk commit.ter@example.org john@example.org lab@example.org linux-block@vger.kernel.org linux-kernel@vger.kernel.org reviewer@example.org " \
	"the culprit's mail: author, committer, MAINTAINERS, the lab list"
like "$c2body" "is bisected now: the first bad commit is below" "it says the bisection is done"
like "$c2body" "^commit: $SHA_9" "and names the commit"
like "$c2body" "^\| Reported-by: kreg robot <kreg@lab.example.org>" "with the tags a fix should carry"
is "$(sqlc "SELECT state FROM regressions")" "reported" "the regression is 'reported' once its culprit is mailed"
is "$(sqlc "SELECT group_concat(kind || ':' || mail_key, ' ') FROM outbox")" \
	"confirmed:r1 bisected:r1.culprit.${SHA_9:0:12}" "two rows: the confirmed mail and its bisected follow-up, no second report"
run_kreg -c kregc.yaml mail send
like "$OUT" "0 queued, 0 written \(dry run\), 0 sent" "nothing is mailed twice"
is "$(ls "$SCRATCH"/smtpc/*.eml | wc -l)" 2 "the server got two messages"

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

# mail.confirmed through the daemon: untold, it detects and confirms a drop
# on a sim host, writes the confirmed mail at once, bisects, and the
# culprit's mail threads under it. Each mail goes out once.
smtp_stop
. "$KREG_SRC/tests/integration/daemon-lib.sh"
trap 'smtp_stop; _daemon_cleanup' EXIT
ROOT=$(up_init)
write_atom job.yaml
cat > kreg-daemon.yaml <<YAML
$(lab_yaml "$DATA_DIR-daemon")
hosts:
  - name: simhost
    backend: sim
    seed: 7
    capacity: 2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 5% }
jobs:
  - file: job.yaml
    runs: 3
mail:
  smtp_url: smtp://127.0.0.1:$SMTP_PORT
  from: "kreg robot <kreg@lab.example.org>"
  cc: ["Lab List <lab@example.org>"]
  confirmed: true
YAML
DATA_DIR=$DATA_DIR-daemon
export KREG_CONFIG="$SCRATCH/kreg-daemon.yaml"
smtp_start "$SCRATCH/smtp-daemon"
daemon_start
wait_for 60 "the daemon tests the first head (the baseline)" idle_at "$ROOT"
for i in 1 2 3; do
	SHA=$(up_commit $i)
	up_push
	wait_for 60 "head $i pushed: tested" idle_at "$SHA"
done
is "$(sql "SELECT count(*) FROM outbox")" 0 "no regression, no mail"
for i in 6 7; do up_commit $i >/dev/null; done
CULPRIT=$(up_commit 8 "Sim-Effect: fio.read_iops -20%")
for i in 9 10; do HEAD=$(up_commit $i); done
up_push
mailed() { [ "$(ls "$SCRATCH"/smtp-daemon/*.eml 2>/dev/null | wc -l)" -ge 2 ]; }
wait_for 180 "the daemon confirms, bisects and mails the drop" mailed
wait_for 60 "and goes idle" idle_at "$HEAD"
daemon_stop
is "$(sql "SELECT kind || ':' || mail_key || ':' || state FROM outbox ORDER BY id" | tr '\n' ' ')" \
	"confirmed:r1:sent bisected:r1.culprit.${CULPRIT:0:12}:sent " \
	"the daemon's outbox: the confirmed mail, then the culprit's, both sent"
D1=$SCRATCH/smtp-daemon/1.eml D2=$SCRATCH/smtp-daemon/2.eml
like "$(mail_header "$D1" Subject)" "^\[src:main\] ${SHA:0:10}\.\.${HEAD:0:10}: fio.read_iops -[0-9.]+% regression \(not bisected yet\)$" \
	"the first mail: the confirmed range, not bisected yet"
is "$(tail -n +2 "$SCRATCH/smtp-daemon/1.env" | tr '\n' ' ')" "lab@example.org " "to the lab's list only"
is "$(mail_header "$D2" In-Reply-To)" "$(mail_header "$D1" Message-ID)" "the culprit's mail threads under it"
like "$(mail_header "$D2" Subject)" "^Re: \[src:main\] ${CULPRIT:0:10}: fio.read_iops -[0-9.]+% regression$" \
	"and names the culprit"
is "$(tail -n +2 "$SCRATCH/smtp-daemon/2.env" | sort | tr '\n' ' ')" "lab@example.org test@example.org " \
	"to the culprit's author and the list"
is "$(ls "$SCRATCH"/smtp-daemon/*.eml | wc -l)" 2 "two messages, each once"
is "$(sql "SELECT state FROM regressions")" "reported" "the regression is reported"
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
