#!/bin/bash
# tests/run-suite.sh's wrapper of one test:
#
#   tests/run-test.sh lane|- TEST
#
# runs TEST (a lane's test at nice 10: the other tests beside it come
# first), its stderr held in a file until it ends, then shown on stderr,
# each line named by the test (run-suite.sh says why).
t=$2
err=$(mktemp "${TMPDIR:-/tmp}/kreg-suite-stderr.XXXXXX") || exit 1
if [ "$1" = lane ]; then
	nice -n 10 "$t" 2>"$err"
else
	"$t" 2>"$err"
fi
rc=$?
[ -s "$err" ] && sed "s|^|${t##*/}: |" "$err" >&2
rm -f "$err"
exit $rc
