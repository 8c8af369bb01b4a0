# Shared by tests/bench/noise.sh and noise-ab.sh: the lab that runs one
# kernel many times (docs/noise.md).
#
#   . "$KREG_SRC/tests/bench/noise-lib.sh"
#   noise_lab DIR || exit   kreg.yaml in DIR (KREG_CONFIG exported): the
#                           kernel tests' linux fixture (5x-kernel.sh) as
#                           repo linux, the qemu guest's built-in config,
#                           hosts vm (qemu), vm-pin (the same, its qemu
#                           pinned to the last CPU by taskset), vm-fresh
#                           (the same, a disk of its own) and local
#   noise_sql SQL           on DIR's database
#   noise_load1             the host's 1-minute load average
#   noise_last_value METRIC the last run's status, then METRIC's value or -
#   noise_rounds FILE ROUNDS FN NAME...
#                           ROUNDS rounds of `FN ROUND NAME` for each NAME, the
#                           order turned each round (the machine's load and
#                           drift fall on every NAME alike), FN's rows
#                           appended to FILE; a line of progress each round
export KREG_BUILD_CACHE=${KREG_BUILD_CACHE:-$KREG_SRC/build/kernel-artifacts}
. "$KREG_SRC/tests/integration/5x-kernel.sh"

noise_lab() {
	local w=$1 k=$KREG_SRC/config/kernel disk cpu
	command -v sqlite3 >/dev/null || { echo "noise: no sqlite3: skipped"; return 1; }
	kernel_fixture || { echo "noise: no kernel fixture ($KERNEL_TARBALL): skipped"; return 1; }
	mkdir -p "$w/local" || return 1
	NOISE_DIR=$w
	cpu=$(($(nproc) - 1))
	printf '#!/bin/sh\nexec taskset -c %d qemu-system-x86_64 "$@"\n' "$cpu" > "$w/qemu-pinned"
	chmod +x "$w/qemu-pinned"
	{
		cat <<YAML
data_dir: $w/data
repos:
  - name: linux
    url: $KERNEL_GIT
build:
  make_jobs: $(nproc)
  timeout: 40m
  dir: $KERNEL_BUILD_DIR
  configs:
    - name: qemu
      base: tinyconfig
      fragments: [$k/qemu-guest.config, $k/fio-dbench.config, $k/ext4.config, $k/f2fs.config, $k/monitors.config, $k/test-devices.config]
hosts:
  - name: local
    backend: local
    target: $w/local
YAML
		for disk in vm vm-pin vm-fresh; do
			cat <<YAML
  - name: $disk
    backend: qemu
    cpus: 1
    memory: 1G
    timeout: 5m
    kvm: auto
    disk: $w/$disk.img
    disk_size: 256M
YAML
			[ "$disk" = vm-pin ] && echo "    qemu: $w/qemu-pinned"
		done
	} > "$w/kreg.yaml"
	export KREG_CONFIG=$w/kreg.yaml
	"$KREG" config check >/dev/null
}

noise_sql() { sqlite3 -cmd ".timeout 10000" "$NOISE_DIR/data/kreg.db" "$1"; }
noise_load1() { cut -d' ' -f1 /proc/loadavg; }

noise_last_value() {
	local rid
	rid=$(noise_sql "SELECT max(id) FROM runs")
	noise_sql "SELECT status FROM runs WHERE id = $rid"
	noise_sql "SELECT coalesce((SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
		WHERE s.run_id = $rid AND m.name = '$1'), '-')"
}

noise_rounds() {
	local f=$1 rounds=$2 fn=$3 round j
	shift 3
	local names=("$@")
	for round in $(seq 1 "$rounds"); do
		for j in "${!names[@]}"; do
			"$fn" "$round" "${names[$(((j + round) % ${#names[@]}))]}" >> "$f" || return 1
		done
		echo "$(basename "$0" .sh): round $round/$rounds (load $(noise_load1))"
	done
}
