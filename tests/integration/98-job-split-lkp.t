#!/bin/bash
# kreg job split never half-splits in silence: every LKP job file of the
# programs kreg runs (fio-basic*, fxmark*, dbench*) splits into the atoms
# LKP names, or is refused naming the key kreg cannot place; boot_params are
# parameters of an atom (in its name, as LKP's reports list bp1_memmap), a
# value under a program kreg has no table for is refused by name and place,
# and an ERB template is refused as one. A refused job writes no atom.
. "$KREG_SRC/tests/lib.sh"
plan 46

FIX="$KREG_SRC/tests/fixtures/lkp/jobs"
NAMES="$KREG_SRC/tests/fixtures/lkp/split-names"
export KREG_DATA_DIR="$SCRATCH/data"

# The names' derivation gives LKP's own: the atoms LKP's split-job wrote
# for its spec fixtures.
for n in 1 2; do
	want=$(cd "$FIX/../spec/fixtures/split-job" && ls $n-*.yaml | sed 's/\.yaml$//' | LC_ALL=C sort)
	is "$(python3 "$NAMES/lkp-names.py" "$FIX/../spec/fixtures/split-job/$n.yaml")" "$want" \
		"lkp-names.py gives the names LKP gave split-job/$n.yaml's atoms"
done

# Every job file: LKP's names (split-names/*.names, derived by applying
# LKP's lib/job.rb: see lkp-names.py there), the same atoms, each written.
exact=0
for job in "$FIX"/fio-basic*.yaml "$FIX"/fio-basic/*.yaml "$FIX"/fxmark*.yaml "$FIX"/dbench*.yaml; do
	rel=${job#"$FIX"/}
	want="$NAMES/${rel%.yaml}.names"
	[ -f "$want" ] || continue
	rm -rf all
	run_kreg job split -o all "$job"
	got=$(printf '%s\n' "$OUT" | sed 's|^all/||; s|\.yaml$||' | LC_ALL=C sort)
	is "$got" "$(LC_ALL=C sort "$want")" "$rel splits into LKP's $(wc -l < "$want") atoms, named as LKP names them"
	[ "$got" = "$(LC_ALL=C sort "$want")" ] && exact=$((exact + 1))
done
is "$exact" 21 "21 LKP job files split exactly as LKP splits them"

# The one LKP cannot be followed on: programs kreg has no table for
# (migration_path, numactl, sysctl, memory-hotplug), whose options LKP puts
# in the name. Refused at the first such key, with its place.
job=$FIX/fio-basic-pagecache-demo.yaml
run_kreg job split -o pc "$job"
is "$RC" 1 "fio-basic-pagecache-demo.yaml is refused"
like "$ERR" "fio-basic-pagecache-demo.yaml:32:3: 'enable_promotion' under 'migration_path' is a list, and kreg knows no program 'migration_path'" \
	"naming the list LKP splits (8 atoms) and kreg cannot"
ok "no atom is written" test ! -e pc -o -z "$(ls pc 2>/dev/null)"
# with one value there, the next key kreg cannot place is named: a scalar
# under a program kreg has no table for would name the atom in LKP
sed '/enable_promotion:/{N;N;s/:.*/: true/}' "$job" > pc1.yaml
run_kreg job split -o pc pc1.yaml
like "$ERR" "pc1.yaml:11:3: 'interleave' under 'numactl': kreg knows no program 'numactl'" \
	"then the scalar under a program kreg knows nothing of"
ok "no atom is written" test ! -e pc -o -z "$(ls pc 2>/dev/null)"
# a top-level value of a key kreg does not know: in LKP a program
# (debug-setup: tune) or an option would name the atom
printf 'suite: fio-basic\nperf-setup: tune\nfio:\n' > top.yaml
run_kreg job split -o top top.yaml
is "$RC" 1 "a value under a key kreg does not know is refused"
like "$ERR" "top.yaml:2:1: 'perf-setup' is no program or option kreg knows" "naming it and its place"
printf 'suite: fio-basic\nperf-setup:\nfio:\n' > top.yaml
run_kreg job split -o top top.yaml
is "$OUT" "top/top-defaults.yaml" "without a value it names nothing, in LKP too: it splits"

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
# one value each: LKP names the atom by them (will-it-scale declares mode
# and test), kreg cannot know that
printf 'suite: will-it-scale\nwill-it-scale:\n  mode: process\n  test: brk1\n' > one.yaml
run_kreg job split -o one one.yaml
is "$RC" 1 "with one value each it is refused too"
like "$ERR" "one.yaml:3:3: 'mode' under 'will-it-scale': kreg knows no program 'will-it-scale'" \
	"naming the first value"

# ERB: LKP expands <% %> with Ruby before reading the YAML.
printf 'suite: dbench\ndbench:\n  nr_threads: <%%= 2 * 2 %%>\n' > erb.yaml
run_kreg job split -o erb erb.yaml
is "$RC" 1 "a job with an ERB template is refused"
like "$ERR" "erb.yaml:3:15: an ERB template \('<%'\): kreg does not run the Ruby" \
	"by name, with its place"
ok "no atom is written" test ! -e erb -o -z "$(ls erb 2>/dev/null)"
done_testing
