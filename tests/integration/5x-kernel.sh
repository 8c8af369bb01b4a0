# Shared by the 5x kernel tests and the kernel benchmark: a git repository of
# Debian's linux-source 6.1, made once and cached under build/ (extracting and
# committing 75,000 files takes minutes; repeated runs reuse it). Its objects
# are stored uncompressed (core.compression=0: 1.5 GB instead of 525 MB):
# `git add` took 16 s of CPU instead of 28, and a checkout of the tree 6.5 s
# instead of 16.5, and every kernel test's checkout reads them.
#
#   . "$KREG_SRC/tests/integration/5x-kernel.sh"
#   kernel_fixture || skip_all "..."
#   $KERNEL_GIT            the repository (non-bare)
#   $KERNEL_BASE           commit 1: the source as Debian ships it
#   $KERNEL_BLOCK          commit 2 (child of 1): one block-layer file changed
#   $KERNEL_PANIC          commit 3 (child of 1): panic() early in kernel_init
#   $KERNEL_BROKEN         commit 4 (child of 1): a block-layer file that does not compile
#   branch fxmark-kblockd  (child of 1): kblockd_mod_delayed_work_on waits >= 1 tick
#   $KERNEL_KCONFIG        commit 5 (child of 1): commit 1's files the kernel's
#                          configuration reads, and no others (_kernel_kconfig)
#   monitor_within DESC METRIC MIN MAX
#                          ok when the last run's METRIC sample (a monitor's,
#                          jobs/monitors.h) lies in [MIN, MAX]; reads the
#                          test's database with its q()
#   $KERNEL_BUILD_DIR      a build.dir (kreg's checkout and object
#                          directories) shared by the suite: a test that
#                          writes `dir: $KERNEL_BUILD_DIR` under build: builds
#                          a nearby commit with the same config incrementally

KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
KERNEL_CACHE=${KERNEL_CACHE:-$KREG_SRC/build/kernel-test}
KERNEL_GIT=$KERNEL_CACHE/linux.git

_kernel_git() {
	GIT_AUTHOR_NAME="kreg test" GIT_AUTHOR_EMAIL="kreg@example.org" \
	GIT_COMMITTER_NAME="kreg test" GIT_COMMITTER_EMAIL="kreg@example.org" \
	GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
	git -C "$KERNEL_GIT" -c core.autocrlf=false -c gc.auto=0 -c core.compression=0 "$@"
}

_kernel_fixture_make() {
	local tmp="$KERNEL_CACHE/tmp.$$"

	rm -rf "$KERNEL_GIT" "$tmp" && mkdir -p "$tmp" || return 1
	tar -xJf "$KERNEL_TARBALL" -C "$tmp" || return 1
	mv "$tmp/linux-source-6.1" "$KERNEL_GIT" && rmdir "$tmp" || return 1
	# Debian's tarball ignores everything in its .gitignore (/*): add by force.
	_kernel_git init -q -b master && _kernel_git add -Af . &&
	_kernel_git commit -q -m "Linux 6.1 (Debian linux-source)" && touch "$KERNEL_CACHE/.done"
}

# _kernel_branch NAME FILE SED-SCRIPT CHECK SUBJECT: a child of master
# changing one file, made once.
_kernel_branch() {
	_kernel_git rev-parse -q --verify "refs/heads/$1" >/dev/null && return 0
	_kernel_git checkout -q -b "$1" master &&
	sed -i "$3" "$KERNEL_GIT/$2" && grep -q "$4" "$KERNEL_GIT/$2" &&
	_kernel_git commit -q -am "$5" && _kernel_git checkout -q master
}

# The kconfig branch: commit 1 less every file `make *config` never reads:
# its Kconfig, Makefile and Kbuild files, the *.config fragments, scripts/
# and arch/x86/ whole (6,507 files of 78,635: `git ls-tree -r --name-only
# kconfig | wc -l`). A test of kernel configs alone (52) checks it out in
# seconds; `kreg build --config-only` of commit 1 in a new data_dir took 35 s
# of CPU (/usr/bin/time), most of it the checkout of the whole tree. Its
# .config files are those of commit 1: 52's three configs made from each,
# compared with diff.
_kernel_kconfig() {
	local idx="$KERNEL_CACHE/kconfig-index.$$" tree commit

	_kernel_git rev-parse -q --verify refs/heads/kconfig >/dev/null && return 0
	rm -f "$idx"
	GIT_INDEX_FILE=$idx _kernel_git read-tree master &&
	_kernel_git ls-tree -r --name-only master |
		grep -vE '(^|/)(Kconfig[^/]*|Makefile[^/]*|Kbuild[^/]*|[^/]*\.config)$|^scripts/|^arch/x86/' |
		GIT_INDEX_FILE=$idx _kernel_git update-index --force-remove --stdin &&
	tree=$(GIT_INDEX_FILE=$idx _kernel_git write-tree) &&
	commit=$(echo "kconfig: only what the kernel's configuration reads, for kreg's tests" |
		_kernel_git commit-tree "$tree" -p master) &&
	_kernel_git update-ref refs/heads/kconfig "$commit"
	local rc=$?
	rm -f "$idx"
	return $rc
}

