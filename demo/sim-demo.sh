#!/bin/bash
# kreg's quick demo on a sim host, run by `kreg demo --sim` (README).
#
# It lays out a self-contained lab (a kreg.yaml, a kernel-like git tree)
# and then runs kreg's own commands on it, printing each command before its
# output, so every step can be repeated by hand in the lab:
#
#   1. real fio and dbench runs on this machine (the local host), stored in
#      SQLite with their LKP metric names;
#   2. the case kreg exists for, "block: reduce kblockd_mod_delayed_work_on()
#      CPU consumption" costing fxmark dbench_client on f2fs 66% of its
#      works/sec: the bisection finds it among the tree's commits on a sim
#      host (samples drawn from a seeded model, labelled as such; no kernel
#      is built) and verifies it;
#   3. the revert is measured and the 0-day comparison table printed,
#      good / culprit / fix, the table the fix was checked against;
#   4. `kreg mail send` writes the 0-day e-mail of the bisected regression,
#      dry run (mail.dry_run: only the outbox's .eml, nothing is sent), to
#      the culprit's author and who the tree's MAINTAINERS names for the
#      file it changes.
#
#   sim-demo.sh [--dir DIR] [--no-local]
#
#   --dir DIR    the lab (default $KREG_DATA_DIR/demo, KREG_DATA_DIR
#                defaulting to ./kreg-data); a lab this script made there
#                is replaced, anything else is refused
#   --no-local   skip the real fio and dbench runs
#
# Environment (set by `kreg demo --sim`):
#   KREG         the kreg binary (default: kreg on the PATH)
#   DEMO_JOBS    the shipped job files (default: jobs/ beside this
#                script's folder, in the source tree and installed alike)
set -u

METRIC=fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec
MARKER=.kreg-demo

die() {
	echo "kreg: demo: $*" >&2
	exit 1
}

usage() {
	echo "usage: sim-demo.sh [--dir DIR] [--no-local]" >&2
	exit 2
}

KREG=${KREG:-$(command -v kreg)} || die "no kreg binary: set KREG"
DEMO_JOBS=${DEMO_JOBS:-$(cd "$(dirname "$0")/../jobs" 2>/dev/null && pwd -P)}
DIR=
LOCAL=1
while [ $# -gt 0 ]; do
	case $1 in
	--dir) [ $# -ge 2 ] || usage; DIR=$2; shift 2 ;;
	--dir=*) DIR=${1#--dir=}; shift ;;
	--no-local) LOCAL=0; shift ;;
	*) usage ;;
	esac
done
[ -n "$DIR" ] || DIR=${KREG_DATA_DIR:-kreg-data}/demo
unset KREG_CONFIG

# The demo tree: invented block-layer history around the real culprit's
# subject, "author|email|subject" per commit; commit CULPRIT regresses,
# and after the last one comes the fix, its revert.
HISTORY=(
	"Demo Maintainer|maint@example.org|Linux 6.1"
	"Ada Block|ada@example.org|blk-mq: remove a redundant check in blk_mq_run_hw_queue()"
	"Ben Queue|ben@example.org|block: move the elevator exit into disk release"
	"Cai Sched|cai@example.org|bfq: fix a waker detection corner case"
	"Dee Zoned|dee@example.org|block: zoned: simplify blk_revalidate_disk_zones()"
	"Eli Nvme|eli@example.org|blk-mq: pass the queue to blk_mq_tag_busy() directly"
	"Fay Iocost|fay@example.org|blk-iocost: avoid a 64-bit division in the hot path"
	"Gus Throttle|gus@example.org|blk-throttle: correct the limit check for small bios"
	"Hal Integrity|hal@example.org|block: drop the unused bio_integrity_trim() argument"
	"Ivy Merge|ivy@example.org|block: tidy up bio merging helpers"
	"Jon Flush|jon@example.org|blk-flush: document the flush state machine"
	"Kim Wbt|kim@example.org|blk-wbt: only enable writeback throttling for rotational disks"
	"Lou Stat|lou@example.org|block: make part_stat_read_all() static"
	"Bart Demo|bart@example.org|block: reduce kblockd_mod_delayed_work_on() CPU consumption"
	"Max Sysfs|max@example.org|block: add a sysfs attribute for the queue's dma alignment"
	"Nia Plug|nia@example.org|block: use a bool for the plug's multiple_queues"
	"Oz Ioprio|oz@example.org|block: ioprio: use the task's class when none is set"
	"Pia Kyber|pia@example.org|kyber: trace the domain's depth on every update"
	"Quin Rq|quin@example.org|blk-mq: inline blk_mq_rq_ctx_init() into its only caller"
	"Ray Crypto|ray@example.org|blk-crypto: check the key's data unit size once"
	"Sol Mq|sol@example.org|blk-mq: fix the comment of blk_mq_delay_run_hw_queue()"
)
CULPRIT=13
N=${#HISTORY[@]}
SHA=()		# the commits, then the fix

# The tree's MAINTAINERS, in Linux's format: block/ has its people, as
# get_maintainer.pl would name them. Invented addresses only: the demo's
# mail must never reach a real list.
MAINTAINERS_TEXT='List of maintainers of the kreg demo tree (the format of Linux'\''s MAINTAINERS)
===============================================================================

