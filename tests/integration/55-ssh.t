#!/bin/bash
# The ssh host against a lab machine made of a qemu guest (lab-box.sh): kreg
# builds linux 6.1, `kreg host check` looks at the box, a run copies the
# kernel over ssh, kexecs into it, checks /proc/cmdline names the build,
# runs a short fio job on the box's disk and stores the samples; a second
# run of the same kernel does not reboot; a box whose host key changed is
# an error and nothing runs there.
#
# Slow (a kernel build when none is cached, TCG boots): KREG_SKIP_SSH_TESTS=1
# skips 55-57 (docs/HACKING.md); CI runs them.
# suite: lane kernel-ssh
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"
. "$KREG_SRC/tests/integration/lab-box.sh"

[ -z "${KREG_SKIP_SSH_TESTS:-}" ] || skip_all "KREG_SKIP_SSH_TESTS is set"
command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
lab_tools || skip_all "no lab box tools (dropbear-bin, kexec-tools, openssh-client, cpio, qemu)"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
trap 'lab_stop_all; _cleanup' EXIT
plan 61

D="$SCRATCH/data"
PORT=$(lab_free_port)
write_config() {  # good_kernel
	cat > kreg.yaml <<YAML
data_dir: $D
repos:
  - name: linux
    url: $KERNEL_GIT
build:
  make_jobs: 2
  timeout: 40m
  # the suite's checkout and object directories (5x-kernel.sh): the ssh
  # config is compiled once, by 55 (master), and 56's build of the panic
  # commit with it is incremental
  dir: $KERNEL_BUILD_DIR_SSH
hosts:
  - name: lab1
    backend: ssh
    address: 127.0.0.1:$PORT
    user: root
    identity: $SCRATCH/keys/id
    good_kernel: "$1"
    reboot_timeout: 240s
    timeout: 5m
    target: /dev/vda
    initrd: /boot/lab.cpio
    power_cycle: [ "$SCRATCH/lab1-power-cycle" ]
  - name: nobox
    backend: ssh
    address: 127.0.0.1:$(lab_free_port)
    identity: $SCRATCH/keys/id
    reboot_timeout: 5s
    target: /dev/vda
YAML
}
write_config unknown
export KREG_CONFIG="$SCRATCH/kreg.yaml"
cat > randread.yaml <<YAML
suite: fio-basic
testcase: fio-basic
category: benchmark
runtime: 3s
nr_task: 1
fio-setup-basic:
  rw: randread
  bs: 4k
  ioengine: sync
  iodepth: 1
  test_size: 16m
  time_based: 1
fio:
YAML
mkdir -p "$D/repos" && git clone -q --mirror "$KERNEL_GIT" "$D/repos/linux.git"
q() { sqlite3 "$D/kreg.db" "$@"; }
on_box() {  # a command on the box, with kreg's known_hosts
	ssh -o BatchMode=yes -o UserKnownHostsFile="$D/ssh/known_hosts" -o ConnectTimeout=10 \
		-i "$SCRATCH/keys/id" -p "$PORT" root@127.0.0.1 "$@"
}
last() { q "SELECT $1 FROM runs ORDER BY id DESC LIMIT 1"; }

# The box: kreg's kernel and guest image plus the ssh layer.
run_kreg build --repo linux --commit master --host lab1
is "$RC" 0 "kreg builds linux 6.1 for the lab box"; [ "$RC" = 0 ] || echo "$ERR" | tail -20 | sed 's/^/# /'
art=$OUT
run_kreg image build
is "$RC" 0 "kreg image build"
img=$OUT
ok "keys for the box" lab_keys "$SCRATCH/keys"
ok "the lab box image (kreg's image + dropbear, kexec, scp)" \
	lab_image "$img" "$SCRATCH/lab1.cpio" "$SCRATCH/keys" 1
truncate -s 256M "$SCRATCH/lab1-disk.img"
lab_start lab1 "$art/bzImage" "$SCRATCH/lab1.cpio" "$SCRATCH/lab1-disk.img" "$PORT"
ok "the lab box boots and starts its ssh server" lab_wait lab1 180
[ -s lab1.console ] || echo "# no console output"
good=$(sed -n 's/^KREG-LAB: ready \([^ ]*\) .*/\1/p' lab1.console | head -1)
like "$good" '^6\.1' "the box runs linux 6.1 ($good)"
write_config "$good"

