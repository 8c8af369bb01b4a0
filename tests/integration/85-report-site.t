#!/bin/bash
# kreg report: the lab's site from a database filled by kreg's own commands
# (sim hosts, runs along a branch, a bisection), opened in a real headless
# Chromium: every kind of page renders at 375 px and wide with no console
# error, no page scrolls sideways on a phone, no link is broken; then the
# site is brought up to date after one new result, rewriting only what
# changed, each page through a new file renamed over the old.
# Screenshots are kept in build/report-screenshots/.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
command -v chromium >/dev/null || skip_all "chromium is not installed (make deps)"
plan 90

make_lab "$SCRATCH/lab"
CULPRIT_PARENT=$(git -C "$LAB/src" rev-parse "$CULPRIT^")
ok "the lab is filled through kreg job run and kreg bisect start" test -n "$CULPRIT"
like "$(cat "$LAB/bisect.out")" "found: ${CULPRIT:0:12} is the first bad commit" \
	"the bisection found the commit with the effect"

run_kreg report --bogus
is "$RC" 2 "an unknown option is a usage error"
run_kreg report -o "$SCRATCH/site"
is "$RC" 0 "kreg report -o DIR"
like "$OUT" "site/index.html: [0-9]+ pages \([0-9]+ written\), 1 regressions" "it says what it wrote"
like "$ERR" "^report: reading the database" "a progress line per stage"
no_sanitizer_report "no sanitizer report"
SITE=$SCRATCH/site
REG=$SITE/regression-b1.html
TREND=$(ls "$SITE"/trend-src-main-*.html | head -1)
for f in index.html regression-b1.html "commit-$CULPRIT.html" host-simhost.html host-flaky.html \
	regressions.json style.css; do
	ok "the site has $f" test -s "$SITE/$f"
done
ok "and trend pages of the branch main" test -s "$TREND"
is "$(ls "$SITE"/commit-*.html | wc -l)" "$(sqlite3 "$LAB/data/kreg.db" \
	"SELECT count(DISTINCT commit_id) FROM runs")" "a page per tested commit"

# What a maintainer checks on the regression page.
lab_check text "$REG"
like "$CHECK_OUT" "block: reduce kblockd_mod_delayed_work_on\(\) CPU consumption" "the culprit's subject"
like "$CHECK_OUT" "$CULPRIT" "its full sha"
like "$CHECK_OUT" "Bart Demo <a16@example.org>" "its author"
like "$CHECK_OUT" "-[12][0-9]\.[0-9]% +[0-9]+( ± +[0-9]+%)? +-[12][0-9]\.[0-9]% .*fio.read_iops" \
	"the 0-day comparison table: culprit's parent, culprit and head"
like "$CHECK_OUT" "kreg bisect start --repo src --good $ROOT --bad $HEAD_SHA --job $ATOM --host simhost" \
	"how to reproduce it with kreg commands"
like "$CHECK_OUT" "verify-parent" "the bisection's steps"
like "$CHECK_OUT" "simulated samples" "sim samples are labelled as such"
like "$(cat "$REG")" "href=\"$COMMIT_URL_PREFIX$CULPRIT\"" "a link to the commit's web page from the URL template"
like "$CHECK_OUT" "$ATOM" "the atom"
like "$CHECK_OUT" "simhost" "the host"
like "$CHECK_OUT" "kernel config" "the kernel config"
is "$(grep -c '<g class="culprit"><title>the culprit</title>' "$REG"):$(grep -c '<g class="good"><title>the last good commit the bisection proved</title>.*>last good (bisection)</text>' "$REG"):$(grep -c '<g class="base"><title>the bisection’s good end</title>' "$REG")" \
	"1:1:1" "the trend around the culprit marks it, the last good commit the bisection proved and its good end"
like "$CHECK_OUT" "the culprit, the last good commit the bisection proved, the bisection’s good end" \
	"and its legend says which is which"
