#!/bin/bash
# Every page kreg report writes is valid HTML5 (Debian's python3-html5lib,
# the WHATWG parsing algorithm, strict: the first parse error fails), for a
# lab filled by kreg's commands and for the lab `kreg demo` lays out; the
# demo's site has its regression and no broken link.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/report-lib.sh"
"$PY" -c 'import html5lib' 2>/dev/null || skip_all "python3-html5lib is not installed (make deps)"
plan 11

# The checker catches what it must: a stray end tag, a missing doctype.
mkdir -p "$SCRATCH/bad"
printf '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><p>x</span></p></body></html>\n' \
	> "$SCRATCH/bad/stray.html"
lab_check html5 "$SCRATCH/bad"
like "$?:$CHECK_OUT" "^1:parse error: stray.html" "the negative control: a stray end tag is a parse error"
printf '<html><head><title>t</title></head><body><p>x</p></body></html>\n' > "$SCRATCH/bad/stray.html"
lab_check html5 "$SCRATCH/bad"
like "$?:$CHECK_OUT" "^1:parse error: stray.html" "and so is a page without <!DOCTYPE html>"

make_lab "$SCRATCH/lab"
run_kreg report -o "$SCRATCH/site"
is "$RC" 0 "kreg report on the lab"
n=$(ls "$SCRATCH/site"/*.html | wc -l)
lab_check html5 "$SCRATCH/site"
is "$?:$CHECK_OUT" "0:checked $n pages" "every page of the lab's site is valid HTML5 ($n pages)"

# The demo's lab (its sim bisection, no local runs).
run_kreg demo --sim --dir "$SCRATCH/demo" --no-local
is "$RC" 0 "kreg demo --sim --no-local"
run_kreg -c "$SCRATCH/demo/kreg.yaml" report
is "$RC" 0 "kreg report on the demo's lab"
DEMO=$SCRATCH/demo/data/site
ok "the demo's site has its regression page" test -s "$DEMO/regression-b1.html"
lab_check text "$DEMO/regression-b1.html"
like "$CHECK_OUT" "block: reduce kblockd_mod_delayed_work_on\(\) CPU consumption" "naming the demo's culprit"
n=$(ls "$DEMO"/*.html | wc -l)
lab_check html5 "$DEMO"
is "$?:$CHECK_OUT" "0:checked $n pages" "every page of the demo's site is valid HTML5 ($n pages)"
lab_check links "$DEMO"
is "$?:$CHECK_OUT" "0:checked $n pages" "and no link of it is broken"
no_sanitizer_report "no sanitizer report"
done_testing