# kreg host check
run_kreg host check lab1
is "$RC" 0 "kreg host check lab1 exits 0"; [ "$RC" = 0 ] || { echo "$OUT"; echo "$ERR"; } | sed 's/^/# /'
like "$OUT" '^ok +reachable +root@127\.0\.0\.1 port' "it reaches the box"
like "$OUT" "^ok +host key +recorded in $D/ssh/known_hosts" "records its host key at the first contact"
like "$OUT" '^ok +kexec +/usr/sbin/kexec' "finds kexec"
like "$OUT" '^ok +target +/dev/vda: a block device, not mounted' "finds the target disk, not mounted"
like "$OUT" '^ok +fio ' "finds fio"
like "$OUT" '^ok +space ' "and space"
ok "the known_hosts file kreg keeps has the box" grep -q "^\[127.0.0.1\]:$PORT " "$D/ssh/known_hosts"
run_kreg host check nobox
is "$RC" 1 "kreg host check of a machine that is not there exits 1"
like "$OUT" '^FAIL reachable +host .nobox. \(root@127\.0\.0\.1\) unreachable' "and says it is unreachable"

# A run: copy, kexec, check the build id, fio, samples.
run_kreg job run randread.yaml --host lab1 --repo linux --commit master
is "$RC" 0 "kreg job run on the ssh host exits 0"; [ "$RC" = 0 ] || echo "$ERR" | tail -8 | sed 's/^/# /'
is "$(last status)" ok "the run is recorded ok"
build=$(basename "$art")
like "$(last kernel)" "^6\.1.* kreg\.build=$build\$" "on the kernel kreg built (its build id)"
ok "the box's console shows the kexec'd kernel with kreg.build" \
	grep -q "^KREG-LAB: ready .* kreg\.build=$build" lab1.console
is "$(grep -c '^KREG-LAB: ready' lab1.console)" 2 "the box booted twice: firmware, then kexec"
iops=$(q "SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE m.name = 'fio.read_iops' ORDER BY s.run_id DESC LIMIT 1")
like "$iops" '^[0-9.]+$' "its fio.read_iops sample is in the database ($iops)"
ok "and is above zero" awk -v v="$iops" 'BEGIN { exit !(v > 0) }'
out=$(last output)
ok "the raw fio output is kept in the run's directory" grep -q '"jobs"' "$out/fio.json" 2>/dev/null ||
	ls "$out" | sed 's/^/# /'
# LKP's monitors on the box (jobs/monitors.h), taken around fio over ssh as
# in a qemu guest, with a value a 3 s random read of its disk vda gives.
ok "the box's monitor snapshots are kept in the run's directory" grep -q '^KREG-PROC diskstats' "$out/monitors.txt"
monitor_within "the box read its disk in 4 KiB pieces" iostat.vda.r/s 100 1e9
monitor_within "page faults were counted on the box" proc-vmstat.pgfault 100 1e12
monitor_within "the box's timer ticked" interrupts.LOC:Local_timer_interrupts 10 1e9
monitor_within "the box's memory is its qemu's -m 1536M or less" meminfo.MemTotal 100000 1600000

rel=$(on_box uname -r)
mod=/lib/modules/$rel/kernel/drivers/block/null_blk/null_blk.ko
ok "the kernel's modules were installed on the box ($mod)" on_box test -f "$mod"
ok "and the module kreg built loads into the kernel kreg booted (with configfs, its dependency)" on_box modprobe null_blk
ok "null_blk's device is there" on_box test -b /dev/nullb0
on_box modprobe -r null_blk

# LKP's disk: 1BRD_<size>: kreg loads brd on the box with the job's size,
# fio reads the RAM disk, not the box's disk, and brd is unloaded after.
{ echo 'disk: 1BRD_64M'; sed 's/^  test_size: 16m$/  test_size: 32m\n  direct: 1/' randread.yaml; } > brd.yaml
run_kreg job run brd.yaml --host lab1 --repo linux --commit master
is "$(last status)" ok "a job on a brd RAM disk runs on the ssh host"; [ "$RC" = 0 ] || echo "$ERR" | tail -4 | sed 's/^/# /'
ok "fio read the RAM disk /dev/ram0" grep -q '"filename" : "/dev/ram0"' "$(last output)/fio.json"
is "$(q "SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id
	 WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name = 'fio.read_iops' AND s.value > 0")" 1 \
	"its read IOPS are stored"
ok "and brd is unloaded after, its memory given back" on_box test ! -e /sys/module/brd

