#!/bin/bash
# kreg ended by SIGTERM or SIGINT (Ctrl-C) ends its children's process
# groups too (issue 13 item 14): a child leads a group of its own (make,
# qemu, fio), which would otherwise go on under init. Real kreg, real fio.
# The daemon reloads its configuration on SIGHUP, again and again: it keeps
# the file's path as its own (a reload once freed it with the configuration
# it came from, and the workers were started with `-c <garbage>`).
# Its children have 10 s to end once signalled: make check runs it by
# itself (tests/run-suite.sh), not beside another test.
# suite: alone
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
export KREG_DATA_DIR="$SCRATCH/data"
command -v fio >/dev/null || skip_all "fio is not installed"
plan 14
set -m	# background jobs keep SIGINT (a non-interactive shell ignores it in them)

cat > slow.yaml <<'YAML'
runtime: 120s
fio-setup-basic:
  rw: read
  test_size: 1m
  time_based: 1
fio:
YAML

left=()
stop_all() {
	for p in "${left[@]}"; do kill -9 -- -"$p" "$p" 2>/dev/null; done
	_daemon_cleanup
}
trap stop_all EXIT

# child_of PID: the pid of its child, once there is one (30 s at most)
child_of() {
	local c
	for _ in $(seq 300); do
		c=$(pgrep -P "$1" | head -1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

gone() {  # PID: within 10 s
	for _ in $(seq 100); do
		kill -0 "$1" 2>/dev/null || return 0
		[ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ] && return 0
		sleep 0.1
	done
	return 1
}

for sig in TERM INT; do
	"$KREG" job run slow.yaml --host local >run-$sig.out 2>&1 &
	kreg_pid=$!
	fio_pid=$(child_of $kreg_pid)
	left+=("$fio_pid")
	ok "SIG$sig: kreg job run has started fio ($fio_pid)" test -n "$fio_pid"
	kill -$sig $kreg_pid
	wait $kreg_pid 2>/dev/null
	ok "SIG$sig: kreg has ended" gone $kreg_pid
	ok "SIG$sig: and fio with it" gone "$fio_pid"
done

# SIGHUP twice in a row: each reload names the real file, and the daemon
# and its workers (started with -c and that path) go on working.
DATA_DIR="$SCRATCH/ddata"
unset KREG_DATA_DIR
ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(sim_lab_yaml 5 2 2% 2)
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
reloads() { [ "$(grep -c "configuration reloaded from" daemon.log)" = "$1" ]; }
tested() { [ "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$1' AND r.status = 'ok'")" = "$2" ]; }
daemon_start
wait_for 60 "a daemon tests the first head" idle_at "$ROOT"
kill -HUP "$DPID"
wait_for 30 "SIGHUP: the configuration is reloaded" reloads 1
kill -HUP "$DPID"
wait_for 30 "a second SIGHUP: reloaded again" reloads 2
is "$(grep -o 'configuration reloaded from .*' daemon.log | sort -u)" \
	"configuration reloaded from $SCRATCH/kreg.yaml" "the log names the real file, both times"
A=$(up_commit 1); up_push
wait_for 60 "after two reloads, a new head is tested (its two runs OK)" tested "$A" 2
wait_for 60 "and the daemon goes idle" idle_at "$A"
is "$(sql "SELECT count(*) FROM runs WHERE status != 'ok'") $(sql "SELECT count(*) FROM work WHERE state = 'failed'")" \
	"0 0" "no run and no work item failed"
daemon_stop
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
