#!/bin/bash
# A worker's children die with it. kill -9 of a worker while its fio runs
# on the local host: fio and the job processes it forked are gone within
# moments (each child kreg starts dies with its parent; the daemon kills
# what carries the dead worker's mark, KREG_WORK), and the retried run is
# stored OK alone. A daemon that starts kills what an earlier one's
# workers left; a run measured while such a process lives is not stored
# OK but retried. The mail item sends in the worker's own process: a
# worker killed in the middle of a send leaves no child behind, and no
# kreg process outlives the daemon. Real fio, real processes, a real SMTP
# server on loopback (python3-aiosmtpd; that part is skipped without it).
. "$KREG_SRC/tests/lib.sh"
command -v fio >/dev/null || skip_all "fio is not installed"
. "$KREG_SRC/tests/integration/mail-lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 22

strays=()
stop_all() {
	for p in "${strays[@]}"; do kill -9 "$p" 2>/dev/null; done
	smtp_stop
	_daemon_cleanup
}
trap stop_all EXIT

ROOT=$(up_init)
cat > fio.yaml <<'YAML'
suite: fio-basic
testcase: fio-basic
runtime: 20s
nr_task: 2
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
cat > kreg.yaml <<YAML
$(lab_yaml)
hosts:
  - name: here
    backend: local
    target: $DATA_DIR/target
    capacity: 1
jobs:
  - file: fio.yaml
    runs: 1
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