like "$CHECK_OUT" "last good \(bisection\)${CULPRIT_PARENT:0:12}" "the culprit's parent, proven good, is the last good commit"
like "$CHECK_OUT" "host ?simhost \(sim\)" "a sim host's CPUs are not made up (no \"0 CPUs\")"
# What the lab's people check on the index each morning.
lab_check text "$SITE/index.html"
like "$CHECK_OUT" "src:main" "the index: the branch"
like "$CHECK_OUT" "${HEAD_SHA:0:12}" "its tested head"
heads=$(sed -n '/<ul class="heads">/,/<\/ul>/p' "$SITE/index.html")
steps=$(sqlite3 "$LAB/data/kreg.db" "SELECT substr(c.sha, 1, 12) FROM bisect_steps s JOIN commits c ON c.id = s.commit_id WHERE s.role = 'step'")
is "$(for s in $steps; do printf '%s\n' "$heads" | grep -c "$s"; done | sort -u | tr '\n' ' ')" "0 " \
	"the recent tested heads are heads: no bisection step among them"
like "$CHECK_OUT" "bisected.*fio.read_iops" "the regression with its state"
like "$CHECK_OUT" "Queue" "the queue"
like "$CHECK_OUT" "flaky" "and the hosts"
is "$(grep -c '<g class="pt' "$TREND")" "$(git -C "$LAB/src" rev-list --first-parent main | wc -l)" \
	"the trend has one point per tested commit of the first-parent line"
like "$(grep -o '<g class="pt culprit"><title>[^<]*' "$TREND")" "${CULPRIT:0:12} block: reduce" \
	"the culprit is marked, its <title> naming sha and subject"
# The charts: the y axis says what and in what unit, x names commits,
# numbers are plain, a change point at the culprit is seen.
like "$(cat "$TREND")" '<text class="ytitle" [^>]*>fio.read_iops \(IOPS\)</text>' "the y axis's title: the metric and its unit"
like "$(grep -o '<text class="tick"[^<]*' "$TREND" | tr '\n' ' ')" '>[0-9.]+k ' "its figures with a k suffix"
ticks=$(grep -c '<text class="xtick[^>]*>[0-9a-f]\{7\}<tspan [^>]*>20[0-9-]\{8\}</tspan>' "$TREND")
ok "commit ticks on x, a short sha and a date each, thinned ($ticks)" test "$ticks" -ge 3 -a "$ticks" -le 7
ok "the newest commit is one of them" grep -q ">${HEAD_SHA:0:7}<tspan" "$TREND"
is "$(cat "$SITE"/*.html | grep -c '[0-9]e[-+][0-9]')" 0 "no number in an exponent form on any page"
cp_line=$(grep -o '<g class="cp"><title>change point at '"${CULPRIT:0:12}"'[^<]*</title><line x1="[0-9.]*" y1="[0-9]*"[^>]*/><text class="mark" [^>]*>change point</text>' "$TREND")
cul_line=$(grep -o '<g class="culprit"><title>culprit '"${CULPRIT:0:12}"'[^<]*</title><line x1="[0-9.]*" y1="[0-9]*"[^>]*/><text class="mark" [^>]*>culprit</text>' "$TREND")
x_of() { printf '%s' "$1" | sed -n 's/.*<line x1="\([0-9.]*\)" y1="\([0-9]*\)".*y="\([0-9]*\)">[a-z ]*<\/text>$/\1 \3/p'; }
ok "the trend marks the change point at the culprit and the culprit, each with its text" test -n "$cp_line" -a -n "$cul_line"
is "$(x_of "$cul_line" | cut -d' ' -f1) $(x_of "$cp_line" | cut -d' ' -f1)" "$(x_of "$cul_line" | cut -d' ' -f1) $(x_of "$cul_line" | cut -d' ' -f1)" \
	"at the same x"
ok "their texts on rows of their own" test "$(x_of "$cul_line" | cut -d' ' -f2)" != "$(x_of "$cp_line" | cut -d' ' -f2)"
like "$(awk '/<g class="culprit">/{c=NR} /<g class="cp">/{p=NR} END{print (c < p) ? "over" : "under"}' "$TREND")" over \
	"the change point is drawn over the culprit's line"
like "$(cat "$SITE/style.css")" 'g\.cp:not\(\.pt\) line\{stroke:var\(--warn\);stroke-dasharray' "dashed, in another colour than the culprit's"
lab_check text "$SITE/commit-$CULPRIT.html"
like "$CHECK_OUT" "fio.read_iops[0-9]{1,2},[0-9]{3}[0-9.]*[0-9]{1,2},[0-9]{3}[0-9.]*[0-9.]+%-[12][0-9]\.[0-9]%regression" \
	"the culprit's commit page: the metric against its baseline, a regression"
