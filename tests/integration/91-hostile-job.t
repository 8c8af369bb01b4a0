#!/bin/bash
# Hostile job files (issue 13): what a job file's author may not do to the
# test host through kreg. Real fio, a real shared library it would load.
. "$KREG_SRC/tests/lib.sh"

export KREG_DATA_DIR="$SCRATCH/data"
command -v fio >/dev/null || skip_all "fio is not installed"
command -v cc >/dev/null || skip_all "no C compiler for the planted library"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
plan 11

# A library whose constructor leaves a mark: fio would dlopen it for
# ioengine=/path/e.so or ioengine=external:/path/e.so.
cat > e.c <<C
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void pwn(void)
{
	int fd = open("$SCRATCH/pwned", O_WRONLY | O_CREAT, 0644);
	if (fd >= 0) close(fd);
}
C
cc -shared -fPIC -o e.so e.c || { echo "Bail out! cannot build e.so"; exit 1; }

for engine in "$SCRATCH/e.so" "external:$SCRATCH/e.so"; do
	cat > hostile.yaml <<YAML
runtime: 2s
fio-setup-basic:
  ioengine: $engine
  test_size: 1m
  rw: read
fio:
YAML
	rm -f pwned
	run_kreg job run hostile.yaml --host local
	is "$RC" 1 "ioengine: $engine: the run fails"
	like "$ERR" "ioengine '.*e\.so' is not one of fio's I/O engines" "saying the engine is not one of fio's"
	ok "and fio never loaded the library" test ! -e pwned
done

# The check is in the plan, so `kreg job plan` refuses it too.
run_kreg job plan hostile.yaml --target "$SCRATCH"
is "$RC" 1 "kreg job plan refuses the library too"

# A size that is not a size.
printf 'runtime: 2s\nfio-setup-basic:\n  bs: "4k:/etc/passwd"\n  test_size: 1m\nfio:\n' > bs.yaml
run_kreg job plan bs.yaml --target "$SCRATCH"
like "$ERR" "bs '4k:/etc/passwd' is not a size" "bs must be a size"

# Item 8: a newline in job_origin would inject keys into the atom file's
# header and make file names with newlines.
printf 'job_origin: "x.yaml\\ninjected: 1"\nfio-setup-basic:\n  test_size: 1m\nfio:\n' > origin.yaml
mkdir atoms
run_kreg job split -o atoms origin.yaml
is "$RC" 1 "a job_origin with a newline is refused"
like "$ERR" "origin.yaml:1:[0-9]+: job_origin has a control character" "naming where"
is "$(ls atoms | wc -l)" 0 "and no atom file is written"

done_testing
