#!/bin/bash
# tests/run-suite.sh's wrapper of one test:
#
#   tests/run-test.sh lane|- TEST
#
# runs TEST, its stderr held in a file until it ends, then shown on
# stderr, each line named by the test (run-suite.sh says why). The first
# word says whether TEST is in a lane: nothing differs today (the kernel
# builds in the lanes are nicer by kreg's own build.nice).
t=$2
err=$(mktemp "${TMPDIR:-/tmp}/kreg-suite-stderr.XXXXXX") || exit 1
"$t" 2>"$err"
rc=$?
[ -s "$err" ] && sed "s|^|${t##*/}: |" "$err" >&2
rm -f "$err"
exit $rc
