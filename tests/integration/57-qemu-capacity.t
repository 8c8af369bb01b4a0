#!/bin/bash
# A qemu host of capacity 2 under the daemon (issue 23, item 3): the two runs
# of the head it sees go to two guests at once, each in a slot of its own:
# its own test disk, its own CPU (pin: auto gives slot 0 the first CPU kreg
# may run on, slot 1 the second), seen from /proc/PID/status while both
# qemus run. The qemu guest's kernel (the backend's built-in config) is the
# one 51 puts in the suite's build cache (the same text, the same hash);
# without it, it is built here, in the shared object directories.
# suite: lane kernel-ssh
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"

command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64"
command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
command -v python3 >/dev/null || skip_all "no python3"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
# the two first CPUs this test (and so kreg) may run on
read -r CPU0 CPU1 < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0))[:2])')
[ -n "${CPU1:-}" ] || skip_all "one CPU: two pinned guests need two"
plan 17

D=$DATA_DIR
mkdir -p disks
cat > fio.yaml <<'YAML'
suite: fio-basic
testcase: fio-basic
category: benchmark
runtime: 8s
nr_task: 1
fio-setup-basic:
  rw: randrw
  bs: 4k
  ioengine: sync
  iodepth: 1
  direct: 1
  test_size: 32m
  time_based: 1
fio:
YAML
cat > kreg.yaml <<YAML
data_dir: $D
repos:
  - name: linux
    url: $KERNEL_GIT
    branches: [master]
    poll_interval: 1
build:
  make_jobs: 2
  timeout: 40m
  dir: $KERNEL_BUILD_DIR
hosts:
  - name: vm
    backend: qemu
    cpus: 1
    memory: 512M
    timeout: 5m
    kvm: auto
    disk: $SCRATCH/disks/vm.img
    disk_size: 128M
    capacity: 2
jobs:
  - file: fio.yaml
    runs: 2
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
mkdir -p "$D/repos" && git clone -q --mirror "$KERNEL_GIT" "$D/repos/linux.git"

# 1. What the configuration and the host say about the slots.
run_kreg config show
like "$OUT" "#   vm: capacity 2, pin auto: slot 0 on CPU $CPU0, slot 1 on CPU $CPU1" \
	"kreg config show: slot 0 on the first CPU, slot 1 on the second"
run_kreg host check vm
like "$OUT" "ok   guest slots      2 at once: slot 0 on CPU $CPU0, slot 1 on CPU $CPU1" \
	"kreg host check says the same"
like "$OUT" "ok   guest image      $D/images/kreg-initrd.cpio: not built yet" \
	"and that the guest image is to be built"
sed 's/capacity: 2/capacity: 200/' kreg.yaml > big.yaml
run_kreg config check "$SCRATCH/big.yaml"
ok "a capacity with more guests than CPUs is refused" test "$RC" != 0
like "$ERR" "host 'vm': capacity 200 with cpus 1 pins 200 CPUs, and kreg may run on" \
	"naming the host and what it lacks"

# 2. The daemon runs the head's two runs: every qemu of this test, with its
# CPUs, written down while it lives.
(
	while :; do
		now=$(date +%s.%N)
		for pid in $(pgrep -x qemu-system-x86); do
			tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$D/runs/" || continue
			echo "$now $pid $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)"
		done
		sleep 0.2
	done
) > qemus.seen 2>/dev/null &
WATCH=$!
two_ok() {
	[ "$(sql "SELECT count(*) FROM runs WHERE status = 'ok'")" -ge 2 ] &&
	[ "$(sql "SELECT count(*) FROM work WHERE state IN ('queued', 'running')")" = 0 ]
}
daemon_start
wait_for 2700 "the daemon runs the head it sees twice, OK" two_ok
daemon_stop
kill "$WATCH" 2>/dev/null; wait "$WATCH" 2>/dev/null
is "$DRC" 0 "it stops on SIGTERM"

# two qemus alive at one moment, and the CPUs each was allowed
at_once=$(awk '{ n[$1]++; p[$1] = p[$1] " " $2 } END { for (t in n) if (n[t] >= 2) { print t p[t]; exit } }' qemus.seen)
ok "two guests ran at once (seen together in /proc: ${at_once:-never})" test -n "$at_once"
cpus=$(awk '{ print $3 }' qemus.seen | sort -u | tr '\n' ' ')
is "$cpus" "$CPU0 $CPU1 " "each qemu ran pinned: only on CPU $CPU0 or only on CPU $CPU1 (Cpus_allowed_list)"
pair=$(awk -v t="${at_once%% *}" '$1 == t { print $3 }' qemus.seen | sort | tr '\n' ' ')
is "$pair" "$(printf '%s\n' "$CPU0" "$CPU1" | sort | tr '\n' ' ')" "the two at once on different CPUs"

# the runs' rows: they overlap in time, each in its own slot with its own disk
read -r s1 f1 s2 f2 < <(sql "SELECT group_concat(started || ' ' || finished, ' ') FROM
	(SELECT started, finished FROM runs WHERE status = 'ok' ORDER BY id LIMIT 2)")
ok "the first two runs' rows overlap in time ($s1-$f1, $s2-$f2)" \
	test "$s1" -lt "$f2" -a "$s2" -lt "$f1"
slots=$(for o in $(sql "SELECT output FROM runs WHERE status = 'ok' ORDER BY id LIMIT 2"); do
	sed -n 's/^slot //p' "$o/slot"; done | sort | tr '\n' ' ')
is "$slots" "0 1 " "they took slots 0 and 1 (the runs' slot files)"
ok "slot 0 wrote the host's disk, slot 1 its own (disk.slot1)" \
	test -s disks/vm.img -a -s disks/vm.img.slot1
ok "the daemon's log names each guest's slot and CPU" \
	grep -q "guest slot 1 on CPU $CPU1" "$D"/logs/work-*.log
progs=$(for o in $(sql "SELECT output FROM runs WHERE status = 'ok' ORDER BY id LIMIT 2"); do
	grep -o 'file=[^ ]*progs,format=raw,if=none,id=progs,readonly=on' "$o/qemu.cmdline"; done | sort -u)
is "$progs" "file=$D/images/kreg-initrd.progs,format=raw,if=none,id=progs,readonly=on" \
	"both guests booted with the one programs' disk, read-only"
run_kreg host check vm
like "$OUT" "ok   programs disk    $D/images/kreg-initrd.progs \\([0-9.]+ MB\\), read-only" \
	"kreg host check names the programs' disk and its size"
no_sanitizer_in_logs "no sanitizer report"
done_testing
