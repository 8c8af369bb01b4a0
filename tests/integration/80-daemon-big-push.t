#!/bin/bash
# A push of more than 20,000 commits: 100,000 commits in a line (made with
# git fast-import) and a head on them that costs fio.read_iops 25%. Every
# commit of the push is recorded (in batches, each its own transaction,
# said in the log), the head stays on the line of its baseline, and the
# daemon finds the drop at the head, where it used to record 20,000 of
# them and wait forever without a word.
#
# Runs the optimised kreg when it is there: what is slow here is libgit2
# and SQLite on 100,000 commits, which the other daemon tests run under
# the sanitizers on few.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
[ -x "${KREG_RELEASE:-}" ] && KREG=$KREG_RELEASE
plan 8

N=100000
ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(sim_lab_yaml 9 3 2% 3)
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 120 "the first head is tested (the baseline)" idle_at "$ROOT"
for i in 1 2; do
	SHA=$(up_commit $i)
	up_push
	wait_for 120 "head $i tested" idle_at "$SHA"
done

# N commits in a line on dev, each with the tree of the one before
awk -v n=$N -v from="$SHA" 'BEGIN {
	for (i = 1; i <= n; i++) {
		printf "commit refs/heads/dev\ncommitter T <t@example.org> %d +0000\n", 1700000000 + i
		m = "bulk " i
		printf "data %d\n%s\n", length(m), m
		if (i == 1)
			printf "from %s\n", from
		printf "\n"
	}
}' | git -C "$UP" fast-import --quiet
git -C "$UP" checkout -q -f dev
HEAD=$(up_commit big "Sim-Effect: fio.read_iops -25%")
is "$(git -C "$UP" rev-list --count "$SHA..$HEAD")" $((N + 1)) "a push of $((N + 1)) commits"
up_push

recorded() { [ "$(sql "SELECT count(*) FROM commits")" -ge $((N + 4)) ]; }
wait_for 600 "every commit of the push is recorded" recorded
like "$(cat daemon.log "$DATA_DIR"/logs/poll-*.log)" "main: a push of $((N + 1)) commits, all recorded" \
	"the log says how many"
found() { [ "$(sql "SELECT count(*) FROM regressions g JOIN commits c ON c.id = g.bad_commit_id WHERE c.sha = '$HEAD'")" -ge 1 ]; }
wait_for 600 "the drop is found at the head, against the baseline below the push" found
is "$(sql "SELECT g.change BETWEEN -0.3 AND -0.2 FROM regressions g JOIN commits c ON c.id = g.bad_commit_id WHERE c.sha = '$HEAD'")" \
	1 "a change of about -25%"
daemon_stop
done_testing
