#!/bin/bash
# kreg job split: LKP's atoms for its job files, written as files, named as
# LKP's split-job names them.
. "$KREG_SRC/tests/lib.sh"
plan 25

FIX="$KREG_SRC/tests/fixtures/lkp"
export KREG_DATA_DIR="$SCRATCH/data"

run_kreg job split -o atoms "$FIX/jobs/fio-basic/fio-basic-local-disk.yaml"
is "$RC" 0 "split of fio-basic-local-disk.yaml exits 0"
is "$(printf '%s\n' "$OUT" | wc -l)" 96 "it prints 96 atom paths"
is "$(ls atoms | wc -l)" 96 "and writes 96 files"
ok "each printed path is a file" bash -c 'for f in $0; do test -f "$f" || exit 1; done' "$OUT"
a=atoms/fio-basic-local-disk-4k-1-1SSD-n-ext4-32-io_uring-1-300s-randwrite-1g-y.yaml
like "$(cat "$a" 2>/dev/null)" "rw: randwrite" "an atom holds its rw"
like "$(cat "$a" 2>/dev/null)" "iodepth: 32" "and its iodepth"
unlike "$(cat "$a" 2>/dev/null)" "- randread" "and no list left"

# LKP's split-job fixtures: the same atom names LKP wrote
for n in 1 2; do
	run_kreg job split -o sj "$FIX/spec/fixtures/split-job/$n.yaml"
	want=$(cd "$FIX/spec/fixtures/split-job" && ls $n-*.yaml | sort)
	got=$(cd sj && ls $n-*.yaml | sort)
	is "$got" "$want" "split-job/$n.yaml gives LKP's atoms"
done
like "$(cat sj/2-group_2-test_1.yaml)" "group: group_2" "2-group_2-test_1 has group_2"

# Splitting an atom gives itself
run_kreg job split -o again sj/2-group_2-test_1.yaml
is "$OUT" "again/2-group_2-test_1.yaml" "an atom splits into itself, same name"
is "$(grep -v '^#' again/2-group_2-test_1.yaml)" "$(grep -v '^#' sj/2-group_2-test_1.yaml)" "with the same content"

# --host names the test box; an unknown host is refused
run_kreg job split --host nosuchhost -o x "$FIX/spec/fixtures/split-job/1.yaml"
is "$RC" 1 "an unknown --host is refused"
like "$ERR" "no host named 'nosuchhost'" "saying so"

# Bad YAML: FILE:LINE:COL
printf 'suite: x\nfio-setup-basic:\n  rw: [read\n' > bad.yaml
run_kreg job split -o x bad.yaml
is "$RC" 1 "a broken job file fails"
like "$ERR" "bad.yaml:[0-9]+:[0-9]+: " "naming FILE:LINE:COL"
# Includes found through the configuration's job_path
mkdir -p conf/lib/sub jobs
printf 'suite: fxmark\ntestcase: fxmark\nfxmark:\n  test: [MWCL, DWAL]\n' > conf/lib/sub/fx-base.yaml
printf '<<: {file: fx-base.yaml, media: ssd}\n' > jobs/fx.yaml
printf 'data_dir: %s/data\njob_path:\n  - lib\n' "$SCRATCH" > conf/kreg.yaml
run_kreg job split -o inc jobs/fx.yaml
like "$ERR" "jobs/fx.yaml:1:5: included job file 'fx-base.yaml' not found" "an include not on the job path is an error at the <<"
run_kreg -c conf/kreg.yaml job split -o inc jobs/fx.yaml
is "$OUT" "$(printf 'inc/fx-ssd-MWCL.yaml\ninc/fx-ssd-DWAL.yaml')" "with job_path it is found below lib/, overrides applied"
like "$(cat inc/fx-ssd-DWAL.yaml)" "media: ssd" "the override is in the atom"

# One flush for all the atoms, not one fsync each: LKP's fxmark.yaml makes
# 480 atoms; they are written out with one syncfs and one fsync of the
# folder, and an atom only gets its name once it is written out.
if command -v strace >/dev/null; then
	# LeakSanitizer does not run under ptrace
	nolsan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	ASAN_OPTIONS=$nolsan strace -f -o trace -e trace=fsync,fdatasync,syncfs,rename "$KREG" job split -o fx \
		"$FIX/jobs/fxmark.yaml" > fx.out 2> fx.err
	is "$(wc -l < fx.out)" 480 "fxmark.yaml splits into 480 atoms"
	is "$(grep -cE '(fsync|fdatasync|syncfs)\(' trace)" 2 "flushed with one syncfs and one fsync of the folder"
	s=$(grep -nE 'syncfs\(' trace | head -1 | cut -d: -f1)
	r=$(grep -nE 'rename\(' trace | head -1 | cut -d: -f1)
	ok "before the first atom is renamed to its name" test "${s:-9999999}" -lt "${r:-0}"
	# the flush fails (as when the disk does): no atom under its name,
	# no temporary left behind
	ASAN_OPTIONS=$nolsan strace -f -o /dev/null -e trace=fsync,syncfs -e inject=fsync,syncfs:error=EIO \
		"$KREG" job split -o eio "$FIX/jobs/fxmark.yaml" > eio.out 2> eio.err
	is "$?" 1 "a failed flush fails the split"
	like "$(cat eio.err)" "eio: cannot write out: Input/output error" "saying so"
	is "$(ls -A eio | wc -l)" 0 "and leaves no atom, whole or half, and no temporary"
else
	for i in 1 2 3 4 5 6; do
		_tap_n=$((_tap_n + 1))
		echo "ok $_tap_n # SKIP strace is not installed"
	done
fi
done_testing
