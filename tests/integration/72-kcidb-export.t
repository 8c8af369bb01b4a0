#!/bin/bash
# kreg export kcidb: a lab with a bisected regression (report-lib.sh's, a
# culprit whose subject and author carry quotes, control characters and
# bytes that are not UTF-8; two builds rows written in, one failed) as a
# KCIDB 5.3 document: valid against the schema (python3-jsonschema), every
# reference resolved, its numbers the stored samples, the same bytes and
# ids export after export, --since, and an empty lab.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
"$PY" -c 'import jsonschema' 2>/dev/null || skip_all "python3-jsonschema is not installed (make deps)"
plan 40

SCHEMA=$KREG_SRC/tests/fixtures/kcidb/v05_03.schema.json
check() { CHECK=$("$PY" "$KREG_SRC/tests/integration/kcidb-check.py" "$@" 2>&1); }

# An empty lab: a valid document with empty lists.
mkdir empty
printf 'data_dir: %s/empty/data\n' "$SCRATCH" > empty/kreg.yaml
"$KREG" -c empty/kreg.yaml db init >/dev/null 2>&1
run_kreg -c empty/kreg.yaml export kcidb
is "$RC" 0 "an empty lab exports"
printf '%s\n' "$OUT" > empty.json
check valid empty.json "$SCHEMA"
is "$?:$CHECK" "0:checkouts=0 builds=0 tests=0 issues=0 incidents=0" "as a valid empty document"
check get empty.json 'd["version"]'
is "$CHECK" "{'major': 5, 'minor': 3}" "of KCIDB 5.3"

CULPRIT_SUBJECT=$(printf 'block: "quoted" \\ back\001slash \033[31mred\t\377\376 %s' "'s'")
CULPRIT_AUTHOR=$(printf 'Mal "Q" \002%s \376\377' "'x'")
CULPRIT_ENCODING=ISO-8859-1
MONITOR=iostat.vda.r/s		# a monitor the sim host draws: not a test of KCIDB
make_lab "$SCRATCH/lab"
ok "the lab is filled, its regression bisected" test -n "$CULPRIT"
DB=$LAB/data/kreg.db
sed -i 's|^web:$|web:\n  base_url: https://lab.example.org/kreg|' "$KREG_CONFIG"
printf 'kcidb:\n  origin: test_lab\n' >> "$KREG_CONFIG"

# Two kernel builds (sim hosts build none): one at the head, its runs on
# it, and one of the culprit that failed with a log that is not UTF-8.
mkdir art
printf 'CONFIG_X=y\nCONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14) 12.2.0"\n' > art/.config
sqlite3 "$DB" "INSERT INTO builds (commit_id, tree, config_name, config_hash, status, artifact,
		seconds, started, finished) SELECT id, 't1', 'qemu', 'h1', 'ok', '$SCRATCH/art', 42.5,
		1700000000, 1700000042 FROM commits WHERE sha = '$HEAD_SHA';
	INSERT INTO builds (commit_id, tree, config_name, config_hash, status, log_tail, error,
		seconds, started, finished) SELECT id, 't2', 'qemu', 'h2', 'failed',
		CAST(X'6C643A20FF0A' AS TEXT) || 'Error 1', 'make failed', 3, 1700000000, 1700000003
		FROM commits WHERE sha = '$CULPRIT';
	UPDATE runs SET build_id = 1 WHERE commit_id = (SELECT id FROM commits WHERE sha = '$HEAD_SHA');"

run_kreg export kcidb -o full.json
is "$RC" 0 "kreg export kcidb -o FILE"
no_sanitizer_report "no sanitizer report"
like "$OUT" "^full.json: 25 checkouts, 26 builds, [0-9]+ tests, 1 issues, [0-9]+ incidents$" "and says what it wrote"
check valid full.json "$SCHEMA"
like "$?:$CHECK" "^0:checkouts=25 builds=26 tests=[0-9]+ issues=1 incidents=[0-9]+$" \
	"the document is valid against the KCIDB 5.3 schema, its ids unique"
check linked full.json
like "$?:$CHECK" "^0:[0-9]+ references$" "every build, test and incident names an object of the document"
check numbers full.json "$DB"
like "$?:$CHECK" "^0:[0-9]+ numbers are the stored samples$" \
	"each test's number is its stored sample, and every sample is there"
