#!/bin/bash
# Program output that kreg echoes (a failed build's log tail, the metric
# names and errors of a parsed output, its log lines) reaches the terminal
# with its control characters escaped: an escape sequence from a test host
# or a kernel tree cannot retitle, clear or rewrite the user's terminal.
# What kreg stores (the build log) keeps the bytes as they came.
. "$KREG_SRC/tests/lib.sh"
command -v make >/dev/null || skip_all "no make"
plan 16

ESC=$'\033' BEL=$'\a' CR=$'\r'
raw() {  # name text: 0 when text holds no C0 control but newline and tab
	! printf '%s' "$2" | LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]'
}

unset KREG_BUILD_CACHE  # fake trees stay out of the shared kernel cache
git_() { GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.org git -C "$SCRATCH/tree" "$@"; }
mkdir tree && git_ init -q -b master
# A stand-in kernel tree (as in 59-build-cache.t) whose build fails with a
# terminal title, a screen clear and a carriage return in its output.
cat > tree/Makefile <<'MK'
tinyconfig:
	@mkdir -p $(O) && printf 'CONFIG_TINY=y\n' > $(O)/.config
olddefconfig:
	@test -f $(O)/.config
bzImage:
	@printf 'cc1: \033]2;owned\007\033[2Jerror: bad\rall fine\n'; exit 2
image_name:
	@echo arch/x86/boot/bzImage
MK
git_ add -A && git_ commit -qm "fake: fails loudly"
cat > kreg.yaml <<YAML
data_dir: $SCRATCH/data
repos:
  - name: fake
    url: $SCRATCH/tree
build:
  make_jobs: 1
  configs:
    - name: fake
      base: tinyconfig
YAML
run_kreg -v build --repo fake --commit master
is "$RC" 1 "the build fails"
ok "its error on the terminal carries no control character" raw err "$ERR"
like "$ERR" 'cc1: \\e\]2;owned\\a\\e\[2Jerror: bad\\rall fine' "the log tail shows them escaped"
log=$(find data -name build.log | head -1)
ok "the build log is kept" test -s "$log"
ok "with the bytes as make wrote them" grep -q "owned$BEL$ESC\[2Jerror: bad${CR}all fine" "$log"
run_kreg -v build --repo fake --commit master
ok "a cached failure's error is escaped too" raw err "$ERR"

# Output files of a test host, read by `kreg job parse`: the names it makes
# from them and the lines it quotes in an error.
printf '## ssd:f2fs:MW%s]0;t%sUL:1:bufferedio\n# ncpu secs works works/sec\n\n1 0.06 10048 162460.1\n\n' \
	"$ESC" "$BEL" > fx.log
run_kreg job parse fxmark fx.log
is "$RC" 1 "an escape in an fxmark section name is refused"
ok "the error carries no control character" raw err "$ERR"
like "$ERR" '^kreg: fx.log:1:1: a bad character in a section name' "it names the file and line"
printf '## ssd:f2fs:MWUL:1:bufferedio\n# ncpu secs works works/sec\n\n1 0.06 %s[31mmany%s 9\n\n' \
	"$ESC" "$CR" > bad.log
run_kreg job parse fxmark bad.log
is "$RC" 1 "a bad value is refused"
ok "the error quoting it carries no control character" raw err "$ERR"
like "$ERR" 'bad.log' "and names the file"

# A C1 control (U+009B, CSI as UTF-8) is escaped as well; other UTF-8 stays.
printf '## ssd:f2fs:M\xc2\x9b2J\xc3\xa9:1:bufferedio\n# ncpu secs works works/sec\n\n1 0.06 10048 162460.1\n\n' > c1.log
run_kreg job parse fxmark c1.log
like "$OUT" 'M\\u009b2Jé' "a C1 control is shown as \\\\u009b, é as itself"
noc1() { ! printf '%s' "$1" | LC_ALL=C grep -q $'\xc2\x9b'; }
ok "no C1 byte pair left" noc1 "$OUT"

# Bidirectional formatting characters (U+202E RIGHT-TO-LEFT OVERRIDE) in
# text kreg status shows (a failed poll's error, naming the url) are
# escaped too: they would show the rest of the line reversed.
RLO=$'\xe2\x80\xae'
cat > status.yaml <<YAML
data_dir: $SCRATCH/sdata
repos:
  - name: evil
    url: "$SCRATCH/gone${RLO}lmth.exe"
YAML
KREG_CONFIG="$SCRATCH/status.yaml" run_kreg daemon --once --foreground
KREG_CONFIG="$SCRATCH/status.yaml" run_kreg status
like "$OUT" 'last poll failed: .*gone\\u202elmth.exe' "kreg status shows U+202E as \\\\u202e"
norlo() { ! printf '%s' "$1" | LC_ALL=C grep -q "$RLO"; }
ok "no U+202E left in its output" norlo "$OUT"
done_testing
