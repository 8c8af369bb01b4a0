# Shared by the 8x mail tests: a real SMTP server on loopback and a small
# kernel-like git tree with a MAINTAINERS file.
#
#   smtp_start DIR [MODE [OPTION...]]  start tests/helpers/smtp-server.py on
#                           $SMTP_PORT (MODE: ok, tempfail:N, reject, stall:N; OPTION:
#                           auth:U:P, starttls:CERT:KEY, smtps:CERT:KEY);
#                           stopped at exit
#   smtp_stop
#   mail_header FILE NAME   a header of a saved message, decoded
#   mail_body FILE          its plain-text body
#   stop_server PID         stop a server the test started (TERM, then KILL)
#   daemon_mail_lab         for a daemon test (daemon-lib.sh, sourced first):
#                           the SMTP server started on a free port, the
#                           upstream repo made ($ROOT its root commit),
#                           job.yaml, and kreg.yaml (sim_lab_yaml 7 2 2% 3,
#                           mail to the server, cc the lab's list,
#                           web.base_url https://kreg.example.org/lab) as
#                           $KREG_CONFIG
#   make_mail_repo DIR      root (MAINTAINERS, block/, fs/), 16 commits; the
#                           9th (SHA_9) changes block/blk-core.c with a
#                           Sim-Effect trailer, a non-ASCII subject prefix and
#                           an author name holding CR/LF and a header; a
#                           .mailmap giving its committer another address

SMTP_PY=/usr/bin/python3
SMTP_PID=