BLOCK LAYER
M:	Jen Block <jen.block@example.org>
R:	Rob Review <rob.review@example.org>
L:	linux-block@lists.example.org
S:	Maintained
F:	block/

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@lists.example.org
S:	Buried alive in reporters
F:	*
F:	*/'

README_TEXT='A kernel-like tree made by `kreg demo`: its commits carry real-looking
block layer subjects; one carries a Sim-Effect trailer, read by the sim
host'\''s model.'

# git on the demo tree, deaf to the user's configuration (signing, object
# format, default branch), so the same demo makes the same commits.
git_tree() {
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_DIR=linux.git git "$@"
}

# One commit on refs/heads/master: block/blk-core.c says which revision it
# is. Fixed names and dates: the same demo makes the same shas.
# commit_one N NAME EMAIL MESSAGE [PARENT]
commit_one() {
	local blob readme maint sub root date
	blob=$(printf '/* blk-core.c: revision %d */\n' "$1" | git_tree hash-object -w --stdin) &&
		readme=$(printf '%s\n' "$README_TEXT" | git_tree hash-object -w --stdin) &&
		maint=$(printf '%s\n' "$MAINTAINERS_TEXT" | git_tree hash-object -w --stdin) &&
		sub=$(printf '100644 blob %s\tblk-core.c\n' "$blob" | git_tree mktree) &&
		root=$(printf '100644 blob %s\tMAINTAINERS\n100644 blob %s\tREADME\n040000 tree %s\tblock\n' \
			"$maint" "$readme" "$sub" | git_tree mktree) || return 1
	date="@$((1669766400 + $1 * 3600)) +0000"
	printf '%s\n' "$4" | GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$3 GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_NAME=$2 GIT_COMMITTER_EMAIL=$3 GIT_COMMITTER_DATE=$date \
		git_tree commit-tree --no-gpg-sign "$root" ${5:+-p "$5"}
}

make_tree() {
	local i name email subject msg parent=
	git_tree init -q --bare -b master || return 1
	for ((i = 0; i <= N; i++)); do
		if [ "$i" -lt "$N" ]; then
			IFS='|' read -r name email subject <<<"${HISTORY[i]}"
		else
			IFS='|' read -r name email subject <<<"${HISTORY[CULPRIT]}"
		fi
		if [ "$i" -eq "$CULPRIT" ]; then
			msg="$subject

Only modify the timer of a delayed work when it would fire
earlier than it is scheduled to.

Sim-Effect: $METRIC -66%"
		elif [ "$i" -eq "$N" ]; then	# the fix: its revert
			msg="Revert \"$subject\"

This reverts commit ${SHA[CULPRIT]}.

It costs fxmark dbench_client on f2fs 66% of its works/sec."
		else
			msg=$subject
		fi
		SHA[i]=$(commit_one "$i" "$name" "$email" "$msg" "$parent") || return 1
		parent=${SHA[i]}
	done
	git_tree update-ref refs/heads/master "${SHA[N]}"
}

write_config() {
	cat > kreg.yaml <<YAML
# Written by \`kreg demo\`: the demo lab's configuration.
data_dir: data
log_level: warn
repos:
  - name: linux
    url: linux.git
    branches: [master]
hosts:
  # this machine, for real fio and dbench runs
  - name: local
    backend: local
    target: scratch
    timeout: 2m
  # a simulated test box: samples drawn from a seeded model; the
  # commits' Sim-Effect trailers move them
  - name: lkp-sim
    backend: sim
    seed: 20221130
    metrics:
      - { metric: $METRIC, base: 573.42, noise: 2%, outlier_rate: 1% }
bisect:
  runs_per_step: 3
  max_runs_per_step: 12
# the 0-day e-mail: dry run, only written to data/outbox/*.eml
mail:
  dry_run: true
  from: "kreg robot <kreg@lab.example.org>"
  reported_by: "kreg robot <kreg@lab.example.org>"
web:
  base_url: https://kreg.lab.example.org/
YAML
}

# Print the command as a user would type it in the lab, then run it; a
# failing one ends the demo, named.
step() {
	local rc
	printf '\n$ kreg -c kreg.yaml %s\n' "$*"
	"$KREG" -c kreg.yaml "$@"
	rc=$?
	[ $rc -eq 0 ] || die "step failed (exit status $rc): kreg -c kreg.yaml $*"
}

