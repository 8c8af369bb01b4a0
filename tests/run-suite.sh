#!/bin/bash
# make check's runner: TAP::Harness (prove's engine) over the tests given,
# then the ten slowest, then the harness's summary, which stays the last
# lines of the output (CI reads its closing line).
#
#   tests/run-suite.sh TEST...        (the environment is make check's)
#
# Three kinds of tests (docs/HACKING.md, "Tests"):
# - a test in a lane (a comment line of its own, `# suite: lane NAME`): the
#   tests of one lane run one after the other, in their order, and every
#   lane starts first, beside everything else (the kernel tests: their
#   builds run at kreg's build.nice, 10, and take what the other tests
#   leave; they share the suite's kernel fixture and build cache,
#   5x-kernel.sh, and the lane's first test builds what the next ones take);
# - a test that says `suite: alone` (`# suite: alone` in a .t file,
#   ` * suite: alone` in tests/unit/<name>.c for a unit test) runs by
#   itself once everything else is done: its assertions hold a margin of
#   time another test beside it on 2 cores could eat;
# - every other test runs beside any other, KREG_TEST_JOBS (default 2) at
#   a time, beside the lanes.
# A test's stderr is held until it ends, then shown: the harness reads a
# test's stderr and stdout together, and a line on stderr with none on
# stdout after it would keep it from starting the next test until the
# writer prints again (TAP::Parser::Iterator::Process).
set -u
jobs=${KREG_TEST_JOBS:-2}
src=${KREG_SRC:-.}
lanes=() alone=() par=()
for t in "$@"; do
	case $t in
	*.t) marker=$t ;;
	*) marker=$src/tests/unit/$(basename "$t").c ;;
	esac
	lane=$(sed -nE 's/^(#| \*) suite: lane ([a-z0-9-]+)$/\2/p' "$marker" 2>/dev/null | head -1)
	if [ -n "$lane" ]; then
		lanes+=("$lane=$t")
	elif grep -qE '^(#| \*) suite: alone$' "$marker" 2>/dev/null; then
		alone+=("$t")
	else
		par+=("$t")
	fi
done

verbose=0
case " ${PROVE_FLAGS:-} " in *" -v "*|*" --verbose "*) verbose=1 ;; esac

set -o pipefail
KREG_SUITE_JOBS=$jobs KREG_SUITE_VERBOSE=$verbose perl -MTAP::Harness -e '
	use strict; use warnings;
	my (@lanes, @par, @alone, %lane, @order);
	my $part = "lanes";
	for (@ARGV) {
		if ($_ eq "--") { $part = $part eq "lanes" ? "par" : "alone"; next }
		if ($part eq "lanes") {
			my ($name, $t) = /^([^=]+)=(.*)$/;
			push @order, $name unless $lane{$name};
			push @{ $lane{$name} }, $t;
			push @lanes, $t;
		} elsif ($part eq "par") { push @par, $_ } else { push @alone, $_ }
	}
	# The lanes first, then the other tests; a test matched by no rule
	# (the alone ones) runs after everything, by itself.
	my @rules = ((map { { seq => $lane{$_} } } @order), @par ? ({ par => [@par] }) : ());
	my $jobs = $ENV{KREG_SUITE_JOBS} > 1 ? $ENV{KREG_SUITE_JOBS} + @order : 1;
	my $h = TAP::Harness->new({
		jobs => $jobs, timer => 1, verbosity => $ENV{KREG_SUITE_VERBOSE},
		@rules ? (rules => { par => \@rules }) : (),
		exec => sub {
			my (undef, $t) = @_;
			return [ $ENV{KREG_SRC} . "/tests/run-test.sh", $t ];
		},
	});
	my $agg = $h->runtests(@lanes, @par, @alone);
	exit($agg->all_passed ? 0 : 1);
' -- "${lanes[@]}" -- "${par[@]}" -- "${alone[@]}" 2>&1 |
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
