#!/bin/bash
# `kreg host check` against a real ssh server: OpenSSH's sshd on 127.0.0.1
# with its own host key and authorized keys, standing for a lab machine
# (this machine: no kernel is booted here, and the host has an
# install_command of /bin/false so nothing could be). Each check's line,
# the first contact recording the host key, a key that changed, a key the
# server refuses, a target that is mounted or missing, a machine not there.
. "$KREG_SRC/tests/lib.sh"

[ -z "${KREG_SKIP_SSH_TESTS:-}" ] || skip_all "KREG_SKIP_SSH_TESTS is set"
[ -x /usr/sbin/sshd ] || skip_all "no /usr/sbin/sshd (openssh-server)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip_all "no ssh (openssh-client)"
[ "$(id -u)" = 0 ] || skip_all "sshd's privilege separation needs root"
plan 25

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ssh-keygen -q -t ed25519 -N '' -C kreg-test -f id
ssh-keygen -q -t ed25519 -N '' -C other -f other
ssh-keygen -q -t ed25519 -N '' -f hostkey1
ssh-keygen -q -t ed25519 -N '' -f hostkey2
cp id.pub authorized_keys
PORT=$(port)
SSHD_PID=
sshd_start() {  # host key file
	[ -d /run/sshd ] || mkdir -p -m 0755 /run/sshd
	/usr/sbin/sshd -D -e -f /dev/null -o Port="$PORT" -o ListenAddress=127.0.0.1 \
		-o HostKey="$SCRATCH/$1" -o AuthorizedKeysFile="$SCRATCH/authorized_keys" \
		-o PidFile="$SCRATCH/sshd.pid" -o StrictModes=no -o UsePAM=no \
		-o PermitRootLogin=prohibit-password >>sshd.log 2>&1 &
	SSHD_PID=$!
	for i in $(seq 50); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
sshd_stop() {
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null && wait "$SSHD_PID" 2>/dev/null
	SSHD_PID=
}
trap 'sshd_stop; _cleanup' EXIT

truncate -s 64M target.img
printf '#!/bin/sh\nexit 0\n' > cycle && chmod +x cycle
host() {  # name identity target [address]
	cat <<YAML
  - name: $1
    backend: ssh
    address: ${4:-127.0.0.1:$PORT}
    identity: $SCRATCH/$2
    good_kernel: "$(uname -r)"
    target: $3
    work_dir: $SCRATCH/box
    install_command: [/bin/false]
    power_cycle: [$SCRATCH/cycle]
    reboot_timeout: 10s
YAML
}
root_dev=$(awk '$2 == "/" { print $1 }' /proc/mounts)
cat > kreg.yaml <<YAML
data_dir: $SCRATCH/data
hosts:
$(host lab1 id "$SCRATCH/target.img")
$(host stranger other "$SCRATCH/target.img")
$(host nodisk id "$SCRATCH/no-such-disk")
$(host busy id "$root_dev")
$(host gone id "$SCRATCH/target.img" "127.0.0.1:$(port)")
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
ok "sshd starts on 127.0.0.1:$PORT" sshd_start hostkey1

run_kreg host check lab1
is "$RC" 0 "kreg host check lab1 exits 0"; [ "$RC" = 0 ] && no_sanitizer_report "without a sanitizer report" ||
	echo "$OUT$ERR" | sed 's/^/# /'
like "$OUT" "^ok +reachable +root@127\.0\.0\.1 port $PORT answers" "reachable"
like "$OUT" "^ok +host key +recorded in $SCRATCH/data/ssh/known_hosts" "the first contact records the host key"
like "$OUT" "^ok +key accepted +logged in as root with $SCRATCH/id" "kreg's key is accepted"
like "$OUT" "^ok +kernel +$(uname -r)" "the running kernel is the good_kernel"
like "$OUT" '^ok +install_command +/bin/false' "the install_command is there (instead of kexec)"
like "$OUT" "^ok +target +$SCRATCH/target.img: a file" "the target is there"
like "$OUT" '^ok +fio +' "fio"
like "$OUT" '^ok +space +[0-9]+ MiB free' "space"
like "$OUT" "^ok +power_cycle +$SCRATCH/cycle" "the power_cycle command is found here"
is "$(echo "$OUT" | wc -l)" 10 "one line per check"
ok "the key is in the known_hosts kreg keeps" grep -q "^\[127.0.0.1\]:$PORT ssh-ed25519 " data/ssh/known_hosts
ok "no shared connection is left behind" bash -c "! ls data/ssh | grep -qv known_hosts"
run_kreg host check lab1
like "$OUT" "^ok +host key +matches $SCRATCH/data/ssh/known_hosts" "the second time, the key matches"

run_kreg host check stranger
is "$RC" 1 "a key the server refuses: exit 1"
like "$OUT" "^FAIL key accepted +host 'stranger' \(root@127\.0\.0\.1\) refused kreg's key $SCRATCH/other" \
	"says the key was refused"
run_kreg host check nodisk
like "$OUT" "^FAIL target +$SCRATCH/no-such-disk: no such file or device" "a target that is not there fails"
if [ -b "$root_dev" ]; then
	run_kreg host check busy
	like "$OUT" "^FAIL target +$root_dev is mounted" "a target that is mounted fails ($root_dev)"
else
	ok "# skip: / is not on a block device here" true
fi
run_kreg host check gone
is "$RC" 1 "a machine that is not there: exit 1"
like "$OUT" "^FAIL reachable +host 'gone' \(root@127\.0\.0\.1\) unreachable: .*[Cc]onnection refused" "says it is unreachable"

# The machine's host key changes: an error, never a prompt.
sshd_stop
ok "sshd starts again with another host key" sshd_start hostkey2
run_kreg host check lab1
is "$RC" 1 "kreg host check exits 1"
like "$OUT" "^FAIL host key +host 'lab1' \(root@127\.0\.0\.1\): its ssh host key changed: it is not the key in $SCRATCH/data/ssh/known_hosts; nothing was run" \
	"says the host key changed, naming kreg's known_hosts"
