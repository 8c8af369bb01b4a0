#!/bin/bash
# Every input has a limit and a clear refusal (issue 13 item 11): a
# configuration, a job file, program output and a sample matrix read from
# /dev/zero or a pipe that never ends are refused once past the limit, not
# read until memory runs out.
. "$KREG_SRC/tests/lib.sh"
export KREG_DATA_DIR="$SCRATCH/data"
plan 10

# each command gets two minutes: past that it is reading forever
run_limited() { run_kreg_t 120 "$@"; }
run_kreg_t() {
	local t=$1; shift
	timeout "$t" "$KREG" "$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err"
	RC=$?
	OUT=$(cat "$SCRATCH/.out")
	ERR=$(head -c 2000 "$SCRATCH/.err")
}

run_limited config check /dev/zero
is "$RC" 1 "config check /dev/zero fails (not killed, not hung)"
like "$ERR" "/dev/zero: more than 4 MiB: too large for a configuration file" "naming the limit"

run_limited job split -o . /dev/zero
is "$RC" 1 "job split /dev/zero fails"
like "$ERR" "/dev/zero: (not a regular file|more than 16 MiB: too large for a job file)" "saying why"

run_limited job parse fio /dev/zero
is "$RC" 1 "job parse fio /dev/zero fails"
like "$ERR" "more than 256 MiB: too large for program output" "naming the limit"

printf '{"fio.read_iops": [1, 2, 3]}\n' > base.json
run_limited compare base.json <(yes '{"fio.read_iops": [1, 2, 3]}')
is "$RC" 1 "compare with a matrix from an endless pipe fails"
like "$ERR" "more than 64 MiB: too large for a sample matrix" "naming the limit"

# under the limits, the same commands work
run_limited compare base.json <(cat base.json)
is "$RC" 0 "a matrix from a pipe under the limit is read"
cp "$KREG_SRC/tests/fixtures/lkp/spec/fixtures/stats/dbench/01" dbench.log
run_limited job parse dbench <(cat dbench.log)
is "$RC" 0 "program output from a pipe under the limit is parsed"

done_testing
