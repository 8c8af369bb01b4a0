#!/bin/bash
# `kreg demo` on real kernels, end to end: an upstream repository of
# linux-source 6.1 gets demo/series.sh's 20 commits; kreg daemon, untold,
# builds and boots them in qemu, runs fio, detects the block-layer
# regression, confirms it, bisects it (skipping the commit that does not
# build), writes the pages and mails the report to an SMTP server on
# loopback; then the maintainer tries the culprit's revert as a patch
# with kreg try (the three-column table, the verdict; a patch written on
# master's head does not apply on the culprit), pushes it, and the daemon,
# untold, tries it against the regression and closes it with a follow-up
# in the report's thread. The test checks what a kernel developer would:
# the culprit, the skipped commit, the mail's subject and recipients, the
# regression's page, the fix tried and the follow-up. The base is the kernel tests' fixture (the same commit), so its
# kernel comes from the suite's shared build cache.
# suite: lane kernel-demo
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"

command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64"
command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || skip_all "python3-aiosmtpd is not installed (make deps)"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
plan 37

series() { bash "$KREG_SRC/demo/series.sh" --list | sed -n "$1p"; }
CULPRIT_SUBJECT=$(series 14)
BROKEN_SUBJECT=$(series 10)
D="$SCRATCH/demo"

# the checkout and object directories 51-kernel.t built the base in
# (5x-kernel.sh): the head is an incremental build
DEMO_BASE=$KERNEL_GIT DEMO_BUILD_DIR=$KERNEL_BUILD_DIR run_kreg demo --dir "$D"
printf '%s\n' "$OUT" > demo.out
is "$RC" 0 "kreg demo exits 0"
[ "$RC" = 0 ] || { tail -40 demo.out | sed 's/^/# /'; tail -20 "$D/daemon.log" | sed 's/^/# log: /'; }

sql() { sqlite3 -cmd ".timeout 10000" "$D/data/kreg.db" "$1"; }
CULPRIT=$(git -C "$D/upstream" log --format='%H %s' demo-base..series | awk -v s="$CULPRIT_SUBJECT" 'substr($0, 42) == s { print $1 }')
BROKEN=$(git -C "$D/upstream" log --format='%H %s' demo-base..series | awk -v s="$BROKEN_SUBJECT" 'substr($0, 42) == s { print $1 }')
HEAD=$(git -C "$D/upstream" rev-parse series)

like "$OUT" "First bad commit: $CULPRIT" "the demo names the injected commit as the first bad commit"
like "$OUT" "The bisection's search took [0-9:]+; its builds took [0-9:]+ and its runs [0-9:]+ of their own: [0-9]+% of their sum" \
	"it states the bisection's time against its builds' and runs' own"
like "$OUT" "the series' injected regression: the daemon found it" "and says it is the injected one"
is "$(sql "SELECT DISTINCT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id")" "$CULPRIT" \
	"the daemon's bisection found it"
is "$(sql "SELECT group_concat(c.sha) FROM bisect_steps s JOIN commits c ON c.id = s.commit_id WHERE s.verdict = 'skip'")" \
	"$BROKEN" "the commit that does not build was skipped, and only it"
like "$OUT" "skipped ${BROKEN:0:7}[0-9a-f]* $BROKEN_SUBJECT" "the summary names the skipped commit"
is "$(sql "SELECT count(*) FROM builds WHERE status = 'failed'")" 1 "its build failed, once"
is "$(sql "SELECT count(*) FROM pushes")" 3 "the daemon saw three heads: the base, the pushed series, the revert"
is "$(sql "SELECT count(*) FROM work WHERE state NOT IN ('done')")" 0 "every work item the daemon made is done"
is "$(sql "SELECT count(*) FROM runs WHERE kernel IS NULL OR kernel NOT LIKE '6.1.%'")" 0 \
	"runs.kernel names the kernel each run booted (linux 6.1)"

# The mail, as the SMTP server on loopback took it.
ENV="$D/mail/1.env"
ok "the SMTP server received the report" test -s "$D/mail/1.eml"
is "$(grep -L '^In-Reply-To:' "$D"/mail/*.eml 2>/dev/null | wc -l)" 1 \
	"one report for the culprit, not one per metric that moved (the other mails are follow-ups)"
# (the metric the subject names is the one whose bisection found the
# culprit first: a throughput's drop or a latency's rise, as the guest's
# noise decides; the others ride on that bisection, in the table)
like "$(sed -n '/^Subject:/,/^[A-Z][-A-Za-z]*:/p' "$D/mail/1.eml" 2>/dev/null | sed '$d' | tr -d '\r\n')" \
	"^Subject: \[linux:master\] \[block\] ${CULPRIT:0:10}: fio\.(read|write)_(iops -[0-9.]+%|bw_MBps -[0-9.]+%|clat_mean_ns \+[0-9.]+%) ?regression$" \
	"the subject names the culprit and what it costs"
like "$(cat "$D/mail/1.eml" 2>/dev/null)" "fio\.read_iops" "its table has the read IOPS row"
like "$(tail -n +2 "$ENV" 2>/dev/null | sort | tr '\n' ' ')" \
	"axboe@kernel.dk.*bart@example.org.*lab@example.org.*linux-block@vger.kernel.org" \
	"recipients: the culprit's author, the block layer's maintainer and list (MAINTAINERS), the lab"
