#!/bin/bash
# A step at the newest commit on a flat level is a step, not a drift
# (usecase/detect.c). The samples are those of a failed 81-daemon-kill.t
# campaign: ten commits at ~10,000 read IOPS (4% noise, 8 runs each), then
# the pushed head at -15.6% (8 runs and its 3 confirmation runs), three
# untested commits between them. The step's commit has no commit with runs
# after it, so the whole line's segmentation cannot make it a segment of
# its own and bent a -8% drift over the 14 commits round it: the drift
# guard took the step for a creep and marked the suspicion not reproduced,
# and nothing was bisected. The confirming detection must confirm it and
# queue the bisection of (the last flat commit, the head].
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/stored-lib.sh"
plan 7

# the read IOPS of the runs of each commit, root first: commits 11.1-11.3
# (ids 12-14) untested, the head (id 15) the pushed one
cat > line.txt <<'LINE'

fio.read_iops 10177.0 10179.2 10186.9 9089.8 10165.5 9748.9 9881.0 9860.5
fio.read_iops 10079.8 10108.1 9471.8 10623.2 10005.4 9894.1 9709.5 9905.8
fio.read_iops 9524.8 10125.0 10148.2 10294.2 10109.7 9773.3 9961.2 9455.1
fio.read_iops 10238.7 10041.8 9608.6 10245.6 10436.7 10569.9 10273.1 9727.3
fio.read_iops 9739.1 9863.3 10162.0 9795.9 9450.9 10748.8 10027.4 9456.9
fio.read_iops 9809.1 9662.1 9758.2 10351.8 10044.6 10491.0 9521.5 10186.7
fio.read_iops 10028.9 10323.2 10750.3 9903.6 10088.2 10443.0 9874.3 10622.7
fio.read_iops 9835.8 9528.6 10252.8 9636.4 10279.3 9737.6 10305.0 11102.3
fio.read_iops 9564.2 9589.5 9984.1 9684.8 9759.0 10486.3 9233.8 9981.0
fio.read_iops 10092.2 9214.5 10410.1 10298.1 10039.2 10498.5 10230.5 9691.1



fio.read_iops 8545.5 8874.0 8300.9 8480.9 8353.3 8794.1 8455.4 8404.7 8748.7 8937.3 8343.2
LINE
stored_lab 14 line.txt
HEAD_ID=15
LAST_FLAT=11

# the suspicion the first detection stored; its confirmation runs are in
sql "INSERT INTO regressions (job_id, host_id, metric_id, base_commit_id, bad_commit_id, change,
	state, created, updated) VALUES (1, 1, 1, $LAST_FLAT, $HEAD_ID, -0.156, 'suspected', 0, 0)"
detect_at $HEAD_ID
is "$RC" 0 "the confirming detection at the head"
unlike "$ERR" "a drift, not a step" "the step is not taken for a drift"
like "$ERR" "detect: fio.read_iops: confirmed regression -1[45]\.[0-9]% at $(sha_of $HEAD_ID | cut -c1-12)" \
	"the -15% step is confirmed at the head"
is "$(sql "SELECT state FROM regressions")" "bisecting" "and its regression goes to bisection"
is "$(sql "SELECT good_commit_id || '..' || bad_commit_id FROM bisections")" "$LAST_FLAT..$HEAD_ID" \
	"of the untested commits between the last flat commit and the head"
no_sanitizer_report "no sanitizer report"
done_testing
