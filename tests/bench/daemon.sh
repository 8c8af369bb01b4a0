#!/bin/bash
# make bench: the daemon's own cost, measured in one run (release build):
#   runs        KREG_BENCH_RUNS (default 10000) sim runs of one pushed head
#               through 20 sim hosts of capacity 4 by `kreg daemon --once`:
#               wall time, runs a second, the CPU of the daemon and all its
#               workers per run (claim, fork/exec, store, detect), and the
#               daemon's RSS sampled every tenth of the runs stored
#   idle poll   50 repos with nothing new, polled every KREG_BENCH_POLL_S
#               (default 5) seconds for KREG_BENCH_IDLE_S (default 60): CPU
#               of the daemon and its fetch children per poll, and what it
#               comes to in % of one core at the default poll_interval (300 s)
#               and at 60 s
# Work files in build/bench-daemon (removed first; KEEP=1 keeps them after).
set -u
: "${KREG:?set KREG to the kreg binary}" "${KREG_SRC:?set KREG_SRC to the source tree}"
RUNS=${KREG_BENCH_RUNS:-10000}
HOSTS=20
IDLE_S=${KREG_BENCH_IDLE_S:-60}
POLL_S=${KREG_BENCH_POLL_S:-5}
REPOS=50
W="$KREG_SRC/build/bench-daemon"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
TICK=$(getconf CLK_TCK)
DPID=
trap '[ -n "${KPID:-}" ] && kill -KILL "$KPID" 2>/dev/null; [ -n "$DPID" ] && kill -KILL "$DPID" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT

# CPU ticks of a live process and of its reaped children (utime stime
# cutime cstime: fields 14-17 of /proc/PID/stat, after the command name)
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 + $14 + $15 }'; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
runs_stored() { sqlite3 -cmd ".timeout 5000" "$W/data/kreg.db" "SELECT count(*) FROM runs WHERE status != 'running'" 2>/dev/null || echo 0; }

git init -q -b main up
git -C up -c user.name=b -c user.email=b@example.org commit -q --allow-empty -m root
printf 'suite: fio-basic\ntestcase: fio-basic\nruntime: 2s\nfio-setup-basic:\n  rw: randread\n  bs: 4k\n  test_size: 16m\nfio:\n' > job.yaml

# --- runs --- (KREG_BENCH_IDLE_ONLY=1 skips it)
if [ -z "${KREG_BENCH_IDLE_ONLY:-}" ]; then
per_host=$(( (RUNS + HOSTS - 1) / HOSTS ))
{
	echo "data_dir: $W/data"
	echo "repos:"
	echo "  - { name: src, url: $W/up, branches: [main], poll_interval: 1 }"
	echo "hosts:"
	for h in $(seq 1 $HOSTS); do
		echo "  - { name: sim$h, backend: sim, seed: $h, capacity: 4, metrics: [ { metric: fio.read_iops, base: 10000, noise: 3% } ] }"
	done
	echo "jobs:"
	echo "  - { file: job.yaml, runs: $per_host }"
} > runs.yaml
export KREG_CONFIG="$W/runs.yaml"
# time(1) counts the daemon with every worker it reaped
/usr/bin/time -f "%e %U %S" -o time.out "$KREG" daemon --once --foreground > runs.log 2>&1 &
DPID=$!
sleep 0.2
KPID=$(pgrep -P "$DPID")
samples=
step=$(( RUNS / 10 > 0 ? RUNS / 10 : 1 ))
next=$step
while kill -0 "$KPID" 2>/dev/null; do
	n=$(runs_stored)
	if [ "$n" -ge "$next" ] && r=$(rss_kb "$KPID" 2>/dev/null); then
		samples="$samples $n:$r"
		next=$(( next + step ))
	fi
	sleep 0.5
done
wait "$DPID"; rc=$?
KPID=
DPID=
read -r wall user sys < time.out
stored=$(sqlite3 "$W/data/kreg.db" "SELECT count(*) FROM runs WHERE status = 'ok'")
echo "runs: $stored OK of $RUNS planned on $HOSTS sim hosts (capacity 4), daemon exit $rc"
awk -v n="$stored" -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN {
	printf "runs: %.1f s wall, %.0f runs/s; CPU of daemon + workers %.1f s user + %.1f s system: %.2f ms a run\n",
	       w, n / w, u, s, (u + s) * 1000 / n }'
echo "runs: daemon RSS (runs stored:KiB):$samples"
echo "$samples" | tr ' ' '\n' | awk -F: 'NF == 2 { if (!first) first = $2; last = $2; if ($2 > max) max = $2 }
	END { if (first) printf "runs: daemon RSS from the first sample to the last: %d -> %d KiB (%+.1f%%), max %d KiB\n",
	      first, last, (last - first) * 100 / first, max }'
fi

# --- idle poll ---
rm -rf "$W/data"
for i in $(seq 1 $REPOS); do git clone -q --bare up "r$i.git"; done
{
	echo "data_dir: $W/data"
	echo "repos:"
	for i in $(seq 1 $REPOS); do
		echo "  - { name: r$i, url: $W/r$i.git, branches: [main], poll_interval: $POLL_S }"
	done
	echo "hosts: []"
	echo "jobs: []"
} > idle.yaml
export KREG_CONFIG="$W/idle.yaml"
# -vv: each poll says so in its log (logs/poll-N.log), and they are counted
"$KREG" -vv daemon --foreground > idle.log 2>&1 &
DPID=$!
# the first poll of each repo makes its mirror and records its head: not idle
for _ in $(seq 1 600); do
	[ "$(sqlite3 -cmd ".timeout 5000" "$W/data/kreg.db" "SELECT count(*) FROM branches" 2>/dev/null || echo 0)" -ge $REPOS ] && break
	sleep 0.2
done
sleep "$POLL_S"
polls() { cat "$W"/data/logs/poll-*.log | grep -c ": polled$"; }
c0=$(cpu_ticks "$DPID"); p0=$(date +%s.%N); n0=$(polls)
sleep "$IDLE_S"
c1=$(cpu_ticks "$DPID"); p1=$(date +%s.%N); n1=$(polls)
kill -TERM "$DPID"; wait "$DPID"; DPID=
awk -v c0="$c0" -v c1="$c1" -v t="$TICK" -v a="$p0" -v b="$p1" -v r=$REPOS -v p="$POLL_S" \
    -v n0="$n0" -v n1="$n1" 'BEGIN {
	cpu = (c1 - c0) / t; wall = b - a; polls = n1 - n0
	per = cpu / polls
	printf "idle poll: %d repos every %d s for %.0f s: %d polls, %.2f s CPU (%.1f%% of a core), %.1f ms a poll\n",
	       r, p, wall, polls, cpu, cpu * 100 / wall, per * 1000
	printf "idle poll: %d repos at poll_interval 300 s: %.3f%% of a core; at 60 s: %.2f%%\n",
	       r, per * r / 300 * 100, per * r / 60 * 100 }'