check get full.json 'len([t for t in d["tests"] if "iostat" in t["misc"].get("metric", "")])'
is "$CHECK:$(sqlite3 "$DB" "SELECT count(*) > 0 FROM samples s JOIN metrics m ON m.id = s.metric_id
	WHERE m.name = 'iostat.vda.r/s'")" "0:1" "the monitors' samples are kept in kreg, not exported as tests"
check get full.json 'sorted({o["id"].split(":")[0] for n in ("checkouts","builds","tests","issues","incidents") for o in d[n]})'
is "$CHECK" "['test_lab']" "every id starts with kcidb.origin"

# The regression.
check get full.json '[(i["id"], i.get("report_url"), i["culprit"]["code"], i["misc"]["culprit_commit"]) for i in d["issues"]]'
is "$CHECK" "[('test_lab:regression-b1', 'https://lab.example.org/kreg/regression-b1.html', True, '$CULPRIT')]" \
	"the issue: the regression, its page under web.base_url, its culprit"
check get full.json 'sorted({d["issues"][0]["misc"][k] for k in ("culprit_checkout_id", "bad_checkout_id")})'
is "$CHECK" "$(printf "['test_lab:src:%s', 'test_lab:src:%s']" $(printf '%s\n' "$CULPRIT" "$HEAD_SHA" | sort))" \
	"with the checkouts of its culprit and of where it was seen"
