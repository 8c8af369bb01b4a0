# Shared by the 8x-report tests: a lab filled through kreg's own commands.
#
#   make_lab DIR
#     a git repository DIR/src (branch main, 24 commits, a topic branch of
#     two commits merged at commit 12); commit 16 costs fio.read_iops 20%
#     (a Sim-Effect trailer; and the monitor $MONITOR +50% when set: the
#     sim host draws it too) and carries $CULPRIT_SUBJECT by
#     $CULPRIT_AUTHOR when set (stored as they are when $CULPRIT_ENCODING
#     names a legacy encoding: git converts bytes that are not UTF-8 in a
#     commit it takes for UTF-8); DIR/kreg.yaml with a sim host "simhost", a
#     sim host "flaky" that loses a run in three to the infrastructure, a
#     commit_url template and web.title $SITE_TITLE; then
#       kreg job split        (an fio atom; $JOB_EXTRA lines added to the job)
#       kreg job run          3 runs on simhost at every commit of main's
#                             first-parent line, 3 on flaky at two commits
#       kreg bisect start     root..head on simhost: finds commit 16
#     Sets: LAB, ATOM (the atom's name), ROOT, HEAD_SHA, CULPRIT (sha),
#     NEXT_SHA (branch next: main + 1 commit, no runs),
#     KREG_CONFIG (exported).
#
# PY: Debian's python3 (python3-html5lib is a Debian package).

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
METRIC=fio.read_iops
COMMIT_URL_PREFIX=https://git.example.org/src/commit/

lab_commit() {	# n subject [author]
	local n=$1 subject=$2 author=${3:-Test Author}
	echo "$n" > "$LAB/src/file$n"
	git -C "$LAB/src" add "file$n"
	GIT_AUTHOR_NAME="$author" GIT_AUTHOR_EMAIL="a$n@example.org" \
	GIT_AUTHOR_DATE="@$((1700000000 + n * 3600)) +0000" \
	GIT_COMMITTER_DATE="@$((1700000000 + n * 3600)) +0000" \
		git -C "$LAB/src" -c i18n.commitEncoding="${COMMIT_ENCODING:-UTF-8}" commit -q -m "$subject" 2>/dev/null
}

make_lab() {
	LAB=$1
	mkdir -p "$LAB"
	git init -q -b main "$LAB/src"
	git -C "$LAB/src" config user.name "Test Committer"
	git -C "$LAB/src" config user.email "committer@example.org"
	lab_commit 0 "root"
	ROOT=$(git -C "$LAB/src" rev-parse HEAD)
	for n in $(seq 1 24); do
		if [ "$n" = 10 ]; then
			git -C "$LAB/src" checkout -q -b topic
			lab_commit 100 "topic: first"
			lab_commit 101 "topic: second"
			git -C "$LAB/src" checkout -q main
		fi
		if [ "$n" = 12 ]; then
			GIT_AUTHOR_DATE="@$((1700000000 + n * 3600)) +0000" \
			GIT_COMMITTER_DATE="@$((1700000000 + n * 3600)) +0000" \
				git -C "$LAB/src" merge -q --no-ff -m "Merge branch 'topic'" topic
			continue
		fi
		if [ "$n" = 16 ]; then
			COMMIT_ENCODING=${CULPRIT_ENCODING:-UTF-8} lab_commit 16 "${CULPRIT_SUBJECT:-block: reduce kblockd_mod_delayed_work_on() CPU consumption}

Sim-Effect: $METRIC -20%${MONITOR:+
Sim-Effect: $MONITOR +50%}" "${CULPRIT_AUTHOR:-Bart Demo}"
			CULPRIT=$(git -C "$LAB/src" rev-parse HEAD)
			continue
		fi
		lab_commit "$n" "mm: change number $n"
	done
	HEAD_SHA=$(git -C "$LAB/src" rev-parse HEAD)
	# a branch one commit ahead, tested later (kreg job run does not fetch
	# a commit the mirror lacks, so it is there from the start)
	git -C "$LAB/src" checkout -q -b next
	lab_commit 25 "mm: next one"
	NEXT_SHA=$(git -C "$LAB/src" rev-parse HEAD)
	git -C "$LAB/src" checkout -q main

	# $MONITOR: a monitor (jobs/monitors.h) the sim host draws too, moved
	# +50% by the culprit: its regression page and mail get a detail table
	local mon_line=
	[ -z "${MONITOR:-}" ] || mon_line="      - { metric: \"$MONITOR\", base: 3000, noise: 2% }"
	cat > "$LAB/kreg.yaml" <<YAML
data_dir: $LAB/data
repos:
  - name: src
    url: $LAB/src
    branches: [main, next]
    commit_url: ${COMMIT_URL_PREFIX}%s
hosts:
  - name: simhost
    backend: sim
    seed: 7
    metrics:
      - { metric: $METRIC, base: 10000, noise: 3% }
      - { metric: fio.write_iops, base: 8000, noise: 3% }
$mon_line
  - name: flaky
    backend: sim
    seed: 3
    infra_fail_rate: 0.5
    metrics:
      - { metric: $METRIC, base: 9000, noise: 3% }
bisect:
  runs_per_step: 3
web:
  title: ${SITE_TITLE:-kreg lab}
YAML
	export KREG_CONFIG="$LAB/kreg.yaml"
	cat > "$LAB/fio-lab.yaml" <<YAML
suite: fio-basic
testcase: fio-basic
category: benchmark
runtime: 2s
nr_task: 1
${JOB_EXTRA:-}
fio-setup-basic:
  rw: randread
  bs: 4k
  ioengine: sync
  iodepth: 1
  direct: 0
  test_size: 16m
  time_based: 1
  testfile: y
fio:
YAML
	"$KREG" job split "$LAB/fio-lab.yaml" -o "$LAB/atoms" > "$LAB/atoms.list" 2>"$LAB/split.err" ||
		{ cat "$LAB/split.err"; return 1; }
	local atom_file
	atom_file=$(head -1 "$LAB/atoms.list")
	ATOM=$(basename "$atom_file" .yaml)
	for sha in $(git -C "$LAB/src" rev-list --first-parent --reverse main); do
		"$KREG" job run "$atom_file" --host simhost --runs 3 --repo src --commit "$sha" \
			>/dev/null 2>>"$LAB/run.err" || { tail -5 "$LAB/run.err"; return 1; }
	done
	for sha in $(git -C "$LAB/src" rev-list --first-parent main | head -4); do
		"$KREG" job run "$atom_file" --host flaky --runs 3 --repo src --commit "$sha" \
			>/dev/null 2>>"$LAB/flaky.err"
	done
	"$KREG" bisect start --repo src --good "$ROOT" --bad "$HEAD_SHA" --job "$ATOM" \
		--host simhost --metric "$METRIC" > "$LAB/bisect.out" 2>&1 ||
		{ tail -5 "$LAB/bisect.out"; return 1; }
}

# lab_check MODE DIR [ARGS]: report-check.py's verdict, its output in $CHECK_OUT
lab_check() {
	CHECK_OUT=$("$PY" "$KREG_SRC/tests/integration/report-check.py" "$@" 2>&1)
}
