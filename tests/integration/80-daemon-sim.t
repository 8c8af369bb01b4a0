#!/bin/bash
# The daemon, untold, on a sim host: started on a repository, it sees each
# pushed head, tests it, and when a head brings a commit with a
# "Sim-Effect: fio.read_iops -20%" trailer, it detects the drop, confirms
# it with more runs, bisects it step by step to that commit, queues the
# report and the mail, and `kreg status` shows it. Nobody runs anything but
# `git commit` in the upstream repository.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
plan 41

ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(lab_yaml)
hosts:
  - name: simhost
    backend: sim
    seed: 7
    capacity: 2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 5% }
      - { metric: fio.write_iops, base: 8000, noise: 1% }
jobs:
  - file: job.yaml
    runs: 3
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 60 "the daemon tests the first head it sees (the baseline)" idle_at "$ROOT"
is "$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$ROOT' AND r.status = 'ok'")" 3 \
	"three runs of the baseline"

ok "the mirror of a repository on this machine starts with its objects hard-linked" \
	test -n "$(find "$DATA_DIR/repos/src.git/objects" -type f -links +1 | head -1)"

run_kreg daemon --once
like "$RC:$ERR" "^1:.*another kreg daemon \(pid $DPID\)" "a second daemon on the database says which pid holds it"

for i in 1 2 3; do
	SHA=$(up_commit $i)
	up_push
	wait_for 60 "head $i pushed: tested" idle_at "$SHA"
done
is "$(sql "SELECT count(*) FROM regressions")" 0 "no regression among heads without an effect"

# One push of eight commits; the fourth carries the effect.
for i in 6 7 8; do up_commit $i >/dev/null; done
CULPRIT=$(up_commit 9 "Sim-Effect: fio.read_iops -20%")
for i in 10 11 12 13; do HEAD=$(up_commit $i); done
up_push

bisected() { [ "$(sql "SELECT state FROM bisections WHERE id = 1")" = found ]; }
wait_for 180 "the daemon bisects the drop on its own" bisected
wait_for 60 "and goes idle" idle_at "$HEAD"

is "$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id WHERE b.id = 1")" \
	"$CULPRIT" "the culprit is the commit with the Sim-Effect trailer"
is "$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.bad_commit_id WHERE b.id = 1")" \
	"$HEAD" "the bisection's bad end is the pushed head"
is "$(sql "SELECT state FROM regressions r JOIN metrics m ON m.id = r.metric_id WHERE m.name = 'fio.read_iops'")" \
	"bisected" "the regression of fio.read_iops is bisected"
is "$(sql "SELECT count(*) FROM regressions r JOIN metrics m ON m.id = r.metric_id WHERE m.name = 'fio.write_iops'")" \
	0 "fio.write_iops, which did not move, has none"
ok "it was suspected first, then confirmed by extra runs (priority work)" \
	test "$(sql "SELECT count(*) FROM work WHERE kind = 'run' AND priority = 20")" -ge 3
is "$(sql "SELECT count(*) FROM work WHERE kind = 'bisect' AND state = 'done'")" \
	"$(sql "SELECT count(*) FROM work WHERE kind = 'bisect'")" "every bisect step was a work item of its own, all done"
is "$(sql "SELECT group_concat(kind || ':' || state, ' ') FROM (SELECT DISTINCT kind, state FROM work WHERE kind IN ('site', 'mail') ORDER BY kind)")" \
	"mail:done site:done" "the culprit queued the mail; results queued the site items"
is "$(sql "SELECT count(*) FROM work WHERE state != 'done'")" 0 "no work item failed"
is "$(sql "SELECT DISTINCT kernel FROM runs")" "sim" "runs.kernel says what each run ran on"
is "$(sql "SELECT count(*) FROM pushes")" 5 "five pushes recorded (the first head and four moves)"

run_kreg status
is "$RC" 0 "kreg status"
like "$OUT" "daemon: running \(pid $DPID\)" "status: the daemon and its pid"
like "$OUT" "main at ${HEAD:0:12}" "status: the repo's tested head"
like "$OUT" "bisected +fio.read_iops -[0-9.]+% at ${HEAD:0:12}" "status: the regression and its state"
like "$OUT" "culprit $CULPRIT" "status: the bisection's culprit"

