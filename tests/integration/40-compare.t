#!/bin/bash
# kreg compare: the 0-day table from matrix files and from commits' runs in
# the database; verdicts in JSON; bad input named.
. "$KREG_SRC/tests/lib.sh"
plan 24

FIX="$KREG_SRC/tests/fixtures/stats"
cp "$FIX"/table/*.json .
A=edaa26334c117a58e6fc8a2f5c4eb27a5d9bd1a4
B=cb2ac2912a9ca7d3d26291c5119e3ae0ca5d1eab
C=80f0eab18356919a1c0568c6348cb9ab0c1e1f32
TABLE='edaa26334c117a58 cb2ac2912a9ca7d3d26291c5119 80f0eab18356919a1c0568c6348
---------------- --------------------------- ---------------------------
         %stddev     %change         %stddev     %change         %stddev
    573.42           -66.0%     194.68            -0.6%     570.11        fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec'

export KREG_DATA_DIR="$SCRATCH/data"

run_kreg compare $A.json $B.json $C.json
is "$RC" 0 "compare of three matrix files exits 0"
is "$OUT" "$TABLE" "the table has the 0-day layout, changed metrics only"
no_sanitizer_report "no sanitizer report"

run_kreg compare --all $A.json $B.json $C.json
like "$OUT" '^    100\.00            \+0\.1%     100\.07            \+0\.0%     100\.00        fxmark\.other\.works/sec$' \
	"--all lists the unchanged metric too"

run_kreg compare --json $A.json $B.json
is "$RC" 0 "--json exits 0"
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); c=d["metrics"][0]["columns"][1]; print(d["metrics"][0]["metric"], c["verdict"], round(c["change"]*100,1))')" \
	"fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec regression -66.0" \
	"the JSON carries the verdict and the change"

# YAML matrices, labelled by their result directory (LKP's layout)
mkdir -p base/v6.1 new/abc123
printf 'fio.read_iops:\n  - 1000\n  - 1010\n  - 990\n' > base/v6.1/matrix.yaml
printf 'fio.read_iops: [800, 805, 795]\n' > new/abc123/matrix.yaml
run_kreg compare base/v6.1/matrix.yaml new/abc123/matrix.yaml
is "$RC" 0 "YAML matrices are read"
like "$OUT" '^            v6\.1                      abc123$' "labelled by their directories"
like "$OUT" '^      1000           -20\.0%     800\.00        fio\.read_iops$' "with the change"

# nothing changed: empty table, a note on stderr
printf '{"fio.read_iops": [1000, 1001, 999]}' > same.json
run_kreg compare base/v6.1/matrix.yaml same.json
is "$RC" 0 "no change still exits 0"
like "$ERR" "no metric changed" "and says so"

# bad input
run_kreg compare $A.json
is "$RC" 2 "one column is a usage error"
printf '{"fio.read_iops": [1, 2,' > broken.json
run_kreg compare $A.json broken.json
is "$RC" 1 "a broken file fails"
like "$ERR" "broken.json:1:[0-9]+: not valid JSON" "naming the file and position"
run_kreg compare $A.json nosuch
like "$ERR" "nosuch: no such file \(to compare commits, give --job and --host\)" "a missing file is named"

# commits from the database
run_kreg db init
is "$RC" 0 "db init"
DB=data/kreg.db
sqlite3 "$DB" <<SQL
INSERT INTO repos (id, name, url) VALUES (1, 'linux', 'file:///dev/null');
INSERT INTO commits (id, repo_id, sha, parents) VALUES (1, 1, '$A', ''), (2, 1, '$B', '$A'), (3, 1, '$C', '$B');
INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'fxmark-dbench', 'fxmark', 'x', 'h1');
INSERT INTO hosts (id, name, backend) VALUES (1, 'lab1', 'local');
INSERT INTO metrics (id, name) VALUES (1, 'fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec'), (2, 'fxmark.other.works/sec');
SQL
run=0
add_run() {  # commit status value1 value2
	run=$((run + 1))
	sqlite3 "$DB" "INSERT INTO runs (id, job_id, commit_id, host_id, started, status) VALUES ($run, 1, $1, 1, 0, '$2');
		INSERT INTO samples (run_id, metric_id, value) VALUES ($run, 1, $3), ($run, 2, $4);"
}
add_run 1 ok 571.10 100; add_run 1 ok 575.74 101; add_run 1 ok 573.42 99
add_run 2 ok 193.50 100; add_run 2 ok 195.86 100.5; add_run 2 ok 194.68 99.7
add_run 2 job_failed 10 10
add_run 3 ok 569.0 101; add_run 3 ok 571.22 100; add_run 3 ok 570.11 99
run_kreg compare --job fxmark-dbench --host lab1 --repo linux ${A:0:12} $B ${C:0:7}
is "$RC" 0 "compare of three commits exits 0"
is "$OUT" "$TABLE" "the same table from the database (failed runs left out)"
no_sanitizer_report "no sanitizer report"

run_kreg compare --job fxmark-dbench --host lab1 --repo linux $A deadbeef
is "$RC" 1 "an unknown commit fails"
like "$ERR" "deadbeef" "naming it"
run_kreg compare --job nojob --host lab1 --repo linux $A $B
like "$ERR" "job 'nojob' has no runs in the database" "an unknown job is named"
run_kreg compare --job fxmark-dbench --repo linux $A $B
is "$RC" 2 "--job without --host is a usage error"
run_kreg compare --job fxmark-dbench --host lab1 --repo nosuch $A $B
like "$ERR" "repository 'nosuch' is not in the database" "an unknown repository is named"
done_testing
