#!/bin/bash
# A range a bisection holds ends the level of every metric of its job and
# host (usecase/detect.c): the bisection's step commits are on the line,
# and a metric the bisection does not run on (a latency here) moved at its
# culprit. Judged again at the head against the old baseline, that
# move was suspected at the culprit, asked confirmation runs there and
# bisected over a range of its own, as the real-kernel demo did (72 runs,
# two bisections, for one change). Now the detection at the bisected head
# asks nothing, and a step after the range, at a newer head, is judged
# against the level after it and suspected. A latency bucket (a share in
# percent) that moves with it is never suspected on its own.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/stored-lib.sh"
plan 16

# commit c is id c + 1 (the root, c0, is 1). The base c0..c6 has 8 runs
# each; the push c7..c11 was bisected to c9 (steps at c9 and c8, 3 runs
# each; the head c11 12 runs); c12, pushed after, has 8.
#   fio.read_iops        -30% from c9 on: the bisected regression
#   fio.read_clat_mean_us  x3 from c9 on: nobody bisects it; +40% more at c12
#   fio.latency_4ms%       the same moves: a share, never suspected
python3 - > line.txt <<'PY'
import random
rnd = random.Random(46)
runs = {c: 8 for c in range(0, 7)}
runs.update({8: 3, 9: 3, 11: 12, 12: 8})
for c in range(13):
    n = runs.get(c, 0)
    iops = 10000 * (0.7 if c >= 9 else 1)
    lat = 2.0 * (3 if c >= 9 else 1) * (1.4 if c >= 12 else 1)
    print(';'.join(name + ''.join(' %.2f' % (v * (1 + noise * rnd.gauss(0, 1))) for _ in range(n))
                   for name, v, noise in (('fio.read_iops', iops, 0.01), ('fio.read_clat_mean_us', lat, 0.02),
                                              ('fio.latency_4ms%', lat, 0.02)))
          if n else '')
PY
stored_lab 12 line.txt
# the host draws the latency too: a change of it far beyond the noise is
# confirmed at once and bisected on it
sed -i 's|^      - { metric: fio.read_iops, base: 10000, noise: 4% }$|&\n      - { metric: fio.read_clat_mean_us, base: 2, noise: 2% }|' kreg.yaml
# the regression at the head c11, bisected to c9
sql "INSERT INTO regressions (id, repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
	culprit_commit_id, change, state, created, updated) VALUES (1, 1, 1, 1, 1, 8, 12, 10, -0.3, 'bisected', 0, 0);
     INSERT INTO bisections (id, regression_id, repo_id, job_id, host_id, metric_id, good_commit_id,
	bad_commit_id, state, culprit_commit_id, created, updated) VALUES (1, 1, 1, 1, 1, 1, 8, 12, 'found', 10, 0, 0);
     UPDATE regressions SET bisection_id = 1"
C12=$(sha_of 13)

detect_at 12
is "$RC" 0 "the detection at the bisected head"
unlike "$ERR" "fio.read_clat_mean_us: (suspected|.*more runs)" \
	"the latency's move at the culprit is not suspected again"
is "$(sql "SELECT count(*) FROM work WHERE kind = 'run'")" 0 "no runs are asked inside the bisected range"
is "$(sql "SELECT count(*) FROM regressions")" 1 "nothing new is suspected there"

# A detection at a commit inside the range (a run group there ending after
# the bisection started: a head pushed before the one that was bisected)
# judges nothing: the bisection places the steps there, and the commits it
# measured get no runs of the detector. Judged against the base before the
# range, the culprit c9 (3 runs at -30%, the bisection's) was suspected
# and asked confirmation runs, and c10 asked runs to place the step.
for at in 10 11; do
	detect_at $at
	is "$RC" 0 "the detection at commit id $at, inside the bisected range"
	like "$ERR" "fio.read_iops at [0-9a-f]{12}: none: inside the range bisection 1 holds" \
		"it says why it judges nothing there"
done
is "$(sql "SELECT count(*) FROM work WHERE kind = 'run'")" 0 \
	"the commits the bisection measured get no runs of the detector"
is "$(sql "SELECT count(*) FROM regressions")" 1 "and nothing is suspected there"

detect_at 13
is "$RC" 0 "the detection at a newer head"
like "$ERR" "detect: fio.read_clat_mean_us: suspected regression \+[34][0-9]\.[0-9]% at ${C12:0:12}" \
	"a step after the bisected range is suspected, at its commit"
unlike "$ERR" "fio.latency_4ms%: (suspected|.*more runs)" "the bucket's move is not suspected"
is "$(sql "SELECT count(*) FROM regressions r JOIN metrics m ON m.id = r.metric_id
	WHERE m.name LIKE 'fio.latency%'")" 0 "no regression of a bucket of its own"
no_sanitizer_report "no sanitizer report"
done_testing
