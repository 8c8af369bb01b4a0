#!/bin/bash
# A job's needs go into its kernel config (issue 14, part 3), on the real
# kernel's configuration (the fixture's kconfig commit: the files `make
# *config` reads, 5x-kernel.sh; the same .config as from the whole tree, in
# a checkout of 8 % of its files), stopping after the config stage (kreg
# build --config-only):
# `fs: xfs` gets CONFIG_XFS_FS=y built in; an ext4 job needs nothing the
# shipped config lacks and shares its kernel; a needed option olddefconfig
# drops fails the build naming it and what it depends on. No kernel is
# compiled here, and nothing shared is written: it runs beside the
# other tests, not in a kernel lane, where it held back 55's clean build
# by 262 s in a fresh clone's suite.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"

command -v make >/dev/null && command -v gcc >/dev/null || skip_all "no compiler"
kernel_fixture || skip_all "no kernel source fixture ($KERNEL_TARBALL)"
plan 17

D="$SCRATCH/data"
cat > kreg.yaml <<YAML
data_dir: $D
repos:
  - name: linux
    url: $KERNEL_GIT
build:
  make_jobs: 2
YAML
export KREG_CONFIG="$SCRATCH/kreg.yaml"
mkdir -p "$D/repos" && git clone -q --mirror "$KERNEL_GIT" "$D/repos/linux.git"

job() {  # file, then the lines of the job after testcase
	local f=$1; shift
	printf 'suite: dbench\ntestcase: dbench\n' > "$f"
	printf '%s\n' "$@" >> "$f"
	printf 'dbench:\n  nr_threads: 1\n' >> "$f"
}
job xfs.yaml "fs: xfs"
job ext4.yaml "fs: ext4"
job rt.yaml "need_kconfig:" "- XFS_RT" "- BLOCK: y"
job bad.yaml "need_kconfig: 'XFS_FS; reboot'"

# 1. fs: xfs -> XFS built in.
run_kreg build --repo linux --commit kconfig --job xfs.yaml --config-only
is "$RC" 0 "kreg build --config-only of an fs: xfs job exits 0"; [ "$RC" = 0 ] || echo "$ERR" | tail -20 | sed 's/^/# /'
xfs_conf=$OUT
like "$xfs_conf" "^$D/configs/[0-9a-f]{40}-[0-9a-f]{16}\.config\$" "it prints the .config it made"
ok "with CONFIG_XFS_FS=y (built in)" grep -qx 'CONFIG_XFS_FS=y' "$xfs_conf"
ok "and the shipped config's options (virtio block, ext4)" \
	bash -c "grep -qx 'CONFIG_VIRTIO_BLK=y' '$xfs_conf' && grep -qx 'CONFIG_EXT4_FS=y' '$xfs_conf'"
like "$ERR" "config qemu\+XFS_FS: configured" "the config is named for what the job adds"
ok "nothing was compiled" bash -c "! ls '$D'/artifacts/*/bzImage"
is "$(sqlite3 "$D/kreg.db" 'SELECT count(*) FROM builds')" 0 "and no build is recorded"

# 2. The same config without the job: no XFS; a different hash.
run_kreg build --repo linux --commit kconfig --config-only
is "$RC" 0 "the config alone exits 0"
plain_conf=$OUT
ok "without XFS" bash -c "! grep -q '^CONFIG_XFS_FS=' '$plain_conf'"
isnt_same() { [ "$1" != "$2" ]; }
ok "one kernel per distinct set of needs (another config hash)" isnt_same "$plain_conf" "$xfs_conf"

# 3. fs: ext4 needs nothing the shipped config lacks: the same kernel.
run_kreg build --repo linux --commit kconfig --job ext4.yaml --config-only
is "$RC:$OUT" "0:$plain_conf" "an fs: ext4 job shares the plain config (same hash)"

# 4. A needed option whose dependency is missing fails, naming both.
run_kreg build --repo linux --commit kconfig --job rt.yaml --config-only
is "$RC" 1 "a job needing XFS_RT without XFS fails"
like "$ERR" "options the job needs not kept by olddefconfig: CONFIG_XFS_RT=y \(now: not set; depends on XFS_FS \[=n\]\)" \
	"naming the option and what it depends on"
like "$ERR" "config qemu\+XFS_RT\)" "and the config (BLOCK: y is in it already, so it is not named)"

# 5. A malformed entry never reaches a shell or a config.
run_kreg build --repo linux --commit kconfig --job bad.yaml --config-only
is "$RC" 1 "a malformed need_kconfig entry is refused"
like "$ERR" "bad.yaml:.*need_kconfig 'XFS_FS; reboot'" "naming the file and the entry"
ok "before any config is made" bash -c "! ls '$D'/builds/linux/ | grep -q reboot"
