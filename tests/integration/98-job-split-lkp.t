#!/bin/bash
# kreg job split never half-splits in silence: boot_params are parameters
# of an atom (in its name, as LKP's reports list bp1_memmap), a list under a
# program kreg has no table for is refused by name and place, and an ERB
# template is refused as one. A refused job writes no atom.
. "$KREG_SRC/tests/lib.sh"
plan 14

FIX="$KREG_SRC/tests/fixtures/lkp/jobs"
export KREG_DATA_DIR="$SCRATCH/data"

run_kreg job split -o pmem "$FIX/fio-basic/fio-basic-2pmem-256g.yaml"
is "$RC" 0 "fio-basic-2pmem-256g.yaml splits"
is "$(ls pmem | wc -l)" 152 "into LKP's 152 atoms (96 + 24 + 32)"
is "$(ls pmem | grep -vc -- '-104G_8G-104G_132G-')" 0 "each name carries the boot_params values"
a=pmem/fio-basic-2pmem-256g-104G_8G-104G_132G-4k-2pmem-xfs-libaio-50%-200s-randrw-200G-tb.yaml
ok "named like LKP's path params, in key order" test -f "$a"
like "$(cat "$a" 2>/dev/null)" "bp1_memmap: 104G!8G" "the atom keeps its boot_params"

# A list under a program kreg has no table for: LKP makes 22 atoms of
# will-it-scale-part1.yaml (2 modes x 11 tests); kreg cannot know that.
run_kreg job split -o wis "$FIX/will-it-scale/will-it-scale-part1.yaml"
is "$RC" 1 "a job of a program kreg knows nothing of is refused"
like "$ERR" "will-it-scale-part1.yaml:11:3: 'mode' under 'will-it-scale' is a list" \
	"naming the file, line, key and program"
like "$ERR" "kreg knows no program 'will-it-scale'" "and why"
ok "no atom is written" test ! -e wis -o -z "$(ls wis 2>/dev/null)"
# one value each: nothing left to guess, one atom
printf 'suite: will-it-scale\nwill-it-scale:\n  mode: process\n  test: brk1\n' > one.yaml
run_kreg job split -o one one.yaml
is "$RC" 0 "with one value each it splits"
is "$(ls one | wc -l)" 1 "into one atom"

# ERB: LKP expands <% %> with Ruby before reading the YAML.
printf 'suite: dbench\ndbench:\n  nr_threads: <%%= 2 * 2 %%>\n' > erb.yaml
run_kreg job split -o erb erb.yaml
is "$RC" 1 "a job with an ERB template is refused"
like "$ERR" "erb.yaml:3:15: an ERB template \('<%'\): kreg does not run the Ruby" \
	"by name, with its place"
ok "no atom is written" test ! -e erb -o -z "$(ls erb 2>/dev/null)"
done_testing
