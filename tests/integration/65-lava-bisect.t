#!/bin/bash
# The daemon bisects a real kernel regression through a LAVA lab (issue 27):
# the same daemon, detector and bisection as through the qemu host, every
# run a LAVA job on a real LAVA on loopback (lava-lib.sh) booting a real
# kernel under TCG, with the test disk kreg gives the qemu device
# (disk_size: a blank image served beside the kernel, the guest's vda).
#
# The regression is the demo's: kblockd's delayed work waits at least one
# tick (5x-kernel.sh's branch fxmark-kblockd), read IOPS about -96% on the
# demo's fio job (4k O_DIRECT on the raw test disk). The series is made of
# the fixture's two trees only: commits whose tree is master's boot the
# base kernel 51-kernel built, commits with fxmark-kblockd's tree one
# kernel built incrementally in the suite's build.dir (or found in the
# build cache): the test builds at most that one kernel.
# suite: lane kernel-qemu
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/lava-lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"
lava_available || skip_all "$LAVA_WHY"
command -v sqlite3 >/dev/null || skip_all "no sqlite3"
command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
plan 13

# The upstream: the fixture's base, then five commits (no checkout: the
# trees are the fixture's own). Fixed dates: the same shas every run.
git clone -q --shared --bare "$KERNEL_GIT" "$UP"
T0=$(git -C "$UP" rev-parse "master^{tree}")
T1=$(git -C "$UP" rev-parse "fxmark-kblockd^{tree}")
ROOT=$(git -C "$UP" rev-parse master)
commit() {  # tree parent subject
	GIT_AUTHOR_NAME="Ada Lindqvist" GIT_AUTHOR_EMAIL="ada@example.org" \
	GIT_COMMITTER_NAME="Ada Lindqvist" GIT_COMMITTER_EMAIL="ada@example.org" \
	GIT_AUTHOR_DATE="2026-01-02T00:00:00Z" GIT_COMMITTER_DATE="2026-01-02T00:00:00Z" \
		git -C "$UP" commit-tree "$1" -p "$2" -m "$3"
}
git -C "$UP" update-ref refs/heads/main "$ROOT"
C1=$(commit "$T0" "$ROOT" "block: document when blk_queue_enter() may sleep")
C2=$(commit "$T0" "$C1" "blk-mq: note the ordering rules of blk_mq_run_hw_queue()")
CULPRIT=$(commit "$T1" "$C2" "block: avoid a zero-delay kblockd_mod_delayed_work_on()")
C4=$(commit "$T1" "$CULPRIT" "blk-mq: sched: explain the dispatch budget loop")
HEAD=$(commit "$T1" "$C4" "block: sysfs: list the values nomerges accepts")

mkdir serve
HTTP_PORT=$(_lava_port)
(cd serve && exec /usr/bin/python3 -m http.server -b 127.0.0.1 "$HTTP_PORT") >http.log 2>&1 &
HTTP_PID=$!
lava_start || { kill $HTTP_PID; echo "Bail out! the LAVA set-up failed"; exit 1; }
trap '[ -n "$DPID" ] && kill -KILL "$DPID"; kill $HTTP_PID; lava_stop; _cleanup' EXIT

# The demo's fio job, 3 s a run as the demo runs it.
sed 's/^runtime: .*/runtime: 3s/' "$KREG_SRC/jobs/fio-blk-4k.yaml" > fio.yaml
# The repository is named linux, as in every kernel test: build.dir's
# checkout and object directories are per repository name.
cat > kreg.yaml <<YAML
data_dir: $DATA_DIR
repos:
  - name: linux
    url: $UP
    branches: [main]
    poll_interval: 1
build:
  make_jobs: 2
  timeout: 60m
  dir: $KERNEL_BUILD_DIR
hosts:
  - name: lab
    backend: lava
    url: $LAVA_URL
    token_file: $LAVA_TOKEN_FILE
    device_type: qemu
    serve_dir: $SCRATCH/serve
    serve_url: http://127.0.0.1:$HTTP_PORT/
    disk_size: 80M
    timeout: 5m
    capacity: 2
