#!/bin/bash
# The qemu host end to end: Debian's linux 6.1 committed into a git
# repository, built with the shipped config, booted in qemu, a short fio
# random read run, its samples in the database; then each failure class
# (a job that fails, a guest that hangs, a kernel that panics, a commit that
# does not build, a config option that does not survive) recorded as such,
# and the host usable after each. One clean kernel build, the rest
# incremental or cached.
# suite: lane kernel-qemu
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"

command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64"
command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
plan 95
# This test is of the build itself: it only adds to the suite's shared cache
# of built kernels (kernel/build.c, $KREG_BUILD_CACHE), never takes from it.
export KREG_BUILD_CACHE_MODE=fill

D="$SCRATCH/data"
mkdir -p disks
host() {  # name timeout
	cat <<YAML
  - name: $1
    backend: qemu
    cpus: 1
    memory: 1G
    timeout: $2
    kvm: auto
    disk: $SCRATCH/disks/$1.img
    disk_size: 256M
YAML
}
cat > kreg.yaml <<YAML
data_dir: $D
repos:
  - name: linux
    url: $KERNEL_GIT
build:
  make_jobs: 2
  timeout: 40m
  # the suite's checkout and object directories (5x-kernel.sh): the first
  # build is clean on a fresh clone and leaves its objects to 58
  dir: $KERNEL_BUILD_DIR
  configs:
    - name: qemu
      base: tinyconfig
      fragments:
        - $KREG_SRC/config/kernel/qemu-guest.config
        - $KREG_SRC/config/kernel/fio-dbench.config
        - $KREG_SRC/config/kernel/ext4.config
        - $KREG_SRC/config/kernel/f2fs.config
        - $KREG_SRC/config/kernel/monitors.config
        - $KREG_SRC/config/kernel/test-devices.config
    - name: bad
      base: tinyconfig
      fragments:
        - $KREG_SRC/config/kernel/qemu-guest.config
        - $SCRATCH/bad.config
hosts:
$(host vm1 5m)
$(host vm2 5m)
$(host vmshort 60s)
  - name: noqemu
    backend: qemu
    qemu: false
    disk: $SCRATCH/disks/noqemu.img
YAML
printf 'CONFIG_KREG_NO_SUCH_OPTION=y\n' > bad.config
export KREG_CONFIG="$SCRATCH/kreg.yaml"

atom() {  # name rw ioengine runtime
	cat > "$1.yaml" <<YAML
suite: fio-basic
testcase: fio-basic
category: benchmark
runtime: $4
nr_task: 1
fs: ext4
fio-setup-basic:
  rw: $2
  bs: 4k
  ioengine: $3
  iodepth: 1
  test_size: 16m
  time_based: 1
  testfile: y
fio:
YAML
}
atom randread randread sync 3s
# sg: an engine kreg accepts and fio refuses at run time on a regular file
atom fails randread sg 3s
atom hangs randread sync 600s
# the same with the perf-stat and perf-profile monitors (LKP's keys: perf
# in the guest image, and for perf-profile the kernel's System.map)
{ printf 'perf-stat:\nperf-profile:\n'; cat randread.yaml; } > perfstat.yaml

# The mirror kreg keeps of the repo, made here by a local clone (hard links)
# rather than a fetch of 1.3 GB of objects.
mkdir -p "$D/repos" && git clone -q --mirror "$KERNEL_GIT" "$D/repos/linux.git"
q() { sqlite3 "$D/kreg.db" "$@"; }
last_run() { q "SELECT status FROM runs ORDER BY id DESC LIMIT 1"; }
last_error() { q "SELECT error FROM runs ORDER BY id DESC LIMIT 1"; }
last_out() { q "SELECT output FROM runs ORDER BY id DESC LIMIT 1"; }

