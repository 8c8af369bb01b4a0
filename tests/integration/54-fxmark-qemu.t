#!/bin/bash
# issue 17's done-when: `kreg job run` of the shipped fxmark job's
# dbench_client / f2fs / 4-thread atom on a qemu host boots a real kernel
# (Debian's linux 6.1, the shipped config, which has the f2fs the job needs),
# formats the test disk with f2fs, runs dbench and stores
# fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec above 0.
# suite: lane kernel-qemu
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"

command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64"
command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
command -v mkfs.f2fs >/dev/null || skip_all "no mkfs.f2fs (f2fs-tools)"
[ -r /usr/share/dbench/client.txt ] || skip_all "no /usr/share/dbench/client.txt"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
plan 13

D="$SCRATCH/data"
mkdir -p disks
# The qemu backend's built-in kernel config (tinyconfig + the guest's
# fragments of config/kernel/), as every qemu kernel test uses: f2fs is in it (f2fs.config), so the job needs no variant and
# its kernel is the one 51-kernel.t built (the suite's shared cache).
cat > kreg.yaml <<YAML
data_dir: $D
repos:
  - name: linux
    url: $KERNEL_GIT
build:
  make_jobs: 2
  timeout: 60m
hosts:
  - name: vm1
    backend: qemu
    cpus: 2
    memory: 1G
    timeout: 10m
    kvm: auto
    disk: $SCRATCH/disks/vm1.img
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
mkdir -p "$D/repos" && git clone -q --mirror "$KERNEL_GIT" "$D/repos/linux.git"
q() { sqlite3 "$D/kreg.db" "$@"; }

run_kreg job split --host vm1 -o atoms "$KREG_SRC/jobs/fxmark.yaml"
atom=$(printf '%s\n' "$OUT" | grep 'f2fs-ssd-dbench_client-4')
ok "the shipped fxmark job has the dbench_client / f2fs / 4-thread atom" test -f "$atom"
# A few seconds of dbench, not the job's 30.
sed -i 's/^  duration: 30s$/  duration: 3s/' "$atom"

run_kreg job run "$atom" --host vm1 --repo linux --commit master
is "$RC" 0 "kreg job run of it on the qemu host exits 0"
[ "$RC" = 0 ] || echo "$ERR" | tail -20 | sed 's/^/# /'
is "$(q "SELECT status FROM runs ORDER BY id DESC LIMIT 1")" ok "the run is stored ok"
v=$(q "SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	WHERE m.name = 'fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec'")
like "$v" '^[0-9.e+]+$' "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec is stored ($v)"
ok "and is above 0" awk -v v="$v" 'BEGIN { exit !(v > 0) }'

# The kernel: the shipped config, which has what the job needs.
is "$(q "SELECT b.config_name FROM runs r JOIN builds b ON b.id = r.build_id ORDER BY r.id DESC LIMIT 1")" \
	"qemu" "the run booted the qemu backend's built-in config: it has what the job needs"
art=$(q "SELECT b.artifact FROM runs r JOIN builds b ON b.id = r.build_id ORDER BY r.id DESC LIMIT 1")
ok "whose .config has CONFIG_F2FS_FS=y" grep -qx 'CONFIG_F2FS_FS=y' "$art/.config"

# The guest: f2fs on the test disk, dbench in it.
out=$(q "SELECT output FROM runs ORDER BY id DESC LIMIT 1")
ok "the guest ran the job (console kept)" grep -q 'KREG-GUEST: exit 0' "$out/console.log"
ok "f2fs was mounted on the test disk" grep -q 'F2FS-fs (vda): Mounted' "$out/console.log"
ok "the disk holds an f2fs file system afterwards" bash -c "blkid -p -o value -s TYPE '$SCRATCH/disks/vm1.img' | grep -qx f2fs"
like "$(cat "$out/argv")" "dbench_client:4:bufferedio" "the plan ran fxmark's dbench_client section"
ok "dbench ran 4 clients in the mount" grep -q 'Throughput .* 4 clients' "$out/fxmark-dbench.log"
like "$(sed -n 1p "$out/fxmark.log")" '^## ssd:f2fs:dbench_client:4:bufferedio$' "fxmark's log came back"
