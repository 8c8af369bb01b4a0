# A real LAVA on loopback for the LAVA tests: Debian 12's lava-server and
# lava-dispatcher (2023.01), each part started by this script, nothing of the
# system's (no systemd unit, no /etc file written, postgres's own cluster not
# used).
#
#   . "$KREG_SRC/tests/integration/lava-lib.sh"
#   lava_available || skip_all "$LAVA_WHY"
#   lava_start || bail            # ends with the test (lava_stop at exit)
#   $LAVA_URL          http://127.0.0.1:PORT/ : lava-server's web and REST API
#   $LAVA_TOKEN_FILE   the API token of user kreg (a superuser)
#   $LAVA_DEVICES      its two devices, qemu-01 and qemu-02 (device type qemu,
#                      no KVM), on the one worker: two jobs run at once
#   lava_submit FILE   submits a job definition with curl and the token
#                      (POST /api/v0.2/jobs/), prints the job id
#   lava_wait ID SECS  waits for the job to finish, prints its health
#   lava_api PATH      GET of the REST API with the token, prints the body
#
# What is made once and kept under build/lava/ (a lock: one maker at a
# time): a postgres cluster of its own (initdb, run as the postgres user,
# fsync off) with LAVA's tables migrated, the user and its token, a worker,
# the qemu devices and their dictionaries (no_kvm: TCG). Each lava_start then
# starts that cluster on a free loopback port, lava-server's gunicorn on
# another, lava-scheduler and lava-worker, and waits for the devices to be
# Idle. The parts are told where to find their state through the
# environment (DATABASE_URL, LAVA_YAML_SETTINGS_*), so a LAVA the system
# runs is left alone. docs/hosts.md gives the times (install, first
# set-up, start).

LAVA_STATE=${LAVA_STATE:-$KREG_SRC/build/lava}
LAVA_DEVICES="qemu-01 qemu-02"
LAVA_WORKER=kreg-worker
LAVA_PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
_LAVA_PIDS=""

lava_available() {
	LAVA_WHY=""
	if ! command -v lava-server >/dev/null || ! command -v lava-worker >/dev/null; then
		LAVA_WHY="lava-server and lava-dispatcher are not installed (apt-get install lava-server lava-dispatcher)"
	elif [ -z "$LAVA_PG_BIN" ] || [ ! -x "$LAVA_PG_BIN/initdb" ]; then
		LAVA_WHY="no postgresql server (initdb)"
	elif ! id postgres >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
		LAVA_WHY="the LAVA set-up runs as root (its postgres cluster as user postgres)"
	elif ! command -v qemu-system-x86_64 >/dev/null || ! command -v curl >/dev/null; then
		LAVA_WHY="no qemu-system-x86_64 or curl"
	fi
	[ -z "$LAVA_WHY" ]
}

