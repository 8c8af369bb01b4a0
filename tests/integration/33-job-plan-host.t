#!/bin/bash
# `kreg job plan ATOM --host H` plans the atom as that host runs it, with no
# --target: a qemu host's test disk (raw, or formatted with the job's file
# system and mounted), a qemu host without a disk (a directory in memory),
# an ssh host's target device (the same choice) or directory. Nothing is
# booted or contacted: this is the plan only.
. "$KREG_SRC/tests/lib.sh"
plan 14

cat > kreg.yaml <<YAML
data_dir: $SCRATCH/data
hosts:
  - name: vm
    backend: qemu
    cpus: 2
    disk: $SCRATCH/vm.img
  - name: vmnodisk
    backend: qemu
  - name: box
    backend: ssh
    address: 127.0.0.1:1
    target: /dev/nvme0n1
    work_dir: /var/tmp/kreg
  - name: boxdir
    backend: ssh
    address: 127.0.0.1:1
    target: /srv/kreg
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
fio_atom() {  # file [fs]
	{
		printf 'suite: fio-basic\ntestcase: fio-basic\nruntime: 3s\nnr_task: 1\n'
		[ -n "${2:-}" ] && printf 'fs: %s\n' "$2"
		printf 'fio-setup-basic:\n  rw: randread\n  bs: 4k\n  ioengine: sync\n  test_size: 16m\nfio:\n'
	} > "$1"
}
fio_atom raw.yaml
fio_atom f2fs.yaml f2fs
fio_atom zfs.yaml zfs

run_kreg job plan raw.yaml --host vm
is "$RC" 0 "a qemu host needs no --target"
like "$OUT" $'\ntarget: /dev/vda\n' "a job naming no file system gets the raw test disk"
like "$OUT" $'\nfilename=/dev/vda\n' "which fio opens"

run_kreg job plan f2fs.yaml --host vm
like "$OUT" $'\nfile system: f2fs, made on vm\'s test disk before the run\n' "fs: f2fs is made on the test disk"
like "$OUT" $'\ntarget: /mnt/kreg\n' "and the job runs in its mount"

run_kreg job plan "$KREG_SRC/jobs/dbench-quick.yaml" --host vm
like "$OUT" $'\nfile system: ext4,' "dbench, naming no file system but needing one, gets ext4"

run_kreg job plan "$KREG_SRC/jobs/dbench-quick.yaml" --host vmnodisk
like "$OUT" $'\nargv: dbench -D /tmp ' "a qemu host without a disk runs in the guest's /tmp"

run_kreg job plan f2fs.yaml --host box
like "$OUT" $'\ntarget: /var/tmp/kreg/mnt\n' "an ssh host's target device gets the file system, mounted in its work_dir"
like "$OUT" $'\nfile system: f2fs,' "and says so"
run_kreg job plan raw.yaml --host box
like "$OUT" $'\nfilename=/dev/nvme0n1\n' "or is used raw"
run_kreg job plan raw.yaml --host boxdir
like "$OUT" $'\ndirectory=/srv/kreg\n' "an ssh host's target directory is used as it is"

run_kreg job plan zfs.yaml --host vm
is "$RC" 1 "a file system kreg cannot make is refused"
like "$ERR" "zfs" "naming it"

run_kreg job plan raw.yaml --host vm --target "$SCRATCH"
like "$OUT" $'\ntarget: '"$SCRATCH"$'\n' "--target still overrides the host's"
