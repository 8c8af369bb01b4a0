#!/bin/bash
# make bench-capacity: what two qemu guests at once (a qemu host's
# `capacity: 2`) do to the spread of each other's numbers (docs/hosts.md).
# One kernel (the kernel tests' linux fixture, master, the qemu guest's
# built-in config, from the build cache), the demo's fio job, run with kreg
# itself (`kreg job run`, one run per call) in rounds, the order turned each
# round so that the machine's load and drift fall on every way alike:
#
#   one       one guest at a time (capacity 1: not pinned)
#   one-pinned  one guest at a time, pinned to the first CPU (pin: on)
#   pinned    two guests at once, each pinned to a CPU of its own
#             (capacity 2, pin: auto: slot 0 on CPU 0, slot 1 on CPU 1)
#   unpinned  two guests at once, not pinned (capacity 2, pin: off)
#
# A round runs each `one` once and each pair once (two runs, started
# together), so a `one` has ROUNDS runs and a pair 2 x ROUNDS. Prints each way's mean
# and coefficient of variation (relative stddev) of read and write IOPS, its
# ratio to `one`'s, and the load average at the start and the end; writes
# every run to $NOISE_OUT/capacity.tsv.
#
# Environment: KREG, KREG_SRC; CAPACITY_ROUNDS (10), CAPACITY_WAYS (all of
# the above), NOISE_FIO_JOB, NOISE_OUT, NOISE_DIR (build/bench-capacity);
# KERNEL_CACHE and KREG_BUILD_CACHE as for bench-noise (a suite run's
# build/kernel-artifacts: no kernel is built).
set -u
: "${KREG:?set KREG to the kreg binary}" "${KREG_SRC:?set KREG_SRC to the source tree}"
OUT=${NOISE_OUT:-$KREG_SRC/tests/fixtures/noise}
ROUNDS=${CAPACITY_ROUNDS:-10}
WAYS=(${CAPACITY_WAYS:-one one-pinned pinned unpinned})
JOB=${NOISE_FIO_JOB:-$KREG_SRC/jobs/fio-blk-4k.yaml}
W=${NOISE_DIR:-$KREG_SRC/build/bench-capacity}
. "$KREG_SRC/tests/bench/noise-lib.sh"
[ "$(nproc)" -ge 2 ] || { echo "capacity: $(nproc) CPU: two pinned guests need 2: skipped"; exit 0; }
noise_lab "$W" || exit 0
cd "$W" || exit 1
# the lab's hosts: one and one-pinned (capacity 1), pinned and unpinned
# (capacity 2)
for way in one one-pinned pinned unpinned; do
	cap=2 pin=auto
	case $way in one) cap=1 ;; one-pinned) cap=1 pin=on ;; unpinned) pin=off ;; esac
	cat <<YAML
  - name: $way
    backend: qemu
    cpus: 1
    memory: 1G
    timeout: 5m
    kvm: auto
    disk: $W/$way.img
    disk_size: 256M
    capacity: $cap
    pin: $pin