# 1. Build the first commit: a clean build.
run_kreg build --repo linux --commit master
is "$RC" 0 "kreg build of linux 6.1 exits 0"; [ "$RC" = 0 ] || echo "$ERR" | tail -20 | sed 's/^/# /'
art=$OUT
like "$art" "^$D/artifacts/[0-9a-f]{40}-[0-9a-f]{16}\$" "it prints the artifact directory (tree-confighash)"
ok "the artifact holds bzImage" test -s "$art/bzImage"
ok "and the .config" grep -q '^CONFIG_VIRTIO_BLK=y' "$art/.config"
ok "with every fragment option (io_uring, AIO, ext4)" \
	grep -q '^CONFIG_IO_URING=y' "$art/.config"
ok "and the build log" grep -q 'bzImage is ready' "$art/build.log"
# A guest's kernel: nothing for a machine on a network (ssh-box.config is
# the ssh backend's), so no modules to pack either.
ok "and nothing a qemu guest does not use: no network, kexec or modules" \
	bash -c "! grep -qE '^CONFIG_(NET|KEXEC|MODULES)=y' '$art/.config'"
ok "so no modules.tar" test ! -e "$art/modules.tar"
is "$(q "SELECT status || ' ' || config_name FROM builds")" "ok qemu" "the builds table records it"
is "$(q "SELECT tree FROM builds")" "$(git -C "$KERNEL_GIT" rev-parse master^{tree})" \
	"keyed by the commit's tree"
log_sum=$(sha256sum "$art/build.log")
# An incremental build compiles a few files, not the kernel: 58 (a lane of
# its own, tests/run-suite.sh) builds the demo's series in the same object
# directory between 51's builds, so the files its commits change (block,
# mm, ext4: about 20) may be compiled again here too.
compiled() { grep -cE '^  (CC|AS) ' "$1"; }
few() { [ "$(compiled "$1")" -lt 200 ]; }	# of about 1,100

# 2. The same again: the cache answers, nothing is built.
run_kreg build --repo linux --commit master
is "$RC" 0 "a second kreg build exits 0"
is "$OUT" "$art" "with the same artifact"
is "$(q "SELECT count(*) FROM builds")" 1 "and no new build row"
is "$(sha256sum "$art/build.log")" "$log_sum" "and the artifact untouched"

# 2b. Two processes want the same new kernel at once: it is built once.
"$KREG" build --repo linux --commit block >b1.out 2>b1.err &
p1=$!
"$KREG" build --repo linux --commit block >b2.out 2>b2.err &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
is "$rc1 $rc2" "0 0" "two concurrent kreg build of a new commit both succeed"
is "$(cat b1.out)" "$(cat b2.out)" "with the same artifact"
btree=$(git -C "$KERNEL_GIT" rev-parse block^{tree})
is "$(q "SELECT count(*) FROM builds WHERE tree = '$btree'")" 1 "built once (one row)"
is "$(grep -c '^kreg: building' "$(cat b1.out)/build.log")" 1 "by one process (one build in the log)"
ok "incrementally: block/blk-core.c compiled" grep -q 'CC      block/blk-core.o' "$(cat b1.out)/build.log"
ok "and not the rest: $(compiled "$(cat b1.out)/build.log") objects" few "$(cat b1.out)/build.log"
ok "the config was not made again (no Kconfig change)" grep -q 'no Kconfig change' "$(cat b1.out)/build.log"

# 3. The guest image.
run_kreg image build
is "$RC" 0 "kreg image build exits 0"
img=$OUT
ok "the image exists" test -s "$img"

# 4. fio random read in the guest, with perf stat; samples in the database.
run_kreg job run perfstat.yaml --host vm1 --repo linux --commit master
is "$RC" 0 "kreg job run on the qemu host exits 0"; [ "$RC" = 0 ] || echo "$ERR" | tail -5 | sed 's/^/# /'
is "$(last_run)" ok "the run is recorded ok"
iops=$(q "SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE m.name = 'fio.read_iops' ORDER BY s.run_id DESC LIMIT 1")
like "$iops" '^[0-9.]+$' "its fio.read_iops sample is in the database ($iops)"
ok "and is above zero" awk -v v="$iops" 'BEGIN { exit !(v > 0) }'
is "$(q "SELECT b.artifact FROM runs r JOIN builds b ON b.id = r.build_id ORDER BY r.id DESC LIMIT 1")" \
	"$art" "the run names the build it booted"
