#!/bin/bash
# kreg's demo on real kernels, run by `kreg demo` (docs/demo.md).
#
# It makes an "upstream" git repository of Debian's linux-source 6.1 with
# the series of demo/series.sh on a side branch, starts an SMTP server on
# loopback and `kreg daemon` on a configuration made for the demo (that
# repository watched, the shipped kernel config, one qemu host, 4k O_DIRECT
# random read/write fio, 3 runs a commit, 10 of the base), lets the daemon
# test the base, then
# pushes the series. From then on the daemon alone decides every build and
# run; this script only reads the database (sqlite3) and prints what
# happened, with an estimate of the time left, then the summary.
#
# Environment (set by `kreg demo`):
#   KREG              the kreg binary
#   DEMO_DIR          the demo's directory (its repository is kept between
#                     demos; everything else is made again)
#   DEMO_SERIES       demo/series.sh
#   DEMO_SMTP         the SMTP server (tests/helpers/smtp-server.py)
#   DEMO_JOB          the fio job (jobs/fio-blk-4k.yaml)
#   DEMO_RUNTIME      its runtime in the demo (default 3s: a -96% drop shows
#                     in any run, and each run is 2 s shorter than the job's 5 s)
#   DEMO_TARBALL      linux-source (default /usr/src/linux-source-6.1.tar.xz)
#   DEMO_BASE         optional: a git repository whose master is that source
#                     committed as demo_base() does (the kernel tests' one)
#   DEMO_BUILD_DIR    optional: kreg's build.dir, its checkout and kernel
#                     object directories (default DEMO_DIR/build, kept
#                     between demos like the repository; the kernel tests
#                     give theirs)
#   DEMO_TIMEOUT      give up after this many seconds (default 3600)
set -u

: "${KREG:?}" "${DEMO_DIR:?}" "${DEMO_SERIES:?}" "${DEMO_SMTP:?}" "${DEMO_JOB:?}"
TARBALL=${DEMO_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
TIMEOUT=${DEMO_TIMEOUT:-3600}
RUNTIME=${DEMO_RUNTIME:-3s}
PY=/usr/bin/python3	# Debian's, with python3-aiosmtpd
UP=$DEMO_DIR/upstream
DATA=$DEMO_DIR/data
BUILD_DIR=${DEMO_BUILD_DIR:-$DEMO_DIR/build}
MAIL=$DEMO_DIR/mail
LOG=$DEMO_DIR/daemon.log
T0=$(date +%s)
DPID=
SPID=
STAGE_NAMES=()
STAGE_SECS=()
BASE_RUNS=10

die() {
	echo "kreg demo: $*" >&2
	[ -s "$LOG" ] && { echo "kreg demo: the daemon's last words ($LOG):" >&2; tail -5 "$LOG" >&2; }
	exit 1
}

cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait_gone "$DPID" 60
	[ -n "$SPID" ] && kill -TERM "$SPID" 2>/dev/null && wait_gone "$SPID" 10
	DPID= SPID=
}
trap cleanup EXIT
trap 'echo; echo "kreg demo: interrupted; the lab is in $DEMO_DIR"; exit 130' INT TERM

wait_gone() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

now() { echo $(($(date +%s) - T0)); }
clock() { printf '%02d:%02d' $(($1 / 60)) $(($1 % 60)); }
say() { printf '[%s] %s\n' "$(clock "$(now)")" "$*"; }

