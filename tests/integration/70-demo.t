#!/bin/bash
# kreg demo: real fio and dbench runs, then the kblockd regression found,
# bisected to its commit and checked against its fix with the 0-day table,
# and its 0-day e-mail written (dry run) to the author and MAINTAINERS.
. "$KREG_SRC/tests/lib.sh"
plan 29

run_kreg demo --sim --dir "$SCRATCH/lab"
is "$RC" 0 "kreg demo exits 0"
no_sanitizer_report "no sanitizer report"
like "$OUT" "^\\$ kreg -c kreg.yaml job run atoms/fio-quick-.*--host local --runs 3" \
	"it shows each command it runs"
like "$OUT" "^fio.read_iops: [0-9.]+ ±" "a real fio run reports read IOPS"
like "$OUT" "^dbench.throughput_MB/s: [0-9.]+ ±" "a real dbench run reports throughput"
like "$OUT" "SIMULATED samples" "the sim part says it is simulated"
like "$OUT" "found: [0-9a-f]{12} is the first bad commit" "the bisection finds a culprit"
like "$OUT" "^ +[0-9]+ +verify-culprit +[0-9a-f]{12} +bad .*block: reduce kblockd_mod_delayed_work_on\\(\\) CPU consumption" \
	"the culprit is the kblockd commit, verified"
like "$OUT" "^ +[0-9]+ +verify-culprit +[0-9a-f]{12} +bad +0 +3 " \
	"verified with the 3 runs the search stored there: no runs again"
like "$OUT" "cost: 6 builds, 16 runs" "16 runs in all (22 when the verification ran its own)"
like "$OUT" "^ +5[5-9][0-9]\\.[0-9]{2}( ± +[0-9]+%)? +-6[4-8]\\.[0-9]% +1[89][0-9]\\.[0-9]{2}( ± +[0-9]+%)? +[-+][0-3]\\.[0-9]% +5[5-9][0-9]\\.[0-9]{2}( ± +[0-9]+%)? +fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec" \
	"the 0-day table: about -66% at the culprit, back within a few % at the fix"

db="$SCRATCH/lab/data/kreg.db"
is "$(sqlite3 "$db" "SELECT count(*) > 0 FROM samples s JOIN metrics m ON m.id = s.metric_id
	WHERE m.name = 'fio.read_iops'")" 1 "fio samples are in the database"
is "$(sqlite3 "$db" "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id
	WHERE h.name = 'local' AND r.status = 'ok'")" 9 "nine real runs stored, all ok"
is "$(sqlite3 "$db" "SELECT c.subject FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id")" \
	"block: reduce kblockd_mod_delayed_work_on() CPU consumption" "the bisection's culprit is stored"

# The 0-day e-mail, dry run: one .eml in the lab's outbox, nothing sent.
culprit=$(sqlite3 "$db" "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id")
like "$OUT" "^\\$ kreg -c kreg.yaml mail send$" "it runs kreg mail send"
like "$OUT" "^mail 1: first written for .*: dry run, not sent$" "which writes the first mail, naming the culprit, dry run"
is "$(ls "$SCRATCH"/lab/data/outbox/*.eml 2>/dev/null | wc -l)" 1 "one .eml in the lab's outbox"
eml=$(ls "$SCRATCH"/lab/data/outbox/*.eml 2>/dev/null | head -1)
like "$OUT" "^The e-mail it wrote: $eml$" "the demo says where the .eml is"
is "$(sqlite3 "$db" "SELECT state || ' ' || eml FROM outbox")" "dry_run $eml" \
	"its outbox row: dry_run, naming the file"
# a header, decoded and unfolded, by Python's e-mail parser
header() {
	python3 -c 'import sys, email
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
print(str(m[sys.argv[2]] or ""))' "$eml" "$1"
}
like "$(header Subject)" "^\\[linux:master\\] \\[block\\] ${culprit:0:10}: fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec -6[4-8]\\.[0-9]% regression$" \
	"Subject: [linux:master] [block] <culprit sha10>: <metric> -N.N% regression"
is "$(header To)" "Bart Demo <bart@example.org>" "To: the culprit's author"
like "$(header Cc)" "^Jen Block <jen.block@example.org>, Rob Review <rob.review@example.org>, <?linux-block@lists.example.org>?" \
	"Cc: who MAINTAINERS names for block/, most specific first"
is "$(header From)" "kreg robot <kreg@lab.example.org>" "From: the lab's robot"
like "$(tr -d '\r' < "$eml")" "^\\| Reported-by: kreg robot <kreg@lab.example.org>$" "the Reported-by tag"
like "$(tr -d '\r' < "$eml")" "^ +5[5-9][0-9]\\.[0-9]{2}( ± +[0-9]+%)? +-6[4-8]\\.[0-9]% +1[89][0-9]\\.[0-9]{2}( ± +[0-9]+%)? +-6[4-8]\\.[0-9]% +1[89][0-9]\\.[0-9]{2}( ± +[0-9]+%)? +fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec$" \
	"the body's comparison table: good, culprit, bad head"

# A second demo replaces its own lab; a directory it did not make is left alone.
run_kreg demo --sim --dir "$SCRATCH/lab" --no-local
is "$RC" 0 "the demo runs again in its own lab"
is "$(sqlite3 "$db" "SELECT count(*) FROM bisections")" 1 "with a fresh database"
mkdir -p mine && echo precious > mine/file
run_kreg demo --sim --dir "$SCRATCH/mine" --no-local
like "$RC:$ERR" "^1:.*mine exists and was not made by kreg demo" "a foreign directory is refused"
is "$(cat mine/file)" "precious" "and left as it was"
done_testing
