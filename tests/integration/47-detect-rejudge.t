#!/bin/bash
# Extra runs asked on any commit lead to a new judgement of the commit
# whose detection asked for them (daemon/worker.c, after_run_on). The
# pushed head (id 13) is at -20%; its neighbour (id 12) happened to run
# low, so the head's detection suspects the step at the neighbour and asks
# confirmation runs there. They come in at the old level: the neighbour's
# own detection refutes the suspicion. The step at the head must then be
# judged again and bisected, whether the neighbour's runs end after the
# head's (before the fix nothing judged the head again: 87-report-daemon.t
# waited in vain one fresh run in a few) or before them. Runs are real sim
# runs through `kreg work`, in an order the test forces.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/stored-lib.sh"
plan 18

# fixed commit dates: the same shas, so the same sim samples, every run
export GIT_AUTHOR_DATE="${T47_DATE:-2026-11-30T12:00:00Z}" GIT_COMMITTER_DATE="${T47_DATE:-2026-11-30T12:00:00Z}"
HEAD_ID=13
NEIGHBOUR=12
# the head is "commit 12": the sim host measures it at -20%, its
# neighbour (and everything before) at the base level
export STORED_TRAILER_12="Sim-Effect: fio.read_iops -20%"

lab() {
	rm -rf "$UP" "$DATA_DIR" "$SCRATCH/atoms"
	# ten flat commits, the neighbour's first runs low by chance, the head
	python3 - > line.txt <<'PY'
import random
random.seed(5)
print("")
for i in range(10):
    print("fio.read_iops " + " ".join("%.1f" % random.gauss(10000, 300) for _ in range(3)))
print("fio.read_iops " + " ".join("%.1f" % random.gauss(9000, 300) for _ in range(3)))
print("fio.read_iops " + " ".join("%.1f" % random.gauss(8000, 300) for _ in range(3)))
PY
	stored_lab 12 line.txt
	stored_atom
	detect_at $HEAD_ID
	like "$ERR" "suspected regression .* at $(sha_of $NEIGHBOUR | cut -c1-12)" \
		"the head's detection suspects the step at its neighbour"
	is "$(sql "SELECT count(*) FROM work WHERE kind = 'run' AND state = 'queued' AND
		commit_id = $NEIGHBOUR AND judge_commit_id = $HEAD_ID")" 3 \
		"and asks 3 runs of the neighbour, in the head's name"
}

# run_group ID: the queued run items of commit ID, oldest first
run_group() {
	local id
	for id in $(sql "SELECT id FROM work WHERE kind = 'run' AND state = 'queued' AND
		commit_id = $1 ORDER BY id"); do
		run_item "$id"
		[ "$RC" = 0 ] || echo "# run item $id: $ERR"
	done
}

# drain: every queued run and detection, oldest first, until none is left
drain() {
	local i id
	for i in $(seq 1 60); do
		id=$(sql "SELECT id FROM work WHERE kind IN ('run', 'detect') AND state = 'queued'
			ORDER BY id LIMIT 1")
		[ -n "$id" ] || return 0
		run_item "$id"
		[ "$RC" = 0 ] || echo "# item $id: $ERR"
	done
}

judged_head() {
	local n
	n=$(sql "SELECT count(*) FROM work WHERE kind = 'detect' AND commit_id = $HEAD_ID AND
		state = 'queued'")
	[ "$n" -ge 1 ]
}

not_judged_head() { ! judged_head; }

bisected_head() {
	is "$(sql "SELECT state FROM regressions WHERE bad_commit_id = $NEIGHBOUR")" "not_reproduced" \
		"$1: the neighbour's suspicion is refuted by its own runs"
	is "$(sql "SELECT state FROM regressions WHERE bad_commit_id = $HEAD_ID")" "bisecting" \
		"$1: the step at the head is confirmed and goes to bisection"
	is "$(sql "SELECT good_commit_id || '..' || bad_commit_id FROM bisections")" \
		"$NEIGHBOUR..$HEAD_ID" "$1: of (the neighbour, the head]"
}

# 1. The neighbour's runs end after the head's (the head has none open).
lab
run_group $NEIGHBOUR
is "$(sql "SELECT count(*) FROM work WHERE kind = 'detect' AND commit_id = $NEIGHBOUR AND
	state = 'queued'")" 1 "neighbour last: its runs over, the neighbour is judged"
ok "neighbour last: and the head is judged again" judged_head
drain
bisected_head "neighbour last"
no_sanitizer_report "neighbour last: no sanitizer report"

# 2. The head's runs end last: a planned run of the head still open when
# the neighbour's end; the head's own group judges it.
lab
sql "INSERT INTO work (kind, key, commit_id, job_id, host_id, seq, priority, created, updated)
	VALUES ('run', 'run:$HEAD_ID:1:1:0', $HEAD_ID, 1, 1, 0, 0, 0, 0)"
run_group $NEIGHBOUR
ok "head last: no judgement of the head while its run is open" not_judged_head
run_group $HEAD_ID
ok "head last: its run over, the head is judged" judged_head
drain
bisected_head "head last"
no_sanitizer_report "head last: no sanitizer report"
done_testing