ok_runs=$(sqlite3 "$DB" "SELECT COUNT(*) FROM runs u JOIN commits c ON c.id = u.commit_id
	JOIN hosts h ON h.id = u.host_id WHERE u.status = 'ok' AND h.name = 'simhost'
	AND c.sha IN ('$CULPRIT', '$HEAD_SHA')")
check get full.json '"%d %s" % (len(d["incidents"]), sorted({next(b["checkout_id"] for b in d["builds"] if b["id"] == next(t["build_id"] for t in d["tests"] if t["id"] == i["test_id"])).split(":")[2] for i in d["incidents"]}))'
is "$CHECK" "$ok_runs $(printf "['%s', '%s']" $(printf '%s\n' "$CULPRIT" "$HEAD_SHA" | sort))" \
	"an incident for each of its metric's tests at the culprit and the head, none elsewhere"
check get full.json 'sorted({(t["path"], t["status"], t["number"].get("unit"), t["number"].get("prefix")) for t in d["tests"] if "number" in t})'
is "$CHECK" "[('$ATOM.fio.read_iops', 'DONE', 'IOPS', 'metric'), ('$ATOM.fio.write_iops', 'DONE', 'IOPS', 'metric')]" \
	"a sample is a DONE test at <atom>.<metric> with its unit"

# Failed runs: the lab's failures are ERROR, with kreg's status and reason.
infra=$(sqlite3 "$DB" "SELECT COUNT(*) FROM runs WHERE status = 'infra_failed'")
check get full.json '[(t["status"], t["misc"]["kreg_status"], t["log_excerpt"]) for t in d["tests"] if "number" not in t][:1], len([t for t in d["tests"] if t["status"] == "ERROR"])'
is "$CHECK" "([('ERROR', 'infra_failed', 'sim: infrastructure failure drawn')], $infra)" \
	"each run the lab lost is one ERROR test, kreg's status and reason kept"
ok "the lab lost some" test "$infra" -gt 0

# Builds.
check get full.json '[(b["id"], b["status"], b.get("compiler"), b.get("duration"), b["checkout_id"].split(":")[2]) for b in d["builds"] if b["misc"]["kreg_built"]]'
is "$CHECK" "[('test_lab:build:1', 'PASS', 'gcc (Debian 12.2.0-14) 12.2.0', 42.5, '$HEAD_SHA'), ('test_lab:build:2', 'FAIL', None, 3.0, '$CULPRIT')]" \
	"each kernel build, its status, compiler and duration"
check get full.json 'ascii([b["log_excerpt"] for b in d["builds"] if b.get("status") == "FAIL"])'
is "$CHECK" "['ld: \\ufffd\\nError 1']" "a failed build's log, its byte that is not UTF-8 as U+FFFD"
check get full.json '{t["build_id"] for t in d["tests"] if t["misc"]["kreg_run"] in '"[$(sqlite3 "$DB" "SELECT group_concat(id) FROM runs WHERE build_id = 1")]"'}'
is "$CHECK" "{'test_lab:build:1'}" "a run on a build is a test of it"
check get full.json 'len([b for b in d["builds"] if not b["misc"]["kreg_built"] and "status" not in b])'
is "$CHECK" "24" "the runs of sim hosts at a commit hang on a stand-in build without a status"

# The hostile commit: valid JSON, the text kept, its bytes that are not UTF-8 as U+FFFD.
check get full.json 'ascii([(c["comment"], c["misc"]["author"]) for c in d["checkouts"] if c["git_commit_hash"] == "'"$CULPRIT"'"])'
is "$CHECK" "[('block: \"quoted\" \\\\ back\\x01slash \\x1b[31mred\\t\\ufffd\\ufffd \\'s\\'', 'Mal \"Q\" \\x02\\'x\\' \\ufffd\\ufffd <a16@example.org>')]" \
	"the culprit's subject and author: quotes, backslash and control characters kept, bad bytes U+FFFD"
like "$(grep -c 'back\\u0001slash \\u001B\[31mred\\t' full.json)" "^[1-9]" "control characters are JSON escapes"

# Stable: the same bytes again, on standard output too.
run_kreg export kcidb -o again.json
ok "a second export is the same bytes" cmp full.json again.json
run_kreg export kcidb
printf '%s\n' "$OUT" > stdout.json
ok "and so is the export on standard output" cmp full.json stdout.json

# --since: only what was stored after it.
"$PY" -c 'import time; t = time.time(); time.sleep(1.05 - t % 1)'
T=$(date +%s)
"$KREG" job run "$LAB/atoms/$ATOM.yaml" --host simhost --runs 2 --repo src --commit "$NEXT_SHA" \
	>/dev/null 2>&1
run_kreg export kcidb --since "@$T" -o since.json
is "$RC" 0 "export --since @SECONDS"
check valid since.json "$SCHEMA"
is "$?:$CHECK" "0:checkouts=1 builds=1 tests=4 issues=0 incidents=0" \
	"holds only the two runs stored since then (two samples each), their build and checkout"
check get since.json '[c["git_commit_hash"] for c in d["checkouts"]]'
is "$CHECK" "['$NEXT_SHA']" "the commit they ran at"
run_kreg export kcidb --since "$(date -u -d "@$T" +%Y-%m-%dT%H:%M:%SZ)" -o since-iso.json
ok "--since as an ISO 8601 time is the same" cmp since.json since-iso.json
run_kreg export kcidb --since 1h -o hour.json
check get hour.json 'len(d["builds"])'
is "$RC:$CHECK" "0:25" "--since 1h: the builds written in with 2023's times are not in"
run_kreg export kcidb --since 2023-11-01 -o day.json
run_kreg export kcidb -o full2.json
ok "--since a date before everything is everything" cmp day.json full2.json
check get full2.json 'len(d["tests"])'
n2=$CHECK
check get full.json 'len(d["tests"])'
is "$n2" "$((CHECK + 4))" "the new export holds the new runs' samples"
"$PY" - full.json full2.json <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for n in ('checkouts', 'builds', 'tests', 'issues', 'incidents'):
    new = {o['id']: o for o in b[n]}
    for o in a[n]:
        assert new.get(o['id']) == o, (n, o['id'])
PY
is "$?" 0 "every object of the first export is in the later one with the same id, unchanged"

run_kreg export kcidb --since yesterday
is "$RC:$(printf '%s' "$ERR" | head -1)" "2:kreg: export: --since: 'yesterday' is not a time (like 2026-12-01, 2026-12-01T18:00Z, @1764612000, 2h, 7d)" \
	"a --since that is not a time is a usage error"
run_kreg export kcidb -o nodir/lab.json
like "$RC:$ERR" "^1:kreg: nodir/lab.json.tmp.[0-9]+: cannot create: No such file or directory" \
	"an -o FILE that cannot be made is an error that names it"
"$KREG" export kcidb > /dev/full 2>"$SCRATCH/full.err"
is "$?:$(cat "$SCRATCH/full.err")" "1:kreg: cannot write the KCIDB document: No space left on device" \
	"so is standard output that cannot take the document"
mkdir -p outdir/sub
run_kreg export kcidb -o outdir
is "$RC:$(ls | grep -c 'outdir\.')" "1:0" "an -o FILE the document cannot be renamed to is an error that leaves nothing behind"
run_kreg export csv
is "$RC" 2 "an unknown format is a usage error"
printf 'data_dir: %s/bad\nkcidb:\n  origin: My-Lab\n' "$SCRATCH" > bad.yaml
run_kreg config check bad.yaml
is "$RC:$OUT$ERR" "1:bad.yaml:3:11: kcidb.origin: KCIDB's origin is lower-case letters, digits and '_' only" \
	"an origin KCIDB would refuse is a problem of the configuration, at its place"
done_testing
