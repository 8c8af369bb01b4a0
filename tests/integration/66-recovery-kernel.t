#!/bin/bash
# The daemon bisects a recovery on real kernels (issue 25): an upstream
# repository made from the kernel fixture, a qemu host (TCG, 1 CPU, 1G)
# running the demo's fio job (4k O_DIRECT random read/write on the test
# disk, 3 s), an SMTP server on loopback. The series: master, then two
# innocent commits around the culprit (a commit with the tree of branch
# fxmark-kblockd: kblockd's delayed work waits at least one tick, read
# IOPS about -96% under qemu); the daemon detects, bisects and reports it
# (one regression row a fio metric that moved). Then two innocent commits
# around a "rework" whose tree is master's again (the change undone by
# hand, its message saying nothing of the culprit: no revert, no Fixes:):
# the daemon, untold, bisects the recovery once for all the culprit's
# rows, names the rework, tries it as the fix of each row, marks those it
# brings back fixed and answers in the report's thread. No kernel is
# built but from the cache: every commit's tree is master's (the base
# kernel) or fxmark-kblockd's (5x-kernel.sh; built incrementally in the
# suite's build.dir when the cache does not have it). Fixed commit dates.
# A lane of its own, started with the others: its first build waits on
# build.dir's lock while 51 (or 58) makes the base's clean build, then
# takes it from the cache.
# suite: lane kernel-recovery
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"
. "$KREG_SRC/tests/integration/daemon-lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"

command -v qemu-system-x86_64 >/dev/null || skip_all "no qemu-system-x86_64"
command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
trap 'smtp_stop; _daemon_cleanup' EXIT
plan 26