_lava_port() {
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The environment every part of the server runs in.
_lava_env() {
	export DATABASE_URL="postgres://lava@127.0.0.1:$LAVA_PG_PORT/lavaserver"
	export SECRET_KEY="kreg-test-lava-$(cat "$LAVA_STATE/secret")"
	export ALLOWED_HOSTS="127.0.0.1,localhost"
	export LAVA_YAML_SETTINGS_MEDIA_ROOT="$LAVA_STATE/media/"
	export LAVA_YAML_SETTINGS_DEVICES_PATH="$LAVA_STATE/devices"
	export LAVA_YAML_SETTINGS_HEALTH_CHECKS_PATH="$LAVA_STATE/health-checks"
	export LAVA_YAML_SETTINGS_DISPATCHER_CONFIG_PATH="$LAVA_STATE/dispatcher.d"
	export LAVA_YAML_SETTINGS_DJANGO_LOGFILE="$LAVA_STATE/log/django.log"
}

_lava_manage() {
	( _lava_env; cd "$LAVA_STATE" && lava-server manage "$@" ) >>"$LAVA_STATE/log/manage.log" 2>&1
}

_lava_pg_start() {
	LAVA_PG_PORT=$(_lava_port)
	# (from /: the postgres user may not enter the test's directory)
	(cd / && runuser -u postgres -- "$LAVA_PG_BIN/pg_ctl" -D "$LAVA_STATE/pg" -w -t 60 \
		-l "$LAVA_STATE/log/postgres.log" \
		-o "-p $LAVA_PG_PORT -k $LAVA_STATE/pg-sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
		start) >/dev/null
}

_lava_pg_stop() {
	[ -f "$LAVA_STATE/pg/postmaster.pid" ] &&
		(cd / && runuser -u postgres -- "$LAVA_PG_BIN/pg_ctl" -D "$LAVA_STATE/pg" -m fast -w stop) \
			>/dev/null 2>&1
	return 0
}

# The state made once: the cluster migrated, user, token, worker, device.
_lava_make() {
	local secret

	rm -rf "$LAVA_STATE/pg" "$LAVA_STATE/pg-sock" "$LAVA_STATE/ready" "$LAVA_STATE/devices" &&
	mkdir -p "$LAVA_STATE"/{log,media,devices,health-checks,dispatcher.d,pg-sock,worker} &&
	head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$LAVA_STATE/secret" &&
	touch "$LAVA_STATE/log/postgres.log" &&
	chown postgres "$LAVA_STATE/pg-sock" "$LAVA_STATE/log/postgres.log" &&
	install -d -o postgres -m 700 "$LAVA_STATE/pg" &&
	(cd / && runuser -u postgres -- "$LAVA_PG_BIN/initdb" -D "$LAVA_STATE/pg" -A trust -U lava \
		--no-sync) >"$LAVA_STATE/log/initdb.log" 2>&1 || return 1
	_lava_pg_start || return 1
	"$LAVA_PG_BIN/createdb" -h 127.0.0.1 -p "$LAVA_PG_PORT" -U lava lavaserver &&
	_lava_manage migrate --noinput &&
	_lava_manage users add kreg --superuser --staff --passwd kreg-test &&
	secret=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n') &&
	_lava_manage tokens add --user kreg --secret "$secret" &&
	printf '%s\n' "$secret" >"$LAVA_STATE/token" &&
	( _lava_env; cd "$LAVA_STATE" && lava-server manage workers add "$LAVA_WORKER" ) \
		>"$LAVA_STATE/worker.out" 2>>"$LAVA_STATE/log/manage.log" &&
	sed -n 's/^Token: //p' "$LAVA_STATE/worker.out" >"$LAVA_STATE/worker-token" &&
	test -s "$LAVA_STATE/worker-token" &&
	_lava_manage device-types add qemu &&
	_lava_devices || { _lava_pg_stop; return 1; }
	_lava_pg_stop
	touch "$LAVA_STATE/ready"
}

# The devices the state lacks (a state made when there was one), added:
# the server's postgres running.
_lava_devices() {
	local d
	for d in $LAVA_DEVICES; do
		[ -f "$LAVA_STATE/devices/$d.jinja2" ] && continue
		printf '%s\n' "{% extends 'qemu.jinja2' %}" "{% set no_kvm = True %}" \
			"{% set netdevice = 'user' %}" "{% set memory = 1024 %}" \
			>"$LAVA_STATE/devices/$d.jinja2" &&
		_lava_manage devices add --device-type qemu --worker "$LAVA_WORKER" "$d" &&
		_lava_manage devices update --health GOOD "$d" ||
			{ rm -f "$LAVA_STATE/devices/$d.jinja2"; return 1; }
	done
}

_lava_bg() {  # NAME COMMAND...: a part started in the background
	local name=$1
	shift
	( _lava_env; cd "$LAVA_STATE" && exec setsid "$@" ) \
		>>"$LAVA_STATE/log/$name.out" 2>&1 </dev/null &
	_LAVA_PIDS="$_LAVA_PIDS $!"
	disown $!
}

lava_start() {
	local i state d

	mkdir -p "$LAVA_STATE"
	exec 8>"$LAVA_STATE.lock"
	flock 8
	if [ ! -f "$LAVA_STATE/ready" ]; then
		echo "# lava: making the server's state in $LAVA_STATE (once)"
		_lava_make || { echo "# lava: set-up failed: see $LAVA_STATE/log/"; flock -u 8; return 1; }
	fi
	_lava_pg_start || { echo "# lava: postgres would not start: $LAVA_STATE/log/postgres.log"; return 1; }
	_lava_devices || { echo "# lava: cannot add the devices: see $LAVA_STATE/log/manage.log"; return 1; }
	trap 'lava_stop; _cleanup' EXIT
	LAVA_PORT=$(_lava_port)
	LAVA_URL="http://127.0.0.1:$LAVA_PORT/"
	LAVA_TOKEN_FILE="$LAVA_STATE/token"
	# gunicorn as lava-server's unit runs it, on a loopback port.
	_lava_bg gunicorn gunicorn3 lava_server.wsgi --bind "127.0.0.1:$LAVA_PORT" --workers 2 \
		--worker-class eventlet --timeout 120 --log-level warning
	# the scheduler looks every 2 s rather than 20 (no publisher here to wake it)
	_lava_bg scheduler /usr/bin/python3 -c '
import importlib, os, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lava_server.settings.prod")
import django
django.setup()
m = importlib.import_module("lava_server.management.commands.lava-scheduler")
m.INTERVAL = 2
from django.core.management import call_command
call_command(m.Command(), "--level", "INFO", "--log-file", sys.argv[1], "--event-url", "tcp://127.0.0.1:1")
' "$LAVA_STATE/log/scheduler.log"
	for i in $(seq 1 120); do
		curl -sf -o /dev/null "${LAVA_URL}api/v0.2/system/version/" && break
		sleep 0.5
	done
	_lava_bg worker lava-worker --name "$LAVA_WORKER" --url "$LAVA_URL" \
		--token-file "$LAVA_STATE/worker-token" --worker-dir "$LAVA_STATE/worker" \
		--ping-interval 1 --job-log-interval 1 --level INFO --log-file "$LAVA_STATE/log/worker.log"
	for i in $(seq 1 120); do
		state=$(lava_api "devices/?limit=100" | /usr/bin/python3 -c \
			'import json, sys; print(" ".join(sorted(d["hostname"] + ":" + d["state"] + "/" + d["health"] for d in json.load(sys.stdin)["results"])))' 2>/dev/null)
		[ "$state" = "$(printf '%s:Idle/Good ' $LAVA_DEVICES | sed 's/ $//')" ] && return 0
		# a device whose last job was killed with the test that ran it
		# comes back of Unknown health: the lab is ours, it is good
		for d in $state; do
			case "$d" in
			*:Idle/Unknown | *:Idle/Bad) _lava_manage devices update --health GOOD "${d%%:*}" ;;
			esac
		done
		sleep 0.5
	done
	echo "# lava: devices $LAVA_DEVICES not Idle and Good after 60 s ($state): see $LAVA_STATE/log/"
	return 1
}