like "$(cat "$D/mail/1.eml" 2>/dev/null)" "$CULPRIT_SUBJECT" "the mail names the culprit's subject"

# The regression's page.
REG=$(ls "$D"/site/regression-*.html 2>/dev/null | head -1)
ok "the site has the regression's page" test -n "$REG" -a -s "$D/site/index.html"
like "$(cat "$REG" 2>/dev/null)" "${CULPRIT:0:12}" "the page names the culprit"
like "$(cat "$REG" 2>/dev/null)" "<svg" "and draws it"

# The fix: the culprit's revert, pushed after the report.
REVERT=$(git -C "$D/upstream" rev-parse master)
like "$(git -C "$D/upstream" log -1 --format=%B "$REVERT")" "This reverts commit $CULPRIT" "master's head is the culprit's revert"
is "$(sql "SELECT t.source || ' ' || t.verdict FROM tries t JOIN commits c ON c.id = t.fix_commit_id
	WHERE c.sha = '$REVERT' ORDER BY t.id LIMIT 1")" "revert fixed" "the daemon tried the revert, untold: fixed"
is "$(sql "SELECT count(*) FROM regressions WHERE culprit_commit_id = (SELECT id FROM commits WHERE sha = '$CULPRIT')
	AND state != 'fixed'")" 0 "every regression of the culprit is closed as fixed"
like "$OUT" "Fixed by: $REVERT" "the demo's summary names the fix"
# The level back at the revert is the fix its try measured: the detector's
# rise of read IOPS there is that fix, with no runs asked for it (a metric
# no try closed, fio.workload, still asks its own).
like "$(cat "$D"/data/logs/*.log 2>/dev/null | grep "^detect: fio\.read_iops: .*${REVERT:0:12}")" \
	"^detect: fio\.read_iops: \+[0-9.]+% at ${REVERT:0:12}(,| is) the fix of regression [0-9]+,? tried (at ${REVERT:0:12}: no confirmation runs|there: no more runs)\$" \
	"the detector's rise of read IOPS at the revert is the tried fix: no runs asked for it"
FIXMAIL=$(grep -l "${REVERT:0:12}" $(grep -l '^In-Reply-To:' "$D"/mail/*.eml 2>/dev/null) /dev/null 2>/dev/null | head -1)
ok "a follow-up names the revert and its verdict" grep -q "fixed" "$FIXMAIL"
is "$(sed -n 's/^In-Reply-To: *//p' "$FIXMAIL" 2>/dev/null | tr -d '\r')" \
	"$(sed -n 's/^Message-I[Dd]: *//p' "$D/mail/1.eml" 2>/dev/null | tr -d '\r')" \
	"in the report's thread"

# The fix tried by hand before the push: kreg try --patch on the culprit.
GOOD=$(git -C "$D/upstream" rev-parse "$CULPRIT^")
like "$OUT" "stale\.patch: the patch does not apply on culprit ${CULPRIT:0:12}" \
	"kreg try of a patch written on master's head: it does not apply on the culprit, said so"
is "$(sql "SELECT count(*) FROM tries WHERE source = 'patch' AND verdict = 'no_apply'")" 1 \
	"and stored as such"
like "$OUT" "^ *${GOOD:0:16} +${CULPRIT:0:16}[0-9a-f]* +[0-9a-f]{16}" \
	"kreg try --patch fix.patch prints the table's head: last good, culprit, culprit plus fix"
like "$OUT" "^ +[0-9.]+ .* -[0-9.]+%.* [0-9.]+ .*fio\.read_iops" "with the read IOPS row: the culprit's drop, then the fix"
like "$OUT" "^ *regression [0-9]+: fixed by [0-9a-f]{12}$" "and the verdict: fixed"
PATCHED=$(sql "SELECT c.sha FROM tries t JOIN commits c ON c.id = t.fix_commit_id
	WHERE t.source = 'patch' AND t.verdict = 'fixed'")
is "$(git -C "$D/data/repos/linux.git" rev-parse "$PATCHED^" 2>/dev/null)" "$CULPRIT" "the patch was applied on the culprit"
is "$(sql "SELECT count(*) || ' ' || group_concat(DISTINCT g.sha) FROM runs r
	JOIN commits c ON c.id = r.commit_id JOIN builds b ON b.id = r.build_id
	JOIN commits g ON g.id = b.commit_id WHERE c.sha = '$PATCHED' AND r.status = 'ok'" | sed -E 's/^([3-9]|10) /N /')" \
	"N $GOOD" "its 3 runs or more booted the last good's kernel (the same tree): taken from the build cache, nothing compiled"
like "$OUT" "tried by hand before the push \(kreg try --patch fix.patch\): fixed [0-9]+%" "the summary says so"

ok "no qemu of this demo is left behind" bash -c "! pgrep -f '$D/[v]m.img' >/dev/null"
ERR=$(cat "$D/daemon.log" "$D"/data/logs/*.log 2>/dev/null)
no_sanitizer_report "no sanitizer report from the daemon or its workers"
done_testing