YAML
done >> kreg.yaml
"$KREG" config check >/dev/null || exit 1
mkdir -p "$OUT"
rm -rf atoms && "$KREG" job split "$JOB" -o atoms >/dev/null || exit 1
ATOM=$(ls atoms/*.yaml | head -1)

value() {	# RUN METRIC
	noise_sql "SELECT coalesce((SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
		WHERE s.run_id = $1 AND m.name = '$2'), '-')"
}

# ROUND WAY: one run (one) or two started together (pinned, unpinned); a
# row per run on stdout
way() {
	local round=$1 w=$2 n=2 before l0 l1 rid slot i
	[ "${w#one}" != "$w" ] && n=1
	before=$(noise_sql "SELECT coalesce(max(id), 0) FROM runs")
	l0=$(noise_load1)
	for i in $(seq 1 $n); do
		"$KREG" job run "$ATOM" --host "$w" --repo linux --commit master --runs 1 \
			>"$W/last-$i.log" 2>&1 &
	done
	wait
	l1=$(noise_load1)
	for rid in $(noise_sql "SELECT id FROM runs WHERE id > $before ORDER BY id"); do
		slot=$(sed -n 's/^slot //p' "$(noise_sql "SELECT output FROM runs WHERE id = $rid")/slot" 2>/dev/null)
		printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$w" "${slot:--}" \
			"$(noise_sql "SELECT datetime(started, 'unixepoch') || char(9) ||
				(finished - started) || char(9) || status FROM runs WHERE id = $rid")" \
			"$l0" "$l1" "$(value "$rid" fio.read_iops)" "$(value "$rid" fio.write_iops)"
	done
}

# a first run, not counted: the guest image, the KVM probe, the cache
"$KREG" job run "$ATOM" --host one --repo linux --commit master --runs 1 >"$W/last-0.log" 2>&1 ||
	{ echo "capacity: the first run failed:"; tail -5 "$W/last-0.log"; exit 1; }
F=$OUT/capacity.tsv
{
	echo "# kreg guests at once: tests/bench/noise-capacity.sh (make bench-capacity)"
	echo "# job: $(basename "$ATOM") (split from ${JOB#$KREG_SRC/}); hosts: qemu, 1 vCPU, 1 GiB, 256 MiB disk each slot"
	echo "# kernel: linux fixture $(git -C "$KERNEL_GIT" rev-parse --short=12 master), config qemu"
	echo "# machine: $(hostname), $(nproc) cpus, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), host kernel $(uname -r)"
	echo "# kreg commit: $(git -C "$KREG_SRC" rev-parse --short=12 HEAD 2>/dev/null)"
	echo "# started: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds of: ${WAYS[*]} (order turned each round)"
	printf 'round\tway\tslot\tstarted_utc\tseconds\tstatus\tload1_before\tload1_after\tfio.read_iops\tfio.write_iops\n'
} > "$F.tmp"
noise_rounds "$F.tmp" "$ROUNDS" way "${WAYS[@]}" || exit 1
echo "# finished: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$F.tmp"
mv "$F.tmp" "$F"
sed -n 's/^# \(started\|finished\): /\1: /p' "$F"
awk -F'\t' '
	/^#/ || $1 == "round" { next }
	$6 != "ok" { bad[$2]++; next }
	{ for (k = 0; k < 2; k++) { v = $(9 + k); n[$2, k]++; s[$2, k] += v; q[$2, k] += v * v }
	  seen[$2] = 1; ld[$2] += $7; cnt[$2]++ }
	END {
		printf "%-10s %5s %10s %7s %10s %7s %6s %s\n", "way", "runs", "read_iops", "cv", "write_iops", "cv", "load1", "  cv / one (read, write)"
		for (x in seen) for (k = 0; k < 2; k++) {
			m[x, k] = s[x, k] / n[x, k]
			r[x, k] = n[x, k] > 1 ? sqrt((q[x, k] - n[x, k] * m[x, k] ^ 2) / (n[x, k] - 1)) / m[x, k] : 0
		}
		for (x in seen)
			printf "%-10s %5d %10.0f %6.1f%% %10.0f %6.1f%% %6.2f   %.2f, %.2f%s\n", x, cnt[x],
				m[x, 0], 100 * r[x, 0], m[x, 1], 100 * r[x, 1], ld[x] / cnt[x],
				(r["one", 0] > 0 ? r[x, 0] / r["one", 0] : 0), (r["one", 1] > 0 ? r[x, 1] / r["one", 1] : 0),
				bad[x] ? sprintf(" (%d runs not ok)", bad[x]) : ""
	}' "$F"
# each guest slot of the pairs alone: a slot (its CPU) that is steadily
# slower than the other widens the pair's spread by itself
awk -F'\t' '
	/^#/ || $1 == "round" || $6 != "ok" || $2 ~ /^one/ { next }
	{ k = $2 " slot " $3; v = $9; n[k]++; s[k] += v; q[k] += v * v }
	END {
		for (k in n) {
			m = s[k] / n[k]
			printf "%-17s %3d runs, read_iops %6.0f, cv %5.1f%%\n", k, n[k], m,
				(n[k] > 1 ? 100 * sqrt((q[k] - n[k] * m ^ 2) / (n[k] - 1)) / m : 0)
		}
	}' "$F" | sort
