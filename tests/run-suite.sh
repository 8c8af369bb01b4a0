#!/bin/bash
# make check's runner: prove over the tests given, KREG_TEST_JOBS (default
# 2) at a time where they can, then the ten slowest, then prove's summary,
# which stays the last lines of the output (CI reads prove's closing line).
#
#   tests/run-suite.sh TEST...        (the environment is make check's)
#
# Three kinds of tests (docs/HACKING.md, "Tests"):
# - the kernel tests (tests/integration/5N-*.t) run one after the other,
#   in their order, once the others are done (prove's scheduler takes a
#   seq group after the single tests: TAP::Parser::Scheduler queues nested
#   groups last; so no kernel build runs beside a daemon test's margins;
#   giving each single test a group of its own would start the kernel
#   lane first, beside them, if that is ever wanted): they share the suite's kernel
#   checkout, object directories and build cache (5x-kernel.sh), and 51
#   builds what 52-58 then take;
# - a test that says `suite: alone` (a comment line of its own: `# suite:
#   alone` in a .t file, ` * suite: alone` in tests/unit/<name>.c for a
#   unit test) runs by itself once
#   everything else is done: its assertions hold a margin of time that
#   another test beside it on 2 cores could eat;
# - every other test runs beside any other.
set -u
jobs=${KREG_TEST_JOBS:-2}
src=${KREG_SRC:-.}
kernel=() par=() alone=()
for t in "$@"; do
	case $t in
	*.t) marker=$t ;;
	*) marker=$src/tests/unit/$(basename "$t").c ;;
	esac
	if grep -qE '^(#| \*) suite: alone$' "$marker" 2>/dev/null; then
		alone+=("$t")	# matched by no rule: prove runs it last, alone
	elif [[ $t == */integration/5[0-9]-*.t ]]; then
		kernel+=("$t")
	else
		par+=("$t")
	fi
done
glob() { local IFS=,; printf '{%s}' "$*"; }
rules=()
[ ${#kernel[@]} -gt 0 ] && rules+=(--rules "seq=$(glob "${kernel[@]}")")
[ ${#par[@]} -gt 0 ] && rules+=(--rules "par=$(glob "${par[@]}")")
[ "$jobs" -gt 1 ] || rules=()

set -o pipefail
# shellcheck disable=SC2086 # PROVE_FLAGS is a list of flags
prove --exec '' -j"$jobs" --timer "${rules[@]}" ${PROVE_FLAGS:-} "$@" 2>&1 |
perl -ne '
	BEGIN { $| = 1; %ms = (); $shown = 0 }
	sub slowest {
		my @t = sort { $ms{$b} <=> $ms{$a} } keys %ms;
		return unless @t;
		splice @t, 10 if @t > 10;
		print "Slowest tests:\n";
		printf "  %8.1f s  %s\n", $ms{$_} / 1000, $_ for @t;
		$shown = 1;
	}
	$ms{$1} = $2 if /^\[\d\d:\d\d:\d\d\] (\S+) \.+ .*?\b(\d+) ms\b/;
	slowest() if !$shown && /^(All tests successful\.|Test Summary Report)/;
	print;
	END { slowest() unless $shown }
'
