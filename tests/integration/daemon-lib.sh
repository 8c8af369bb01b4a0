# Shared by the 8x-daemon tests: an upstream git repository the test pushes
# to, a kreg.yaml with sim hosts, a daemon started in the background and
# always stopped, and bounded waits.
#
#   up_init                 upstream repo $UP with a root commit on main; work goes
#                           on in branch "dev", main moves only by up_push
#   up_commit N [TRAILER]   one commit "commit N" on dev (trailer in its body); prints its sha
#   lab_yaml [DATA_DIR]     kreg.yaml's head: data_dir ($DATA_DIR) and repo "src" ($UP's
#                           main, polled each second); hosts and jobs follow it
#   sim_lab_yaml SEED CAPACITY NOISE RUNS [HOSTS]
#                           lab_yaml, one sim host "simhost" (seed, capacity,
#                           fio.read_iops at 10000 with that noise), then the
#                           hosts of HOSTS (YAML list items), and job.yaml
#                           with RUNS runs a commit; more keys may follow it
#   up_push                 main := dev, all the new commits in one push
#   daemon_start [ARGS]     kreg daemon --foreground in the background ($DPID)
#   daemon_stop             SIGTERM, wait (bounded); $DRC is its exit status
#   wait_for SECONDS DESC CMD...   retry CMD each 0.2 s; fail the test when it never holds
#   idle_at SHA             the branch head is SHA and nothing is queued or running
#   bisected_at SHA         bisection 1 found its culprit, idle_at SHA
#   culprit_of ID           the sha of the culprit bisection ID found
#   tested_heads ROOT N     the daemon tests ROOT (its first head), then N heads
#                           pushed one by one ("commit 1".."commit N"): a history
#                           for the detector's window; 1 + N tests

UP="$SCRATCH/up"
DATA_DIR="$SCRATCH/data"
DPID=
DRC=

up_init() {
	git init -q -b main "$UP"
	git -C "$UP" config user.name "Test Author"
	git -C "$UP" config user.email "test@example.org"
	echo root > "$UP/f"
	git -C "$UP" add f
	git -C "$UP" commit -q -m root
	git -C "$UP" checkout -q -b dev
	git -C "$UP" rev-parse HEAD
}

up_push() {
	git -C "$UP" update-ref refs/heads/main "$(git -C "$UP" rev-parse dev)"
}

up_commit() {
	local msg="commit $1"
	[ -n "${2:-}" ] && msg="$msg

$2"
	echo "$1" >> "$UP/f"
	git -C "$UP" commit -q -a -m "$msg"
	git -C "$UP" rev-parse HEAD
}

lab_yaml() {
	cat <<YAML
data_dir: ${1:-$DATA_DIR}
repos:
  - name: src
    url: $UP
    branches: [main]
    poll_interval: 1
YAML
}

sim_lab_yaml() {
	lab_yaml
	cat <<YAML
hosts:
  - name: simhost
    backend: sim
    seed: $1
    capacity: $2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: $3 }
${5:-}
jobs:
  - file: job.yaml
    runs: $4
YAML
}

sql() { sqlite3 -cmd ".timeout 10000" "$DATA_DIR/kreg.db" "$1"; }

daemon_start() {
	"$KREG" daemon --foreground "$@" >>"$SCRATCH/daemon.log" 2>&1 &
	DPID=$!
}

daemon_stop() {
	local i
	DRC=
	[ -n "$DPID" ] || return 0
	kill -TERM "$DPID" 2>/dev/null
	for i in $(seq 1 300); do
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$DPID" 2>/dev/null; then
		kill -KILL "$DPID" 2>/dev/null
		echo "# the daemon did not stop in 30 s: killed"
	fi
	wait "$DPID" 2>/dev/null
	DRC=$?
	DPID=
}

_daemon_cleanup() {
	[ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null
	_cleanup
}
trap _daemon_cleanup EXIT

wait_for() {
	local secs=$1 desc=$2 i
	shift 2
	for i in $(seq 1 $((secs * 5))); do
		"$@" >/dev/null 2>&1 && { _report 0 "$desc"; return 0; }
		if [ -n "$DPID" ] && ! kill -0 "$DPID" 2>/dev/null; then
			echo "# the daemon is gone"
			break
		fi
		sleep 0.2
	done
	_report 1 "$desc (not within $secs s)"
	tail -20 "$SCRATCH/daemon.log" | sed 's/^/#   log: /'
	return 1
}

idle_at() {
	[ "$(sql "SELECT head FROM branches WHERE name = 'main'")" = "$1" ] &&
	[ "$(sql "SELECT count(*) FROM work WHERE state IN ('queued', 'running')")" = 0 ]
}

bisected_at() {
	[ "$(sql "SELECT state FROM bisections WHERE id = 1")" = found ] && idle_at "$1"
}

culprit_of() {
	sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id WHERE b.id = $1"
}

tested_heads() {
	local root=$1 n=$2 i sha
	wait_for 300 "the daemon tests the first head it sees" idle_at "$root"
	for i in $(seq 1 "$n"); do
		sha=$(up_commit "$i")
		up_push
		wait_for 300 "head $i pushed: tested" idle_at "$sha"
	done
}

# sanitizer reports of the daemon and of every worker
no_sanitizer_in_logs() {
	ERR=$(cat "$SCRATCH/daemon.log" "$DATA_DIR"/logs/*.log 2>/dev/null)
	no_sanitizer_report "$1"
}

# write_atom FILE: a one-atom fio job (the sim host only names it)
write_atom() {
	printf 'suite: fio-basic\ntestcase: fio-basic\nruntime: 2s\nfio-setup-basic:\n  rw: randread\n  bs: 4k\n  test_size: 16m\nfio:\n' > "$1"
}
