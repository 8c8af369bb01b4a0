#!/bin/bash
# The materials to reproduce a regression without kreg (0-day's "To
# reproduce"): job.yaml, the kernel's .config, reproduce.sh and a README,
# written with the site beside the regression's page and by `kreg
# reproduce`. reproduce.sh, run by sh on this machine, runs fio as kreg's
# plan runs it, against a directory whose name a shell would read as code,
# and prints fio's output, which kreg's own parser reads. Hostile job values
# and commit subjects stay data.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
command -v fio >/dev/null || skip_all "fio is not installed"
plan 40

make_lab "$SCRATCH/lab"
ok "the lab's bisection found the culprit" test -n "$CULPRIT"
DB=$LAB/data/kreg.db
# kreg's build of the culprit's kernel, as a qemu or ssh host leaves it
# (a sim host builds none): the builds row and its artifact's .config
ART=$SCRATCH/artifact
mkdir -p "$ART"
printf '%s\n' '#' '# Automatically generated file; DO NOT EDIT.' \
	'# Linux/x86 6.8.0-rc1 Kernel Configuration' '#' \
	'CONFIG_CC_VERSION_TEXT="gcc (Debian 12.2.0-14) 12.2.0"' 'CONFIG_BLOCK=y' > "$ART/.config"
sqlite3 "$DB" "INSERT INTO builds (commit_id, tree, config_name, config_hash, status, artifact)
	SELECT id, 'tree', 'default', 'hash', 'ok', '$ART' FROM commits WHERE sha = '$CULPRIT'"

# The site: the materials beside the regression's page.
run_kreg report -o "$SCRATCH/site"
is "$RC" 0 "kreg report writes the site"
SITE=$SCRATCH/site
B=$SITE/reproduce-b1
for f in job.yaml config reproduce.sh README; do
	ok "the materials beside the regression's page hold $f" test -s "$B/$f"
done
is "$(cat "$B/job.yaml")" "$(sqlite3 "$DB" "SELECT yaml FROM jobs WHERE name = '$ATOM'")" \
	"job.yaml is the atom as kreg ran it"
ok "config is the .config of kreg's build of the culprit" cmp "$B/config" "$ART/.config"
REG=$SITE/regression-b1.html
like "$(cat "$REG")" 'href="reproduce-b1/reproduce.sh"' "the regression page links reproduce.sh"
like "$(cat "$REG")" 'href="reproduce-b1/config"' "and the kernel's .config"
lab_check text "$REG"
like "$CHECK_OUT" "^ +git checkout $CULPRIT   # the culprit$" "the page says which kernel to build"
like "$CHECK_OUT" "^ +cp /path/to/materials/config .config && make olddefconfig$" "with the config"
like "$CHECK_OUT" "^ +sh reproduce.sh /mnt/test$" "and what to run on it"
lab_check links "$SITE" "$COMMIT_URL_PREFIX"
is "$?:$CHECK_OUT" "0:checked $(ls "$SITE"/*.html | wc -l) pages" "every link resolves to a file of the site"
like "$(cat "$B/README")" "git checkout $CULPRIT" "the README gives the steps too"

# kreg reproduce: the same files, for a lab without the site.
run_kreg reproduce b1 -o "$SCRATCH/cmd"
is "$RC" 0 "kreg reproduce b1 -o DIR"
is "$(diff -r "$B" "$SCRATCH/cmd" >&2 && echo same)" same "it writes the materials the site holds"
ok "its reproduce.sh is executable" test -x "$SCRATCH/cmd/reproduce.sh"
run_kreg reproduce
is "$RC" 2 "kreg reproduce without an ID is a usage error"
run_kreg reproduce x7
is "$RC" 2 "and with a word that is no ID"
run_kreg reproduce 99
like "$RC:$ERR" "^1:kreg: .*99" "a regression that does not exist is an error naming it"
if command -v shellcheck >/dev/null; then
	ok "reproduce.sh is POSIX sh with nothing shellcheck warns about" shellcheck -s sh "$B/reproduce.sh"
else
	ok "# SKIP shellcheck is not installed" true
fi

