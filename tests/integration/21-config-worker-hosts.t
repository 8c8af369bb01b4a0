#!/bin/bash
# A worker (`kreg work --config-text FILE --host NAME`, as the daemon
# starts it) builds only its item's host of the configuration: with
# 20,000 hosts it starts in a fraction of the memory of the full load
# (`kreg config check`, the daemon's), which still finds an error in the
# last host. Memory, not time: peak RSS compared within the test (the
# release kreg when there is one: ASan's is slow).
. "$KREG_SRC/tests/lib.sh"
[ -x /usr/bin/time ] || skip_all "no /usr/bin/time"
plan 6
[ -x "${KREG_RELEASE:-}" ] && KREG=$KREG_RELEASE

N=20000
{
	echo "data_dir: $SCRATCH/data"
	echo "hosts:"
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "- {name: h%d, backend: sim}\n", i }'
} > kreg.yaml
run_kreg -c kreg.yaml db init
is "$RC" 0 "db init with $N hosts"

# peak RSS (KB) of kreg ARGS...; its stderr in err.t
rss() {
	/usr/bin/time -f "%M" -o rss.t "$KREG" "$@" >/dev/null 2>err.t
	tail -1 rss.t
}
FULL=$(rss -c kreg.yaml config check)
WORK=$(rss -c kreg.yaml work --config-text kreg.yaml 1 --lease t --attempt 1 --host "h$((N - 1))")
like "$(cat err.t)" "no work item 1 in $SCRATCH/data/kreg.db" \
	"the worker loaded the configuration and opened the database"
echo "# peak RSS: config check $FULL KB, a worker $WORK KB"
ok "a worker takes less than a third of the full load's memory ($WORK KB against $FULL KB)" \
	test "$((WORK * 3))" -lt "$FULL"

# The full load still checks every host: an error in the last one.
sed -i '$s/backend: sim/backend: simm/' kreg.yaml
run_kreg -c kreg.yaml config check
is "$RC" 1 "config check fails on the last host"
like "$ERR" "kreg.yaml:$((N + 2)):[0-9]+: hosts\\[$((N - 1))\\]\\.backend: unknown value 'simm', did you mean 'sim'\\?" \
	"naming its file:line:col"
no_sanitizer_report "no sanitizer report"
