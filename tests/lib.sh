# TAP helpers for kreg's integration tests (git's t/test-lib.sh, smaller).
#
#   . "$KREG_SRC/tests/lib.sh"
#   plan 3
#   ok "db init creates the file" test -f db.sqlite
#   run_kreg db info; is_exit 0 ...
#
# Each test script runs in its own scratch directory, removed at exit unless
# KREG_TEST_KEEP is set.

set -u
: "${KREG_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${KREG:=$KREG_SRC/build/san/kreg}"
export KREG KREG_SRC
# One kernel build per tree and config for the whole suite (kernel/build.c's
# shared cache); KREG_BUILD_CACHE= (empty) turns it off.
: "${KREG_BUILD_CACHE=$KREG_SRC/build/kernel-artifacts}"
export KREG_BUILD_CACHE

TEST_NAME=$(basename "$0" .t)
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/kreg-test-$TEST_NAME.XXXXXX")
_tap_n=0
_tap_failed=0
_cleanup() {
	if [ -n "${KREG_TEST_KEEP:-}" ] || [ "$_tap_failed" -gt 0 ]; then
		echo "# scratch kept: $SCRATCH"
	else
		chmod -R u+w "$SCRATCH" 2>/dev/null
		rm -rf "$SCRATCH"
	fi
}
trap _cleanup EXIT
cd "$SCRATCH" || exit 1
unset KREG_CONFIG KREG_DATA_DIR

plan() { echo "1..$1"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }

_report() {  # status description
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		_tap_failed=$((_tap_failed + 1))
		echo "not ok $_tap_n - $2"
	fi
}

# ok DESCRIPTION COMMAND [ARGS...]: passes when the command succeeds.
ok() {
	local desc=$1; shift
	"$@" >/dev/null 2>&1
	_report $? "$desc"
}

# run_kreg ARGS...: runs kreg, keeping stdout in $OUT, stderr in $ERR, status in $RC.
run_kreg() {
	"$KREG" "$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err"
	RC=$?
	OUT=$(cat "$SCRATCH/.out")
	ERR=$(cat "$SCRATCH/.err")
}

# is GOT EXPECTED DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then
		_report 0 "$3"
	else
		_report 1 "$3"
		printf '#   got:      %s\n#   expected: %s\n' "$1" "$2" | sed '2,$s/^/# /'
	fi
}

# todo_is GOT EXPECTED DESCRIPTION REASON: a check of a known bug, shown
# as TAP's TODO (it does not fail the suite; prove reports it when it
# starts to pass). Name the bug in REASON.
todo_is() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $_tap_n - $3 # TODO $4"
	else
		echo "not ok $_tap_n - $3 # TODO $4"
		printf '#   got:      %s\n#   expected: %s\n' "$1" "$2" | sed '2,$s/^/# /'
	fi
}

# like TEXT REGEX DESCRIPTION (grep -E, multi-line text)
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		_report 0 "$3"
	else
		_report 1 "$3"
		printf '%s\n' "$1" | head -20 | sed 's/^/#   got: /'
		echo "#   wanted: /$2/"
	fi
}

unlike() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		_report 1 "$3"
		printf '%s\n' "$1" | head -20 | sed 's/^/#   got: /'
	else
		_report 0 "$3"
	fi
}

# A sanitizer report anywhere in stderr fails the check that asks.
no_sanitizer_report() {
	unlike "$ERR" 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$1"
}

done_testing() {
	[ "$_tap_failed" -eq 0 ]
}
