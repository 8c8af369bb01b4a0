#!/bin/bash
# YAML nested too deep is refused before it is loaded (libyaml's time grows
# with the square of the depth: a 200 KB job file of '[' took 57 s), with
# the file, line and column of the first value too deep: a job file, a
# kreg.yaml, a sample matrix. What is stored is not touched. The time it
# takes is measured in `make bench` (tests/bench/sizes.sh), not here.
. "$KREG_SRC/tests/lib.sh"
plan 10

export KREG_DATA_DIR="$SCRATCH/data"
# The '[' are left open: a loader that read the whole text first (libyaml,
# as kreg did before the check) answers with its syntax error at the end,
# so only a check made before loading gives the place of the first value
# too deep (and at 200,000 deep the old way took minutes, not ms).
deep() { printf '%s' "$1"; head -c "$2" /dev/zero | tr '\0' '['; echo; }

deep 'suite: x
a: ' 200000 > job.yaml
run_kreg job split -o atoms job.yaml
is "$RC" 1 "a job file nested 200,000 deep is refused"
like "$ERR" '^kreg: job.yaml:2:68: values nested more than 64 deep$' "at the first value too deep"
ok "no atom is written" test ! -e atoms -o -z "$(ls atoms 2>/dev/null)"
# (under a program kreg knows: a top-level key it does not know is refused)
printf 'suite: x\nsplit-job:\n  a: %s\n' "$(printf '[%.0s' $(seq 63))$(printf ']%.0s' $(seq 63))" > ok.yaml
run_kreg job split -o atoms ok.yaml
is "$RC" 0 "64 deep (a mapping and 63 lists) is still a job"

deep 'data_dir: d
x: ' 200000 > deep.yaml
run_kreg config check deep.yaml
is "$RC" 1 "a kreg.yaml nested 200,000 deep is refused"
like "$ERR" 'deep.yaml:2:35: values nested more than 32 deep' "with its place"

deep 'm: ' 200000 > m.yaml
printf 'm: [1, 2, 3]\n' > base.yaml
run_kreg compare base.yaml m.yaml
is "$RC" 1 "a sample matrix nested 200,000 deep is refused"
like "$ERR" 'm.yaml:1:11: values nested more than 8 deep: not a matrix' "with its place"

# the data dir's database is untouched by all this
run_kreg db init
sum=$(sha256sum data/kreg.db | cut -d' ' -f1)
run_kreg job split -o atoms job.yaml
is "$(sha256sum data/kreg.db | cut -d' ' -f1)" "$sum" "the database is untouched"
no_sanitizer_report "no sanitizer report"
done_testing
