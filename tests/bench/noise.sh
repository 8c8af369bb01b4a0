#!/bin/bash
# make bench-noise: the real-noise corpus (docs/noise.md). One kernel (the
# kernel tests' linux 6.1 fixture, master, the qemu guest's built-in config)
# run many times with kreg itself (`kreg job run`, one run per call) on a
# qemu host and on the local host, each run's samples written with how it
# was taken: the load average before and after it, its seconds, its status.
# The detection bench (tests/bench/bench_noise.c) replays what it writes.
#
# Not part of `make bench` (it takes most of an hour). Environment:
#   KREG, KREG_SRC         as for every bench
#   NOISE_OUT              where the fixtures go (tests/fixtures/noise)
#   NOISE_DIR              the lab (build/bench-noise; kept, its database too)
#   NOISE_FIO_RUNS=100     runs of the fio job per host
#   NOISE_DBENCH_RUNS=30   runs of the dbench job per host
#   NOISE_HOSTS="vm local" the hosts: vm (qemu), local (this machine)
#   NOISE_FIO_JOB          jobs/fio-blk-4k.yaml (the demo's job)
#   NOISE_DBENCH_JOB       jobs/dbench-quick.yaml
#   KERNEL_CACHE           the kernel tests' fixture (5x-kernel.sh); with
#                          KREG_BUILD_CACHE pointing at a suite run's
#                          build/kernel-artifacts no kernel is built
set -u
: "${KREG:?set KREG to the kreg binary}" "${KREG_SRC:?set KREG_SRC to the source tree}"
OUT=${NOISE_OUT:-$KREG_SRC/tests/fixtures/noise}
W=${NOISE_DIR:-$KREG_SRC/build/bench-noise}
FIO_RUNS=${NOISE_FIO_RUNS:-100}
DBENCH_RUNS=${NOISE_DBENCH_RUNS:-30}
HOSTS=${NOISE_HOSTS:-vm local}
FIO_JOB=${NOISE_FIO_JOB:-$KREG_SRC/jobs/fio-blk-4k.yaml}
DBENCH_JOB=${NOISE_DBENCH_JOB:-$KREG_SRC/jobs/dbench-quick.yaml}
. "$KREG_SRC/tests/bench/noise-lib.sh"
noise_lab "$W" || exit 0
mkdir -p "$OUT" && cd "$W" || exit 1
rm -rf atoms && "$KREG" job split "$FIO_JOB" -o atoms/fio >/dev/null &&
	"$KREG" job split "$DBENCH_JOB" -o atoms/dbench >/dev/null || exit 1

KREG_COMMIT=$(git -C "$KREG_SRC" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
KERNEL_COMMIT=$(git -C "$KERNEL_GIT" rev-parse --short=12 master)
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)

# corpus HOST KIND RUNS: RUNS runs of the KIND job's one atom on HOST, one
# `kreg job run` each, into $OUT/HOST-KIND.tsv (written aside, renamed when
# done)
corpus() {
	local host=$1 kind=$2 n=$3 job atom metrics f i t0 t1 l0 l1 rid st vals m
	atom=$(ls atoms/$kind/*.yaml | head -1)
	job=${FIO_JOB#$KREG_SRC/}
	[ "$kind" = dbench ] && job=${DBENCH_JOB#$KREG_SRC/}
	f=$OUT/$host-$kind.tsv
	commit=(--repo linux --commit master)
	[ "$host" = local ] && commit=()
	metrics=
	for i in $(seq 1 "$n"); do
		l0=$(noise_load1); t0=$(date +%s.%N)
		"$KREG" job run "$atom" --host "$host" "${commit[@]}" --runs 1 >"$W/last.log" 2>&1
		t1=$(date +%s.%N); l1=$(noise_load1)
		rid=$(noise_sql "SELECT max(id) FROM runs")
		st=$(noise_sql "SELECT status FROM runs WHERE id = $rid")
		if [ -z "$metrics" ]; then
			[ "$st" = ok ] || { echo "noise: $host $kind: first run $st"; tail -3 "$W/last.log"; return 1; }
			metrics=$(noise_sql "SELECT m.name FROM samples s JOIN metrics m ON m.id = s.metric_id
				WHERE s.run_id = $rid AND m.name LIKE '$kind.%' AND m.name NOT LIKE '%latency_%' ORDER BY m.name")
			local build kernel cfg
			build=$(noise_sql "SELECT coalesce(b.config_name || ' ' || b.config_hash, '-') FROM runs r LEFT JOIN builds b ON b.id = r.build_id WHERE r.id = $rid")
			kernel=$(noise_sql "SELECT kernel FROM runs WHERE id = $rid")
			{
				echo "# kreg noise corpus: tests/bench/noise.sh (make bench-noise)"
				echo "# host: $host ($(sed -n "/name: $host\$/,/^  - name/p" kreg.yaml | grep -v 'name:' | tr -s ' ' | tr '\n' ';'))"
				echo "# job: $(basename "$atom") (split from $job)"
				echo "# kernel: $kernel; fixture commit $KERNEL_COMMIT; build config $build"
				[ "$host" = local ] && echo "# kernel: this machine's running kernel ($(uname -r)), not built"
				echo "# machine: $(hostname), $(nproc) cpus, $CPU, host kernel $(uname -r)"
				echo "# kreg commit: $KREG_COMMIT"
				echo "# started: $(date -u +%FT%TZ)"
				echo "# load1_before/load1_after: /proc/loadavg's first field around the run"
				printf 'run\tstarted_utc\tload1_before\tload1_after\tseconds\tstatus'
				for m in $metrics; do printf '\t%s' "$m"; done
				echo
			} > "$f.tmp"
		fi
		vals=
		for m in $metrics; do
			vals+=$'\t'$(noise_sql "SELECT coalesce((SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
				WHERE s.run_id = $rid AND m.name = '$m'), '-')")
		done
		printf '%d\t%s\t%s\t%s\t%.1f\t%s%s\n' "$i" "$(date -u -d @"${t0%.*}" +%FT%TZ)" \
			"$l0" "$l1" "$(echo "$t1 - $t0" | bc)" "$st" "$vals" >> "$f.tmp"
		[ $((i % 10)) -eq 0 ] && echo "noise: $host $kind: $i/$n runs (load $(noise_load1))"
	done
	echo "# finished: $(date -u +%FT%TZ)" >> "$f.tmp"
	mv "$f.tmp" "$f" && echo "noise: wrote $f"
}

for h in $HOSTS; do
	corpus "$h" fio "$FIO_RUNS" || exit 1
	corpus "$h" dbench "$DBENCH_RUNS" || exit 1
done
