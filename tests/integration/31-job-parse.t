#!/bin/bash
# kreg job parse: LKP's values on LKP's fixtures; bad output is an error.
. "$KREG_SRC/tests/lib.sh"
plan 12

STATS="$KREG_SRC/tests/fixtures/lkp/spec/fixtures/stats"

# Compare numerically: every LKP line present with the same value, no extra.
same_as_lkp() {  # prog expected.yaml got
	awk -v prog="$1" -F': ' '
		FNR == NR { want[prog "." $1] = $2; n++; next }
		{ got[$1] = $2 }
		END {
			bad = 0
			for (k in want) {
				if (!(k in got)) { print "# missing " k; bad = 1; continue }
				d = got[k] - want[k]; if (d < 0) d = -d
				m = want[k] < 0 ? -want[k] : want[k]
				if (d > m * 1e-12) { print "# " k ": " got[k] " != " want[k]; bad = 1 }
			}
			for (k in got) if (!(k in want)) { print "# extra " k; bad = 1 }
			exit bad
		}' "$2" "$3"
}

for f in fio/01 fio/02 dbench/01 fxmark/01; do
	prog=${f%/*}
	run_kreg job parse "$prog" "$STATS/$f"
	printf '%s\n' "$OUT" > got.txt
	same_as_lkp "$prog" "$STATS/$f.yaml" got.txt
	_report $? "kreg job parse $prog $f gives LKP's values"
done
run_kreg job parse fio "$STATS/fio/01"
like "$OUT" '^fio\.read_clat_99%_ns: 2544$' "fio.read_clat_99%_ns as LKP names it"
like "$OUT" '^fio\.latency_2us%: 53\.529537$' "fio.latency_2us%"

# Bad output: exit 1, a message with the file, nothing printed
head -c 3000 "$STATS/fio/01" > cut.json
run_kreg job parse fio cut.json
is "$RC" 1 "truncated fio output fails"
like "$ERR" "cut.json:[0-9]+:[0-9]+: .*truncated" "saying where and why"
is "$OUT" "" "and prints no metric"
sed 's/"mean" : 1321.865086/"mean" : -nan/' "$STATS/fio/01" > nan.json
run_kreg job parse fio nan.json
like "$ERR" "nan.json:.*NaN" "-nan in fio output is an error"
run_kreg job parse iozone "$STATS/fio/01"
is "$RC" 1 "an unknown parser is refused"
run_kreg job parse dbench /nonexistent
is "$RC" 1 "a missing file fails"
done_testing
