#!/bin/bash
# kreg ended by SIGTERM or SIGINT (Ctrl-C) ends its children's process
# groups too (issue 13 item 14): a child leads a group of its own (make,
# qemu, fio), which would otherwise go on under init. Real kreg, real fio.
# Its children have 10 s to end once signalled: make check runs it by
# itself (tests/run-suite.sh), not beside another test.
# suite: alone
. "$KREG_SRC/tests/lib.sh"
export KREG_DATA_DIR="$SCRATCH/data"
command -v fio >/dev/null || skip_all "fio is not installed"
plan 6
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
	_cleanup
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

done_testing