# The same kernel again: no reboot.
run_kreg job run randread.yaml --host lab1 --repo linux --commit master
is "$RC" 0 "a second run of the same kernel exits 0"
is "$(last status)" ok "and is ok"
is "$(grep -c '^KREG-LAB: ready' lab1.console)" 2 "without booting again"

# perf-stat (jobs/monitors.h) on the box: the box's own perf. Without one
# the run is ok and the log says why; with it (perf and its libraries
# copied onto the box), LKP's perf-stat.* samples.
{ echo 'perf-stat:'; cat randread.yaml; } > perfstat.yaml
run_kreg job run perfstat.yaml --host lab1 --repo linux --commit master
is "$(last status)" ok "a job asking for perf-stat runs on a box without perf"
like "$ERR" 'no perf-stat for this run: no perf on this machine' "and the log says the box has no perf"
{ echo /usr/bin/perf; ldd /usr/bin/perf | grep -o '/[^ ]*'; } | sort -u > perf.files
tar -chf - -T perf.files 2>/dev/null | on_box 'tar -C / -xf - && ldconfig'
run_kreg job run perfstat.yaml --host lab1 --repo linux --commit master
is "$(last status)" ok "with perf on the box, the run is ok"
monitor_within "perf stat counted the box's context switches per second" perf-stat.ps.context-switches 1 1e8
monitor_within "and its CPU's time: task-clock ms per second (one CPU)" perf-stat.ps.task-clock 250 1100

# fxmark's dbench_client on f2fs, on the box's target device: the shipped
# kernel has what the job needs (f2fs.config), f2fs made on /dev/vda and
# mounted, dbench in it.
run_kreg job split --host lab1 -o atoms "$KREG_SRC/jobs/fxmark.yaml"
atom=$(printf '%s\n' "$OUT" | grep 'f2fs-ssd-dbench_client-4')
ok "the shipped fxmark job has the dbench_client / f2fs / 4-thread atom" test -f "$atom"
sed -i 's/^  duration: 30s$/  duration: 3s/' "$atom"
run_kreg job run "$atom" --host lab1 --repo linux --commit master
is "$RC" 0 "fxmark dbench_client on f2fs runs on the ssh host"; [ "$RC" = 0 ] || echo "$ERR" | tail -8 | sed 's/^/# /'
is "$(last status)" ok "and is recorded ok"
v=$(q "SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	WHERE m.name = 'fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec' ORDER BY s.run_id DESC LIMIT 1")
ok "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec is stored, above 0 ($v)" \
	awk -v v="$v" 'BEGIN { exit !(v > 0) }'
is "$(q "SELECT b.config_name FROM runs r JOIN builds b ON b.id = r.build_id ORDER BY r.id DESC LIMIT 1")" \
	"ssh" "on the ssh backend's built-in kernel, which has what the job needs"
is "$(grep -c '^KREG-LAB: ready' lab1.console)" 2 "the kernel the box runs: no reboot"
ok "f2fs was mounted on the target" grep -q 'F2FS-fs (vda): Mounted' lab1.console
ok "and unmounted after the job: the disk holds f2fs" \
	bash -c "blkid -p -o value -s TYPE '$SCRATCH/lab1-disk.img' | grep -qx f2fs"
ok "dbench ran 4 clients in the mount" grep -q 'Throughput .* 4 clients' "$(last output)/fxmark-dbench.log"

# The box's host key changes (reinstalled, or not the box): nothing runs.
lab_stop lab1
ok "an image with another host key" lab_image "$img" "$SCRATCH/lab1-key2.cpio" "$SCRATCH/keys" 2
lab_start lab1 "$art/bzImage" "$SCRATCH/lab1-key2.cpio" "$SCRATCH/lab1-disk.img" "$PORT"
ok "the box boots again with its new host key" lab_wait lab1 180
run_kreg job run randread.yaml --host lab1 --repo linux --commit master
is "$([ "$RC" != 0 ] && echo failed)" failed "a run on a box whose host key changed fails"
like "$(last error)" "ssh host key changed.*$D/ssh/known_hosts" "with a clear error naming kreg's known_hosts"
is "$(last status)" infra_failed "recorded as the infrastructure's failure"
is "$(grep -c '^KREG-LAB: ready' lab1.console)" 1 "nothing was booted on it"
ok "nothing was run on it" test ! -e "$(last output)/fio.json"
run_kreg host check lab1
like "$OUT" '^FAIL host key ' "kreg host check says so too"
