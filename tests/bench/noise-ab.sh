#!/bin/bash
# make bench-noise-ab: which settings make the qemu host quieter
# (docs/noise.md). One kernel, the demo's fio job, each setting's run
# interleaved with the others' in rounds (the order turned each round), so
# that the machine's load and drift fall on all of them alike; prints the
# relative stddev of read and write IOPS per setting and its ratio to the
# baseline's, and writes the runs to $NOISE_OUT/ab.tsv.
#
#   base        the qemu host as shipped: its test disk made once (sparse) and
#               reused
#   ramp        fio's ramp_time 2s: the first 2 s of the job not counted
#   dropcaches  the host's page cache dropped (sync; drop_caches=3) before
#               the run (root)
#   fresh       the test disk removed and made again, preallocated
#               (fallocate), before the run
#   pin         qemu pinned to the host's last CPU (taskset)
#   brd         the job on a brd RAM disk in the guest (disk: 1BRD_256M):
#               the host's disk and page cache out of the loop
#   nullb       the job on a null_blk device in the guest (disk: 1NULLB):
#               the block layer alone, no data
#
# Environment: KREG, KREG_SRC; NOISE_AB_ROUNDS (10), NOISE_AB_SETTINGS (all
# of the above), NOISE_OUT, NOISE_DIR (build/bench-noise-ab), as noise.sh.
set -u
: "${KREG:?set KREG to the kreg binary}" "${KREG_SRC:?set KREG_SRC to the source tree}"
OUT=${NOISE_OUT:-$KREG_SRC/tests/fixtures/noise}
ROUNDS=${NOISE_AB_ROUNDS:-10}
SETTINGS=(${NOISE_AB_SETTINGS:-base ramp dropcaches fresh pin brd nullb})
JOB=${NOISE_FIO_JOB:-$KREG_SRC/jobs/fio-blk-4k.yaml}
. "$KREG_SRC/tests/bench/noise-lib.sh"
W=${NOISE_DIR:-$KREG_SRC/build/bench-noise-ab}
noise_lab "$W" || exit 0
cd "$W" || exit 1
mkdir -p "$OUT"
rm -rf atoms && "$KREG" job split "$JOB" -o atoms/base >/dev/null || exit 1
# the same job with ramp_time under fio-setup-basic
sed 's/^fio-setup-basic:$/&\n  ramp_time: 2s/' "$JOB" > ramp.yaml
grep -q 'ramp_time: 2s' ramp.yaml && "$KREG" job split ramp.yaml -o atoms/ramp >/dev/null || exit 1
# the same job on a RAM test device in the guest (docs/jobs.md)
for dev in brd:1BRD_256M nullb:1NULLB; do
	{ echo "disk: ${dev#*:}"; cat "$JOB"; } > "${dev%%:*}.yaml" &&
		"$KREG" job split "${dev%%:*}.yaml" -o "atoms/${dev%%:*}" >/dev/null || exit 1
done
BASE=$(ls atoms/base/*.yaml) RAMP=$(ls atoms/ramp/*.yaml)
BRD=$(ls atoms/brd/*.yaml) NULLB=$(ls atoms/nullb/*.yaml)

one() {	# SETTING: one run, its row on stdout
	local s=$1 atom=$BASE host=vm l0 l1 t0 t1 st r w
	case $s in
	ramp) atom=$RAMP ;;
	brd) atom=$BRD ;;
	nullb) atom=$NULLB ;;
	dropcaches) sync; echo 3 > /proc/sys/vm/drop_caches || return 1 ;;
	fresh) host=vm-fresh; rm -f "$W/vm-fresh.img" && fallocate -l 256M "$W/vm-fresh.img" || return 1 ;;
	pin) host=vm-pin ;;
	esac
	l0=$(noise_load1); t0=$(date +%s.%N)
	"$KREG" job run "$atom" --host $host --repo linux --commit master --runs 1 >"$W/last.log" 2>&1
	t1=$(date +%s.%N); l1=$(noise_load1)
	{ read -r st; read -r r; } < <(noise_last_value fio.read_iops)
	w=$(noise_sql "SELECT coalesce((SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
		WHERE s.run_id = (SELECT max(id) FROM runs) AND m.name = 'fio.write_iops'), '-')")
	printf '%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\n' "$s" "$(date -u -d @"${t0%.*}" +%FT%TZ)" \
		"$l0" "$l1" "$(echo "$t1 - $t0" | bc)" "$st" "$r" "$w"
}

F=$OUT/ab.tsv
{
	echo "# kreg quiet-host settings, interleaved: tests/bench/noise-ab.sh (make bench-noise-ab)"
	echo "# job: $(basename "$BASE") (split from ${JOB#$KREG_SRC/}); host: qemu, 1 vCPU, 1 GiB, 256 MiB disk"
	echo "# kernel: linux fixture $(git -C "$KERNEL_GIT" rev-parse --short=12 master), config qemu"
	echo "# machine: $(hostname), $(nproc) cpus, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), host kernel $(uname -r)"
	echo "# kreg commit: $(git -C "$KREG_SRC" rev-parse --short=12 HEAD 2>/dev/null)"
	echo "# started: $(date -u +%FT%TZ); $ROUNDS rounds of: ${SETTINGS[*]} (order turned each round)"
	printf 'round\tsetting\tstarted_utc\tload1_before\tload1_after\tseconds\tstatus\tfio.read_iops\tfio.write_iops\n'
} > "$F.tmp"
round_row() {	# ROUND SETTING
	local row
	row=$(one "$2") || return 1
	printf '%d\t%s\n' "$1" "$row"
}
noise_rounds "$F.tmp" "$ROUNDS" round_row "${SETTINGS[@]}" || exit 1
echo "# finished: $(date -u +%FT%TZ)" >> "$F.tmp"
mv "$F.tmp" "$F"
awk -F'\t' '
	/^#/ || $1 == "round" || $7 != "ok" { next }
	{ for (k = 0; k < 2; k++) { v = $(8 + k); n[$2, k]++; s[$2, k] += v; q[$2, k] += v * v }
	  seen[$2] = 1; ld[$2] += $4 }
	END {
		printf "%-11s %5s %10s %8s %10s %8s %6s\n", "setting", "runs", "read_iops", "rsd", "write_iops", "rsd", "load1"
		for (x in seen) for (k = 0; k < 2; k++) {
			m[x, k] = s[x, k] / n[x, k]
			r[x, k] = n[x, k] > 1 ? sqrt((q[x, k] - n[x, k] * m[x, k] ^ 2) / (n[x, k] - 1)) / m[x, k] : 0
		}
		for (x in seen)
			printf "%-11s %5d %10.0f %7.1f%% %10.0f %7.1f%% %6.2f   rsd / base: %.2f, %.2f\n", x, n[x, 0],
				m[x, 0], 100 * r[x, 0], m[x, 1], 100 * r[x, 1], ld[x] / n[x, 0],
				(r["base", 0] > 0 ? r[x, 0] / r["base", 0] : 0), (r["base", 1] > 0 ? r[x, 1] / r["base", 1] : 0)
	}' "$F"