_kernel_branches() {
	_kernel_branch block block/blk-core.c \
		's|^EXPORT_SYMBOL(blk_put_queue);|&\n/* kreg test: a one-file change in the block layer */|' \
		"kreg test" "block: a one-file change for kreg's tests" &&
	_kernel_branch panic init/main.c \
		's|^static int __ref kernel_init(void \*unused)$|&\n{\n\tpanic("kreg test: panic at boot");\n}\nstatic int __ref __maybe_unused kreg_unused_kernel_init(void *unused)|' \
		"kreg test: panic" "init: panic at boot, for kreg's tests" &&
	_kernel_branch broken block/blk-core.c \
		's|^EXPORT_SYMBOL(blk_put_queue);|&\nkreg_test_does_not_compile;|' \
		"kreg_test_does_not_compile" "block: a change that does not compile, for kreg's tests" &&
	# docs/fxmark.md: the demo's block-layer regression in the spirit of
	# cb2ac2912a (kblockd work waits at least one tick)
	_kernel_branch fxmark-kblockd block/blk-core.c \
		's|return mod_delayed_work_on(cpu, kblockd_workqueue, dwork, delay);|return mod_delayed_work_on(cpu, kblockd_workqueue, dwork, max(delay, 1UL));|' \
		'dwork, max(delay, 1UL));' "block: kblockd work waits at least one tick (kreg's fxmark measurement)" &&
	_kernel_kconfig
}

kernel_fixture() {
	[ -f "$KERNEL_TARBALL" ] || { echo "# no $KERNEL_TARBALL"; return 1; }
	command -v git >/dev/null || { echo "# no git"; return 1; }
	mkdir -p "$KERNEL_CACHE" || return 1
	(
		flock 9
		[ -f "$KERNEL_CACHE/.done" ] || _kernel_fixture_make >&2 || exit 1
		_kernel_branches >&2
	) 9>"$KERNEL_CACHE/.lock" || return 1
	[ -f "$KERNEL_CACHE/.done" ] || return 1
	KERNEL_BASE=$(_kernel_git rev-parse master) &&
	KERNEL_BLOCK=$(_kernel_git rev-parse block) &&
	KERNEL_PANIC=$(_kernel_git rev-parse panic) &&
	KERNEL_BROKEN=$(_kernel_git rev-parse broken) &&
	KERNEL_KCONFIG=$(_kernel_git rev-parse kconfig)
}

# kreg's checkout and object directories, shared by the tests through
# build.dir (the lanes of tests/run-suite.sh run at once, and kreg's tree
# lock, trees/<repo>.lock, is per build.dir): 51 and 58 (lanes of their
# own) build the qemu guest's config there, one at a time under the lock:
# whichever comes first makes the one clean build of the base, and every
# build after it is incremental (58's series compiles its files between
# 51's builds, so 51 checks that its incremental builds compile a few
# files, not which); 55 makes the ssh boxes' in a checkout of their own,
# and 56's build after it is incremental (a minute, not 15). A copy of the
# directory would not do: kbuild's commands name the tree by its absolute
# path, so a copy elsewhere compiles everything again (1,094 objects of
# 1,145, measured).
KERNEL_BUILD_DIR=$KERNEL_CACHE/work
KERNEL_BUILD_DIR_SSH=$KERNEL_CACHE/work-ssh

# The last run's sample of a metric, and a check that it lies in a range
# (the monitors a qemu guest or an ssh box reports, 51 and 55): the
# test's q() reads its database.
monitor_value() {
	q "SELECT s.value FROM samples s JOIN metrics m ON m.id = s.metric_id
	   WHERE m.name = '$1' AND s.run_id = (SELECT max(id) FROM runs)"
}
monitor_within() {  # what metric min max
	local v; v=$(monitor_value "$2")
	ok "$1: $2 = ${v:-none}" awk -v v="$v" -v lo="$3" -v hi="$4" \
		'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }'
}
