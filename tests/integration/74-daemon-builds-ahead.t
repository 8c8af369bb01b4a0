#!/bin/bash
# Builds beside runs (docs/bisect.md, "Kernels built ahead"): while a
# bisection's step runs on the host, the build lane builds the kernels the
# next step may need (both possible midpoints), and while the detector's
# extra runs of the head and the base run, the first step's, so every step
# finds its kernel in the cache; a kernel is never built twice; the
# culprit is the one the model put there. The demo's shape: the base at
# 10 runs, the head's 3 ask 3 more of each.
#
# The host is a sim host with a kernel_config: each commit's kernel is
# built for real (kreg's build, make in build.dir, the builds rows) with
# the stand-in kernel (tests/fixtures/stand-in-kernel), whose `make bzImage`
# takes a second here and writes down which commit it built; the runs draw samples, and once the base is
# measured take 2 s each (KREG_SIM_RUN_DELAY_MS). The overlap is read from the database as an
# ordering: a step's kernel was built before the previous step's last run
# ended (a build after it would start at least a second later, whole
# seconds being what the rows keep).
# Fixed commit dates: the same shas, so the same samples, every run.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
command -v make >/dev/null || skip_all "no make"
plan 11

export GIT_AUTHOR_DATE="2026-11-30T12:00:00Z" GIT_COMMITTER_DATE="2026-11-30T12:00:00Z"
up_init >/dev/null
cp "$KREG_SRC/tests/fixtures/stand-in-kernel/Makefile" "$UP/Makefile"
git -C "$UP" add Makefile && git -C "$UP" commit -qm "a stand-in kernel"
ROOT=$(git -C "$UP" rev-parse HEAD)
up_push
write_atom job.yaml
printf 'CONFIG_FRAG=y\n' > frag.config
export BUILT="$SCRATCH/built" KREG_BUILD_CACHE= VERSION_FILE=f BUILD_SECONDS=1
: > "$BUILT"
cat > kreg.yaml <<YAML
$(lab_yaml)
build:
  make_jobs: 1
  dir: $SCRATCH/objs
  configs:
    - name: fake
      base: tinyconfig
      fragments: [$SCRATCH/frag.config]
hosts:
  - name: vm
    backend: sim
    seed: 5
    kernel_config: fake
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 2% }
jobs:
  - file: job.yaml  # 3 runs a commit, 3 a bisection step; read IOPS: higher is better
detect:
  baseline_runs: 10
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 120 "the daemon builds and tests the first head it sees" idle_at "$ROOT"
daemon_stop
export KREG_SIM_RUN_DELAY_MS=2000
daemon_start
for i in $(seq 1 16); do	# commit 11 halves the read IOPS
	HEAD=$(up_commit "$i" "$([ "$i" = 11 ] && echo "Sim-Effect: fio.read_iops -50%")")
	[ "$i" = 11 ] && CULPRIT=$HEAD
done
up_push
wait_for 400 "the push's drop is bisected" bisected_at "$HEAD"
daemon_stop

is "$(culprit_of 1)" "$CULPRIT" "to the commit with the effect"
is "$(sort "$BUILT" | uniq -d | tr '\n' ' ')" "" "no kernel was built twice (make bzImage once a commit)"

# the search's steps, in order, one row a commit
STEPS=$(sql "SELECT commit_id FROM bisect_steps WHERE role = 'step' GROUP BY commit_id ORDER BY min(seq)")
NSTEPS=$(echo "$STEPS" | wc -l)
ok "the search took 3 steps or more ($NSTEPS)" test "$NSTEPS" -ge 3
# A step's kernel was built before the step before it ended: its builds
# row started before that step's last run finished.
early=0 prev=
for c in $STEPS; do
	if [ -n "$prev" ]; then
		[ "$(sql "SELECT b.started < (SELECT max(finished) FROM runs WHERE commit_id = $prev)
			FROM builds b WHERE b.commit_id = $c")" = 1 ] && early=$((early + 1))
	fi
	prev=$c
done
is "$early" "$((NSTEPS - 1))" "every step after the first had its kernel built while the step before ran"
FIRST=$(echo "$STEPS" | head -1)
is "$(sql "SELECT b.started < (SELECT max(finished) FROM runs r JOIN commits c ON c.id = r.commit_id
	WHERE c.sha = '$ROOT') FROM builds b WHERE b.commit_id = $FIRST")" 1 \
	"the first step's kernel was built while the detector's extra runs of the base ran"
LOGS=$(cat "$DATA_DIR"/logs/work-*.log)
STEPLOGS=$(grep -l "^bisection 1: " "$DATA_DIR"/logs/work-*.log | xargs cat)
is "$(grep -c "kernel of .*: ok (cached)" <<<"$STEPLOGS")" "$NSTEPS" \
	"each step took its kernel from the cache"
like "$STEPLOGS" "simulated samples, kernels built" "the bisection says its kernels are built"
ok "a kernel the bisection did not need was built ahead or dropped" \
	test "$(sql "SELECT count(*) FROM work WHERE kind = 'build' AND bisection_id = 1
		AND commit_id NOT IN (SELECT commit_id FROM bisect_steps)")" -ge 1
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