run_kreg status --json
is "$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["regressions"][0]["bisection"]["culprit"], d["daemon"]["running"])')" \
	"$CULPRIT True" "status --json: valid JSON with the culprit"

# THE figure of the regression is the mail's and the page's: the
# culprit against its parent, in kreg status and kreg regression list.
run_kreg status
printf '%s\n' "$OUT" | sed 's/^/# /'
FIG=$(printf '%s\n' "$OUT" | sed -n 's/^  #[0-9]* bisected *fio.read_iops \([-+][0-9.]*%\) at .*/\1/p')
like "$FIG" "^-[0-9.]+%$" "status: the bisected regression's figure, with no label (the culprit against its parent)"
like "$(sql "SELECT subject FROM outbox WHERE kind = 'first'")" "fio.read_iops $FIG regression" "the mail's subject gives the same figure"
ok "and the regression page's heading" grep -q -- "<h1>.*$FIG" "$DATA_DIR/site/regression-r1.html"
run_kreg regression list
like "$OUT" "^1 +bisected +$FIG ${CULPRIT:0:12} fio.read_iops" "kreg regression list: the same figure"

# The smallest change each metric sees: kreg status says kreg changes'
# figures (usecase/changes.h), its noisiest metric, or each with --noise.
ATOM=job-4k-2s-randread-16m
run_kreg changes --job $ATOM --host simhost
RI=$(printf '%s\n' "$OUT" | awk '/^fio.read_iops:/ { m = 1 } /^fio.write_iops:/ { m = 0 } m && sub(/^  noise: /, "")')
WI=$(printf '%s\n' "$OUT" | awk '/^fio.write_iops:/ { m = 1 } /^fio.read_iops:/ { m = 0 } m && sub(/^  noise: /, "")')
like "$RI" "^±[0-9.]+% a run \([0-9]+ runs of the baseline\); smallest change seen: " "kreg changes: the noise of fio.read_iops"
run_kreg status --noise
ok "status --noise: fio.read_iops as kreg changes says it" grep -qxF "    fio.read_iops: $RI" <(printf '%s\n' "$OUT")
ok "and fio.write_iops" grep -qxF "    fio.write_iops: $WI" <(printf '%s\n' "$OUT")
like "$OUT" "^  src main: $ATOM on simhost$" "under the branch, the job and the host"
run_kreg status
ok "status: one line, the noisiest metric (fio.read_iops, 5% noise against 1%)" \
	grep -qxF "  src main: $ATOM on simhost, 2 metrics; fio.read_iops: $RI" <(printf '%s\n' "$OUT")
ok "the metric's trend page says the same" grep -qF "<p class=\"noise\">noise: $RI</p>" \
	$(grep -l "<h1>fio.read_iops</h1>" "$DATA_DIR"/site/trend-src-main-*.html)
run_kreg changes --json --job $ATOM --host simhost
CH_JSON=$OUT
run_kreg status --json
is "$(printf '%s' "$OUT" | python3 -c '
import json, sys
keys = ("rsd", "baseline_runs", "runs", "mde", "max_runs", "mde_max_runs", "runs_for_5pct")
ch = {m["metric"]: m["noise"] for m in json.loads(sys.argv[1])["metrics"]}
st = {n["metric"]: n for n in json.load(sys.stdin)["noise"] if n["host"] == "simhost" and n["branch"] == "main"}
r = lambda v: None if v is None else round(v, 4)
print(sorted(st) == sorted(ch), all(r(st[m][k]) == r(ch[m][k]) for m in ch for k in keys))' "$CH_JSON")" \
	"True True" "status --json: every metric's noise, smallest change seen and runs for 5% are kreg changes --json's"

daemon_stop
is "$DRC" 0 "SIGTERM stops the daemon, exit 0"
like "$(cat daemon.log)" "stopped" "and it says so"
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
run_kreg db check
is "$RC" 0 "kreg db check passes"
done_testing