lava_stop() {
	local p i alive

	for p in $_LAVA_PIDS; do
		kill -TERM -- "-$p" 2>/dev/null
	done
	for i in $(seq 1 20); do
		alive=0
		for p in $_LAVA_PIDS; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ $alive = 0 ] && break
		sleep 0.2
	done
	for p in $_LAVA_PIDS; do
		kill -KILL -- "-$p" 2>/dev/null
	done
	_LAVA_PIDS=""
	_lava_pg_stop
	flock -u 8 2>/dev/null
}

lava_api() {
	curl -sS -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL}api/v0.2/$1"
}

lava_submit() {
	/usr/bin/python3 -c 'import json, sys; print(json.dumps({"definition": open(sys.argv[1]).read()}))' "$1" |
		curl -sS -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" -H 'Content-Type: application/json' \
			--data-binary @- "${LAVA_URL}api/v0.2/jobs/" |
		/usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["job_ids"][0])'
}

lava_wait() {
	local id=$1 secs=$2 i out

	for i in $(seq 1 $((secs * 2))); do
		out=$(lava_api "jobs/$id/" | /usr/bin/python3 -c \
			'import json, sys; d = json.load(sys.stdin); print(d["state"], d["health"])' 2>/dev/null)
		case "$out" in Finished*) echo "${out#Finished }"; return 0 ;; esac
		sleep 0.5
	done
	echo "timeout ($out)"
	return 1
}