# Run it on this machine: fio writes into a directory whose name holds a
# quote and a command substitution.
T="$SCRATCH/target it's \$(touch pwned)"
mkdir -p "$T" "$SCRATCH/cwd"
(cd "$SCRATCH/cwd" && sh "$B/reproduce.sh" "$T" "$SCRATCH/run") > "$SCRATCH/out" 2> "$SCRATCH/err"
is "$?" 0 "sh reproduce.sh TARGET RUN_DIR runs the test"
OUTPUT=$(cat "$SCRATCH/out")
ERRORS=$(cat "$SCRATCH/err")
like "$OUTPUT" "^running in $SCRATCH/run: fio --output-format=json --output=fio.json job.fio$" \
	"it says what it runs, and where"
ok "fio really ran: its file is in the target" test -s "$T/fio_testfile"
is "$(find "$SCRATCH" -name pwned | wc -l)" 0 "the target's name was never run as a command"
like "$ERRORS" "warning: the running kernel \($(uname -r)\) does not say it is the culprit ${CULPRIT:0:12}" \
	"it warns that the running kernel is not the culprit's"
case $(uname -r) in
6.8.0-rc1*) ok "# SKIP this machine runs the version the .config names" true ;;
*) like "$ERRORS" "warning: kreg tested a 6.8.0-rc1 kernel" "and names the version kreg tested" ;;
esac
sed -n '/^==> fio.json <==$/,/^reproduce.sh: /p' "$SCRATCH/out" | sed '1d;$d' > "$SCRATCH/printed.json"
run_kreg job parse fio "$SCRATCH/printed.json"
is "$RC" 0 "the fio output it prints is what kreg's parser reads"
iops=$(printf '%s\n' "$OUT" | sed -n 's/^fio.read_iops: //p')
ok "with the job's metric, fio.read_iops ($iops)" awk -v v="$iops" 'BEGIN { exit !(v > 0) }'
like "$OUTPUT" "kreg job parse fio fio.json" "it says where the output is and how kreg parses it"
"$KREG" job plan "$LAB/atoms/$ATOM.yaml" --target "$T" --cpus 1 > "$SCRATCH/plan" 2>&1
ok "fio's job file names the target" grep -Fqx "directory=$T" "$SCRATCH/run/job.fio"
is "$(sed -n '/^--- job.fio$/,/^--- /p' "$SCRATCH/plan" | sed '1d;/^--- /d')" "$(cat "$SCRATCH/run/job.fio")" \
	"fio ran the job file kreg's plan makes for that target"
(cd "$SCRATCH/cwd" && sh "$B/reproduce.sh" relative/dir) 2> "$SCRATCH/err"
like "$?:$(cat "$SCRATCH/err")" "^2:reproduce.sh: TARGET must be an absolute path" "a relative TARGET is refused"

# Hostile values: a job value kreg will not put into an fio job (the sim
# host ran it), a culprit's subject and author written to be run.
JOB_EXTRA="ramp_time: \"'\$(touch pwned)'\"" \
CULPRIT_SUBJECT="block: x'\$(touch pwned)\`touch pwned\`\"; touch pwned; '" \
CULPRIT_AUTHOR="Evil \$(touch pwned)" make_lab "$SCRATCH/hostile"
ok "the hostile lab's bisection found the culprit" test -n "$CULPRIT"
run_kreg reproduce b1 -o "$SCRATCH/h"
is "$RC" 0 "kreg reproduce writes its materials"
ok "its reproduce.sh parses" sh -n "$SCRATCH/h/reproduce.sh"
mkdir -p "$SCRATCH/hcwd" "$SCRATCH/ht"
(cd "$SCRATCH/hcwd" && sh "$SCRATCH/h/reproduce.sh" "$SCRATCH/ht") > "$SCRATCH/hout" 2> "$SCRATCH/herr"
is "$?" 2 "it cannot run the job, and exits 2"
like "$(cat "$SCRATCH/herr")" "ramp_time ''\\\$\(touch pwned\)'': only letters, digits" \
	"saying why, the value shown as it is"
is "$(find "$SCRATCH" -name pwned | wc -l)" 0 "no value from the job or the repository ran"
done_testing
