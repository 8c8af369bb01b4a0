#!/bin/bash
# Every built libFuzzer target in $KREG_FUZZ_DIR, briefly, on its seed
# corpus (tests/fuzz/corpus/<name>): no crash, no leak, no sanitizer report.
# `make fuzz` runs them for longer.
. "$KREG_SRC/tests/lib.sh"

[ -n "${KREG_FUZZ_DIR:-}" ] && [ -d "$KREG_FUZZ_DIR" ] || skip_all "no KREG_FUZZ_DIR"
targets=$(find "$KREG_FUZZ_DIR" -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
[ -n "$targets" ] || skip_all "no fuzz targets built in $KREG_FUZZ_DIR"
plan "$(printf '%s\n' "$targets" | wc -l)"

for t in $targets; do
	name=$(basename "$t")
	corpus="$KREG_SRC/tests/fuzz/corpus/${name#fuzz_}"
	mkdir -p "new-$name"
	# new inputs go to the scratch folder, never into the source tree
	args=("new-$name")
	[ -d "$corpus" ] && args+=("$corpus")
	"$t" -runs=2000 -max_total_time=10 -timeout=60 -rss_limit_mb=2048 \
		-print_final_stats=0 "${args[@]}" >"$name.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -25 "$name.log" | sed 's/^/# /'
	_report $rc "$name runs clean on its corpus"
done
done_testing