like "$(cat "$SITE/commit-$ROOT.html")" "href=\"$COMMIT_URL_PREFIX$ROOT\"" \
	"a commit's page links its web page from the repo's template"
lab_check text "$SITE/host-flaky.html"
like "$CHECK_OUT" "infra_failed" "the flaky host's page lists its infrastructure failures"
is "$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; print(r["culprit"]["sha"], r["state"], r["page"])' \
	"$SITE/regressions.json")" "$CULPRIT bisected regression-b1.html" "regressions.json names the culprit and the page"

# The smallest change a metric sees: the trend page says what kreg
# changes says (usecase/changes.h; kreg status too: 80-daemon-sim.t).
run_kreg changes --job "$ATOM" --host simhost --metric fio.read_iops --head "$HEAD_SHA"
NOISE=$(printf '%s\n' "$OUT" | sed -n 's/^  noise: //p')
like "$NOISE" "^±[0-9.]+% a run \([0-9]+ runs of the baseline\); smallest change seen: .* at [0-9]+ runs a commit, .* \(detect.max_runs\)" \
	"kreg changes: the noise of fio.read_iops and the smallest change seen"
RI_TREND=$(grep -l "<h1>fio.read_iops</h1>" "$SITE"/trend-src-main-*.html | head -1)
ok "its trend page on main says the same under the chart" grep -qF "<p class=\"noise\">noise: $NOISE</p>" "$RI_TREND"

lab_check links "$SITE" "$COMMIT_URL_PREFIX"
is "$?:$CHECK_OUT" "0:checked $(ls "$SITE"/*.html | wc -l) pages" "every link and stylesheet resolves to a file of the site"

# Chromium: one page of every kind, at a phone's width and a wide screen.
SHOTS=$KREG_SRC/build/report-screenshots
mkdir -p "$SHOTS"
printf '<!DOCTYPE html><html><head><title>bad</title></head><body><h1>x</h1><img src="missing.png">%s</body></html>\n' \
	'<script>console.error("boom")</script>' > "$SCRATCH/bad.html"
PAGES="$SITE/index.html $REG $TREND $SITE/commit-$CULPRIT.html $SITE/host-simhost.html"
for width in 375 1280; do
	out=$(timeout 600 "$PY" "$KREG_SRC/tests/integration/report-browser.py" "$SHOTS" "$width" \
		"$SCRATCH/bad.html" $PAGES 2>&1)
	is "$?" 0 "chromium ran at $width px"
	like "$out" "^bad.html $width FAIL .*errors=2" "at $width px a page with a console error and a missing image is caught"
	is "$(printf '%s\n' "$out" | grep -c " $width ok ")" 5 "every kind of page renders at $width px with no console error"
	[ "$width" = 375 ] && is "$(printf '%s\n' "$out" | grep " 375 ok " | grep -vc 'scroll=375 inner=375')" 0 \
		"no page is wider than a 375 px phone (tables and charts scroll in their own box)"
	printf '%s\n' "$out" | grep -v "^bad.html\|^#   error: .*missing.png\|boom" | sed 's/^/# /'
done
ok "the screenshots are kept" test -s "$SHOTS/regression-b1-1280.png" -a -s "$SHOTS/index-375.png"

# Incremental: nothing changed, nothing written.
ino() { stat -c %i "$1"; }
commit_page=$SITE/commit-$ROOT.html
before_commit=$(ino "$commit_page"); before_trend=$(ino "$TREND"); before_index=$(ino "$SITE/index.html")
run_kreg report -o "$SITE"
like "$OUT" "\(0 written\)" "a second run with no new result writes nothing"
# One new result: runs at the head of branch next (main and one commit).
"$KREG" job run "$LAB/atoms/$ATOM.yaml" --host simhost --runs 3 --repo src --commit "$NEXT_SHA" \
	>/dev/null 2>"$SCRATCH/next.err"
