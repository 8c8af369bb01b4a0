#!/bin/bash
# kreg report escapes every string from a repository, a job or the
# configuration: a culprit whose subject carries <script>, quotes, & and
# bytes that are not UTF-8, by an author with quotes, & and such bytes, a
# job file with markup in a value, a site title with markup. The pages hold
# no script, stay valid HTML5 and UTF-8, show the text as text, and
# Chromium opens them with no dialog and no console error.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
command -v chromium >/dev/null || skip_all "chromium is not installed (make deps)"
plan 16

CULPRIT_SUBJECT=$(printf 'block: <script>alert("x")</script> & \377\376 "q" %s </pre><b>' "'s'")
CULPRIT_AUTHOR=$(printf 'Mal "Q" & %s \376\377' "'x'")
CULPRIT_ENCODING=ISO-8859-1
SITE_TITLE="'Lab <i>x</i> & \"q\"'"
JOB_EXTRA="comment: \"</pre><script>alert('job')</script> & <img src=x onerror=alert(1)>\""
make_lab "$SCRATCH/lab"
ok "the lab is filled" test -n "$CULPRIT"
is "$(sqlite3 "$LAB/data/kreg.db" "SELECT hex(subject) FROM commits WHERE sha = '$CULPRIT'" | grep -c FFFE)" 1 \
	"the culprit's subject is stored with its bytes that are not UTF-8"

run_kreg report -o "$SCRATCH/site"
is "$RC" 0 "kreg report"
no_sanitizer_report "no sanitizer report"
SITE=$SCRATCH/site
REG=$SITE/regression-b1.html

lab_check safe "$SITE"
is "$?:$CHECK_OUT" "0:checked $(ls "$SITE"/*.html | wc -l) pages" \
	"no page has a script element, an event attribute or a javascript: URL"
lab_check html5 "$SITE"
is "$?:$CHECK_OUT" "0:checked $(ls "$SITE"/*.html | wc -l) pages" "every page is UTF-8 and valid HTML5"
like "$(grep -F 'block: &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; ' "$REG")" "." \
	"the subject's markup, quotes and & are entities"
lab_check text "$REG"
like "$CHECK_OUT" "block: <script>alert\(\"x\"\)</script> & �� \"q\" 's' </pre><b>" \
	"and read as the text it is, the bytes that are not UTF-8 as U+FFFD"
like "$CHECK_OUT" "Mal \"Q\" & 'x' ��" "the author likewise"
like "$CHECK_OUT" "</pre><script>alert\('job'\)</script> & <img src=x onerror=alert\(1\)>" \
	"the job's value is shown as text in the atom's YAML"
lab_check text "$SITE/index.html"
like "$CHECK_OUT" "Lab <i>x</i> & \"q\"" "the configured site title is text too"
like "$(grep -c '<i>x</i>' "$SITE/index.html")" "^0$" "and never markup"
is "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["culprit"]["subject"])' \
	"$SITE/regressions.json")" "block: <script>alert(\"x\")</script> & ?? \"q\" 's' </pre><b>" \
	"regressions.json is valid JSON with the subject made printable"

printf '<!DOCTYPE html><title>t</title><h1>x</h1><script>alert(1)</script>\n' > "$SCRATCH/alert.html"
out=$(timeout 600 "$PY" "$KREG_SRC/tests/integration/report-browser.py" "$SCRATCH/shots" 375 \
	"$SCRATCH/alert.html" "$REG" "$SITE/commit-$CULPRIT.html" "$SITE/index.html" 2>&1)
is "$?" 0 "chromium opened the pages"
like "$out" "dialog: alert 1" "the negative control: a page that calls alert() is caught"
is "$(printf '%s\n' "$out" | grep -c ' 375 ok ')" 3 "no dialog, no console error on the regression, commit and index pages"
printf '%s\n' "$out" | grep -v '^alert.html\|alert 1' | sed 's/^/# /'
done_testing
