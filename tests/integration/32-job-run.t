#!/bin/bash
# kreg job run: a real fio job and a real dbench run on the local host, their
# runs and samples in the database afterwards; failures stored as failures.
. "$KREG_SRC/tests/lib.sh"

export KREG_DATA_DIR="$SCRATCH/data"
command -v fio >/dev/null || skip_all "fio is not installed"
command -v dbench >/dev/null || skip_all "dbench is not installed"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"

# The built-in configuration: host "local", target <data_dir>/scratch.
run_kreg job split --host local -o atoms "$KREG_SRC/jobs/fio-quick.yaml" "$KREG_SRC/jobs/dbench-quick.yaml"
fio_atom=$(printf '%s\n' "$OUT" | grep randread)
dbench_atom=$(printf '%s\n' "$OUT" | grep dbench)
plan 42

q() { sqlite3 data/kreg.db "$1"; }

like "$(cat "$fio_atom")" "testbox: local" "split --host local names the test box"

run_kreg job run "$fio_atom" --host local --runs 2
is "$RC" 0 "kreg job run fio-quick (2 runs) exits 0"
[ "$RC" = 0 ] || printf '# %s\n' "$ERR"
like "$OUT" "runs: 2 of 2 ok" "both runs went well"
like "$OUT" '^fio\.read_iops: [0-9.e+]+ ±[0-9.]+%$' "it prints fio.read_iops with its relative stddev"
is "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" 2 "two ok runs are stored"
is "$(q "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id WHERE m.name = 'fio.read_iops' AND s.value > 0")" 2 \
	"with fio.read_iops samples"
run_dir=$(q "SELECT output FROM runs ORDER BY id LIMIT 1")
ok "the raw fio JSON is kept in the run's folder" test -s "$run_dir/fio.json"
ok "with the atom as run" test -s "$run_dir/atom.yaml"
ok "fio wrote its file in the host's target, made under data_dir" test -f data/scratch/fio_testfile
is "$(q "SELECT count(*) FROM jobs WHERE name = '$(basename "$fio_atom" .yaml)'")" 1 "the atom is a job row, by its name"

# The monitors (jobs/monitors.h), taken on this machine around each run,
# stored with LKP's names beside fio's metrics.
like "$OUT" "^monitors: [0-9]{3} metrics stored" "kreg job run counts the monitors it stored"
mon() {  # the smallest sample of metric over the runs
	q "SELECT min(s.value) FROM samples s JOIN metrics m ON m.id = s.metric_id WHERE m.name = '$1'"
}
positive() {  # what metric
	local v; v=$(mon "$2")
	ok "$1: $2 = ${v:-none}" awk -v v="$v" 'BEGIN { exit !(v != "" && v + 0 > 0) }'
}
positive "fio faulted pages in" proc-vmstat.pgfault
positive "the local timer ticked" interrupts.LOC:Local_timer_interrupts
positive "the scheduler switched tasks" vmstat.system.cs
is "$(mon meminfo.MemTotal | cut -d. -f1)" "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" \
	"meminfo.MemTotal is this machine's"
ok "the snapshots are kept in the run's folder" grep -q '^KREG-MONITOR end ' "$run_dir/monitors.txt"
sed 's/^testcase:/monitors: false\ntestcase:/' "$fio_atom" > quiet.yaml
run_kreg job run quiet.yaml --host local
is "$RC" 0 "a job with monitors: false runs"
is "$(q "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name LIKE 'proc-vmstat.%'"):$(q "SELECT count(*)
	 FROM samples s JOIN metrics m ON m.id = s.metric_id WHERE s.run_id = (SELECT max(id) FROM runs)
	 AND m.name = 'fio.read_iops'")" "0:1" "with fio's metrics and no monitors"
ok "and no snapshots" test ! -e "$(q "SELECT output FROM runs ORDER BY id DESC LIMIT 1")/monitors.txt"

run_kreg job run "$dbench_atom" --host local
is "$RC" 0 "kreg job run dbench-quick exits 0"
[ "$RC" = 0 ] || printf '# %s\n' "$ERR"
is "$(q "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id WHERE m.name = 'dbench.throughput_MB/s' AND s.value > 0")" 1 \
	"a dbench.throughput_MB/s sample is stored"

# A job fio refuses (sg needs a SCSI device, not a directory): stored as
# job_failed, no samples, exit 1.
cat > bad-engine.yaml <<'YAML'
runtime: 2s
fio-setup-basic:
  ioengine: sg
  test_size: 1m
