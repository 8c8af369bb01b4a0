#!/bin/bash
# The command line: help, version, exit codes 0 / 1 / 2.
. "$KREG_SRC/tests/lib.sh"
plan 14

run_kreg --version
is "$RC" 0 "--version exits 0"
like "$OUT" "^kreg version " "and prints the version"

run_kreg help
is "$RC" 0 "help exits 0"
like "$OUT" "bisect +find the first bad commit" "help lists the commands"

run_kreg
is "$RC" 2 "no command is a usage error"

run_kreg frobnicate
is "$RC" 2 "an unknown command is a usage error"
like "$ERR" "'frobnicate' is not a kreg command" "and says so"

run_kreg bisetc
like "$ERR" "did you mean 'bisect'" "a near miss gets a suggestion"

run_kreg db --help
is "$RC" 0 "db --help exits 0"
like "$OUT" "kreg db init" "and describes the command"

run_kreg help db
like "$OUT" "kreg db info" "help db is db --help"

run_kreg db frob
is "$RC" 2 "db with an unknown subcommand is a usage error"

run_kreg --bogus
is "$RC" 2 "an unknown global option is a usage error"

run_kreg -c
is "$RC" 2 "-c without a file is a usage error"
done_testing
