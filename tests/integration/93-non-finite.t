#!/bin/bash
# Issue 13 item 4, as a user meets it: output whose values sum or average
# to infinity (two dbench "Throughput 1.7e308" lines, fio's total_ios near
# 1.7e308) is refused by `kreg job parse`, naming the file and the metric,
# never printed as inf; and a database where an older kreg stored an
# infinity still compares: that metric is named as not compared, every
# other metric is compared and printed.
. "$KREG_SRC/tests/lib.sh"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
plan 13

export KREG_DATA_DIR="$SCRATCH/data"
STATS="$KREG_SRC/tests/fixtures/lkp/spec/fixtures/stats"

printf 'Throughput 1.7e308 MB/sec  2 clients  2 procs  max_latency=1.0 ms\n%.0s' 1 2 > db.log
run_kreg job parse dbench db.log
is "$RC" 1 "two dbench Throughput 1.7e308 lines are refused"
like "$ERR" "^kreg: db\.log: dbench\.throughput_MB/s comes out as inf" "naming the file and the metric"
unlike "$OUT" "\\<(inf|nan)\\>" "no inf is printed as a result"

sed 's/"total_ios" : 6029957371/"total_ios" : 1.7e308/; s/"total_ios" : 0,/"total_ios" : 1.7e308,/' \
	"$STATS/fio/02" > big.json
run_kreg job parse fio big.json
is "$RC" 1 "fio total_ios that sum past 1.7e308 are refused"
like "$ERR" "^kreg: big\.json: fio\.workload comes out as inf" "naming the file and the metric"
run_kreg job parse fio "$STATS/fio/02"
is "$RC" 0 "the same output as fio wrote it parses"

# A database an older kreg wrote: one run of B stored an infinity.
A=edaa26334c117a58e6fc8a2f5c4eb27a5d9bd1a4
B=cb2ac2912a9ca7d3d26291c5119e3ae0ca5d1eab
run_kreg db init
DB=data/kreg.db
sqlite3 "$DB" <<SQL
INSERT INTO repos (id, name, url) VALUES (1, 'linux', 'file:///dev/null');
INSERT INTO commits (id, repo_id, sha, parents) VALUES (1, 1, '$A', ''), (2, 1, '$B', '$A');
INSERT INTO jobs (id, name, testcase, yaml, hash) VALUES (1, 'dbench', 'dbench', 'x', 'h1');
INSERT INTO hosts (id, name, backend) VALUES (1, 'lab1', 'local');
INSERT INTO metrics (id, name) VALUES (1, 'dbench.throughput_MB/s'), (2, 'dbench.max_latency_ms');
SQL
run=0
add_run() {  # commit throughput latency
	run=$((run + 1))
	sqlite3 "$DB" "INSERT INTO runs (id, job_id, commit_id, host_id, started, status) VALUES ($run, 1, $1, 1, 0, 'ok');
		INSERT INTO samples (run_id, metric_id, value) VALUES ($run, 1, $2), ($run, 2, $3);"
}
add_run 1 100 5; add_run 1 101 5.1; add_run 1 99 4.9
add_run 2 50 1e999; add_run 2 51 5; add_run 2 49 5
is "$(sqlite3 "$DB" "SELECT count(*) FROM samples WHERE value = 1e999")" 1 "the database holds an infinity"
run_kreg compare --job dbench --host lab1 --repo linux $A $B
is "$RC" 0 "compare of those commits still works"
like "$OUT" '^    100\.00           -50\.0%      50\.00        dbench\.throughput_MB/s$' \
	"the finite metric is compared and printed"
like "$OUT" 'dbench\.max_latency_ms \(not compared: dbench\.max_latency_ms: .*not a finite number\)' \
	"the other is named as not compared"
unlike "$OUT" "\\<(inf|nan)\\>" "no inf or nan in the table"
like "$ERR" "not compared: dbench\.max_latency_ms" "and a warning names it"
no_sanitizer_report "no sanitizer report"
done_testing