# The same, its output kept in OUT too.
step_out() {
	local rc
	printf '\n$ kreg -c kreg.yaml %s\n' "$*"
	OUT=$("$KREG" -c kreg.yaml "$@")
	rc=$?
	[ -z "$OUT" ] || printf '%s\n' "$OUT"
	[ $rc -eq 0 ] || die "step failed (exit status $rc): kreg -c kreg.yaml $*"
}

run_local() {
	local job atom
	printf '\n== 1. Real runs on this machine (host '\''local'\''): fio and dbench,\n'
	printf '      parsed into LKP'\''s metric names and stored in SQLite\n'
	for job in fio-quick.yaml dbench-quick.yaml; do
		[ -f "$DEMO_JOBS/$job" ] || die "cannot find the shipped job $DEMO_JOBS/$job"
		step_out job split "$DEMO_JOBS/$job" -o atoms
		while read -r atom; do
			[ -z "$atom" ] || step job run "$atom" --host local --runs 3
		done <<<"$OUT"
	done
}

run_case() {
	local good=${SHA[0]:0:12} bad=${SHA[N - 1]:0:12} culprit=${SHA[CULPRIT]:0:12}
	local fix=${SHA[N]:0:12} atom job
	printf '\n== 2. The case kreg exists for: a %d-commit tree (linux.git) between\n' $((N - 1))
	printf "      'Linux 6.1' (%s, good) and %s (bad), fxmark dbench_client\n" "$good" "$bad"
	printf "      on host 'lkp-sim' -- SIMULATED samples from a seeded model,\n"
	printf '      no kernel is built.\n'
	cat > fxmark-dbench.yaml <<YAML || die "cannot write fxmark-dbench.yaml"
# The atom of the case: fxmark dbench_client, 4 threads, f2fs, buffered I/O.
suite: fxmark
testcase: fxmark
media: ssd
fxmark:
  test: dbench_client
  fstype: f2fs
  directio: bufferedio
  thread_nr: 4
  duration: 30s
YAML
	step_out job split fxmark-dbench.yaml -o atoms
	atom=${OUT%%$'\n'*}
	job=${atom##*/}
	job=${job%.yaml}
	printf '\n-- the new head is measured against the last good one, as the daemon does:\n'
	step job run "$atom" --host lkp-sim --repo linux --commit "$good" --runs 3
	step job run "$atom" --host lkp-sim --repo linux --commit "$bad" --runs 3
	step compare --job "$job" --host lkp-sim "$good" "$bad"
	printf '\n-- a regression: kreg bisects it to the first bad commit, reusing those runs:\n'
	step bisect start --repo linux --good "$good" --bad "$bad" --job "$job" --host lkp-sim \
		--metric "$METRIC"
	step bisect log 1
	printf '\n== 3. The fix (%s, the revert) is run, and the 0-day table compares\n' "$fix"
	printf '      good, culprit and fix: the table the fix is checked against\n'
	step job run "$atom" --host lkp-sim --repo linux --commit "$fix" --runs 6
	step compare --job "$job" --host lkp-sim "$good" "$culprit" "$fix"
}

run_mail() {
	local f
	printf '\n== 4. The 0-day e-mail of the regression, to the culprit'\''s author and\n'
	printf "      who the tree's MAINTAINERS names for block/ -- a DRY RUN\n"
	printf '      (mail.dry_run): written to the outbox as a .eml, nothing is sent\n'
	step mail send
	step mail list
	EML=
	for f in data/outbox/*.eml; do
		[ -f "$f" ] && { EML=$f; break; }
	done
	[ -n "$EML" ] || die "\`kreg mail send\` wrote no .eml in $ABS/data/outbox"
	printf '\n-- the message: %s/%s\n   (`kreg -c kreg.yaml mail show 1` prints it)\n' "$ABS" "$EML"
}

# The demo owns its directory: replace one it made, refuse anything else.
if [ -e "$DIR" ]; then
	[ -e "$DIR/$MARKER" ] || die "$DIR exists and was not made by kreg demo; name another with --dir"
	rm -rf "$DIR" || die "cannot remove the previous demo in $DIR"
fi
mkdir -p "$DIR" && : > "$DIR/$MARKER" || die "cannot make $DIR"
case $DIR in
/*) ABS=$DIR ;;
*) ABS=$(pwd -P)/$DIR ;;
esac
cd "$DIR" || die "cannot enter $DIR"
printf 'kreg demo: a lab in %s (kreg.yaml, linux.git, data/kreg.db)\n' "$ABS"
write_config || die "cannot write $ABS/kreg.yaml"
make_tree || die "cannot make the demo tree $ABS/linux.git"
mkdir -p scratch || die "cannot make $ABS/scratch"
step db init
[ $LOCAL -eq 0 ] || run_local
run_case
run_mail
printf '\nkreg demo: done. The lab stays in %s; look around with\n' "$DIR"
printf '  cd %s && %s -c kreg.yaml db info\n' "$DIR" "$KREG"
printf 'The e-mail it wrote: %s/%s\n' "$ABS" "$EML"
