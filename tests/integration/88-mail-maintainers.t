#!/bin/bash
# kreg's MAINTAINERS matching against the reference: the kernel's own
# scripts/get_maintainer.pl, run on Debian's linux-source 6.1 (the shared
# git fixture of the kernel tests) for files of many kinds of sections:
# F: files, globs and directories, N: patterns (imx, tegra, exynos), X:
# exclusions, nested sections; one file at a time, several at once, and the
# files a commit changes. The tree's .mailmap maps maintainers' addresses
# as get_maintainer.pl maps them (drivers/android/binder.c: Christian
# Brauner's M: address is an old one). get_maintainer.pl runs with --no-git
# --no-git-fallback (kreg names nobody from git history) and its other
# defaults: K: keywords over each file's contents (block/blk-core.c names
# BPF [MISC], net/ipv4/tcp.c CLANG/LLVM), over a commit's format-patch.
# 88-mail-keywords.t compares 112 more files, directories and commits.
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/5x-kernel.sh"

command -v perl >/dev/null || skip_all "no perl for scripts/get_maintainer.pl"
kernel_fixture || skip_all "no kernel source fixture: Debian's linux-source-6.1 package ($KERNEL_TARBALL) is missing"

FILES="block/blk-core.c fs/f2fs/super.c drivers/net/ethernet/intel/e1000e/netdev.c
arch/arm/boot/dts/imx6q.dtsi drivers/clk/tegra/clk.c
drivers/media/platform/samsung/exynos4-is/fimc-core.c drivers/gpu/drm/i915/i915_drv.h
kernel/sched/core.c net/ipv4/tcp.c Documentation/filesystems/f2fs.rst Makefile
include/linux/blkdev.h arch/x86/kernel/cpu/common.c drivers/android/binder.c"
plan $(( $(echo $FILES | wc -w) * 2 + 6 ))

# get_maintainer.pl reads the checked-out tree: hold the fixture's lock so
# no other test switches its branch meanwhile. A fixed hash seed makes its
# order of equally specific sections repeatable.
gm() {
	(
		flock 9
		cd "$KERNEL_GIT" && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 \
			perl scripts/get_maintainer.pl --no-git --no-git-fallback -f "$@"
	) 9>"$KERNEL_CACHE/.lock"
}

for f in $FILES; do
	want=$(gm "$f")
	run_kreg mail who --roles --git-dir "$KERNEL_GIT" --rev "$KERNEL_BASE" "$f"
	is "$(echo "$OUT" | sort)" "$(echo "$want" | sort)" "$f: the same people and lists as get_maintainer.pl"
	# the order: most specific section first (only comparable where
	# get_maintainer.pl's order does not depend on its hash order)
	first_want=$(echo "$want" | head -1)
	like "$OUT" "^$(printf '%s' "$first_want" | sed 's/[][\.*^$()+?{}|]/\\&/g')" "$f: the most specific section's maintainer first"
done

want=$(gm block/blk-core.c fs/f2fs/super.c include/linux/blkdev.h mm/page_alloc.c)
run_kreg mail who --roles --git-dir "$KERNEL_GIT" --rev "$KERNEL_BASE" \
	block/blk-core.c fs/f2fs/super.c include/linux/blkdev.h mm/page_alloc.c
is "$(echo "$OUT" | sort)" "$(echo "$want" | sort)" "four files at once: the same as get_maintainer.pl"
is "$OUT" "$want" "four files at once: in get_maintainer.pl's order"

# The commit on the fixture's block branch changes block/blk-core.c.
run_kreg mail who --git-dir "$KERNEL_GIT" --rev "$KERNEL_BLOCK"
is "$RC" 0 "who for a commit: exit 0"
# (the lock's file opened inside the substitution: a redirection of an
# assignment comes after its expansions, so fd 9 would not be open there)
want=$(
	{
		flock 9
		_kernel_git format-patch -1 --stdout "$KERNEL_BLOCK" |
			(cd "$KERNEL_GIT" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats)
	} 9>"$KERNEL_CACHE/.lock"
)
is "$OUT" "$want" "who for a commit: as get_maintainer.pl on its format-patch"
no_sanitizer_report "no sanitizer report"

run_kreg mail who --git-dir "$KERNEL_GIT" --rev no-such-branch
like "$ERR" "no-such-branch: no such revision" "an unknown revision is named"
done_testing
