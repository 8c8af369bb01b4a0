/* Private to hosts/: the system's OpenSSH client, driven from an argv.
 *
 * Every call runs `ssh` (or `scp -O`) with BatchMode=yes (never a prompt),
 * the host's identity, the known_hosts file kreg keeps
 * (StrictHostKeyChecking=accept-new: the first contact records the key, a
 * changed key is an error) and connection sharing (ControlMaster=auto,
 * ControlPersist), so a run costs one handshake.
 *
 * The remote side of ssh is a shell: commands are strings kreg writes, and
 * every value that is not kreg's own goes through kreg_ssh_quote. */
#ifndef KREG_SSH_CLIENT_H
#define KREG_SSH_CLIENT_H

#include "config/config.h"

#include <stddef.h>

typedef struct {
	const char *name;	/* the host's name, for messages */
	char *dest;		/* user@host */
	char *port;		/* NULL: ssh's default */
	char *identity;		/* NULL: ssh's default keys */
	char *known_hosts;
	char *control_path;	/* a directory + "/%C" */
} kreg_ssh;

typedef enum {
	KREG_SSH_OK = 0,	/* the remote command ran and exited 0 */
	KREG_SSH_FAILED,	/* the remote command ran and exited non-zero */
	KREG_SSH_UNREACHABLE,	/* no connection (refused, timed out, closed) */
	KREG_SSH_DENIED,	/* the server refused kreg's key */
	KREG_SSH_HOSTKEY,	/* the host key differs from the one kreg knows */
	KREG_SSH_TIMEOUT,	/* kreg's own timeout ended it */
} kreg_ssh_status;

typedef struct {
	kreg_ssh_status status;
	int exit_code;		/* the remote command's, when it ran */
	char *output;		/* stdout + stderr (when not sent to a file) */
	char *error;		/* one line when not OK */
} kreg_ssh_result;

/* Set up the client of host hc: the known_hosts file and the control socket
 * directory are made when missing. <0 with the error set on a bad address. */
int kreg_ssh_init(kreg_ssh *s, const kreg_config *cfg, const kreg_host_cfg *hc);
/* Stop the shared connection (if any) and free. */
void kreg_ssh_release(kreg_ssh *s);
/* Stop the shared connection: after a reboot it is dead. */
void kreg_ssh_disconnect(kreg_ssh *s);

/* Run command on the machine; out_path NULL: captured in r->output.
 * <0 only when ssh could not be started. */
int kreg_ssh_exec(kreg_ssh *s, kreg_ssh_result *r, const char *command, double timeout,
		  const char *out_path);
/* Copy local files into the machine's directory remote_dir (which exists). */
int kreg_ssh_put(kreg_ssh *s, kreg_ssh_result *r, const char *const *local, size_t n,
		 const char *remote_dir, double timeout);
/* Copy the machine's remote_path to local_path. */
int kreg_ssh_get(kreg_ssh *s, kreg_ssh_result *r, const char *remote_path,
		 const char *local_path, double timeout);
void kreg_ssh_result_release(kreg_ssh_result *r);

/* s in single quotes for a POSIX shell. Caller frees. */
char *kreg_ssh_quote(const char *s);
/* 1 when a remote path is plain (letters, digits, "/._-+"): scp's remote
 * side reads it through a shell. */
int kreg_ssh_plain_path(const char *path);

/* The boot of a kernel kreg built: the command line the next kernel gets
 * (the running one without kreg.build=, BOOT_IMAGE=, initrd= and the words
 * of append; then append; then kreg.build=<build>), and whether a command
 * line holds a word. Caller frees. */
char *kreg_ssh_next_cmdline(const char *running, const char *append, const char *build);
int kreg_ssh_cmdline_has(const char *cmdline, const char *word);

#endif