is "$?" 0 "kreg job run at the head of next"
run_kreg report -o "$SITE"
is "$RC" 0 "report after one new result"
written=$(printf '%s\n' "$OUT" | sed -n 's/.*(\([0-9]*\) written).*/\1/p')
ok "only the pages it changes are written ($written of $(ls "$SITE" | wc -l))" test "$written" -le 8 -a "$written" -ge 3
ok "the new commit has its page" test -s "$SITE/commit-$NEXT_SHA.html"
ok "and the branch next its trends" test -s "$(ls "$SITE"/trend-src-next-*.html | head -1)"
is "$(ino "$commit_page"):$(ino "$TREND")" "$before_commit:$before_trend" \
	"an old commit's page and main's trend are left alone (the same files)"
ok "the index is replaced by a new file (renamed over, never rewritten in place)" \
	test "$(ino "$SITE/index.html")" != "$before_index"
is "$(ls -A "$SITE" | grep -c '\.tmp')" 0 "no temporary file is left"
# What a killed run left: its old temporary goes, a running writer's young
# one and a file that is not the site's stay.
touch -d '2 hours ago' "$SITE/index.html.tmp.AbC123"
touch "$SITE/trend-x.html.tmp.XyZ789" "$SITE/notes.txt"
run_kreg report -o "$SITE"
is "$(cd "$SITE" && ls index.html.tmp.AbC123 trend-x.html.tmp.XyZ789 notes.txt 2>/dev/null | tr '\n' ' ')" \
	"notes.txt trend-x.html.tmp.XyZ789 " "a killed run's old temporary is removed, nothing else"
rm -f "$SITE/trend-x.html.tmp.XyZ789" "$SITE/notes.txt"

# The sample cache (.kreg-site-samples/): an update made from it makes the
# very pages a full read makes; a damaged file of it is read again.
like "$ERR" "report: samples: [1-9][0-9]* from the cache" "a later run takes its samples from the cache"
run_kreg report --force -o "$SCRATCH/full"
like "$ERR" "report: samples: 0 from the cache, [1-9][0-9]* read" "--force reads every sample from the database"
is "$(diff -r -x '.kreg-site-*' "$SITE" "$SCRATCH/full" >&2 && echo same)" same \
	"the pages made with the cache are those made from the database alone"