jobs:
  - file: $SCRATCH/fio.yaml
# A lab that pays for each run in LAVA jobs has its detector call a change
# at a rank test's 1% rather than the default 0.01%, its first head's
# baseline made at once (6 runs), and a commit's runs capped at 6: a change
# this large needs no more.
detect:
  confirm: 0.01
  baseline_runs: 6
  max_runs: 6
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
# The daemon's mirror, made as git makes a local clone (its objects are
# the fixture's, by alternates): kreg's own first fetch would copy the
# 1.5 GB of objects through a pack.
mkdir -p "$DATA_DIR/repos" && git clone -q --mirror "$UP" "$DATA_DIR/repos/linux.git"
run_kreg config check
is "$RC" 0 "the lab's configuration is accepted (a LAVA host with a test disk)"
[ "$RC" = 0 ] || echo "$OUT $ERR" | sed 's/^/# /'

runs_ok() { sql "SELECT count(*) FROM runs WHERE status = 'ok'"; }
daemon_start
wait_for 900 "the daemon tests the base it sees first, through LAVA" idle_at "$ROOT"
git -C "$UP" update-ref refs/heads/main "$HEAD"
found() { [ "$(sql "SELECT state FROM bisections WHERE id = 1")" = found ] && idle_at "$HEAD"; }
wait_for 2400 "the pushed head's regression is confirmed and bisected through LAVA" found
daemon_stop
is "$(culprit_of 1)" "$CULPRIT" "to the kblockd commit"
# (a guest under TCG on a loaded machine panics at boot at times, "IO-APIC
# + timer doesn't work": a kernel_failed run the daemon runs again)
is "$(sql "SELECT count(*) FROM runs WHERE status = 'infra_failed'")" 0 "no run an infra failure"
N=$(sql "SELECT count(*) FROM runs")
echo "# $N runs, each a LAVA job, $(runs_ok) ok"
is "$(sql "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id WHERE h.name = 'lab'")" "$N" \
	"all on the LAVA host"
like "$(cat "$DATA_DIR"/logs/*.log)" "LAVA job [0-9]+ submitted to $LAVA_URL \\(qemu, " \
	"the workers' logs name the LAVA jobs"
drop=$(sql "SELECT printf('%.0f', 100.0 * (b.v - g.v) / g.v) FROM
	(SELECT avg(s.value) v FROM samples s JOIN metrics m ON m.id = s.metric_id JOIN runs r ON r.id = s.run_id
	 JOIN commits c ON c.id = r.commit_id WHERE m.name = 'fio.read_iops' AND c.sha = '$C2') g,
	(SELECT avg(s.value) v FROM samples s JOIN metrics m ON m.id = s.metric_id JOIN runs r ON r.id = s.run_id
	 JOIN commits c ON c.id = r.commit_id WHERE m.name = 'fio.read_iops' AND c.sha = '$CULPRIT') b")
echo "# read IOPS, culprit against its parent: $drop%"
ok "the culprit's read IOPS fell by more than half against its parent's ($drop%)" test "${drop:-0}" -lt -50
run=$(ls -d "$DATA_DIR"/runs/* | sort -t/ -k3 -n | tail -1)
ok "the job LAVA ran had the test disk" grep -q '"-drive format=raw,if=virtio,file={disk}"' "$run/lava-job.yaml"
ok "and fio read the guest's vda" grep -q '/dev/vda' "$run/console.log"
is "$(sql "SELECT count(DISTINCT b.id) FROM builds b WHERE b.status = 'ok'")" 2 \
	"two kernels in all: the base's tree and the regression's"
is "$(ls serve)" "" "what was served for the jobs is gone"
no_sanitizer_in_logs "no sanitizer report in the daemon's logs"
echo "# LAVA jobs: $(lava_api "jobs/?limit=1" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["count"])' 2>/dev/null) on this server so far"
done_testing
