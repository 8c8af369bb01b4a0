#!/bin/bash
# Triage by reply: kreg reads the replies to its mail from a real IMAP
# server on loopback (Debian's dovecot, imap-lib.sh: a throwaway
# configuration and a Maildir in the scratch directory) and obeys the
# "#kreg" commands of the report's recipients and the lab's mail.admins,
# through the use cases `kreg regression mark`, `retest` and `kreg try`
# use; it answers in the thread through a real SMTP server. Refused: a
# sender who is not a recipient (a display name that is a maintainer's
# with another address too), a command it cannot parse, a reply to no mail
# of kreg's, a reply to another lab's. Not answered: an auto-reply and
# kreg's own answer (no reply loop). Done once: a second poll, the same
# message again, a daemon stopped and started again. A 50 MB reply is
# refused by its size, unread; a connection cut mid-fetch loses nothing.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"
. "$KREG_SRC/tests/integration/imap-lib.sh"

[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
imap_skip_unless
plan 70

SMTP_PORT=$(smtp_free_port)
IMAP_PORT=$(smtp_free_port)
make_mail_repo "$SCRATCH/src"
T0=$(date +%s%N)
imap_start "$SCRATCH/imap" || exit 1
echo "# dovecot's set-up took $(( ($(date +%s%N) - T0) / 1000000 )) ms"
imap_yaml() {  # POLL [URL]
	cat <<YAML
  admins: ["Lab Admin <admin@example.org>"]
  imap:
    url: ${2:-imap://127.0.0.1:$IMAP_PORT}
    user: $IMAP_USER
    password_file: $IMAP_PASSWORD_FILE
    poll: ${1:-1}
YAML
}
mail_config kreg.yaml "$SCRATCH/data" "$(imap_yaml)"
export KREG_CONFIG="$SCRATCH/kreg.yaml"
sql() { sqlite3 -cmd ".timeout 10000" "$SCRATCH/data/kreg.db" "$1"; }

run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric fio.read_iops
like "$OUT" "found: ${SHA_9:0:12} is the first bad commit" "the regression is bisected on the sim host"
# regression 1, bisected and reported; regression 2, of the same metric
# later on, confirmed (the detector writes these rows in the daemon)
sql "INSERT INTO regressions (repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	culprit_commit_id, bisection_id, change, state, created, updated)
	SELECT repo_id, job_id, host_id, metric_id, good_commit_id, bad_commit_id, culprit_commit_id,
	1, -0.2, 'bisected', 1, 1 FROM bisections WHERE id = 1;
	INSERT INTO regressions (repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	change, state, created, updated)
	SELECT repo_id, job_id, host_id, metric_id, bad_commit_id, culprit_commit_id,
	-0.1, 'confirmed', 1, 1 FROM bisections WHERE id = 1;
	UPDATE bisections SET regression_id = 1 WHERE id = 1;"
smtp_start "$SCRATCH/smtp"
run_kreg mail send
like "$OUT" "mail 1: first queued for r1" "regression 1's report is written"
like "$OUT" "mail 1: sent" "and sent"
M1=$(sql "SELECT message_id FROM outbox WHERE id = 1")
N=0

# reply FROM IN-REPLY-TO BODY [HEADER...]: a reply as a mail client writes
# it, delivered into the Maildir; its Message-ID in $MID
reply() {
	local from=$1 irt=$2 body=$3 f
	shift 3
	N=$((N + 1))
	MID="<reply$N.$$@client.example.org>"
	f=$SCRATCH/reply$N.eml
	{
		[[ " $* " == *"Return-Path:"* ]] ||
			printf 'Return-Path: <%s>\r\n' "$(sed 's/.*<//; s/>.*//' <<<"$from")"
		printf 'From: %s\r\nTo: kreg robot <kreg@lab.example.org>\r\n' "$from"
		printf 'Subject: Re: [src:master] a regression\r\nDate: Wed, 2 Dec 2026 01:00:00 +0000\r\n'
		printf 'Message-ID: %s\r\nIn-Reply-To: %s\r\nReferences: %s\r\n' "$MID" "$irt" "$irt"
		printf 'MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8; format=flowed\r\n'
		printf 'Content-Transfer-Encoding: 8bit\r\nUser-Agent: Mutt/2.2.9\r\n'
		for h in "$@"; do printf '%s\r\n' "$h"; done
		printf '\r\n'
		printf '%s\n' "$body" | sed 's/$/\r/'
	} > "$f"
	imap_deliver "$f"
}
sent() { ls "$SCRATCH"/smtp/*.eml 2>/dev/null | wc -l; }
last_sent() { ls -v "$SCRATCH"/smtp/*.eml | tail -1; }

# A recipient (the culprit's author) says it is noise, quoting the report.
reply "John Doe <john@example.org>" "$M1" $'On Tue, kreg robot wrote:\n> #kreg invalid\n> quoted, not a command\n\n#kreg noise\n\nThanks, John'
run_kreg mail poll
is "$RC" 0 "mail poll: exit 0"
like "$OUT" "imap: 1 read, 1 done, 0 refused, 0 ignored, 1 answers" "one message read, one command done, one answer"
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "noise" "regression 1 is marked noise (the quoted #kreg line is not a command)"
run_kreg regression show 1
like "$OUT" "noise by john@example.org \(was reported\): by mail <reply1\.[0-9]+@client\.example\.org>" \
	"kreg regression show: the mark, who sent it and which mail"
is "$(sent)" 2 "the answer went out through SMTP"
A=$(last_sent)
is "$(mail_header "$A" In-Reply-To)" "$MID" "the answer is In-Reply-To the reply"
is "$(mail_header "$A" Auto-Submitted)" "auto-replied" "marked Auto-Submitted: auto-replied"
is "$(tail -n +2 "${A%.eml}.env")" "john@example.org" "to the sender only"
like "$(cat "$A")" "#kreg noise: regression 1 marked noise" "saying what was done"

# A second poll does nothing: the message is recorded as read.
run_kreg mail poll
like "$OUT" "imap: 0 read, 0 done" "a second poll reads nothing again"
is "$(sent)" 2 "and answers nothing again"

# Each command, by recipients and an admin; two in one message.
reply "John Doe <john@example.org>" "$M1" "#kreg reopen"
reply "Lab Admin <ADMIN@Example.org>" "$M1" $'#kreg dup: 2\n#kreg reopen'
reply "Jens Axboe <axboe@kernel.dk>" "$M1" "#kreg fix: ${SHA_12:0:12}"
run_kreg mail poll
like "$OUT" "imap: 3 read, 4 done, 0 refused, 0 ignored, 3 answers" "reopen, dup and reopen, fix: four commands done"
run_kreg regression show 1
like "$OUT" "reopen by john@example.org" "reopened by the author"
like "$OUT" "duplicate 2 by admin@example.org" "a duplicate by mail.admins' address (in another case)"
like "$OUT" "fixed $SHA_12 by axboe@kernel.dk" "fixed by a maintainer, the commit made whole"
is "$(sql "SELECT state FROM regressions WHERE id = 1")" "fixed" "regression 1 is fixed"
like "$(cat "$(grep -l "^In-Reply-To: <reply4\\." "$SCRATCH"/smtp/*.eml)")" "#kreg fix: ${SHA_12:0:12}: regression 1 marked fixed $SHA_12" "the answer names the commit"
reply "Jens Axboe <axboe@kernel.dk>" "$M1" "#kreg reopen"
run_kreg mail poll
like "$OUT" "1 done" "reopened again"

# Refusals, each answered with its reason; nothing is changed by them.
S0=$(sent)
MARKS0=$(sql "SELECT count(*) FROM regression_marks")
reply "Mallory <mallory@evil.example>" "$M1" "#kreg invalid"
reply "Jens Axboe <mallory@evil.example>" "$M1" "#kreg invalid"
reply "John Doe <john@example.org>" "$M1" $'#kreg frobnicate\n#kreg dup: twelve\n#kreg fix: not-a-sha'
reply "John Doe <john@example.org>" "<no-such-mail@example.org>" "#kreg invalid"
reply "John Doe <john@example.org>" "<kreg.r1.0123456789abcdef@other-lab.example>" "#kreg invalid"
reply "John Doe <john@example.org>" "$M1" $'#kreg test:\nthis is not a patch'
reply "John Doe <john@example.org>" "$M1" "#kreg dup: 1"
run_kreg mail poll
is "$RC" 0 "refusals: exit 0"
like "$OUT" "imap: 7 read, 0 done, 9 refused, 0 ignored, 7 answers" "seven messages, nine refusals, seven answers"
is "$(sql "SELECT count(*) FROM regression_marks")" "$MARKS0" "nothing was marked by them"
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "" "regression 1 is open"
is "$(( $(sent) - S0 ))" 7 "each got an answer"
answer_to() { grep -l "^In-Reply-To: <reply$1\." "$SCRATCH"/smtp/*.eml; }
like "$(cat "$(answer_to $((N - 6)))")" "not allowed: mallory@evil.example is neither a recipient" "a stranger: not allowed"
like "$(cat "$(answer_to $((N - 5)))")" "not allowed: mallory@evil.example" "a maintainer's name with another address: not allowed (addresses count, not names)"
A=$(cat "$(answer_to $((N - 4)))")
like "$A" "#kreg frobnicate: cannot parse it" "an unknown command: cannot parse"
like "$A" "#kreg dup: twelve: cannot parse it" "dup of no number: cannot parse"
like "$A" "#kreg fix: not-a-sha: cannot parse it" "fix of no sha: cannot parse"
like "$(cat "$(answer_to $((N - 3)))")" "unknown regression: your message answers no mail kreg sent" "a reply to no mail of kreg's"
like "$(cat "$(answer_to $((N - 2)))")" "not this lab's regression" "a reply to another lab's mail"
like "$(cat "$(answer_to $((N - 1)))")" "#kreg test:: not done: the patch does not apply on culprit" "a patch that is not a patch"
like "$(cat "$(answer_to $N)")" "#kreg dup: 1: not done: regression 1 cannot be a duplicate of itself" "a duplicate of itself"
run_kreg mail replies
like "$OUT" "refused r1 mallory@evil.example: not allowed" "kreg mail replies: each refusal with its reason"

# Not answered: an auto-reply, kreg's own answer (a reply loop), a bounce.
S0=$(sent)
reply "John Doe <john@example.org>" "$M1" $'I am out of the office.\n#kreg invalid' "Auto-Submitted: auto-replied"
cp "$(last_sent)" own.eml; imap_deliver own.eml
reply "Mail Delivery System <mailer-daemon@example.org>" "$M1" "#kreg invalid" "Return-Path: <>"
run_kreg mail poll
like "$OUT" "imap: 3 read, 0 done, 0 refused, 3 ignored, 0 answers" "three messages, none answered"
is "$(sent)" "$S0" "nothing sent"
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "" "nothing done"
run_kreg mail replies
like "$OUT" "ignored - john@example.org: not answered: Auto-Submitted: auto-replied" "the auto-reply is logged"
like "$OUT" "ignored - kreg@lab.example.org: not answered: kreg's own address in From" "kreg's own answer is logged, not answered"

# The same message again (its Message-ID) at another UID: nothing twice.
reply "John Doe <john@example.org>" "$M1" "#kreg invalid"
cp "$SCRATCH/reply$N.eml" again.eml; imap_deliver again.eml
run_kreg mail poll
like "$OUT" "imap: 2 read, 1 done, 0 refused, 1 ignored, 1 answers" "the copy of a message read is not done again"
is "$(sql "SELECT count(*) FROM regression_marks WHERE mark = 'invalid'")" 1 "one mark"
reply "John Doe <john@example.org>" "$M1" "#kreg reopen"
run_kreg mail poll

# #kreg test: a patch, queued as the daemon's try; #kreg retest.
git -C src checkout -q -b fix "$SHA_9"
echo fixed >> src/block/blk-core.c
git -C src -c user.name=Fixer -c user.email=fixer@example.org commit -qam "block: make the queue fast again"
PATCH=$(git -C src format-patch -1 --stdout)
git -C src checkout -q master
reply "John Doe <john@example.org>" "$M1" $'Could you try this?\n\n#kreg test:\n'"$PATCH"
TEST_MID=$MID
reply "Jens Axboe <axboe@kernel.dk>" "$M1" "#kreg retest"
run_kreg mail poll
like "$OUT" "imap: 2 read, 2 done" "test and retest: done"
is "$(sql "SELECT count(*) FROM work WHERE kind = 'try' AND seq = 3 AND regression_id = 1")" 1 "the patch is a try item of the daemon's"
is "$(sql "SELECT c.subject FROM work w JOIN commits c ON c.id = w.commit_id WHERE w.kind = 'try' AND w.seq = 3")" \
	"block: make the queue fast again" "its commit: the patch applied on the culprit"
is "$(sql "SELECT count(*) FROM work WHERE kind = 'try' AND seq = 6 AND regression_id = 1")" 1 "retest: a try item running the culprit and its parent again"
like "$(cat "$(last_sent)")" "#kreg retest: the culprit of regression 1 and its parent run again" "the answer says so"

# A 50 MB reply is refused by its size (RFC822.SIZE), unread: its header
# only is fetched to answer it (dovecot's log of the session: what it sent).
{
	printf 'From: John Doe <john@example.org>\r\nTo: kreg@lab.example.org\r\nSubject: Re: big\r\n'
	printf 'Message-ID: <big.%s@client.example.org>\r\nIn-Reply-To: %s\r\n\r\n#kreg invalid\r\n' "$$" "$M1"
	head -c 50000000 /dev/zero | tr '\0' 'x' | fold -w 76 | sed 's/$/\r/'
} > big.eml
imap_deliver big.eml
S0=$(sent)
run_kreg mail poll
like "$OUT" "imap: 1 read, 0 done, 1 refused" "the 50 MB reply is refused"
like "$OUT" "over this lab's limit \(mail.imap.max_size, 1048576 bytes\): not read" "by its size"
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "" "its command is not done"
is "$(( $(sent) - S0 ))" 1 "its sender is told"
OUTB=$(grep -o 'Logged out in=[0-9]* out=[0-9]*' "$IMAP_DIR/dovecot.log" | tail -1 | sed 's/.*out=//')
ok "the session sent $OUTB bytes: the message was not fetched" test "$OUTB" -lt 1000000

# A connection cut mid-fetch (a proxy that drops it inside the message):
# the poll fails, nothing is recorded; the next poll reads it.
PPORT=$(smtp_free_port)
"$SMTP_PY" - "$PPORT" "$IMAP_PORT" "$SCRATCH/cut-once" <<'PY' >>"$SCRATCH/proxy.log" 2>&1 &
import os, socket, sys, threading
port, to, flag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
open(flag, "w").close()
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port)); ls.listen(8)
def pipe(a, b, cut):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            i = d.find(b"BODY[] {") if cut else -1
            if i >= 0 and os.path.exists(flag):
                os.unlink(flag)
                b.sendall(d[:i + 200])   # a part of the message, then the end
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
while True:
    c, _ = ls.accept()
    u = socket.create_connection(("127.0.0.1", to))
    threading.Thread(target=pipe, args=(c, u, False), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, True), daemon=True).start()
PY
PROXY_PID=$!
trap 'kill $PROXY_PID 2>/dev/null; imap_stop; smtp_stop; _cleanup' EXIT
mail_config kreg-cut.yaml "$SCRATCH/data" "$(imap_yaml 1 "imap://127.0.0.1:$PPORT")"
for i in $(seq 50); do [ -f "$SCRATCH/cut-once" ] && break; sleep 0.1; done
reply "John Doe <john@example.org>" "$M1" "#kreg invalid
$(head -c 8000 /dev/zero | tr '\0' 'y' | fold -w 70)"
run_kreg -c kreg-cut.yaml mail poll
is "$RC" 1 "a connection cut mid-fetch: the poll fails (exit 1)"
like "$ERR" "mail.imap imap://127.0.0.1:$PPORT \(INBOX\): IMAP fetch: " "and says where and why"
is "$(sql "SELECT count(*) FROM mail_replies WHERE message_id = '$MID'")" 0 "nothing is recorded of the message"
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "" "nothing is done"
run_kreg -c kreg-cut.yaml mail poll
like "$OUT" "imap: 1 read, 1 done" "the next poll reads it and does it"
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "invalid" "once"
kill $PROXY_PID 2>/dev/null

# The daemon polls every mail.imap.poll; stopped and started again, it does
# nothing twice.
daemon_until() {  # SQL EXPECTED: start the daemon, wait for SQL to say EXPECTED, stop it
	local i
	"$KREG" daemon --foreground >>"$SCRATCH/daemon.log" 2>&1 &
	DPID=$!
	for i in $(seq 1 600); do
		[ "$(sql "$1")" = "$2" ] && break
		sleep 0.1
	done
	kill -TERM "$DPID"; wait "$DPID"
}
reply "John Doe <john@example.org>" "$M1" "#kreg reopen"
daemon_until "SELECT triage FROM regressions WHERE id = 1" ""
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "" "the daemon's poll reopens it"
reply "John Doe <john@example.org>" "$M1" "#kreg noise"
# (and the try and the retest asked by mail are over)
daemon_until "SELECT triage || ' ' || (SELECT count(*) FROM work WHERE kind = 'try' AND state = 'done')
	|| ' ' || (SELECT count(*) FROM outbox WHERE mail_key LIKE 'reply.%.try' AND state = 'sent')
	FROM regressions WHERE id = 1" "noise 2 1"
is "$(sql "SELECT triage FROM regressions WHERE id = 1")" "noise" "started again, it reads the next reply"
is "$(sql "SELECT count(*) FROM regression_marks WHERE who = 'john@example.org' AND mark = 'reopen'")" 3 \
	"and did not do the reply before it again"
is "$(sql "SELECT count(*) FROM mail_replies") $(sql "SELECT count(DISTINCT uid) FROM mail_replies")" \
	"$(ls "$IMAP_DIR"/Maildir/cur "$IMAP_DIR"/Maildir/new | grep -c kregtest) $(ls "$IMAP_DIR"/Maildir/cur "$IMAP_DIR"/Maildir/new | grep -c kregtest)" \
	"every message in the mailbox is recorded once"
like "$(cat "$SCRATCH"/data/logs/work-*.log)" "work [0-9]+: imap: 1 read, 1 done" "the daemon's imap item logs what it did"
is "$(sql "SELECT source || ' ' || (fix_commit_id IS NOT NULL) FROM tries WHERE regression_id = 1")" "patch 1" \
	"the daemon tried the patch sent by mail (kreg regression show lists it)"
A=$(grep -l "^In-Reply-To: $TEST_MID" "$SCRATCH"/smtp/*.eml | xargs grep -l "kreg tried the patch")
like "$(cat $A)" "kreg tried the patch of your message as the fix of regression 1 \(commit [0-9a-f]{12} on culprit ${SHA_9:0:12}\)" \
	"the verdict answers the patch's mail in its thread"
like "$(cat $A)" "^(fixed|not fixed|partly fixed: [0-9]+% of the regression recovered)"$'\r'"?$" "with the verdict"
like "$(cat $A)" "fio.read_iops" "and the table of the last good, the culprit and the fix"
like "$(cat "$SCRATCH"/data/logs/work-*.log)" "regression 1: retest: (reproduced|not settled|not reproduced): fio.read_iops" \
	"and ran the culprit and its parent again"
no_sanitizer_report "no sanitizer report"
