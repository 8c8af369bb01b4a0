#!/bin/bash
# make bench: kernel build and qemu boot figures, measured in one run on the
# test fixture (Debian's linux 6.1 in git, cached under build/kernel-test):
#   clean build          kreg build of the first commit, nothing built before
#   one-file rebuild     kreg build of a child commit touching block/blk-core.c
#   cache hit            kreg build of a commit already built
#   boot to job          qemu started to the job's first instruction (TCG here)
# Work files in build/bench-kernel (removed first; KEEP=1 keeps them after).
set -u
: "${KREG:?set KREG to the kreg binary}" "${KREG_SRC:?set KREG_SRC to the source tree}"
. "$KREG_SRC/tests/integration/5x-kernel.sh"

if ! kernel_fixture 2>/dev/null || ! command -v qemu-system-x86_64 >/dev/null; then
	echo "kernel: skipped (needs $KERNEL_TARBALL and qemu-system-x86_64)"
	exit 0
fi
W="$KREG_SRC/build/bench-kernel"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
cat > kreg.yaml <<YAML
data_dir: $W/data
repos:
  - name: linux
    url: $KERNEL_GIT
build:
  make_jobs: ${MAKE_JOBS:-2}
  configs:
    - name: qemu
      base: tinyconfig
      fragments:
        - $KREG_SRC/config/kernel/qemu-guest.config
        - $KREG_SRC/config/kernel/fio-dbench.config
        - $KREG_SRC/config/kernel/ext4.config
        - $KREG_SRC/config/kernel/f2fs.config
hosts:
  - name: bench
    backend: qemu
    cpus: 1
    memory: 1G
    timeout: 5m
    disk: $W/bench.img
    disk_size: 256M
YAML
cat > randread.yaml <<YAML
suite: fio-basic
testcase: fio-basic
category: benchmark
runtime: 3s
nr_task: 1
fs: ext4
fio-setup-basic:
  rw: randread
  bs: 4k
  ioengine: sync
  test_size: 16m
  time_based: 1
  testfile: y
fio:
YAML
export KREG_CONFIG="$W/kreg.yaml"

now() { date +%s.%N; }
# timed COMMAND...: runs it, prints its wall seconds; fails when it does.
timed() {
	local t0 t1
	t0=$(now)
	"$@" >"$W/last.out" 2>"$W/last.err" || { echo "kernel: '$*' failed:" >&2; tail -5 "$W/last.err" >&2; return 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}

# The mirror is made before the clock starts (a local clone: hard links).
mkdir -p data/repos && git clone -q --mirror "$KERNEL_GIT" data/repos/linux.git || exit 1
clean=$(timed "$KREG" build --repo linux --commit "$KERNEL_BASE") || exit 1
incr=$(timed "$KREG" build --repo linux --commit "$KERNEL_BLOCK") || exit 1
hit=$(timed "$KREG" build --repo linux --commit "$KERNEL_BASE") || exit 1
"$KREG" image build >/dev/null 2>&1 || { echo "kernel: kreg image build failed" >&2; exit 1; }
"$KREG" job run randread.yaml --host bench --repo linux --commit "$KERNEL_BASE" >/dev/null 2>&1
out=$(sqlite3 "$W/data/kreg.db" "SELECT output FROM runs ORDER BY id DESC LIMIT 1")
boot=$(awk '$1 == "boot_to_job_seconds" { print $2 }' "$out/timing" 2>/dev/null)
accel=$(awk '$1 == "accel" { print $2 }' "$out/timing" 2>/dev/null)
ncc=$(grep -c '^  CC ' "$(sqlite3 "$W/data/kreg.db" "SELECT artifact FROM builds ORDER BY id DESC LIMIT 1")/build.log")

printf 'kernel: clean build            %8.2f s   (linux 6.1 tinyconfig + config/kernel, make -j%s)\n' "$clean" "${MAKE_JOBS:-2}"
printf 'kernel: one-file rebuild       %8.2f s   (%.1f%% of clean; block/blk-core.c, %s files compiled; target < 10%%)\n' \
	"$incr" "$(awk -v a="$incr" -v b="$clean" 'BEGIN { print 100 * a / b }')" "$ncc"
printf 'kernel: cache hit              %8.2f s   (target < 1 s)\n' "$hit"
printf 'kernel: boot to job            %8s s   (%s; target < 10 s under TCG)\n' "${boot:-?}" "${accel:-?}"
[ -n "${KEEP:-}" ] || rm -rf "$W"