f=$(ls "$SITE"/.kreg-site-samples/* | head -1)
head -c 100 /dev/urandom > "$f"
run_kreg report -o "$SITE"
like "$RC $(printf '%s' "$ERR" | grep 'report: samples')" "^0 .*read from the database \(1 chunks" \
	"a damaged cache file is read again from the database, the others not"
rm -rf "$SCRATCH/full"
run_kreg report --force -o "$SCRATCH/full"
is "$(diff -r -x '.kreg-site-*' "$SITE" "$SCRATCH/full" >&2 && echo same)" same "and the pages are still right"

# The cache's directory replaced by a symbolic link to another directory:
# the link is replaced, nothing is written or removed where it pointed.
mkdir "$SCRATCH/elsewhere"
echo keep > "$SCRATCH/elsewhere/precious"
rm -rf "$SITE/.kreg-site-samples"
ln -s "$SCRATCH/elsewhere" "$SITE/.kreg-site-samples"
run_kreg report -o "$SITE"
is "$RC:$(ls "$SCRATCH/elsewhere" | tr '\n' ' ')" "0:precious " \
	"a symlinked .kreg-site-samples: nothing written or pruned where it points"
ok "the link is replaced by a directory of the cache" \
	test ! -L "$SITE/.kreg-site-samples" -a -d "$SITE/.kreg-site-samples" -a -n "$(ls "$SITE/.kreg-site-samples")"

# One regression per culprit: regressions rows sharing the bisection's
# culprit (read_iops, the metric it ran on, write_iops with a bigger
# change, a latency), one on another host, and one without a culprit.
mkdir "$SCRATCH/gdata"
cp "$LAB/data/kreg.db" "$SCRATCH/gdata/"
sed "s|^data_dir: .*|data_dir: $SCRATCH/gdata|" "$LAB/kreg.yaml" > "$SCRATCH/group.yaml"
sqlite3 "$SCRATCH/gdata/kreg.db" "INSERT INTO metrics (name) VALUES ('fio.read_clat_mean_ns');
INSERT INTO regressions (repo_id, job_id, host_id, metric_id, base_commit_id, bad_commit_id,
  culprit_commit_id, change, base_mean, bad_mean, state, created, updated, bisection_id)
  SELECT b.repo_id, b.job_id, CASE WHEN x.host = 'flaky' THEN (SELECT id FROM hosts WHERE name = 'flaky')
  ELSE b.host_id END, m.id, b.good_commit_id, b.bad_commit_id,
  CASE WHEN x.culprit THEN b.culprit_commit_id END, x.change, 10000, 10000 * (1 + x.change),
  CASE WHEN x.culprit THEN 'bisected' ELSE 'confirmed' END, x.t, x.t, CASE WHEN x.culprit THEN b.id END
  FROM bisections b, metrics m, (SELECT 'fio.write_iops' AS metric, -0.35 AS change, 1 AS culprit, 'simhost' AS host, 5 AS t
  UNION ALL SELECT 'fio.read_iops', -0.2, 1, 'simhost', 4 UNION ALL SELECT 'fio.read_clat_mean_ns', 0.25, 1, 'simhost', 3
  UNION ALL SELECT 'fio.read_iops', -0.2, 1, 'flaky', 2 UNION ALL SELECT 'fio.read_clat_mean_ns', 0.1, 0, 'flaky', 1) x
  WHERE m.name = x.metric;
UPDATE bisections SET regression_id = (SELECT r.id FROM regressions r JOIN metrics m ON m.id = r.metric_id
  JOIN hosts h ON h.id = r.host_id WHERE m.name = 'fio.read_iops' AND h.name = 'simhost')"
KREG_CONFIG=$SCRATCH/group.yaml run_kreg report -o "$SCRATCH/gsite"
is "$RC" 0 "a site of regressions sharing a culprit"
rows=$(sed -n '/<h2 id="regressions">/,/<\/table>/p' "$SCRATCH/gsite/index.html" | grep '^<tr><td>')
is "$(printf '%s\n' "$rows" | wc -l)" 3 "the index: one row per culprit, job and host (and one without a culprit)"
like "$(printf '%s\n' "$rows" | head -1)" '>fio.read_iops</a><details class="others"><summary>2 more metrics, the same culprit</summary><ul class="others"><li><a href="regression-r[0-9]+.html">fio.write_iops</a> [-+][0-9.]+% .*<li><a href="regression-r[0-9]+.html">fio.read_clat_mean_ns</a> \+25.0%' \
	"its lead is the metric the bisection ran on, the others listed under it, collapsed"
like "$(printf '%s\n' "$rows" | sed -n 2p)" 'host-flaky.html.*'"${CULPRIT:0:12}" "the same culprit on another host is a row of its own"
ok "a regression without a culprit too" test "$(printf '%s\n' "$rows" | sed -n 3p | grep -c 'fio.read_clat_mean_ns.*confirmed\|confirmed.*fio.read_clat_mean_ns')" = 1
is "$("$PY" -c 'import json,sys
r=json.load(open(sys.argv[1]))
lead=[x for x in r if x["lead"] and x.get("group_metrics")]
print(len(r), len(lead), lead[0]["metric"], [m["metric"] for m in lead[0]["group_metrics"]],
      sorted(set(x["group"] == lead[0]["page"] for x in r if x["host"] == "simhost")),
      [x["group"] for x in r if x["culprit"] is None])' "$SCRATCH/gsite/regressions.json")" \
	"5 1 fio.read_iops ['fio.write_iops', 'fio.read_clat_mean_ns'] [True] [None]" \
	"regressions.json: every regression still, the lead with the others' metrics, each naming its group"
lab_check text "$(ls "$SCRATCH"/gsite/regression-r*.html | head -1)"
like "$CHECK_OUT" "^last good \(bisection\)${CULPRIT_PARENT:0:12}" "a regression's page: the last good commit the bisection proved"
like "$CHECK_OUT" "^detector’s base${ROOT:0:12}" "and the detector's base apart"

# Only a configuration and a database: no mirror, no site directory yet.
mv "$LAB/data/repos" "$SCRATCH/repos.away"
run_kreg report
is "$RC:$(test -s "$LAB/data/site/index.html" && echo yes)" "0:yes" \
	"without the repo's mirror, into <data_dir>/site by default"
done_testing
