#!/bin/bash
# An infrastructure failure is retried on another host of the same backend
# when one is up and has the job: at once, as that host's next planned run.
# When none is, the item is retried on its own host after a backoff.
#   local: a host whose timeout is shorter than the fio job hangs; its run
#          is stored as infra_failed and made again, with real fio, on the
#          other local host.
#   sim:   every run of a host that always fails moves to its sibling,
#          each drawing a sample of its own there.
. "$KREG_SRC/tests/lib.sh"
command -v fio >/dev/null || skip_all "fio is not installed"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 18

ROOT=$(up_init)
cat > fio.yaml <<'YAML'
suite: fio-basic
testcase: fio-basic
runtime: 4s
nr_task: 1
fio-setup-basic:
  rw: randread
  bs: 4k
  ioengine: sync
  iodepth: 1
  direct: 0
  test_size: 4m
  time_based: 1
fio:
YAML
write_atom sim.yaml
SIMJOB="  - { file: sim.yaml, hosts: [simbad, simgood], runs: 2 }"
write_cfg() {
cat > kreg.yaml <<YAML
$(lab_yaml)
hosts:
  - { name: flaky, backend: local, target: $DATA_DIR/t-flaky, timeout: 1 }
  - { name: steady, backend: local, target: $DATA_DIR/t-steady }
  - name: simbad
    backend: sim
    seed: 1
    capacity: 2
    infra_fail_rate: 1
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 3% }
  - name: simgood
    backend: sim
    seed: 2
    capacity: 2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 3% }
jobs:
  - { file: fio.yaml, hosts: [flaky, steady], runs: 1 }
$SIMJOB
YAML
}
write_cfg
export KREG_CONFIG="$SCRATCH/kreg.yaml"
# runs of HOST with STATUS
runs_of() { sql "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.name = '$1' AND r.status = '$2'"; }

run_kreg daemon --once --foreground
is "$RC" 0 "daemon --once with a host that hangs"
is "$(runs_of flaky infra_failed)" 1 "the hanging host's run is stored as an infrastructure failure"
like "$(sql "SELECT r.error FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.name = 'flaky'")" "timed out" \
	"which says it timed out"
is "$(runs_of steady ok)" 2 "its run is made again on the other local host: two OK fio runs there"
ok "each with a fio.read_iops sample above zero" test \
	"$(sql "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id JOIN runs r ON r.id = s.run_id JOIN hosts h ON h.id = r.host_id WHERE h.name = 'steady' AND m.name = 'fio.read_iops' AND s.value > 0")" = 2
is "$(sql "SELECT w.state || ' ' || w.attempts || ' ' || w.seq FROM work w JOIN hosts h ON h.id = w.host_id JOIN runs r ON r.id = w.run_id WHERE h.name = 'steady' AND w.kind = 'run' AND w.attempts > 1")" \
	"done 2 1" "the moved item is steady's next planned run, done on its second attempt"
like "$(cat "$DATA_DIR"/logs/work-*.log)" "retried on host steady \\(the same backend\\)" \
	"the move is logged by the worker"
is "$(sql "SELECT count(*) FROM work w JOIN hosts h ON h.id = w.host_id WHERE h.name = 'flaky'")" 0 \
	"no item is left on the hanging host"

is "$(runs_of simbad infra_failed)" 2 "every run of the failing sim host failed once"
is "$(runs_of simgood ok)" 4 "and was made on its sibling: 4 OK runs there"
is "$(sql "SELECT count(DISTINCT s.value) FROM samples s JOIN runs r ON r.id = s.run_id JOIN hosts h ON h.id = r.host_id WHERE h.name = 'simgood' AND r.status = 'ok'")" \
	4 "each moved run drew a sample of its own (no planned run made twice)"
# (once or twice: its own runs may end before the moved ones come)
is "$(sql "SELECT count(*) FROM work WHERE kind = 'detect' AND key LIKE '%:4' AND host_id = (SELECT id FROM hosts WHERE name = 'simgood')")" \
	1 "the detector looks at the sibling's four runs of the head"
is "$(sql "SELECT count(*) FROM work WHERE state != 'done'")" 0 "every work item is done"

# No sibling up: the item stays on its host and waits out a backoff (the
# fio job only, now).
SIMJOB=
write_cfg
sql "UPDATE hosts SET state = 'down', probe_at = strftime('%s', 'now') + 3600 WHERE name = 'steady'"
HEAD=$(up_commit 1)
up_push
run_kreg daemon --once --foreground
is "$RC" 0 "daemon --once with the other local host down"
is "$(sql "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id JOIN commits c ON c.id = r.commit_id WHERE h.name = 'flaky' AND c.sha = '$HEAD' AND r.status = 'infra_failed'")" \
	2 "the item is retried on its own host, after a backoff"
is "$(sql "SELECT state FROM hosts WHERE name = 'flaky'")" down \
	"until the host is down (its third infrastructure failure in a row)"
is "$(sql "SELECT group_concat(h.name) FROM work w JOIN hosts h ON h.id = w.host_id JOIN commits c ON c.id = w.commit_id WHERE c.sha = '$HEAD' AND w.attempts > 1")" \
	flaky "nothing is moved to a host that is down"
no_sanitizer_in_logs "no sanitizer report"
done_testing
