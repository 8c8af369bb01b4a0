#!/bin/bash
# backend: lava against a real LAVA on loopback (lava-lib.sh: lava-server,
# lava-scheduler, lava-worker, two qemu devices under TCG): kreg host check;
# a fio run as a LAVA job, its samples stored as any host's; a job that ran
# and failed is a result; a bad token, an unknown device type, a server
# that is down, a kernel LAVA cannot fetch and a job no device takes are
# infra failures naming what. (65-lava-bisect: the daemon through it.)
#
# No kernel is built here: the kernel is $KREG_LAVA_KERNEL, else the qemu
# guest's kernel of the kernel fixture's base the suite's build cache holds
# (51-kernel's: this test runs after it, in its lane), else this machine's
# /boot/vmlinuz-*; it is put in a build cache of the test's own as the
# kernel of the test repository's commit, so kreg's usual path (the build use case, then the host) boots
# it. One LAVA start for every check.
# suite: lane kernel-qemu
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/lava-lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"
lava_available || skip_all "$LAVA_WHY"
command -v sqlite3 >/dev/null || skip_all "no sqlite3"

# the test repository: one commit, its kernel the one below
git init -q -b master repo
echo one > repo/a
git -C repo add a
GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
	git -C repo -c user.name=t -c user.email=t@example.org commit -qm one

# The commit's kernel goes in the test's own build cache: the entry's name
# is the tree and the config's hash, read from a build that fails at once.
printf 'data_dir: %s\nrepos:\n  - name: linux\n    url: %s\n' "$SCRATCH/probe" "$SCRATCH/repo" \
	> probe.yaml
KREG_CONFIG="$SCRATCH/probe.yaml" KREG_BUILD_CACHE= "$KREG" build --repo linux --commit master --config qemu \
	>/dev/null 2>&1
entry=$(sqlite3 "$SCRATCH/probe/kreg.db" "SELECT tree || '-' || config_hash FROM builds")
[ -n "$entry" ] || skip_all "no build to read the qemu config's hash from"

