#!/bin/bash
# kreg's recipients against scripts/get_maintainer.pl's defaults (K:
# keywords on; --no-git --no-git-fallback as kreg names nobody from git
# history), on Debian's linux-source 6.1 (the shared git fixture of the
# kernel tests) with its MAINTAINERS and .mailmap:
# - 126 real files, every Nth of `git ls-tree` under subsystems whose
#   sections have K: patterns (BPF, ZSTD, CLANG/LLVM, KERNEL HARDENING,
#   PTP, XDP, RISC-V, HWMON, RESET, PHYLINK, ...) and others, each its own
#   `-f` lookup (get_maintainer.pl matches K: against the file's contents),
#   and devicetree bindings (the addresses in a .yaml file are named too);
# - directories with and without the trailing slash, and paths written
#   with "./" and "//" (canonpath);
# - an unknown path, refused with its name;
# - commits, as get_maintainer.pl reads their `git format-patch`: the
#   message and the +/- lines (a commit made here, on no branch, adds a
#   line naming zstd to a BPF file and says clang in its message).
# People and lists are compared as sets: the order (and the role shown) of
# sections of the same depth follows Perl's hash order.
# Takes about 75 s on a shared 2-core machine: get_maintainer.pl is ~0.4 s
# a call, and its output for several files cannot be split per file.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"

command -v perl >/dev/null || skip_all "no perl for scripts/get_maintainer.pl"
kernel_fixture || skip_all "no kernel source fixture: Debian's linux-source-6.1 package ($KERNEL_TARBALL) is missing"

# every Nth file of a folder at the fixture's first commit
pick() { _kernel_git ls-tree -r --name-only "$KERNEL_BASE" -- "$1" | awk -v n="$2" 'NR % n == 1'; }
FILES=$(
	pick kernel/bpf 6
	pick lib/zstd 5
	_kernel_git ls-tree -r --name-only "$KERNEL_BASE" -- include/linux | grep '^include/linux/compiler'
	pick security 60
	pick net/core 8
	pick drivers/hwmon 40
	pick drivers/ptp 6
	pick arch/riscv 60
	pick drivers/net/ethernet/stmicro 12
	pick fs/ext4 10
	pick kernel 120
	pick drivers/gpu/drm/i915 200
	pick Documentation 800
	pick tools/testing/selftests/bpf 120
	pick drivers/reset 12
	pick drivers/regulator 30
	pick Documentation/devicetree/bindings 400
	echo drivers/clk/imx/Kconfig	# a list at a reviewer's address
)
NFILES=$(echo "$FILES" | wc -l)
DIRS="fs/ext4 fs/ext4/ ./fs//ext4 kernel/bpf drivers/net/ethernet/intel/e1000e"

# A commit on no branch: kernel/bpf/core.c gains a line naming zstd (the
# ZSTD section's K: over a + line), and its message says clang (CLANG/LLVM
# BUILD SUPPORT's K: over the message); a devicetree binding it changes
# names its maintainers (two that MAINTAINERS does not name).
KW_COMMIT=$(
	idx="$KERNEL_CACHE/kw-index.$$"
	blob=$( { _kernel_git show "$KERNEL_BASE:kernel/bpf/core.c"; echo "/* kreg test: zstd */"; } |
		_kernel_git hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx _kernel_git read-tree "$KERNEL_BASE" &&
	GIT_INDEX_FILE=$idx _kernel_git update-index --cacheinfo "100644,$blob,kernel/bpf/core.c" &&
	yaml=Documentation/devicetree/bindings/pinctrl/brcm,bcm6328-pinctrl.yaml &&
	blob=$( { _kernel_git show "$KERNEL_BASE:$yaml"; echo "# kreg test"; } |
		_kernel_git hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx _kernel_git update-index --cacheinfo "100644,$blob,$yaml" &&
	tree=$(GIT_INDEX_FILE=$idx _kernel_git write-tree) &&
	rm -f "$idx" &&
	echo "bpf: a line for kreg's tests

Seen with clang." | _kernel_git commit-tree "$tree" -p "$KERNEL_BASE"
)
[ -n "$KW_COMMIT" ] || { echo "# the test commit could not be made"; exit 1; }
COMMITS="$KERNEL_BLOCK $KERNEL_PANIC $KW_COMMIT"

plan $(( NFILES + $(echo $DIRS | wc -w) + $(echo $COMMITS | wc -w) + 7 ))

GM="perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats"
# get_maintainer.pl reads the checked-out tree (master): hold the fixture's
# lock so no other test switches its branch meanwhile; all its answers at
# once, one file a line of the list.
WANT="$SCRATCH/want"
mkdir -p "$WANT"
(
	flock 9
	cd "$KERNEL_GIT" || exit 1
	n=0
	for f in $FILES $DIRS; do
		n=$((n + 1))
		$GM -f "$f" | sort >"$WANT/$n"
	done
	for c in $COMMITS; do
		n=$((n + 1))
		_kernel_git format-patch -1 --stdout "$c" | $GM | sort >"$WANT/$n"
	done
	$GM -f fs/no-such-file >/dev/null 2>"$WANT/missing"
) 9>"$KERNEL_CACHE/.lock"

n=0
same=0
kw=0
for f in $FILES $DIRS; do
	n=$((n + 1))
	run_kreg mail who --git-dir "$KERNEL_GIT" --rev "$KERNEL_BASE" "$f"
	is "$(echo "$OUT" | sort)" "$(cat "$WANT/$n")" "$f: the same people and lists as get_maintainer.pl"
	[ "$(echo "$OUT" | sort)" = "$(cat "$WANT/$n")" ] && same=$((same + 1))
done
echo "# $same of $((NFILES + $(echo $DIRS | wc -w))) files and directories agree"
for c in $COMMITS; do
	n=$((n + 1))
	run_kreg mail who --git-dir "$KERNEL_GIT" --rev "$c"
	is "$(echo "$OUT" | sort)" "$(cat "$WANT/$n")" "commit ${c:0:12}: the same as get_maintainer.pl on its format-patch"
done
no_sanitizer_report "no sanitizer report"

# K: made a difference: the keyword sections are there
run_kreg mail who --roles --git-dir "$KERNEL_GIT" --rev "$KW_COMMIT"
like "$OUT" "ZSTD" "a + line naming zstd: the ZSTD section"
like "$OUT" "CLANG/LLVM" "the message saying clang: CLANG/LLVM BUILD SUPPORT"
like "$OUT" "Jonas Gorski <jonas.gorski@gmail.com> \(in file\)" "a binding it changes: its maintainers, in file"
run_kreg mail who --roles --git-dir "$KERNEL_GIT" --rev "$KERNEL_BASE" lib/zstd/common/zstd_common.c
like "$OUT" "ZSTD" "a file of lib/zstd: the ZSTD section"

run_kreg mail who --git-dir "$KERNEL_GIT" --rev "$KERNEL_BASE" fs/ext4/super.c fs/no-such-file
is "$RC" 1 "an unknown path: refused"
like "$ERR" "file 'fs/no-such-file' not found" "an unknown path: named, as get_maintainer.pl names it ($(cat "$WANT/missing"))"
done_testing
