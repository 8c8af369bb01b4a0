#!/bin/bash
# A run that starts on a loaded machine (docs/noise.md): a local or qemu
# host's max_load is the 1-minute load average per CPU above which its run
# is stored marked (runs.load, runs.loaded), said so by `kreg job run` and
# the host's page, and left out of the detector's history. The load is read
# from $KREG_LOADAVG_FILE here (tests), /proc/loadavg otherwise.
. "$KREG_SRC/tests/lib.sh"
command -v fio >/dev/null || skip_all "fio is not installed"
command -v sqlite3 >/dev/null || skip_all "sqlite3 is not installed"
plan 20

CPUS=$(nproc)
mkdir -p local && cd local || exit 1
cat > kreg.yaml <<YAML
data_dir: $SCRATCH/local/data
hosts:
  - name: busy
    backend: local
    max_load: 1.5
  - name: unchecked
    backend: local
YAML
export KREG_CONFIG=$SCRATCH/local/kreg.yaml
q() { sqlite3 data/kreg.db "$1"; }
run_kreg job split -o atoms "$KREG_SRC/jobs/fio-quick.yaml"
atom=$(printf '%s\n' "$OUT" | grep randread)

# 2.0 per CPU: above 1.5
echo "$((2 * CPUS)).00 1.00 1.00 3/400 12345" > loadavg
export KREG_LOADAVG_FILE=$SCRATCH/local/loadavg
run_kreg job run "$atom" --host busy
is "$RC" 0 "a run on a loaded machine still runs and exits 0"
like "$OUT" "^loaded: 1 of 1 runs started above the host's max_load \(load per CPU: 2\.00\): marked, left out of detection$" \
	"kreg job run says the run was loaded"
like "$ERR" "starts on a loaded machine \(load 2\.00 per CPU, max_load 1\.50\)" "and warns as it starts"
is "$(q "SELECT status, load, loaded FROM runs")" "ok|2.0|1" "the run is stored ok, with its load, marked"
is "$(q "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id WHERE r.loaded = 1")" \
	"$(q "SELECT count(*) FROM samples")" "its samples are kept"

# 1.0 per CPU: under it
echo "$CPUS.00 1.00 1.00 3/400 12345" > loadavg
run_kreg job run "$atom" --host busy
is "$RC" 0 "a run on a quiet machine"
unlike "$OUT" "loaded" "is not said to be loaded"
is "$(q "SELECT load, loaded FROM runs WHERE id = 2")" "1.0|0" "its load is stored, unmarked"

# no max_load: measured, never marked
echo "$((9 * CPUS)).00 1.00 1.00 3/400 12345" > loadavg
run_kreg job run "$atom" --host unchecked
unlike "$OUT" "loaded" "a host without max_load marks no run"
is "$(q "SELECT load, loaded FROM runs WHERE id = 3")" "9.0|0" "its load is stored all the same"

# the host's page shows the mark
run_kreg report -o site
ok "the host's page marks the loaded run" grep -q 'class="loaded"[^>]*>loaded 2.00<' site/host-busy.html
is "$(grep -c 'class="loaded"' site/host-busy.html)" 1 "and only it"

# a bad max_load, and one on a host that runs elsewhere
sed -i 's/max_load: 1.5/max_load: -1/' kreg.yaml
run_kreg config check
like "$ERR" "kreg.yaml:5.*max_load" "a negative max_load is refused, naming its line"
printf '  - name: simmed\n    backend: sim\n    max_load: 2\n' >> kreg.yaml
sed -i 's/max_load: -1/max_load: 1.5/' kreg.yaml
run_kreg config check
like "$ERR" "max_load" "max_load on a sim host is refused"
cd "$SCRATCH" || exit 1
unset KREG_LOADAVG_FILE

# The detector leaves a loaded run out: ten flat commits at 10,000 read
# IOPS (8 runs each, about 3% apart), then a head at -15% (11 runs) whose
# runs are marked loaded.
. "$KREG_SRC/tests/integration/stored-lib.sh"
awk 'BEGIN {
	print ""
	for (c = 1; c <= 11; c++) {
		line = "fio.read_iops"
		for (k = 1; k <= (c < 11 ? 8 : 11); k++)
			line = line sprintf(" %.1f", (c < 11 ? 10000 : 8500) * (1 + 0.01 * ((c * 7 + k * 13) % 7 - 3)))
		print line
	}
}' > line.txt
stored_lab 11 line.txt
HEAD_ID=12
sql "UPDATE runs SET loaded = 1, load = 3.5 WHERE commit_id = $HEAD_ID"
detect_at $HEAD_ID
is "$RC" 0 "the detection at a head whose runs are all loaded"
is "$(sql "SELECT count(*) FROM regressions")" 0 "finds nothing in runs it leaves out"
sql "UPDATE runs SET loaded = 0 WHERE commit_id = $HEAD_ID"
detect_at $HEAD_ID
like "$ERR" "detect: fio.read_iops: .*regression -1[45]\.[0-9]%" "the same runs unmarked: the -15% step is seen"
is "$(sql "SELECT count(*) FROM regressions")" 1 "and stored"
no_sanitizer_report "no sanitizer report"
done_testing
