#!/bin/bash
# make bench: what a worker's start costs with many hosts configured
# (release build). KREG_BENCH_HOSTS (default 100000) sim hosts, one line
# each (the file stays under the 4 MiB limit), and `kreg work` on an item
# it does not hold: it loads the configuration the daemon hands it, opens
# the database, and stops. Prints its peak RSS and CPU. Every worker of
# the daemon starts so, building only the host it is handed (--host, the
# last one here) and reading past the others; `kreg config check` (and the daemon,
# and a poll) parse the whole kreg.yaml: a libyaml document, then one
# kreg_host_cfg per host.
# Work files in build/bench-hosts (removed after unless KEEP=1).
set -u
: "${KREG:?set KREG to the kreg binary}" "${KREG_SRC:?set KREG_SRC to the source tree}"
N=${KREG_BENCH_HOSTS:-100000}
W="$KREG_SRC/build/bench-hosts"
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
[ -x /usr/bin/time ] || { echo "hosts: no /usr/bin/time: skipped"; exit 0; }

{
	echo "data_dir: $W/data"
	echo "hosts:"
	awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "- {name: h%d, backend: sim}\n", i }'
} > kreg.yaml
"$KREG" -c kreg.yaml db init >/dev/null || exit 1
for what in "config check" "work"; do
	if [ "$what" = work ]; then
		set -- work --config-text kreg.yaml 1 --lease bench --attempt 1 --host "h$((N - 1))"
	else
		set -- config check
	fi
	/usr/bin/time -f "%M %U %S" -o t "$KREG" -c kreg.yaml "$@" >/dev/null 2>&1
	tail -1 t | awk -v n="$N" -v kb=$(($(stat -c %s kreg.yaml) / 1024)) -v what="$what" \
		'{ printf "hosts: %d hosts (%d KB of kreg.yaml): kreg %s: %.0f MB peak RSS, %.2f s CPU\n",
		   n, kb, what, $1 / 1024, $2 + $3 }'
done