out=$(last_out)
ok "the serial console is kept in the run's directory" grep -q 'KREG-GUEST: init' "$out/console.log"
ok "the raw fio output too" grep -q '"jobs"' "$out/fio.json"
ok "the guest booted kreg's kernel" grep -q 'Linux version 6.1' "$out/console.log"
is "$(stat -c %s disks/vm1.img)" $((256 * 1024 * 1024)) "the test disk was made with the configured size"
ok "the per-run initramfs is removed" test ! -e "$out/initrd.cpio"
# The monitors (jobs/monitors.h), taken in the guest around fio, stored with
# LKP's names beside fio's metrics: each with a value a 3 s random read of
# the virtio disk vda gives.
ok "the guest's snapshots are kept in the run's directory" grep -q '^KREG-PROC diskstats' "$out/monitors.txt"
monitor_within "the guest read the test disk in 4 KiB pieces" iostat.vda.r/s 100 1e9
monitor_within "keeping it busy" iostat.vda.util 1 100
monitor_within "its page cache took pages in" proc-vmstat.pgpgin 1 1e12
monitor_within "page faults were counted" proc-vmstat.pgfault 100 1e12
monitor_within "the timer ticked" interrupts.LOC:Local_timer_interrupts 10 1e9
monitor_within "the timer softirq ran" softirqs.TIMER 10 1e9
monitor_within "context switches per second" vmstat.system.cs 10 1e8
monitor_within "the guest's memory is about 1 GiB" meminfo.MemTotal 500000 1100000
monitor_within "CPU shares add up" mpstat.cpu.all.idle% 0 100
monitor_within "the scheduler's statistics: run queue time" schedstat.cpu.rq_cpu_time 1 1e15
# perf-stat (LKP's perf-stat.ps.* and .i.*): perf stat -a in the guest, one
# CPU under TCG, so software events only, task-clock about 1000 ms a second
# (ps: LKP's sum of the ended intervals over the whole time, under 1000)
ok "the guest booted the image with perf" test -s "${img%.cpio}-perf.cpio"
monitor_within "perf stat counted context switches per second" perf-stat.ps.context-switches 1 1e8
monitor_within "and the CPU's time: task-clock ms per second" perf-stat.ps.task-clock 250 1100
monitor_within "each second of it about 1000 ms of its one CPU" perf-stat.i.task-clock 500 1100
is "$(q "SELECT count(*) FROM metrics WHERE name LIKE 'perf-stat.%cpu-cycles'")" 0 \
	"no sample of a hardware event the TCG guest does not have"
