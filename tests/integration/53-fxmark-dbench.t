#!/bin/bash
# fxmark's dbench_client without an fxmark checkout, on the local host: the
# shipped fxmark job split, its dbench_client atom run for real (dbench with
# client.txt), fxmark's log written, LKP's metric name stored; fxmark's
# micro-benchmarks refused by name.
. "$KREG_SRC/tests/lib.sh"

export KREG_DATA_DIR="$SCRATCH/data"
command -v dbench >/dev/null || skip_all "dbench is not installed"
[ -r /usr/share/dbench/client.txt ] || skip_all "no /usr/share/dbench/client.txt"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
plan 12

q() { sqlite3 data/kreg.db "$1"; }

run_kreg job split --host local -o atoms "$KREG_SRC/jobs/fxmark.yaml"
is "$RC" 0 "the shipped fxmark job splits"
atom=$(printf '%s\n' "$OUT" | grep 'f2fs-ssd-dbench_client-4')
mwcl=$(printf '%s\n' "$OUT" | grep 'f2fs-ssd-MWCL-4')
is "$(printf '%s\n' "$atom" | wc -l):$(printf '%s\n' "$mwcl" | wc -l)" "1:1" \
	"into a dbench_client and an MWCL atom on f2fs with 4 threads"
# A few seconds of dbench, not the job's 30.
sed -i 's/^  duration: 30s$/  duration: 2s/' "$atom"
ok "the atom's duration is cut to 2 s" grep -q '^  duration: 2s$' "$atom"

run_kreg job run "$atom" --host local
is "$RC" 0 "kreg job run of dbench_client without an fxmark checkout exits 0"
[ "$RC" = 0 ] || printf '# %s\n' "$ERR"
like "$OUT" '^fxmark\.ssd_f2fs_dbench_client_4_bufferedio\.works/sec: [0-9.e+]+' \
	"it prints LKP's metric name"
v=$(q "SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	WHERE m.name = 'fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec'")
ok "and stores it, above 0 ($v)" awk -v v="$v" 'BEGIN { exit !(v > 0) }'
run_dir=$(q "SELECT output FROM runs ORDER BY id DESC LIMIT 1")
is "$(sed -n 1,2p "$run_dir/fxmark.log")" "## ssd:f2fs:dbench_client:4:bufferedio
# ncpu secs works works/sec" "fxmark's log: the section and the column line"
like "$(sed -n 4p "$run_dir/fxmark.log")" '^4 2 0 [0-9.]+$' "and NCORE DURATION 0 THROUGHPUT"
tp=$(sed -n 's/^ *Throughput \([0-9.]*\) MB\/sec.*/\1/p' "$run_dir/fxmark-dbench.log")
is "$(sed -n 4p "$run_dir/fxmark.log" | cut -d' ' -f4)" "$tp" "the throughput is dbench's own (MB/s)"

run_kreg job run "$mwcl" --host local
is "$RC" 1 "MWCL without a checkout fails"
like "$ERR" "fxmark's MWCL runs from an fxmark checkout" "naming the test"
is "$(q "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" "job_failed" "stored as job_failed"