T0=$(date +%s)
SMTP_PORT=$(smtp_free_port)
smtp_start "$SCRATCH/smtp" || exit 1
mails() { ls "$SCRATCH"/smtp/*.eml 2>/dev/null | wc -l; }

# The upstream: the fixture's objects shared, no checkout (the commits
# are made from trees with git commit-tree); main is what the daemon
# watches, dev where the series grows.
git clone -q --shared --no-checkout -b master "$KERNEL_GIT" "$UP"
git -C "$UP" branch -q main master
git -C "$UP" branch -q dev master
BASE_TREE=$(git -C "$KERNEL_GIT" rev-parse "master^{tree}")
KBLOCKD_TREE=$(git -C "$KERNEL_GIT" rev-parse "fxmark-kblockd^{tree}")
N=0
# commit TREE AUTHOR SUBJECT: a child of dev's head with that tree, its
# dates fixed; dev moves to it; $LAST is its sha
commit() {
	N=$((N + 1))
	LAST=$(GIT_AUTHOR_NAME="${2% <*}" GIT_AUTHOR_EMAIL="$(sed 's/.*<\(.*\)>/\1/' <<<"$2")" \
		GIT_COMMITTER_NAME="kreg test" GIT_COMMITTER_EMAIL="kreg@example.org" \
		GIT_AUTHOR_DATE="@$((1767312000 + N * 60)) +0000" \
		GIT_COMMITTER_DATE="@$((1767312000 + N * 60)) +0000" \
		git -C "$UP" commit-tree "$1" -p "$(git -C "$UP" rev-parse dev)" -m "$3") &&
		git -C "$UP" update-ref refs/heads/dev "$LAST"
}
INNOCENT=("block: document when blk_queue_enter() may sleep"
	"blk-mq: note the ordering rules of blk_mq_run_hw_queue()"
	"block: bio: document what bio_add_page() returns on a full bio"
	"ext4: comment the writepages entry for delalloc"
	"mm: filemap: say when filemap_readahead() is called"
	"virtio_blk: document the probe order")
I=0
# innocent: the next subject of INNOCENT, a commit that changes nothing
innocent() {
	commit "$(git -C "$UP" rev-parse "dev^{tree}")" "Ada Lindqvist <ada@example.org>" "${INNOCENT[I]}"
	I=$((I + 1))
}
# push TREE AUTHOR SUBJECT: an innocent commit, the one of TREE ($SHA),
# two innocent ones (the last $TOP), pushed to main at once
push() {
	innocent
	commit "$1" "$2" "$3"
	SHA=$LAST
	innocent
	innocent
	TOP=$LAST
	up_push
}

D=$DATA_DIR
mkdir -p "$D/repos" && git clone -q --mirror "$KERNEL_GIT" "$D/repos/linux.git"
sed 's/^runtime: .*/runtime: 3s/' "$KREG_SRC/jobs/fio-blk-4k.yaml" > fio-blk-4k.yaml
# The qemu backend's built-in kernel config, as 51 and 54 (the suite's
# cache has its kernels), and the suite's build.dir (5x-kernel.sh). The
# demo's metric rules (demo/kernel-demo.sh); a detector that calls a
# change at a rank test's 1% rather than the default 0.01%, with the first
# head's baseline made at once (6 runs) and a commit's runs capped at 6,
# as 65-lava-bisect's lab: a change this large needs no more, and the
# suite's time goes elsewhere.
cat > kreg.yaml <<YAML
data_dir: $D
repos:
  - name: linux
    url: $UP
    branches: [main]
    poll_interval: 2s
build:
  make_jobs: 2
  timeout: 40m
  dir: $KERNEL_BUILD_DIR
hosts:
  - name: vm
    backend: qemu
    cpus: 1
    memory: 1G
    timeout: 5m
    kvm: auto
    capacity: 1
    disk: $SCRATCH/vm.img
    disk_size: 256M
jobs:
  - file: $SCRATCH/fio-blk-4k.yaml
    runs: 3
detect:
  confirm: 0.01
  baseline_runs: 6
  max_runs: 6
  metrics:
    - { pattern: "fio.*_iops", direction: higher, floor: 5% }
    - { pattern: "fio.*_bw*", direction: higher, floor: 5% }
    - { pattern: "fio.*clat*", direction: lower, floor: 10% }
bisect:
  runs_per_step: 3
  max_builds: 12
mail:
  smtp_url: smtp://127.0.0.1:$SMTP_PORT
  from: "kreg robot <kreg@lab.example.org>"
  to: ["Lab List <lab@example.org>"]
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
logs() { cat "$D"/logs/*.log 2>/dev/null; }
runs_of() { sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$1'"; }

# 1. the base, tested
daemon_start
wait_for 1800 "the daemon tests master, the first head" idle_at "$(git -C "$UP" rev-parse master)"

# 2. the culprit among innocent commits: detected, bisected, reported
push "$KBLOCKD_TREE" "Bart Kowalski <bart@example.org>" \
	"block: avoid a zero-delay kblockd_mod_delayed_work_on()"
CULPRIT=$SHA HEAD1=$TOP
reported() { [ "$(sql "SELECT count(*) FROM outbox WHERE kind = 'first' AND state = 'sent'")" -ge 1 ]; }
wait_for 3600 "the daemon bisects the drop and mails the report" reported
wait_for 1200 "and it goes idle" idle_at "$HEAD1"
is "$(sql "SELECT DISTINCT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id
	WHERE b.recovers IS NULL")" "$CULPRIT" "the culprit bisection found the kblockd commit"
ROWS=$(sql "SELECT count(*) FROM regressions WHERE culprit_commit_id = (SELECT id FROM commits
	WHERE sha = '$CULPRIT') AND state IN ('bisected', 'reported')")
ok "it explains a regression row per metric that moved: $ROWS" test "${ROWS:-0}" -ge 2
READ=$(sql "SELECT g.id FROM regressions g JOIN metrics m ON m.id = g.metric_id WHERE m.name =
	'fio.read_iops' AND g.culprit_commit_id = (SELECT id FROM commits WHERE sha = '$CULPRIT')")
like "$READ" '^[0-9]+$' "read IOPS is one of them (regression $READ)"
echo "# after the report: $(sql "SELECT count(*) FROM runs") runs, $(($(date +%s) - T0)) s"

# 3. the change undone by hand, no tag naming the culprit
push "$BASE_TREE" "Cai Moreau <cai@example.org>" \
	"block: rework the delayed dispatch of blk-mq hardware queues"
REWORK=$SHA HEAD2=$TOP
answered() {
	[ "$(sql "SELECT count(*) FROM tries WHERE source = 'recovery'")" -ge "$ROWS" ] &&
	[ "$(sql "SELECT count(*) FROM outbox WHERE kind = 'try' AND state = 'sent'")" -ge 1 ]
}
wait_for 3600 "the daemon bisects the recovery, tries the commit found and answers" answered
wait_for 1200 "and it goes idle" idle_at "$HEAD2"
T1=$(date +%s)

RB=$(sql "SELECT id FROM bisections WHERE recovers IS NOT NULL")
is "$(sql "SELECT count(*) || ' ' || g.sha || '..' || b.sha || ' ' || x.state || ' ' || coalesce(c.sha, '-')
	FROM bisections x JOIN commits g ON g.id = x.good_commit_id JOIN commits b ON b.id = x.bad_commit_id
	LEFT JOIN commits c ON c.id = x.culprit_commit_id WHERE x.recovers IS NOT NULL")" \
	"1 $HEAD1..$HEAD2 found $REWORK" \
	"ONE recovery bisection for all the culprit's rows: from the last head at its level to the head back, the rework found"
like "$(sql "SELECT recovers FROM bisections WHERE id = '$RB'")" '^[0-9]+$' "its recovers names one of the culprit's regressions"
like "$(logs)" "recovery: regression [0-9]+: bisection $RB of ${HEAD1:0:12}\.\.${HEAD2:0:12} on fio\.[^ ]+, for the commit that fixed it" \
	"the detection's log says which regression started it"
is "$(logs | grep -c 'recovery: regression [0-9]*: bisection [0-9]* of')" 1 "and no other regression of the culprit started one"
is "$(sql "SELECT count(DISTINCT t.regression_id) || ' ' || count(*) FROM tries t JOIN commits c
	ON c.id = t.fix_commit_id WHERE t.source = 'recovery' AND c.sha = '$REWORK'")" "$ROWS $ROWS" \
	"the rework is tried once as the fix of each of the culprit's $ROWS regressions"
is "$(sql "SELECT g.state || ' ' || g.fixed_by FROM regressions g WHERE g.id = $READ")" "fixed $REWORK" \
	"read IOPS's regression is fixed by the rework"
READ_SHARE=$(sql "SELECT printf('%.0f', share * 100) FROM tries WHERE regression_id = $READ AND source = 'recovery'")
ok "with its share recovered ($READ_SHARE%)" test "${READ_SHARE:-0}" -ge 50
is "$(sql "SELECT count(*) FROM regressions g JOIN tries t ON t.regression_id = g.id AND t.source = 'recovery'
	WHERE (g.state = 'fixed') != (t.verdict = 'fixed') OR (g.state = 'fixed' AND g.fixed_by != '$REWORK')")" 0 \
	"each row is fixed by the rework when its own try says so, else left open"
FIXED=$(sql "SELECT count(*) FROM regressions WHERE state = 'fixed' AND fixed_by = '$REWORK'")
like "$(sql "SELECT note FROM regression_marks WHERE regression_id = $READ AND mark = 'fixed'")" \
	"^found by bisecting the recovery, tried by kreg: $READ_SHARE% of the regression recovered" \
	"the mark says how kreg found it, with its share"
echo "# $FIXED of the $ROWS rows fixed; their tries: $(sql "SELECT group_concat(m.name || ' ' || t.verdict
	|| ' ' || printf('%.0f%%', 100 * t.share), '; ') FROM tries t JOIN regressions g ON g.id = t.regression_id
	JOIN metrics m ON m.id = g.metric_id WHERE t.source = 'recovery'")"

# the mail: the answer of a try of the rework in the report's thread
FIRST=$(grep -L '^In-Reply-To:' "$SCRATCH"/smtp/*.eml | head -1)
REPORT_ID=$(mail_header "$FIRST" Message-ID)
ANSWER=$(grep -l "found by bisecting the recovery" "$SCRATCH"/smtp/*.eml | head -1)
ok "an answer says the rework was found by bisecting the recovery" test -n "$ANSWER"
is "$(mail_header "$ANSWER" In-Reply-To)" "$REPORT_ID" "it is in the report's thread"
like "$(mail_body "$ANSWER")" "^fix: +$REWORK" "it names the rework"
is "$(grep -L '^In-Reply-To:' "$SCRATCH"/smtp/*.eml | wc -l)" 1 "one report, the rest follow-ups"

run_kreg status
like "$OUT" "recovery bisection $RB \([0-9a-f]{12}\.\.${HEAD2:0:12}\): found, fixed by $REWORK" \
	"kreg status shows the recovery bisection"
daemon_stop
is "$DRC" 0 "the daemon stops"
ok "no qemu of this test is left behind" bash -c "! pgrep -f '$SCRATCH/[v]m.img' >/dev/null"
ok "one kernel compiled at most (fxmark-kblockd's, when the suite's cache lacks it)" \
	test "$(sql "SELECT count(DISTINCT tree) FROM builds WHERE status = 'ok' AND seconds > 5")" -le 1
echo "# runs: $(sql "SELECT count(*) FROM runs") in all, $(sql "SELECT count(*) FROM runs WHERE status != 'ok'") not ok;" \
	"recovery phase $((T1 - T0)) s from the start; base $(runs_of "$(git -C "$UP" rev-parse master)"), head1 $(runs_of "$HEAD1")," \
	"head2 $(runs_of "$HEAD2"), rework $(runs_of "$REWORK"), culprit $(runs_of "$CULPRIT");" \
	"recovery bisection: $(sql "SELECT builds || ' builds, ' || runs || ' runs' FROM bisections WHERE id = '$RB'")"
no_sanitizer_in_logs "no sanitizer report"
done_testing