# perf-profile (LKP's perf-profile.self/children/calltrace.<event>.*):
# perf record -a -g -e cpu-clock in the guest, perf report with the
# System.map kept beside the kernel (the guest's kernel has no kallsyms)
ok "the build keeps the kernel's System.map" grep -q ' T start_kernel$' "$art/System.map"
prof() { q "SELECT m.name || ' ' || s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name LIKE 'perf-profile.$1.%'
	 ORDER BY s.value DESC"; }
top=$(prof self | head -1)
sym=${top#perf-profile.self.cpu-clock.}
sym=${sym%% *}
like "$top" '^perf-profile\.self\.cpu-clock\.[A-Za-z_][A-Za-z0-9_.]* [0-9.]+$' \
	"perf-profile names the CPU's top function by its share: $top"
ok "a function of the guest's kernel ($sym)" grep -q " [TtWw] $sym\$" "$art/System.map"
ok "the children's shares: the idle loop's or the syscalls' callers" \
	sh -c "printf '%s\n' \"\$1\" | grep -Eq '^perf-profile\.children\.cpu-clock\.(do_idle|do_syscall_64|entry_SYSCALL_64_after_hwframe) '" \
	- "$(prof children)"
ok "call chains, root first, five functions at most" \
	sh -c "printf '%s\n' \"\$1\" | grep -Eq '^perf-profile\.calltrace\.cpu-clock\.[^ .]+(\.[^ .]+){0,4} '" \
	- "$(prof calltrace)"
is "$(q "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name LIKE 'perf-profile.%'
	 AND (s.value < 0.05 OR s.value > 100)")" 0 "every share within 0.05..100 %"
is "$(q "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name LIKE 'proc-vmstat.%'")" \
	"$(awk '/^KREG-/ { p = $1 == "KREG-PROC" && $2 == "vmstat" && !seen++; next } p' "$out/monitors.txt" | grep -c .)" \
	"every line of the guest's /proc/vmstat is a proc-vmstat sample"

# 4b. dbench, from the shipped job file (no file system named: ext4).
run_kreg job run "$KREG_SRC/jobs/dbench-quick.yaml" --host vm1 --repo linux --commit master
is "$RC" 0 "dbench runs in the guest"; [ "$RC" = 0 ] || echo "$ERR" | tail -3 | sed 's/^/# /'
tput=$(q "SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE m.name = 'dbench.throughput_MB/s' ORDER BY s.run_id DESC LIMIT 1")
ok "its dbench.throughput_MB/s is stored ($tput)" awk -v v="$tput" 'BEGIN { exit !(v > 0) }'

# 4c. LKP's disk: 1BRD_<size>: a brd RAM disk in the guest (built in, its
# size on the kernel command line), the host's test disk and page cache out
# of the loop: fio reads /dev/ram0 and the disk image is not even attached.
{ echo 'disk: 1BRD_128M'; sed -e '/^fs: ext4$/d' -e 's/^  test_size: 16m$/  test_size: 32m\n  direct: 1/' \
	randread.yaml; } > brd.yaml
img_was=$(stat -c '%Y %s' disks/vm1.img)
run_kreg job run brd.yaml --host vm1 --repo linux --commit master
is "$(last_run)" ok "a job on a brd RAM disk runs in the guest"; [ "$RC" = 0 ] || echo "$ERR" | tail -4 | sed 's/^/# /'
out=$(last_out)
ok "the guest's kernel was asked for one RAM disk of 128 MiB" \
	grep -q '^\[ *[0-9.]*\] Command line: .* brd\.rd_nr=1 brd\.rd_size=131072' "$out/console.log"
ok "and made it" grep -q 'brd: module loaded' "$out/console.log"
ok "fio read /dev/ram0" grep -q '"filename" : "/dev/ram0"' "$out/fio.json"
ok "the host's test disk was not attached (the programs' disk only)" \
	bash -c "! grep -q -- '-drive file=$SCRATCH/disks/vm1.img' '$out/qemu.cmdline'"
ok "and the guest found the programs' disk in its place" \
	grep -q 'EXT4-fs (vda): mounting ext2 file system' "$out/console.log"
is "$(stat -c '%Y %s' disks/vm1.img)" "$img_was" "and its image is untouched"
is "$(q "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name = 'fio.read_iops' AND s.value > 0")" 1 \
	"its read IOPS are stored"
# A RAM disk the guest's memory cannot hold: said before anything boots.
sed 's/^disk: 1BRD_128M$/disk: 1BRD_1G/' brd.yaml > brdbig.yaml
run_kreg job run brdbig.yaml --host vm1 --repo linux --commit master
like "$(last_error)" "the job's disk 1BRD_1G is a RAM disk of 1024 MiB in the guest, and the guest's memory is 1024 MiB \\(memory:\\)" \
	"a RAM disk larger than the guest's memory is refused, naming both"

# 5. A job that fails.
run_kreg job run fails.yaml --host vm1 --repo linux --commit master
is "$RC" 1 "a failing job exits 1"
is "$(last_run)" job_failed "and is recorded as job_failed"
like "$(last_error)" "fio exited with status [1-9]" "with the program's status"

# 6. A guest that hangs past its timeout. Its fio keeps a core busy until
# then, so the timeout is short, and still its boot has room to reach the
# job: the guest ran /init 6.3 and 13.1 s after it started (console.log's
# `Run /init` line, both vmshort runs of a 51 at load 5), and 60 s is 4.5
# times the slower.
run_kreg job run hangs.yaml --host vmshort --repo linux --commit master
is "$RC" 1 "a hung guest exits 1"
is "$(last_run)" infra_failed "and is recorded as infra_failed"
like "$(last_error)" "timed out after [0-9]+ s .*hung in the job" "saying it timed out in the job"
# (this scratch directory's disk only: other runs of this test may be going on)
ok "no qemu is left behind" bash -c "! pgrep -f '$SCRATCH/disks/[v]mshort.img' >/dev/null"
# (a whole run, boot to power-off, in any time a loaded machine takes)
run_kreg job run randread.yaml --host vmshort --repo linux --commit master --timeout 5m
is "$(last_run)" ok "the same host runs the next job"

# 6b. qemu that will not start; its job asks for perf-profile, of a kernel
# built before kreg kept System.map (it is moved away, then back)
mv "$art/System.map" "$art/System.map.kept"
run_kreg job run perfstat.yaml --host noqemu --repo linux --commit master
mv "$art/System.map.kept" "$art/System.map"
is "$(last_run)" infra_failed "qemu that will not start is infra_failed"
like "$(last_error)" "qemu would not start" "and says so"
like "$ERR" "no perf-profile for this run: the kernel's artifact $art has no System\\.map" \
	"a kernel without its System.map: no perf-profile, and the log says why"

# 7. A kernel that panics at boot: built incrementally from the same tree.
run_kreg job run randread.yaml --host vm1 --repo linux --commit panic
is "$RC" 1 "a kernel that panics exits 1"
is "$(last_run)" kernel_failed "and is recorded as kernel_failed"
like "$(last_error)" "Kernel panic - not syncing: kreg test: panic at boot" "naming the panic"
plog=$(q "SELECT artifact FROM builds ORDER BY id DESC LIMIT 1")/build.log
ok "the panic commit's build compiled init/main.c" grep -q 'CC      init/main.o' "$plog"
ok "and not the rest of the kernel: $(compiled "$plog") objects" few "$plog"

# 8. Two qemu hosts side by side, after the panic: both usable.
"$KREG" job run randread.yaml --host vm1 --repo linux --commit master >r1.out 2>r1.err &
p1=$!
"$KREG" job run randread.yaml --host vm2 --repo linux --commit master >r2.out 2>r2.err &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
is "$rc1 $rc2" "0 0" "two qemu hosts run side by side"
is "$(q "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id
	 WHERE r.status = 'ok' AND h.name IN ('vm1', 'vm2') AND r.id > (SELECT max(id) - 2 FROM runs)")" 2 \
	"both runs are recorded ok"

# 9. A commit that does not build: a recorded failure with its log.
run_kreg build --repo linux --commit broken
is "$RC" 1 "a commit that does not compile exits 1"
like "$ERR" "kreg_test_does_not_compile|blk-core" "naming the error"
is "$(q "SELECT status FROM builds ORDER BY id DESC LIMIT 1")" failed "the builds table says failed"
like "$(q "SELECT log_tail FROM builds ORDER BY id DESC LIMIT 1")" "Error|error" "with the log's tail"
run_kreg build --repo linux --commit broken
like "$ERR" "cached result" "the failure is cached, not rebuilt"
# A run on it says why in one line: the first error and where the log is.
run_kreg job run randread.yaml --host vm1 --repo linux --commit broken
is "$RC" 1 "a run on a commit that does not build exits 1"
like "$ERR" "does not build: make bzImage failed \\([^)]*\\): .*kreg_test_does_not_compile.* \\(build log: $D/artifacts/[^ ]+/build\\.log\\)" \
	"naming its first error and its build log"
is "$(printf '%s\n' "$ERR" | grep -c 'does not build')" 1 "on one line, not the log's tail"

# 10. A fragment option olddefconfig drops is named.
run_kreg build --repo linux --commit master --config bad
is "$RC" 1 "a config losing a fragment option fails the build"
like "$ERR" "CONFIG_KREG_NO_SUCH_OPTION=y \\(now: not set\\)" "naming the option"
done_testing