smtp_free_port() {
	"$SMTP_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

smtp_start() {
	local dir=$1 mode=${2:-ok} i
	shift; shift
	rm -f "$dir/ready"
	mkdir -p "$dir"
	"$SMTP_PY" "$KREG_SRC/tests/helpers/smtp-server.py" "$dir" "$SMTP_PORT" "$mode" "$@" \
		>>"$SCRATCH/smtp.log" 2>&1 &
	SMTP_PID=$!
	for i in $(seq 1 100); do
		[ -f "$dir/ready" ] && return 0
		kill -0 "$SMTP_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# the SMTP server did not start:"; sed 's/^/# /' "$SCRATCH/smtp.log"
	return 1
}

# stop_server PID: a server this test started, TERM then (10 s on) KILL
stop_server() {
	kill "$1" 2>/dev/null
	for _ in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

smtp_stop() {
	[ -n "$SMTP_PID" ] || return 0
	stop_server "$SMTP_PID"
	SMTP_PID=
}

trap 'smtp_stop; _cleanup' EXIT

make_mail_repo() {
	local R=$1 n
	git init -q -b master "$R"
	git -C "$R" config user.name "Test Author"
	git -C "$R" config user.email "test@example.org"
	mkdir -p "$R/block" "$R/fs"
	cat > "$R/MAINTAINERS" <<'M'
List of maintainers
===================

BLOCK LAYER
M:	Jens Axboe <axboe@kernel.dk>
R:	Rev Iewer <reviewer@example.org>
L:	linux-block@vger.kernel.org
S:	Maintained
F:	block/

FILESYSTEMS
M:	Fs Person <fs@example.org>
S:	Maintained
F:	fs/

THE REST
M:	Linus Torvalds <torvalds@linux-foundation.org>
L:	linux-kernel@vger.kernel.org
S:	Buried alive in reporters
F:	*
F:	*/
M
	echo 0 > "$R/block/blk-core.c"
	echo 0 > "$R/fs/super.c"
	# the committer's old address: mail goes to the one .mailmap gives
	printf '%s\n' '# name and address' \
		'Commit Ter-Real <commit.ter@example.org> <committer@example.org>' > "$R/.mailmap"
	git -C "$R" add -A
	GIT_AUTHOR_DATE="@1700000000 +0000" GIT_COMMITTER_DATE="@1700000000 +0000" \
		git -C "$R" commit -qm "root"
	GOOD=$(git -C "$R" rev-parse HEAD)
	for n in $(seq 1 16); do
		export GIT_AUTHOR_DATE="@$((1700000000 + n)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + n)) +0000"
		if [ "$n" = 9 ]; then
			echo "$n" >> "$R/block/blk-core.c"
			git -C "$R" add -A
			GIT_AUTHOR_NAME=$'J\xc3\xb6hn D\xc5\x93\r\nBcc: victim@example.org' \
			GIT_AUTHOR_EMAIL=john@example.org \
			GIT_COMMITTER_NAME="Commit Ter" GIT_COMMITTER_EMAIL=committer@example.org \
				git -C "$R" commit -qm $'bl\xc3\xb6ck: make the queue slow\n\nSim-Effect: fio.read_iops -20%'
		else
			echo "$n" >> "$R/fs/super.c"
			git -C "$R" add -A
			git -C "$R" commit -qm "fs: commit $n"
		fi
		eval "SHA_$n=\$(git -C \"\$R\" rev-parse HEAD)"
	done
	unset GIT_AUTHOR_DATE GIT_COMMITTER_DATE
	BAD=$(git -C "$R" rev-parse HEAD)
}

# daemon_mail_lab: the daemon's mail tests' lab: an SMTP server on
# loopback ($SMTP_PORT), an upstream ($ROOT), job.yaml, kreg.yaml (a sim
# lab with mail and web.base_url) as $KREG_CONFIG.
daemon_mail_lab() {
	SMTP_PORT=$(smtp_free_port)
	smtp_start "$SCRATCH/smtp"
	ROOT=$(up_init)
	write_atom job.yaml
	cat > kreg.yaml <<YAML
$(sim_lab_yaml 7 2 2% 3)
mail:
  smtp_url: smtp://127.0.0.1:$SMTP_PORT
  from: "kreg robot <kreg@lab.example.org>"
  cc: ["Lab List <lab@example.org>"]
web:
  base_url: https://kreg.example.org/lab
YAML
	export KREG_CONFIG="$SCRATCH/kreg.yaml"
}

# mail_config FILE DATA_DIR [extra mail: lines]; $MAIL_URL: another smtp_url
mail_config() {
	cat > "$1" <<YAML
data_dir: $2
repos:
  - name: src
    url: $SCRATCH/src
    branches: [master]
    commit_url: https://git.example.org/src.git/commit/?id=%s
hosts:
  - name: simhost
    backend: sim
    seed: 7
    metrics:
      - { metric: fio.read_iops, base: 10000, noise: 5% }
mail:
  smtp_url: ${MAIL_URL:-smtp://127.0.0.1:$SMTP_PORT}
  from: "kreg robot <kreg@lab.example.org>"
  cc: ["Lab List <lab@example.org>"]
  attempts: 2
  backoff: 1h
  timeout: 20s
${3:-}
web:
  base_url: https://kreg.example.org/
YAML
}

# The figure of a mail's own table: the %change of its second column (the
# culprit, else the bad commit, against the first) in the row of METRIC.
table_figure() {  # BODY [METRIC]
	local metric=${2:-fio.read_iops} line

	while IFS= read -r line; do
		# a row: means and changes, then the metric (not a command line)
		if [ "${line##* }" = "$metric" ] && [[ $line =~ ^\ +[0-9] ]]; then
			grep -oE '[+-][0-9]+\.[0-9]%' <<<"$line" | head -1
			return
		fi
	done <<<"$1"
}

# A header of a saved message, decoded (RFC 2047) and unfolded.
mail_header() {  # FILE NAME
	"$SMTP_PY" - "$1" "$2" <<'PY'
import sys, email
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
for v in m.get_all(sys.argv[2]) or []:
    print(str(v))
PY
}

# The header names of a saved message, one a line.
mail_header_names() {
	"$SMTP_PY" - "$1" <<'PY'
import sys, email
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
for k in m.keys():
    print(k)
PY
}

# The plain-text body of a saved message (its first text part), decoded,
# LF line ends.
mail_body() {  # FILE
	"$SMTP_PY" - "$1" <<'PY'
import sys, email
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
sys.stdout.write(m.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n"))
PY
}
