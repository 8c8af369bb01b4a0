#!/bin/bash
# Two kreg processes that need the same repo's mirror at once (a daemon and
# a `kreg build`, two builds): one creates it, the other waits for it and
# uses it; neither fails, and no error path removes a mirror in use. A
# creator killed half-way leaves nothing that blocks the next one.
. "$KREG_SRC/tests/lib.sh"
command -v make >/dev/null && command -v flock >/dev/null || skip_all "no make or flock"
plan 16

unset KREG_BUILD_CACHE  # fake trees stay out of the shared kernel cache
git_() { GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.org git -C "$SCRATCH/tree" "$@"; }
mkdir tree && git_ init -q -b master
cat > tree/Makefile <<'MK'
tinyconfig:
	@mkdir -p $(O) && printf 'CONFIG_TINY=y\n' > $(O)/.config
olddefconfig:
	@test -f $(O)/.config
MK
for i in $(seq 1 30); do echo "$i" > tree/f$i; git_ add -A; git_ commit -qm "fake: $i"; done
head=$(git_ rev-parse master)
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
YAML
}
# build --config-only: opens (or creates) the mirror, resolves, configures
both() {  # lab: two processes at once, their status in rc.1 rc.2
	for n in 1 2; do
		( timeout 300 "$KREG" -v -c "$1.yaml" build --repo fake --commit master \
			--config-only >"$1.out.$n" 2>"$1.err.$n"; echo $? > "$1.rc.$n" ) 9>&- &
	done
}
finished() { cat "$1.rc.1" "$1.rc.2" | tr '\n' ' '; }  # after wait

# The test holds the creation lock first, so both processes find no mirror
# and must meet at the lock: then it lets them go.
lab a && mkdir -p a/repos
exec 9>a/repos/fake.git.lock
flock 9
both a
for _ in $(seq 600); do
	[ "$(cat a.err.1 a.err.2 2>/dev/null | grep -c 'is creating the mirror')" = 2 ] && break
	[ -e a.rc.1 ] && [ -e a.rc.2 ] && break  # both ended: no use waiting
	sleep 0.1
done
is "$(cat a.err.1 a.err.2 | grep -c 'is creating the mirror .*: waiting for it')" 2 \
	"both processes wait for the mirror's creator, and say so"
exec 9>&-
wait
is "$(finished a)" "0 0 " "both succeed"
[ "$(cat a.rc.1)" = 0 ] || sed 's/^/# 1: /' a.err.1
[ "$(cat a.rc.2)" = 0 ] || sed 's/^/# 2: /' a.err.2
is "$(cat a.err.1 a.err.2 | grep -c 'creating the mirror .*/repos/fake.git$')" 1 "one of them creates it"
is "$(git --git-dir=a/repos/fake.git rev-parse master)" "$head" "the mirror holds the branch"
is "$(ls -d a/repos/fake.git.new 2>/dev/null)" "" "no half-made mirror is left"
like "$(cat a.out.1)" '\.config$' "the first gets its config"
is "$(cat a.out.2)" "$(cat a.out.1)" "the second the same one"

# A creator killed half-way: its folder and the lock file are left; the next
# creator removes the folder and makes the mirror.
lab b && mkdir -p b/repos/fake.git.new && echo junk > b/repos/fake.git.new/HEAD
echo 12345 > b/repos/fake.git.lock
run_kreg -c b.yaml build --repo fake --commit master --config-only
is "$RC" 0 "a killed creator's leftovers do not block the next one"
is "$(git --git-dir=b/repos/fake.git rev-parse master)" "$head" "which makes the mirror whole"
is "$(ls -d b/repos/fake.git.new 2>/dev/null)" "" "and removes the leftover"

# A mirror that cannot be fetched: the error names the repo; nothing is
# left that a later run would take for a mirror.
lab c && sed -i "s|url: .*|url: $SCRATCH/no-such-tree|" c.yaml
run_kreg -c c.yaml build --repo fake --commit master --config-only
is "$RC" 1 "a url that cannot be fetched fails"
like "$ERR" "repo 'fake': fetch failed" "naming the repo"
ok "and leaves no mirror behind" test ! -e c/repos/fake.git -a ! -e c/repos/fake.git.new

# Unforced races: five times two processes on a new data dir, no lock held.
fails=0
for i in 1 2 3 4 5; do
	lab "r$i" && both "r$i" && wait
	[ "$(finished "r$i")" = "0 0 " ] || { fails=$((fails + 1)); sed 's/^/# /' "r$i".err.*; }
done
is "$fails" 0 "five races of two creators: all ten processes succeed"
is "$(cat r*.err.* | grep -c 'creating the mirror .*/repos/fake.git$')" 5 "one creation per race"
run_kreg -c a.yaml build --repo fake --commit master --config-only
is "$RC" 0 "an existing mirror opens without the lock"
done_testing