# The kernel: the one asked for, else the kernel fixture's base built with
# the qemu config (51-kernel's, in the suite's build cache: not the panic
# or the block-layer kernels it builds after it), else this machine's.
kernel=${KREG_LAVA_KERNEL:-}
if [ -z "$kernel" ] && [ -n "${KREG_BUILD_CACHE:-}" ] &&
   base=$(git -C "$KERNEL_GIT" rev-parse -q --verify 'master^{tree}' 2>/dev/null) &&
   [ "$(cat "$KREG_BUILD_CACHE/$base-${entry#*-}/status" 2>/dev/null)" = ok ]; then
	kernel=$KREG_BUILD_CACHE/$base-${entry#*-}/bzImage
fi
[ -n "$kernel" ] || kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[ -n "$kernel" ] && [ -f "$kernel" ] ||
	skip_all "no kernel to boot: set KREG_LAVA_KERNEL, run 51-kernel first or install linux-image-amd64"
plan 28

mkdir serve
HTTP_PORT=$(_lava_port)
(cd serve && exec /usr/bin/python3 -m http.server -b 127.0.0.1 "$HTTP_PORT") >http.log 2>&1 &
HTTP_PID=$!
echo bad-token-0123 > bad-token
DOWN_PORT=$(_lava_port)

lava_start || { kill $HTTP_PID; echo "Bail out! the LAVA set-up failed"; exit 1; }
# LAVA ends before the scratch directory
trap 'lava_stop; _cleanup' EXIT
host() {  # name device_type token_file url [extra line]
	cat <<YAML
  - name: $1
    backend: lava
    url: $4
    token_file: $3
    device_type: $2
    serve_dir: $SCRATCH/serve
    serve_url: http://127.0.0.1:$HTTP_PORT/
    timeout: 4m
    submit_timeout: ${5:-10m}
YAML
}
cat > kreg.yaml <<YAML
data_dir: $SCRATCH/data
repos:
  - name: linux
    url: $SCRATCH/repo
hosts:
$(host lab qemu "$LAVA_TOKEN_FILE" "$LAVA_URL")
$(host badtoken qemu "$SCRATCH/bad-token" "$LAVA_URL")
$(host nosuchtype nosuch "$LAVA_TOKEN_FILE" "$LAVA_URL")
$(host down qemu "$LAVA_TOKEN_FILE" "http://127.0.0.1:$DOWN_PORT/")
$(host waits qemu "$LAVA_TOKEN_FILE" "$LAVA_URL" 4s)
$(host nofile qemu "$LAVA_TOKEN_FILE" "$LAVA_URL" | sed "s|serve_url: .*|serve_url: http://127.0.0.1:$HTTP_PORT/nosuch/|")
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

export KREG_BUILD_CACHE="$SCRATCH/cache"
mkdir -p "$KREG_BUILD_CACHE/$entry" && cp "$kernel" "$KREG_BUILD_CACHE/$entry/bzImage" &&
	echo ok > "$KREG_BUILD_CACHE/$entry/status"
echo "# kernel: $kernel"

run_kreg host check lab
is "$RC" 0 "kreg host check passes on the LAVA host"; [ "$RC" = 0 ] || echo "# $OUT $ERR"
like "$OUT" "ok +server +$LAVA_URL answers: LAVA 2023" "the server answers with its version"
like "$OUT" "ok +token +.*: user kreg" "the token is kreg's user's"
like "$OUT" "ok +devices +2 of 2 qemu devices Good: (qemu-0[12] [A-Za-z]+/Good(, )?){2}$" "its qemu devices are Good"

cat > fio.yaml <<'YAML'
suite: fio-basic
testcase: fio-basic
runtime: 1s
nr_task: 1
fio-setup-basic:
  rw: randread
  bs: 4k
  ioengine: sync
  iodepth: 1
  test_size: 8m
  time_based: 1
fio:
YAML
sed 's/ioengine: sync/ioengine: sg/' fio.yaml > fails.yaml

run_kreg job plan fio.yaml --host lab
like "$OUT" "target: /tmp" "the job runs on the guest's /tmp (kreg job plan)"
run_kreg job run fio.yaml --host lab --repo linux --commit master
is "$RC" 0 "a fio run through a LAVA job succeeds"; [ "$RC" = 0 ] || echo "# $OUT $ERR"
like "$OUT" "runs: 1 of 1 ok" "one run, ok"
like "$ERR" "LAVA job [0-9]+ submitted to $LAVA_URL" "kreg says which LAVA job it submitted"
id=$(printf '%s\n' "$ERR" | sed -n 's/.*LAVA job \([0-9]*\) submitted.*/\1/p' | tail -1)
like "$(lava_api "jobs/$id/")" '"state":"Finished","health":"Complete"' "LAVA has the job Complete"
is "$(sqlite3 data/kreg.db "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" ok "the run is stored ok"
n=$(sqlite3 data/kreg.db "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id
	WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name = 'fio.read_iops' AND s.value > 0")
is "$n" 1 "with fio's read_iops from the guest's output"
run=$(ls -d data/runs/* | sort -t/ -k3 -n | tail -1)
ok "the definition kreg submitted is kept beside the run" grep -q '"device_type": "qemu"' "$run/lava-job.yaml"
ok "and the job's log and console" grep -q "KREG-OUTPUT-END" "$run/console.log"
is "$(ls serve)" "" "the kernel and initramfs served for the job are gone"

run_kreg job run fails.yaml --host lab --repo linux --commit master
is "$RC" 1 "a job whose program fails in the guest fails"
like "$ERR" "job_failed: fio exited with status" "as a result of the job (job_failed), not of LAVA"

run_kreg job run fio.yaml --host nofile --repo linux --commit master
like "$ERR" "infra_failed: LAVA job [0-9]+, nothing booted: Job error: .*Resource unavailable at 'http://127.0.0.1:$HTTP_PORT/nosuch/kreg-nofile-.*/bzImage' \\(404\\)" \
	"a kernel LAVA cannot fetch is an infra failure, not the kernel's"

run_kreg host check badtoken
is "$RC" 1 "kreg host check fails with a bad token"
like "$OUT" "FAIL token .*refused the token in $SCRATCH/bad-token" "naming the token file"
run_kreg job run fio.yaml --host badtoken --repo linux --commit master
like "$ERR" "infra_failed: LAVA server $LAVA_URL refused the token in $SCRATCH/bad-token" \
	"a run with it is an infra failure saying so"

run_kreg host check nosuchtype
like "$OUT" "FAIL device type .*has no device type 'nosuch'" "an unknown device type is named"
run_kreg job run fio.yaml --host nosuchtype --repo linux --commit master
like "$ERR" "infra_failed: .*nosuch" "a run asking for it is an infra failure: LAVA's answer names it"

run_kreg host check down
like "$OUT" "FAIL server +LAVA server http://127.0.0.1:$DOWN_PORT/: no answer \\(curl: \\(7\\)" \
	"a server that is down: no answer, with curl's reason"
run_kreg job run fio.yaml --host down --repo linux --commit master
like "$ERR" "infra_failed: LAVA server http://127.0.0.1:$DOWN_PORT/: no answer" "a run on it is an infra failure"

# a job no device takes: the devices are in maintenance
for d in $LAVA_DEVICES; do _lava_manage devices update --health MAINTENANCE "$d"; done
run_kreg job run fio.yaml --host waits --repo linux --commit master
like "$ERR" "infra_failed: LAVA job [0-9]+ was still Submitted after [0-9]+ s \\(submit_timeout\\): no qemu device took it; canceled" \
	"a job still Submitted past submit_timeout is canceled: an infra failure"
id=$(printf '%s\n' "$ERR" | sed -n 's/.*LAVA job \([0-9]*\) submitted.*/\1/p' | tail -1)
for i in $(seq 1 20); do
	job=$(lava_api "jobs/$id/")
	case "$job" in *'"health":"Canceled"'*) break ;; esac
	sleep 0.5
done
like "$job" '"state":"Finished","health":"Canceled"' "LAVA has it canceled"
for d in $LAVA_DEVICES; do _lava_manage devices update --health GOOD "$d"; done
is "$(sqlite3 data/kreg.db "SELECT count(*) FROM runs WHERE status = 'infra_failed'")" 5 \
	"each infra failure is one run row, stored once"

kill $HTTP_PID
no_sanitizer_report "no sanitizer report"
done_testing
