#!/bin/bash
# A full outbox file system: the mail of a bisected regression is sent all
# the same, the missing .eml copy is logged and shown by `kreg mail show`,
# and the next `kreg mail send` with room writes it (and sends nothing
# twice). The outbox is on a small tmpfs (as in 15-full-disk.t), the
# server a real SMTP server on loopback (mail-lib.sh).
. "$KREG_SRC/tests/lib.sh"
. "$KREG_SRC/tests/integration/mail-lib.sh"

[ -x "$SMTP_PY" ] && "$SMTP_PY" -c 'import aiosmtpd' 2>/dev/null ||
	skip_all "no python3-aiosmtpd (Debian's /usr/bin/python3 with aiosmtpd)"
mkdir -p small
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=1m tmpfs small 2>/dev/null; then
	skip_all "needs root to mount a small tmpfs"
fi
trap 'smtp_stop; umount "$SCRATCH/small" 2>/dev/null; _cleanup' EXIT
plan 10

SMTP_PORT=$(smtp_free_port)
make_mail_repo "$SCRATCH/src"
mail_config kreg.yaml "$SCRATCH/data" "  outbox: $SCRATCH/small/outbox"
export KREG_CONFIG="$SCRATCH/kreg.yaml"
run_kreg bisect start --repo src --good "$GOOD" --bad "$BAD" --job fio-read --host simhost \
	--metric fio.read_iops
like "$OUT" "found: ${SHA_9:0:12} is the first bad commit" "a regression bisected on the sim host"
smtp_start "$SCRATCH/smtp"
mkdir -p small/outbox
dd if=/dev/zero of=small/filler bs=4k >/dev/null 2>&1

run_kreg mail send
is "$RC" 0 "mail send with the outbox's file system full: exit 0"
like "$OUT" "mail 1: sent to 7 recipients" "the mail is sent"
is "$(ls "$SCRATCH"/smtp/*.eml 2>/dev/null | wc -l)" 1 "the server got it"
like "$ERR" "mail 1: its copy .*/small/outbox/1-[a-z0-9]*\\.eml is missing: .*(No space|full)" \
	"the missing copy is logged, with why"
run_kreg mail show 1
like "$OUT" "# copy: missing" "kreg mail show says the copy is missing"

rm -f small/filler
run_kreg mail send
is "$RC" 0 "mail send with room again"
ok "writes the copy" test -s "$(ls "$SCRATCH"/small/outbox/1-*.eml 2>/dev/null | head -1)"
run_kreg mail show 1
like "$OUT" "# copy: .*/small/outbox/1-[a-z0-9]*\\.eml" "which kreg mail show names"
is "$(ls "$SCRATCH"/smtp/*.eml | wc -l)" 1 "and nothing is sent twice"
done_testing