fio:
YAML
run_kreg job run bad-engine.yaml --host local
is "$RC" 1 "a failing job makes kreg job run exit 1"
like "$ERR" "job_failed: fio failed" "saying the job failed and why"
is "$(q "SELECT count(*) FROM runs WHERE status = 'job_failed'")" 1 "the run is stored as job_failed"
is "$(q "SELECT count(*) FROM samples WHERE run_id = (SELECT id FROM runs WHERE status = 'job_failed')")" 0 \
	"with no samples"

# Runs against a commit of a configured repo: the commit is recorded and the
# runs hang on it.
git init -q -b master src
git -C src -c user.name=A -c user.email=a@example.org commit -q --allow-empty -m first
git -C src -c user.name=A -c user.email=a@example.org commit -q --allow-empty -m second
cat > kreg.yaml <<YAML
data_dir: cdata
repos:
  - name: toy
    url: src
hosts:
  - name: here
    backend: local
    target: cdata/target
YAML
run_kreg -c kreg.yaml job run "$dbench_atom" --host here --repo toy --commit master~1
is "$RC" 0 "kreg job run --repo toy --commit master~1 exits 0"
[ "$RC" = 0 ] || printf '# %s\n' "$ERR"
is "$(sqlite3 cdata/kreg.db "SELECT c.sha FROM runs r JOIN commits c ON c.id = r.commit_id WHERE r.status = 'ok'")" \
	"$(git -C src rev-parse master~1)" "the run is stored against that commit"
run_kreg -c kreg.yaml job run "$dbench_atom" --host here --repo toy --commit nosuchrev
is "$RC" 1 "an unknown commit is refused"
like "$ERR" "nosuchrev" "naming it"

# A bisection's runs are stored as whole as kreg job run's (one code path):
# runs.output, the raw output and the atom as run.
printf 'bisect:\n  runs_per_step: 1\n' >> kreg.yaml
dbench_name=$(basename "$dbench_atom" .yaml)
run_kreg -c kreg.yaml bisect start --repo toy --good master~1 --bad master --job "$dbench_name" \
	--host here --metric 'dbench.throughput_MB/s' --no-run
is "$RC" 0 "a bisection on the local host is created"
run_kreg -c kreg.yaml bisect step 1
is "$RC" 0 "and its first step runs"
[ "$RC" = 0 ] || printf '# %s\n' "$ERR"
bdir=$(sqlite3 cdata/kreg.db "SELECT r.output FROM runs r JOIN bisect_steps s ON s.commit_id = r.commit_id ORDER BY r.id DESC LIMIT 1")
ok "the bisection's run has its folder in runs.output" test -d "$bdir"
ok "with the atom as run" test -s "$bdir/atom.yaml"
ok "and dbench's raw output" test -n "$(ls "$bdir" | grep -v atom.yaml)"
is "$(sqlite3 cdata/kreg.db "SELECT count(*) FROM runs WHERE kernel IS NULL OR kernel = ''")" 0 \
	"every run names the kernel it ran on"

# --keep-output failed: an OK run keeps its atom and its samples, not its
# raw output; --timeout bounds a run, which is then infra_failed.
run_kreg -c kreg.yaml job run "$dbench_atom" --host here --keep-output failed
is "$RC" 0 "kreg job run --keep-output failed exits 0"
kdir=$(sqlite3 cdata/kreg.db "SELECT output FROM runs ORDER BY id DESC LIMIT 1")
is "$(ls "$kdir")" "atom.yaml" "the OK run's folder keeps only the atom"
is "$(sqlite3 cdata/kreg.db "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id
	WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name = 'dbench.throughput_MB/s'")" 1 \
	"and its samples are stored"
run_kreg -c kreg.yaml job run "$dbench_atom" --host here --timeout 1s
is "$RC" 1 "a run past --timeout fails"
like "$ERR" "infra_failed: .*(timeout|timed out|did not finish)" "as infra_failed, saying it timed out"
ok "its raw output is kept" test -n "$(ls "$(sqlite3 cdata/kreg.db "SELECT output FROM runs ORDER BY id DESC LIMIT 1")" | grep -v atom.yaml)"

run_kreg job run "$fio_atom" --host nosuchhost
like "$ERR" "no host named 'nosuchhost'" "an unknown host is refused"
done_testing
