#!/bin/bash
# tests/run-suite.sh's wrapper of one test:
#
#   tests/run-test.sh TEST
#
# runs TEST, its stderr held in a file until it ends, then shown on
# stderr, each line named by the test (run-suite.sh says why).
t=$1
err=$(mktemp "${TMPDIR:-/tmp}/kreg-suite-stderr.XXXXXX") || exit 1
"$t" 2>"$err"
rc=$?
[ -s "$err" ] && sed "s|^|${t##*/}: |" "$err" >&2
rm -f "$err"
exit $rc
