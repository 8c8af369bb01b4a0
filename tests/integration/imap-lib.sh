# Shared by the IMAP tests: Debian's dovecot (dovecot-imapd) on loopback,
# a throwaway configuration, a passwd-file user and a Maildir, all under
# the test's scratch directory: no system service or file is touched.
#
#   imap_start DIR      start dovecot on $IMAP_PORT (a free 127.0.0.1
#                       port), user $IMAP_USER, password in $IMAP_PASSWORD_FILE
#                       (mode 600), Maildir DIR/Maildir; stopped at exit
#   imap_stop           stop it (the Maildir stays)
#   imap_deliver FILE   put a message into the Maildir's new/ as a mail
#                       delivery agent does (tmp/, then a rename)
#   imap_skip_unless    skip the whole test when dovecot is not installed
#
# Needs mail-lib.sh's smtp_free_port and stop_server (source mail-lib.sh first).

DOVECOT=/usr/sbin/dovecot
IMAP_PID=
IMAP_DIR=
IMAP_USER=kreg
IMAP_N=0

imap_skip_unless() {
	if [ ! -x "$DOVECOT" ]; then
		echo "1..0 # SKIP dovecot-imapd is not installed (make deps)"
		exit 0
	fi
}

imap_start() {
	local dir=$1 me login i
	IMAP_DIR=$dir
	mkdir -p "$dir/run" "$dir/state" "$dir/Maildir/new" "$dir/Maildir/cur" "$dir/Maildir/tmp" \
		"$dir/home"
	[ -n "$IMAP_PORT" ] || IMAP_PORT=$(smtp_free_port)
	IMAP_PASSWORD_FILE=$dir/imap-password
	( umask 077; echo "imap-secret-$$" > "$IMAP_PASSWORD_FILE" )
	echo "$IMAP_USER:{PLAIN}imap-secret-$$::::::" > "$dir/passwd"
	me=$(id -un)
	# dovecot serves no mail as root: its own unprivileged users then,
	# and the mail belongs to nobody (in the scratch directory only)
	IMAP_UID=$(id -u); IMAP_GID=$(id -g)
	if [ "$IMAP_UID" = 0 ]; then
		login=dovenull; internal=dovecot
		IMAP_UID=$(id -u nobody); IMAP_GID=$(id -g nobody)
		chown -R "$IMAP_UID:$IMAP_GID" "$dir/Maildir" "$dir/home"
		# its users go through the scratch directory (no listing) to it
		chmod o+x "$SCRATCH" "$dir"
		chmod o+r "$dir/passwd"
	else
		login=$me; internal=$me
	fi
	cat > "$dir/dovecot.conf" <<CONF
base_dir = $dir/run
state_dir = $dir/state
log_path = $dir/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = $login
default_internal_user = $internal
first_valid_uid = 0
mail_location = maildir:$dir/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN $dir/passwd
}
userdb {
  driver = static
  args = uid=$IMAP_UID gid=$IMAP_GID home=$dir/home
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
CONF
	"$DOVECOT" -F -c "$dir/dovecot.conf" >>"$dir/dovecot.out" 2>&1 &
	IMAP_PID=$!
	for i in $(seq 1 100); do
		if "$SMTP_PY" -c "import socket,sys; s=socket.create_connection(('127.0.0.1', $IMAP_PORT), 1); sys.exit(0 if s.recv(100).startswith(b'* OK') else 1)" 2>/dev/null; then
			return 0
		fi
		kill -0 "$IMAP_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# dovecot did not start:"; sed 's/^/# /' "$dir/dovecot.out" "$dir/dovecot.log" 2>/dev/null
	return 1
}

imap_stop() {
	[ -n "$IMAP_PID" ] || return 0
	stop_server "$IMAP_PID"
	IMAP_PID=
}

imap_deliver() {
	local f=$1 name
	IMAP_N=$((IMAP_N + 1))
	name="$(date +%s).M${IMAP_N}P$$.kregtest"
	cp "$f" "$IMAP_DIR/Maildir/tmp/$name"
	chown "$IMAP_UID:$IMAP_GID" "$IMAP_DIR/Maildir/tmp/$name"
	mv "$IMAP_DIR/Maildir/tmp/$name" "$IMAP_DIR/Maildir/new/$name"
}

trap 'imap_stop; smtp_stop; _cleanup' EXIT