STAGE_T=$T0
stage() {	# close the previous stage, open "N/8 name"
	local t
	t=$(date +%s)
	if [ ${#STAGE_NAMES[@]} -gt 0 ]; then
		STAGE_SECS+=($((t - STAGE_T)))
	fi
	STAGE_T=$t
	STAGE_NAMES+=("$1")
	printf '\n[%s] == %d/8 %s\n' "$(clock "$(now)")" ${#STAGE_NAMES[@]} "$1"
}

sql() { sqlite3 -cmd ".timeout 10000" "$DATA/kreg.db" "$1" 2>/dev/null; }

# The upstream's objects are stored uncompressed (core.compression=0): its
# 75,000 files are added in 16 s of CPU instead of 28, and read back by
# kreg's mirror and checkout with less (tests/integration/5x-kernel.sh).
git_up() {
	GIT_AUTHOR_NAME="kreg test" GIT_AUTHOR_EMAIL="kreg@example.org" \
	GIT_COMMITTER_NAME="kreg test" GIT_COMMITTER_EMAIL="kreg@example.org" \
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
	git -C "$UP" -c core.autocrlf=false -c gc.auto=0 -c core.compression=0 "$@"
}

# ---- 1. the upstream repository ----------------------------------------
# The base commit is made exactly as tests/integration/5x-kernel.sh makes
# its fixture (same files, author, date), so both have the same commit
# and the kernel built by one serves the other.
make_base() {
	local tmp=$DEMO_DIR/tmp.$$
	if [ -n "${DEMO_BASE:-}" ]; then
		# only the directories the series edits are checked out (a few
		# hundred files, seconds, where the whole tree takes a minute or
		# more): the commits hold the whole tree all the same
		say "cloning the base from $DEMO_BASE"
		git clone -q --no-checkout -b master "$DEMO_BASE" "$UP" &&
			git_up sparse-checkout set block drivers/block fs/ext4 mm &&
			git_up checkout -q master || die "cannot clone $DEMO_BASE"
	else
		[ -f "$TARBALL" ] || die "$TARBALL: not found (apt-get install linux-source-6.1)"
		say "extracting $TARBALL (75,000 files; a minute or two, once)"
		rm -rf "$tmp" && mkdir -p "$tmp" && tar -xJf "$TARBALL" -C "$tmp" ||
			die "cannot extract $TARBALL"
		mv "$tmp"/linux-source-* "$UP" && rmdir "$tmp" || die "cannot move the source to $UP"
		say "committing it as the base"
		git_up init -q -b master && git_up add -Af . &&
			git_up commit -q -m "Linux 6.1 (Debian linux-source)" || die "cannot commit the base in $UP"
	fi
	git_up tag demo-base master || die "cannot tag the base"
}

upstream() {
	stage "upstream: linux-source 6.1 and a series of 20 commits on it"
	if ! git -C "$UP" rev-parse -q --verify refs/tags/demo-base >/dev/null 2>&1; then
		rm -rf "$UP"
		make_base
	else
		say "reusing the base in $UP"
	fi
	git_up checkout -q -f -B series demo-base && git_up clean -q -fdx >/dev/null &&
		git_up update-ref refs/heads/master refs/tags/demo-base || die "cannot reset $UP to its base"
	BASE=$(git_up rev-parse demo-base)
	bash "$DEMO_SERIES" "$UP" || die "the series did not apply"
	HEAD=$(git_up rev-parse series)
	say "base $(echo "$BASE" | cut -c1-12) \"Linux 6.1 (Debian linux-source)\", 20 commits on branch series:"
	git_up log --reverse --format='  %h %s' demo-base..series
}

# ---- 2. the lab -----------------------------------------------------------
lab() {
	stage "lab: an SMTP server on loopback and the daemon's configuration"
	local port
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
		die "$PY cannot pick a port"
	rm -f "$MAIL/ready"
	"$PY" "$DEMO_SMTP" "$MAIL" "$port" >"$DEMO_DIR/smtp.log" 2>&1 &
	SPID=$!
	for _ in $(seq 1 100); do
		[ -f "$MAIL/ready" ] && break
		kill -0 "$SPID" 2>/dev/null || die "the SMTP server did not start: $(tail -1 "$DEMO_DIR/smtp.log")"
		sleep 0.1
	done
	[ -f "$MAIL/ready" ] || die "the SMTP server did not start in 10 s"
	say "SMTP server on 127.0.0.1:$port, saving what it receives in $MAIL"
	JOB=$DEMO_DIR/$(basename "$DEMO_JOB")
	grep -q '^runtime: ' "$DEMO_JOB" || die "$DEMO_JOB has no 'runtime:' line to set to $RUNTIME"
	sed "s/^runtime: .*/runtime: $RUNTIME/" "$DEMO_JOB" > "$JOB" || die "cannot write $JOB"
	say "job: $DEMO_JOB at runtime $RUNTIME ($JOB)"
	cat > "$DEMO_DIR/kreg.yaml" <<YAML
# Made by kreg demo: the daemon watches the upstream repository's master.
data_dir: $DATA
repos:
  - name: linux
    url: $UP
    branches: [master]
    poll_interval: 2s
build:
  make_jobs: $(nproc)
  timeout: 40m
  dir: $BUILD_DIR
  configs:
    - name: qemu
      base: tinyconfig
      fragments: [kernel/qemu-guest.config, kernel/fio-dbench.config, kernel/ext4.config, kernel/f2fs.config, kernel/monitors.config]
hosts:
  - name: vm
    backend: qemu
    cpus: 1
    memory: 1G
    timeout: 5m
    capacity: 1
    disk: $DEMO_DIR/vm.img
    disk_size: 256M
jobs:
  - file: $JOB
    runs: 3
detect:
  # the base is the only commit before the push: give it enough runs to
  # judge the push against it alone
  baseline_runs: $BASE_RUNS
  metrics:
    - { pattern: "fio.*_iops", direction: higher, floor: 5% }
    - { pattern: "fio.*_bw*", direction: higher, floor: 5% }
    - { pattern: "fio.*clat*", direction: lower, floor: 10% }
bisect:
  runs_per_step: 3
  max_builds: 12
mail:
  smtp_url: smtp://127.0.0.1:$port
  from: "kreg demo <kreg@localhost>"
  to: [lab@example.org]
  dry_run: false
web:
  output: $DEMO_DIR/site
  title: kreg demo lab
YAML
	export KREG_CONFIG=$DEMO_DIR/kreg.yaml
	"$KREG" config check >/dev/null || die "the demo's configuration is refused: $DEMO_DIR/kreg.yaml"
	say "configuration: $KREG_CONFIG"
}

# ---- watching ---------------------------------------------------------------
SEEN_BUILD=0 SEEN_RUN=0 SEEN_STEP=0 SEEN_REG= SEEN_MAIL=0
events() {	# print what the daemon did since the last call
	local row
	while IFS='|' read -r id sha status secs subj; do
		[ -n "$id" ] || continue
		SEEN_BUILD=$id
		if [ "$status" = ok ]; then
			say "built   ${sha:0:12} $subj (${secs%.*} s)"
		else
			say "build failed ${sha:0:12} $subj"
		fi
	done < <(sql "SELECT b.id, c.sha, b.status, b.seconds, c.subject FROM builds b JOIN commits c ON c.id = b.commit_id
		      WHERE b.id > $SEEN_BUILD AND b.status != 'running' ORDER BY b.id")
	while IFS='|' read -r id sha status iops subj; do
		[ -n "$id" ] || continue
		SEEN_RUN=$id
		if [ "$status" = ok ]; then
			say "run     ${sha:0:12} read_iops $(printf '%.0f' "${iops:-0}") ($subj)"
		else
			say "run     ${sha:0:12} $status ($subj)"
		fi
	done < <(sql "SELECT r.id, c.sha, r.status,
			(SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
			 WHERE s.run_id = r.id AND m.name = 'fio.read_iops'), c.subject
		      FROM runs r JOIN commits c ON c.id = r.commit_id
		      WHERE r.id > $SEEN_RUN AND r.status != 'running' ORDER BY r.id")
	row=$(sql "SELECT group_concat(m.name || ' ' || printf('%+.1f%%', 100 * r.change) || ' ' || r.state, '; ')
		   FROM regressions r JOIN metrics m ON m.id = r.metric_id WHERE m.name LIKE 'fio.%_iops'")
	if [ -n "$row" ] && [ "$row" != "$SEEN_REG" ]; then
		SEEN_REG=$row
		say "regressions: $row"
	fi
	while IFS='|' read -r id sha role verdict runs subj; do
		[ -n "$id" ] || continue
		SEEN_STEP=$id
		say "bisect  ${sha:0:12} $role: $verdict after $runs run(s) ($subj)"
	done < <(sql "SELECT s.id, c.sha, s.role, s.verdict, s.runs, c.subject FROM bisect_steps s
		      JOIN commits c ON c.id = s.commit_id
		      WHERE s.id > $SEEN_STEP AND s.verdict != 'pending' ORDER BY s.id")
	while IFS='|' read -r id state subj; do
		[ -n "$id" ] || continue
		SEEN_MAIL=$id
		say "mail    $state: $subj"
	done < <(sql "SELECT id, state, subject FROM outbox WHERE id > $SEEN_MAIL AND state != 'queued' ORDER BY id")
}

# The time left, from what this demo measured so far: the builds (clean
# and incremental) and runs still to come, at the mean seconds seen (at
# first: a clean build 300 s, the lean guest on 2 cores; an incremental one
# 40 s; a run 12 s), less what the build under way has done already (never
# more than its own estimate: a build that takes longer does not eat the
# runs after it; build_note says so).
build_secs() {	# clean|incr: this lab's figure, else the default
	if [ "$1" = clean ]; then
		sql "SELECT coalesce(max(seconds), 300) FROM builds WHERE status = 'ok' AND seconds > 60"
	else
		sql "SELECT coalesce(CAST(avg(seconds) AS INT), 40) FROM builds WHERE status = 'ok'
		     AND seconds > 1 AND id > (SELECT min(id) FROM builds WHERE status = 'ok' AND seconds > 60)"
	fi
}

left() {
	local clean=$1 incr=$2 runs=$3 c i r g
	c=$(build_secs clean)
	i=$(build_secs incr)
	r=$(sql "SELECT coalesce(avg(finished - started), 12) FROM runs WHERE status = 'ok'")
	g=$(sql "SELECT coalesce(max(strftime('%s', 'now') - started), 0) FROM builds WHERE status = 'running'")
	awk -v nc="$clean" -v ni="$incr" -v nr="$runs" -v c="${c:-300}" -v i="${i:-40}" -v r="${r:-12}" \
		-v g="${g:-0}" 'BEGIN { e = nc > 0 ? c : i; if (g > e - 30) g = e - 30; if (g < 0) g = 0;
			 s = nc * c + ni * i + nr * r - g; if (s < 30) s = 30;
			 printf "about %d min %02d s left", s / 60, s % 60 }'
}

# A build under way, said as what it is rather than counted down to a
# floor while it goes on: "building a kernel (clean: about 5 min, 2 min 10 s
# so far); ". Clean while this lab has no build of over a minute yet and
# found no objects in its build.dir.
build_note() {
	local g kind e
	g=$(sql "SELECT coalesce(max(strftime('%s', 'now') - started), -1) FROM builds WHERE status = 'running'")
	[ "${g:--1}" -ge 0 ] 2>/dev/null || return 0
	if [ "$CLEAN" = 1 ] && [ "$(sql "SELECT count(*) FROM builds WHERE status = 'ok' AND seconds > 60")" = 0 ]; then
		kind=clean e=$(build_secs clean)
	else
		kind=incremental e=$(build_secs incr)
	fi
	awk -v k="$kind" -v e="${e:-300}" -v g="$g" 'BEGIN {
		printf "building a kernel (%s: about %d min %02d s, %d min %02d s so far%s); ", k,
		       e / 60, e % 60, g / 60, g % 60, (g > e ? ", longer than expected" : "") }'
}

# wait_until SECONDS WHAT TEST: print events until TEST holds
wait_until() {
	local limit=$(($(date +%s) + $1)) what=$2 last=0
	shift 2
	while ! "$@"; do
		events
		[ -n "$DPID" ] && ! kill -0 "$DPID" 2>/dev/null && die "the daemon stopped while $what (log: $LOG)"
		[ "$(date +%s)" -lt "$limit" ] || die "gave up: $what took over $TIMEOUT s (log: $LOG)"
		if [ $(($(date +%s) - last)) -ge 60 ] && [ -n "${ETA_FN:-}" ]; then
			last=$(date +%s)
			say "... $what: $(build_note)$($ETA_FN)"
		fi
		sleep 2
	done
	events
}

tested() {	# the branch is at $1 and nothing is queued or running
	[ "$(sql "SELECT head FROM branches WHERE name = 'master'")" = "$1" ] &&
	[ "$(sql "SELECT count(*) FROM work WHERE state IN ('queued', 'running')")" = 0 ]
}

closed() {	# the revert tried, the regression fixed and its follow-up mail out
	[ "$(sql "SELECT count(*) FROM tries t JOIN commits c ON c.id = t.fix_commit_id
		   WHERE c.sha = '$REVERT'")" -gt 0 ] || return 1
	[ "$(sql "SELECT count(*) FROM regressions WHERE state = 'fixed'")" -gt 0 ] ||
		die "the revert did not fix it: $(sql "SELECT verdict || ' ' || coalesce(why, '') FROM tries ORDER BY id DESC LIMIT 1")"
	[ "$(sql "SELECT count(*) FROM outbox WHERE kind IN ('fixed', 'try') AND state != 'queued'")" -gt 0 ]
}

found() {
	local s
	s=$(sql "SELECT state FROM bisections ORDER BY id LIMIT 1")
	case $s in
	found) [ "$(sql "SELECT count(*) FROM outbox WHERE state != 'queued'")" -gt 0 ] &&
		[ -s "$DEMO_DIR/site/index.html" ] ;;
	""|running) return 1 ;;
	*) die "the bisection ended $s: $(sql "SELECT message FROM bisections ORDER BY id LIMIT 1")" ;;
	esac
}

eta_base() {
	local b r
	b=$(sql "SELECT count(*) FROM builds WHERE status != 'running'")
	r=$(sql "SELECT count(*) FROM runs WHERE status = 'ok'")
	left $((b > 0 ? 0 : CLEAN)) $((b > 0 || CLEAN ? 0 : 1)) $((BASE_RUNS - r > 0 ? BASE_RUNS - r : 0))
}

# After the push: the head (a clean build when the demo's build.dir had no
# objects and the base came from the cache; 3 runs, then 3 more of it and
# 3 of the base at once to settle the drop: tests/integration/73's shape),
# about 5 bisection steps of an incremental build and 3 runs each; the
# verification reuses the steps' runs.
eta_bisect() {
	local steps head base hb
	head=$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$HEAD'")
	base=$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$BASE'")
	steps=$(sql "SELECT count(DISTINCT commit_id) FROM bisect_steps WHERE role = 'step'")
	if [ "$(sql "SELECT count(*) FROM bisections")" = 0 ]; then
		hb=$(($(sql "SELECT count(*) FROM builds WHERE status != 'running'") > 1 ? 0 : 1))
		left $((hb && CLEAN)) $((hb && !CLEAN ? 6 : 5)) \
			$(((head < 6 ? 6 - head : 0) + (base < BASE_RUNS + 3 ? BASE_RUNS + 3 - base : 0) + 15))
	else
		left 0 $((steps < 5 ? 5 - steps : 0)) $((steps < 5 ? (5 - steps) * 3 : 0))
	fi
}

# The revert: an incremental build, its runs as the new head (the try
# takes them: the last good's and the culprit's are stored).
eta_fix() {
	local b r
	b=$(sql "SELECT count(*) FROM builds b JOIN commits c ON c.id = b.commit_id
		 WHERE c.sha = '$REVERT' AND b.status = 'ok'")
	r=$(sql "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.sha = '$REVERT'")
	left 0 $((b > 0 ? 0 : 1)) $((r < 3 ? 3 - r : 0))
}

# ---- the demo ---------------------------------------------------------------
mkdir -p "$DEMO_DIR" || die "cannot make $DEMO_DIR"
rm -rf "$DATA" "$MAIL" "$DEMO_DIR/site" "$DEMO_DIR/vm.img" "$LOG" "$DEMO_DIR/smtp.log"
# Objects kept from an earlier demo (or given): every build is incremental.
CLEAN=1
[ -f "$BUILD_DIR/builds/linux/qemu/vmlinux" ] && CLEAN=0
echo "kreg demo: the daemon catches, bisects and mails a block-layer regression"
echo "on real kernels built from Debian's linux-source 6.1 and booted in qemu."
echo "Everything happens in $DEMO_DIR."

upstream
lab

stage "baseline: the daemon builds the base, boots it and runs fio $BASE_RUNS times"
"$KREG" daemon --foreground >>"$LOG" 2>&1 &
DPID=$!
say "kreg daemon --foreground (pid $DPID, log $LOG)"
ETA_FN=eta_base wait_until "$TIMEOUT" "testing the base" tested "$BASE"

stage "push: master moves from the base to the series' head"
git_up update-ref refs/heads/master "$HEAD" || die "cannot push"
say "master is ${HEAD:0:12} (20 new commits); nobody tells the daemon"

stage "daemon: test the head, detect, confirm, bisect, verify, report and mail"
ETA_FN=eta_bisect wait_until "$TIMEOUT" "finding the culprit" found
ETA_FN= wait_until 600 "finishing its work" tested "$HEAD"
CULPRIT=$(sql "SELECT c.sha FROM bisections b JOIN commits c ON c.id = b.culprit_commit_id ORDER BY b.id LIMIT 1")

stage "fix: the culprit's revert is pushed; the daemon tries it and closes the regression"
[ -n "$CULPRIT" ] || die "no culprit to revert"
git_up revert --no-edit "$CULPRIT" >/dev/null || die "cannot revert ${CULPRIT:0:12} in $UP"
REVERT=$(git_up rev-parse HEAD)
git_up update-ref refs/heads/master "$REVERT" || die "cannot push the revert"
say "master is ${REVERT:0:12} \"$(git_up log -1 --format=%s "$REVERT")\"; nobody tells the daemon"
ETA_FN=eta_fix wait_until 1200 "trying the revert" closed
ETA_FN= wait_until 600 "finishing its work" tested "$REVERT"

stage "stop: the daemon stops on SIGTERM"
kill -TERM "$DPID"
wait_gone "$DPID" 60
DPID=
kill -TERM "$SPID" 2>/dev/null && wait_gone "$SPID" 10
SPID=

stage "summary"
STAGE_SECS+=(0)
echo
echo "First bad commit: $(git_up log -1 --format='%H%n  %s%n  Author: %an <%ae>' "$CULPRIT")"
if [ "$(git_up log -1 --format=%s "$CULPRIT")" = "$(bash "$DEMO_SERIES" --list | sed -n 14p)" ]; then
	echo "  (the series' injected regression: the daemon found it)"
else
	echo "  (NOT the series' injected regression, commit 14 of demo/series.sh)"
fi
FIX=$(sql "SELECT t.verdict || ' ' || printf('%.0f%%', 100 * t.share) FROM tries t
	    JOIN commits c ON c.id = t.fix_commit_id WHERE c.sha = '$REVERT' ORDER BY t.id DESC LIMIT 1")
echo "Fixed by: $(git_up log -1 --format='%H%n  %s' "$REVERT")"
echo "  the daemon tried it untold: ${FIX:-no try recorded}; regression state: $(sql "SELECT group_concat(DISTINCT state) FROM regressions WHERE culprit_commit_id = (SELECT id FROM commits WHERE sha = '$CULPRIT')")"
echo
sql "SELECT 'Bisection: ' || b.builds || ' builds, ' || b.runs || ' runs; '
	    || (SELECT count(*) FROM bisect_steps s WHERE s.bisection_id = b.id AND s.verdict = 'skip')
	    || ' commit(s) skipped' FROM bisections b ORDER BY b.id LIMIT 1"
for c in $(sql "SELECT c.sha FROM bisect_steps s JOIN commits c ON c.id = s.commit_id WHERE s.verdict = 'skip'"); do
	echo "  skipped $(git_up log -1 --format='%h %s' "$c") (does not build)"
done
# Builds beside runs (issue 23): the bisection's search, from its start to
# its last step, against the own times of the builds and runs in it.
read -r BW BB BR <<<"$(sql "WITH b AS (SELECT id, created AS t0, (SELECT max(updated) FROM bisect_steps
	    WHERE bisection_id = bisections.id AND role = 'step') AS t1 FROM bisections ORDER BY id LIMIT 1)
	SELECT coalesce(b.t1 - b.t0, 0),
	    (SELECT CAST(coalesce(round(sum(seconds)), 0) AS INTEGER) FROM builds WHERE started >= b.t0 AND finished <= b.t1),
	    (SELECT coalesce(sum(finished - started), 0) FROM runs WHERE started >= b.t0 AND finished <= b.t1)
	FROM b" | tr '|' ' ')"
if [ -n "$BW" ] && [ $((BB + BR)) -gt 0 ]; then
	echo "The bisection's search took $(clock "$BW"); its builds took $(clock "$BB") and its runs" \
		"$(clock "$BR") of their own: $((100 * BW / (BB + BR)))% of their sum (builds beside runs)."
fi
echo "The daemon spent: $(sql "SELECT count(*) FROM builds WHERE status = 'ok'") kernels" \
	"($(sql "SELECT count(*) FROM builds WHERE status = 'ok' AND seconds < 1") of them from the build cache)," \
	"$(sql "SELECT count(*) FROM builds WHERE status = 'failed'") that did not build," \
	"$(sql "SELECT count(*) FROM runs") runs of fio in qemu" \
	"($(sql "SELECT count(*) FROM runs WHERE status != 'ok'") not ok)."
echo
echo "Time per stage:"
for i in "${!STAGE_NAMES[@]}"; do
	[ "$i" -lt $((${#STAGE_NAMES[@]} - 1)) ] || break
	printf '  %-9s %s\n' "$(clock "${STAGE_SECS[$i]}")" "${STAGE_NAMES[$i]%%:*}"
done
printf '  %-9s total\n' "$(clock "$(now)")"
echo
EML=$(ls "$MAIL"/*.eml 2>/dev/null | head -1)
echo "The 0-day mail, as the SMTP server received it ($EML):"
echo
[ -n "$EML" ] && sed 's/^/    /' "$EML"
echo
REG=$(ls "$DEMO_DIR"/site/regression-*.html 2>/dev/null | head -1)
echo "Pages: $DEMO_DIR/site/index.html"
[ -n "$REG" ] && echo "  the regression: $REG"
echo "Database: $DATA/kreg.db (kreg status, kreg compare, kreg bisect show with KREG_CONFIG=$KREG_CONFIG)"
