#!/bin/bash
# The daemon writes the lab's site: left alone on a sim host, it tests the
# pushed heads, bisects a drop to the commit with the Sim-Effect trailer,
# and after every result (a run, a detection, a bisect step, the mail)
# queues its `site` work item, coalesced, which generates the site into
# the configured web.output (the same generation as `kreg report`). Nobody
# runs `kreg report`: the pages a maintainer opens are there, valid HTML5,
# with no broken link, naming the culprit, and a head pushed afterwards is
# on them too.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
"$PY" -c 'import html5lib' 2>/dev/null || skip_all "python3-html5lib is not installed (make deps)"
plan 25

WEB=$SCRATCH/www/lab
ROOT=$(up_init)
write_atom job.yaml
cat > kreg.yaml <<YAML
$(lab_yaml)
    commit_url: https://git.example.org/src/commit/%s
hosts:
  - name: simhost
    backend: sim
    seed: 7
    capacity: 2
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 5% }
      - { metric: fio.write_iops, base: 8000, noise: 3% }
jobs:
  - file: job.yaml
    runs: 3
web:
  output: $WEB
  title: The daemon's lab
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"

daemon_start
wait_for 300 "the daemon tests the first head it sees" idle_at "$ROOT"

# A history of heads without an effect (the detector's window), then
# one push of seven commits, the fourth with the effect (as 80 does).
for i in 1 2 3; do
	SHA=$(up_commit $i)
	up_push
	wait_for 300 "head $i pushed: tested" idle_at "$SHA"
done
for i in 4 5 6; do up_commit $i >/dev/null; done
CULPRIT=$(up_commit 7 "Sim-Effect: fio.read_iops -20%")
for i in 8 9 10; do HEAD=$(up_commit $i); done
up_push

bisected() { [ "$(sql "SELECT state FROM bisections WHERE id = 1")" = found ]; }
wait_for 600 "the daemon bisects the drop on its own" bisected
wait_for 300 "and it goes idle" idle_at "$HEAD"
# One more result after all that: an ordinary head, no regression, no
# bisection; its site item (queued by the run) puts it on the site.
NEXT=$(up_commit 11)
up_push
wait_for 300 "the next head is tested and the queue is empty" idle_at "$NEXT"
daemon_stop
is "$DRC" 0 "the daemon stops"

is "$(sql "SELECT count(*) FROM work WHERE kind = 'site' AND (state != 'done' OR error IS NOT NULL)") \
$(sql "SELECT count(*) > 0 FROM work WHERE kind = 'site'")" "0 1" \
	"the site items did their work (no error, no no-op note)"
ok "the head pushed after the bisection has its commit page, from a site item nobody asked for" \
	test -s "$WEB/commit-$NEXT.html"
lab_check text "$WEB/index.html"
like "$CHECK_OUT" "${NEXT:0:12}" "and the index shows it as the branch's head"
# Coalesced: every run, detection, bisect step and mail asked for the
# site; results close together got one item (db/work.h; how many depends
# on the machine's pace: tests/unit/test_work_report.c checks the rule).
RESULTS=$(sql "SELECT count(*) FROM work WHERE kind IN ('run', 'detect', 'bisect', 'mail')")
REPORTS=$(sql "SELECT count(*) FROM work WHERE kind = 'site'")
echo "# $RESULTS results, $REPORTS site items"
ok "results coalesced: $REPORTS site items for $RESULTS results" test "$REPORTS" -lt "$RESULTS"
like "$(cat "$SCRATCH/daemon.log" "$DATA_DIR"/logs/*.log 2>/dev/null)" \
	"site $WEB: [0-9]+ pages, [0-9]+ written" "the worker says where the site went"
REG=$WEB/regression-r1.html
ok "the site is in web.output, with the regression's page" test -s "$WEB/index.html" -a -s "$REG"
ok "the culprit's commit page and a trend of main" \
	test -s "$WEB/commit-$CULPRIT.html" -a -n "$(ls "$WEB"/trend-src-main-*.html 2>/dev/null)"
lab_check text "$REG"
like "$CHECK_OUT" "commit 7" "the regression page names the culprit's subject"
like "$CHECK_OUT" "$CULPRIT" "and its sha"
like "$(cat "$REG")" "href=\"https://git.example.org/src/commit/$CULPRIT\"" "with a link to its web page"
ok "the site item wrote the materials to reproduce it beside its page" \
	test -s "$WEB/reproduce-r1/reproduce.sh" -a -s "$WEB/reproduce-r1/job.yaml"
like "$(cat "$WEB/reproduce-r1/reproduce.sh")" "^# culprit: $CULPRIT commit 7" "reproduce.sh is the culprit's"
lab_check text "$WEB/index.html"
like "$CHECK_OUT" "The daemon's lab" "the index carries the configured title"
is "$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; print(r["culprit"]["sha"], r["metric"])' \
	"$WEB/regressions.json")" "$CULPRIT fio.read_iops" "regressions.json names the culprit"
n=$(ls "$WEB"/*.html | wc -l)
lab_check html5 "$WEB"
is "$?:$CHECK_OUT" "0:checked $n pages" "every page the daemon wrote is valid HTML5"
lab_check links "$WEB" https://git.example.org/src/commit/
is "$?:$CHECK_OUT" "0:checked $n pages" "and no link is broken"
no_sanitizer_in_logs "no sanitizer report from the daemon or its workers"
done_testing
