#!/bin/bash
# A full disk: the run that cannot be stored fails with a message that says
# so, and everything stored before is still there.
. "$KREG_SRC/tests/lib.sh"

mkdir -p small
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=2m tmpfs small 2>/dev/null; then
	skip_all "needs root to mount a small tmpfs"
fi
trap 'umount "$SCRATCH/small" 2>/dev/null; _cleanup' EXIT
plan 7

git init -q src
git -C src -c user.name=t -c user.email=t@example.org commit -q --allow-empty -m root
cat > kreg.yaml <<YAML
data_dir: small/data
log_level: warn
repos:
  - { name: src, url: src }
hosts:
  - name: sim
    backend: sim
    seed: 1
    metrics:
      - { metric: fio.read_iops, base: 1000, noise: 2% }
YAML
printf 'suite: fio-basic\ntestcase: fio-basic\nfio-setup-basic:\n  rw: randread\n  bs: 4k\nfio:\n' > atom.yaml
export KREG_CONFIG="$SCRATCH/kreg.yaml"

run_kreg db init
is "$RC" 0 "db init on the small file system"
run_kreg job run atom.yaml --host sim --repo src --commit master --runs 3
is "$RC" 0 "three runs stored while there is room"

dd if=/dev/zero of=small/filler bs=4k >/dev/null 2>&1
run_kreg job run atom.yaml --host sim --repo src --commit master --runs 3
is "$RC" 1 "with the disk full, the run fails"
like "$ERR" "full|No space left" "and the message says the disk is full"
no_sanitizer_report "without a sanitizer report"

rm -f small/filler
run_kreg db check
is "$RC" 0 "the database still passes its integrity check"
is "$(sqlite3 small/data/kreg.db "SELECT count(*) FROM runs WHERE status = 'ok'")" 3 \
	"and the three runs stored before are all there"
done_testing