# A process's fields in /proc/PID/stat after its name: state first, its
# start time (in ticks since boot) 20th. Pids come round again soon here
# (pid_max 32768, and a suite forks fast): a process is known by its pid
# and its start time, not its pid alone.
proc_fields() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null; }
ident() {  # PIDS...: pid:start for each
	local p f
	for p in "$@"; do f=($(proc_fields "$p")); echo "$p:${f[19]:-gone}"; done
}
# marked MARK: the pids of the live processes whose environment holds
# KREG_WORK=MARK exactly (one grep over every environment, not a few
# processes for each of them)
marked() {
	local f p
	for f in $(grep -lzxF "KREG_WORK=$1" /proc/[0-9]*/environ 2>/dev/null); do
		p=${f#/proc/}; p=${p%/environ}
		[ "$(proc_fields "$p" | cut -d' ' -f1)" = Z ] && continue
		echo "$p"
	done
}
none_marked() { [ -z "$(marked "$1")" ]; }
gone() {  # PID:START or PID...: none of them lives (zombies are over)
	local id p f
	for id in "$@"; do
		p=${id%%:*}
		f=($(proc_fields "$p"))
		[ ${#f[@]} -gt 0 ] || continue
		[ "${f[0]}" = Z ] && continue
		[ "$id" != "$p" ] && [ "${f[19]}" != "${id#*:}" ] && continue
		return 1
	done
}
# on a failed wait: what the processes are doing, on stderr (shown
# whatever the harness's verbosity)
why_alive() {
	local id
	for id in "$@"; do ps -o pid=,ppid=,stat=,etime=,wchan:24=,args= -p "${id%%:*}" >&2; done
}
# the worker of the daemon running fio, and that fio
fio_worker() {
	local w f
	for w in $(pgrep -P "$DPID"); do
		f=$(pgrep -x -P "$w" fio | head -1)
		[ -n "$f" ] && { echo "$w $f"; return 0; }
	done
	return 1
}
ok_runs() { [ "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$1' AND r.status = 'ok'")" = "$2" ]; }

daemon_start
wait_for 60 "the daemon's worker runs fio on the first head" fio_worker
read -r W FIO <<<"$(fio_worker)"
sleep 1		# fio forks its job processes
KIDS=$(pgrep -P "$FIO" | tr '\n' ' ')
MARK=$(tr '\0' '\n' < "/proc/$FIO/environ" | sed -n 's/^KREG_WORK=//p')
FIO_ID=$(ident "$FIO")
KIDS_ID=$(ident $KIDS | tr '\n' ' ')
like "$MARK" "^[0-9]+ 1 [^ ]+:[0-9]+:[0-9]+ $DATA_DIR/kreg.db$" "fio carries its worker's mark: item, attempt, daemon, database"
ok "fio has forked its job processes ($KIDS)" test -n "$KIDS"
kill -KILL "$W"
# within 10 s, where fio had 20 s to run
wait_for 60 "kill -9 of the worker: its fio ends with it" gone "$FIO_ID" || why_alive "$FIO_ID"
wait_for 60 "and so do fio's job processes" gone $KIDS_ID || why_alive $KIDS_ID
wait_for 60 "no process carries the dead worker's mark" none_marked "$MARK" || why_alive $(marked "$MARK")
wait_for 120 "the item is retried and the head tested" idle_at "$ROOT"
is "$(sql "SELECT group_concat(status, ' ') FROM (SELECT status FROM runs ORDER BY id)")" "infra_failed ok" \
	"the killed run is infra_failed, the retried one OK"

# A process an earlier daemon's worker left: killed when a daemon starts.
daemon_stop
DB=${MARK##* }
KREG_WORK="99 1 gone-host:1:1 $DB" sleep 300 &
OLD=$!; strays+=("$OLD"); disown; OLD_ID=$(ident "$OLD")
KREG_WORK="99 1 gone-host:1:1 $SCRATCH/another/kreg.db" sleep 300 &
OTHER=$!; strays+=("$OTHER"); disown
GONE0=$(grep -c "the processes left by dead workers are gone" daemon.log)
daemon_start
wait_for 30 "a daemon that starts kills what an earlier daemon's worker left" gone "$OLD_ID"
like "$(cat daemon.log)" "killed 1 process left by dead workers \(pid $OLD\)" "and says so"
ok "not the processes of another database's daemon" kill -0 "$OTHER"

# One that appears while the daemon runs: the run measured beside it is
# not stored OK but retried, and it is killed. (The daemon looks for them
# until the last it killed is gone, and when a worker dies.)
seen_gone() { [ "$(grep -c "the processes left by dead workers are gone" daemon.log)" = $((GONE0 + 1)) ]; }
wait_for 30 "the daemon sees it gone (its second start's)" seen_gone
A=$(up_commit 1)
KREG_WORK="99 1 gone-host:1:1 $DB" sleep 300 &
LATE=$!; strays+=("$LATE"); disown; LATE_ID=$(ident "$LATE")
up_push
marked_run() { [ -n "$(sql "SELECT r.id FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$A' AND r.status != 'running'")" ]; }
wait_for 120 "a head pushed beside it is run" marked_run
like "$(sql "SELECT status || ': ' || error FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$A' AND r.status != 'running'")" \
	"^infra_failed: measured beside 1 process of a dead worker \(pid $LATE\)" "that run is not stored OK: infra_failed, with why"
ok "the process is gone" gone "$LATE_ID"
is "$(sql "SELECT state IN ('queued', 'running') FROM work WHERE kind = 'run' AND commit_id = (SELECT id FROM commits WHERE sha = '$A')")" 1 \
	"and the run is retried"
daemon_stop
DB_MARKED=$(grep -lz "^KREG_WORK=.* $DB\$" /proc/[0-9]*/environ 2>/dev/null)
is "$DB_MARKED" "" "no process of the daemon's workers outlives it"

# A worker killed while it sends a mail: the send is in its own process
# (no `kreg mail send` child), it ends with it, and no kreg process of
# this lab outlives the daemon. The server takes the message and then
# does not answer, so the worker is caught in its send.
KREG_EXE=$(readlink -f "$KREG")
kreg_procs() {  # the live kreg processes started for this lab
	local f p
	for f in /proc/[0-9]*/environ; do
		p=${f#/proc/}; p=${p%/environ}
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$KREG_EXE" ] || continue
		[ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" = Z ] && continue
		tr '\0' '\n' 2>/dev/null < "$f" | grep -qxF "KREG_CONFIG=$KREG_CONFIG" && echo "$p"
	done
}
if [ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null; then
	SMTP_PORT=$(smtp_free_port)
	smtp_start "$SCRATCH/smtp-stall" stall:60
	cat >> kreg.yaml <<YAML
mail:
  smtp_url: smtp://127.0.0.1:$SMTP_PORT
  from: "kreg robot <kreg@lab.example.org>"
  timeout: 60
YAML
	now=$(date +%s)
	sql "INSERT INTO outbox (mail_key, kind, message_id, recipients, subject, body, message, created)
		VALUES ('test:1', 'first', '<test-1@lab.example.org>', 'dev@example.org', 'test', 'body',
		'Subject: test' || char(13, 10, 13, 10) || 'body' || char(13, 10), $now)"
	sql "INSERT INTO work (kind, key, priority, created, updated) VALUES ('mail', 'mail:test', 10, $now, $now)"
	MID=$(sql "SELECT id FROM work WHERE key = 'mail:test'")
	daemon_start
	wait_for 60 "the mail item's worker is in its send (the server has the message)" \
		test -f "$SCRATCH/smtp-stall/1.eml"
	MW=$(pgrep -P "$DPID" -f " $MID --lease ")
	is "$(pgrep -P "${MW:-0}" | tr '\n' ' ')" "" "the mail worker ($MW) sends in its own process: no child"
	MW_ID=$(ident $MW)
	kill -KILL $MW
	wait_for 60 "kill -9 of the mail worker: its send ends with it" gone $MW_ID || why_alive $MW_ID
	daemon_stop
	smtp_stop
	is "$(kreg_procs | tr '\n' ' ')" "" "no kreg process of the lab outlives the daemon"
else
	for d in "the mail worker is in its send" "it sends in its own process" \
		"its send ends with it" "no kreg process outlives the daemon"; do
		echo "ok $((_tap_n += 1)) # SKIP no python3-aiosmtpd: $d"
	done
fi
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
