#!/bin/bash
# The shared cache of built kernels ($KREG_BUILD_CACHE, docs/kernel.md): two
# labs, each with its own data_dir and database, build the same tree and
# config once between them; a failure is shared too; a half-written entry is
# never taken; KREG_BUILD_CACHE_MODE=fill only adds. The "kernel" is a tiny
# git tree with the stand-in kernel's Makefile (tests/fixtures/stand-in-kernel:
# kreg's targets, and a line in $BUILT each time bzImage is built).
. "$KREG_SRC/tests/lib.sh"
command -v make >/dev/null || skip_all "no make"
plan 21

git_() { GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.org git -C "$SCRATCH/tree" "$@"; }
mkdir tree && git_ init -q -b master
cp "$KREG_SRC/tests/fixtures/stand-in-kernel/Makefile" tree/Makefile
echo 1 > tree/version && git_ add -A && git_ commit -qm "fake: one"
echo BROKEN > tree/version && git_ commit -qam "fake: broken"
git_ tag broken && git_ checkout -q HEAD~1 -- version && git_ commit -qm "fake: one again"
git_ tag fixed

export BUILT="$SCRATCH/count" KREG_BUILD_CACHE="$SCRATCH/shared"
touch "$BUILT"
printf 'CONFIG_FRAG=y\n' > frag.config
lab() {  # name
	cat > "$1.yaml" <<YAML
data_dir: $SCRATCH/$1
repos:
  - name: fake
    url: $SCRATCH/tree
build:
  make_jobs: 1
  configs:
    - name: fake
      base: tinyconfig
      fragments: [$SCRATCH/frag.config]
YAML
}
lab a && lab b && lab c
built() { wc -l < "$BUILT" | tr -d ' '; }

run_kreg -c a.yaml build --repo fake --commit master~2
is "$RC" 0 "lab a builds the first commit"; [ "$RC" = 0 ] || echo "$ERR" | sed 's/^/# /'
is "$(built)" 1 "make bzImage ran once"
entry="$KREG_BUILD_CACHE/$(basename "$OUT")"
is "$(cat "$entry/status" 2>/dev/null)" ok "the build is in the shared cache, marked ok"

run_kreg -c b.yaml build --repo fake --commit master~2
is "$RC" 0 "lab b, with its own data_dir, gets the same tree and config"
is "$(built)" 1 "without building"
ok "its artifact holds the same bzImage" cmp "$OUT/bzImage" "$entry/bzImage"
like "$(cat "$OUT/build.log")" "taken from the shared cache" "its build log says where it came from"
is "$(sqlite3 b/kreg.db "SELECT status FROM builds")" ok "and its own builds row says ok"

run_kreg -c a.yaml build --repo fake --commit broken
is "$RC" 1 "lab a: a commit that does not build fails"
run_kreg -c b.yaml build --repo fake --commit broken
is "$RC" 1 "lab b gets the same failure"
like "$ERR" "does not compile" "with the reason"
is "$(built)" 1 "without running make bzImage"

# A half-written entry (no status file) is not taken; fill mode never takes.
run_kreg -c c.yaml build --repo fake --commit fixed
is "$(built)" 1 "a commit whose tree was built already is shared (same tree id)"
rm -rf "$SCRATCH/c"
rm -f "$entry/status"
run_kreg -c c.yaml build --repo fake --commit fixed
is "$(built)" 2 "an entry without its status is built again, not taken"
is "$(cat "$entry/status" 2>/dev/null)" ok "and the damaged entry is replaced by the new build"
rm -rf "$SCRATCH/c"
KREG_BUILD_CACHE_MODE=fill "$KREG" -c c.yaml build --repo fake --commit master~2 >/dev/null 2>&1
is "$(built)" 3 "KREG_BUILD_CACHE_MODE=fill builds for real"
KREG_BUILD_CACHE= "$KREG" -c b.yaml build --repo fake --commit master~2 >/dev/null 2>&1
is "$(built)" 3 "a lab's own builds table still answers first"

# build.dir: the checkout and object directories where the config says
# (here relative to the config file), shared by two labs; the artifacts
# stay in each lab's data_dir.
for l in d e; do lab $l && printf '  dir: objs\n' >> $l.yaml; done
KREG_BUILD_CACHE= run_kreg -c d.yaml build --repo fake --commit master~2
is "$RC:$(cat objs/trees/fake/version 2>/dev/null)" 0:1 "build.dir holds the work tree (trees/<repo>)"
is "$(cat objs/builds/fake/fake/arch/x86/boot/bzImage 2>/dev/null)" 1 \
	"and the object directory (builds/<repo>/<config>)"
ok "nothing of them in data_dir, which keeps the artifact" \
	test ! -e d/trees -a ! -e d/builds -a -f "$OUT/bzImage"
KREG_BUILD_CACHE= run_kreg -c e.yaml build --repo fake --commit broken
is "$RC:$(cat objs/trees/fake/version 2>/dev/null)" 1:BROKEN \
	"a second lab with the same build.dir builds in the same work tree"
