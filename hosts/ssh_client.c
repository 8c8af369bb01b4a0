/* The ssh client of the ssh backend: OpenSSH's ssh and scp from an argv. */
#include "hosts/ssh_client.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONNECT_TIMEOUT "10"
/* sun_path holds 108 bytes; ssh adds ".XXXXXXXXXXXXXXXX" while it makes
 * the socket, %C is 40 characters. */
#define CONTROL_DIR_MAX 48

int kreg_ssh_plain_path(const char *path)
{
	if (!path || !*path)
		return 0;
	return strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") ==
	       strlen(path);
}

char *kreg_ssh_quote(const char *s)
{
	kreg_buf b = KREG_BUF_INIT;

	kreg_buf_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			kreg_buf_puts(&b, "'\\''");
		else
			kreg_buf_putc(&b, *s);
	}
	kreg_buf_putc(&b, '\'');
	return kreg_buf_detach(&b);
}

/* "host", "host:port", "[v6]:port". */
static int split_address(kreg_ssh *s, const char *address, const char *user)
{
	char *host, *colon;

	if (!address || !*address || address[0] == '-' || strpbrk(address, " \t\n'\"\\@")) {
		kreg_error_set("host '%s': address '%s' is not a host or host:port", s->name,
			       address ? address : "");
		return KREG_EINVAL;
	}
	if (address[0] == '[') {
		const char *end = strchr(address, ']');

		if (!end || (end[1] && end[1] != ':')) {
			kreg_error_set("host '%s': address '%s': no closing ']'", s->name, address);
			return KREG_EINVAL;
		}
		host = kreg_strndup(address + 1, (size_t)(end - address - 1));
		if (end[1] == ':')
			s->port = kreg_strdup(end + 2);
	} else if ((colon = strchr(address, ':')) && !strchr(colon + 1, ':')) {
		host = kreg_strndup(address, (size_t)(colon - address));
		s->port = kreg_strdup(colon + 1);
	} else {
		host = kreg_strdup(address);
	}
	if (s->port && (!*s->port || strspn(s->port, "0123456789") != strlen(s->port))) {
		kreg_error_set("host '%s': address '%s': port '%s' is not a number", s->name, address,
			       s->port);
		free(host);
		return KREG_EINVAL;
	}
	if (user && (!*user || user[0] == '-' || strpbrk(user, " \t\n'\"\\@:"))) {
		kreg_error_set("host '%s': user '%s' is not a user name", s->name, user);
		free(host);
		return KREG_EINVAL;
	}
	s->dest = user ? kreg_asprintf("%s@%s", user, host) : kreg_strdup(host);
	free(host);
	return 0;
}

int kreg_ssh_init(kreg_ssh *s, const kreg_config *cfg, const kreg_host_cfg *hc)
{
	char *dir = kreg_config_data_path(cfg, "ssh");
	char *cdir;
	int error;

	memset(s, 0, sizeof(*s));
	s->name = hc->name;
	if ((error = split_address(s, hc->address, hc->user)) < 0)
		goto fail;
	s->identity = hc->identity ? kreg_strdup(hc->identity) : NULL;
	s->known_hosts = hc->known_hosts ? kreg_strdup(hc->known_hosts)
					 : kreg_path_join(dir, "known_hosts");
	if (kreg_mkdir_p(dir, 0700) < 0) {
		error = KREG_ERROR;
		goto fail;
	}
	if (strlen(dir) <= CONTROL_DIR_MAX) {
		cdir = kreg_strdup(dir);
	} else {
		cdir = kreg_asprintf("/tmp/kreg-ssh-%u", (unsigned)getuid());
		if (kreg_mkdir_p(cdir, 0700) < 0 || access(cdir, W_OK) < 0) {
			kreg_error_set("host '%s': no directory for ssh's control socket (%s)",
				       s->name, cdir);
			free(cdir);
			error = KREG_ERROR;
			goto fail;
		}
	}
	s->control_path = kreg_path_join(cdir, "%C");
	free(cdir);
	free(dir);
	return 0;
fail:
	free(dir);
	kreg_ssh_release(s);
	return error;
}

typedef struct {
	const char **v;
	size_t n, cap;
	char *opts[8];		/* the -o values kreg formats */
} argvec;

static void push(argvec *a, const char *s)
{
	KREG_ARRAY_GROW(a->v, a->n + 2, a->cap);
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

/* The options every ssh and scp call shares. */
static void common_options(argvec *a, const kreg_ssh *s, int scp)
{
	a->opts[0] = kreg_asprintf("UserKnownHostsFile=%s", s->known_hosts);
	a->opts[1] = kreg_asprintf("ControlPath=%s", s->control_path);
	push(a, "-o"); push(a, "BatchMode=yes");
	push(a, "-o"); push(a, "StrictHostKeyChecking=accept-new");
	push(a, "-o"); push(a, a->opts[0]);
	push(a, "-o"); push(a, "GlobalKnownHostsFile=/dev/null");
	push(a, "-o"); push(a, "HashKnownHosts=no");	/* a file people read */
	push(a, "-o"); push(a, "ControlMaster=auto");
	push(a, "-o"); push(a, a->opts[1]);
	push(a, "-o"); push(a, "ControlPersist=120");
	push(a, "-o"); push(a, "ConnectTimeout=" CONNECT_TIMEOUT);
	push(a, "-o"); push(a, "ServerAliveInterval=5");
	push(a, "-o"); push(a, "ServerAliveCountMax=3");
	push(a, "-o"); push(a, "LogLevel=ERROR");
	if (s->identity) {
		push(a, "-o"); push(a, "IdentitiesOnly=yes");
		push(a, "-i"); push(a, s->identity);
	}
	if (s->port) {
		push(a, scp ? "-P" : "-p");
		push(a, s->port);
	}
}

static void argvec_free(argvec *a)
{
	for (size_t i = 0; i < sizeof(a->opts) / sizeof(a->opts[0]); i++)
		free(a->opts[i]);
	free(a->v);
}

/* The last non-empty line of text, at most 200 characters. */
static char *last_line(const char *text)
{
	const char *end = text + strlen(text), *start;

	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	if (end - start > 200)
		end = start + 200;
	return kreg_strndup(start, (size_t)(end - start));
}

/* What ssh's exit status and messages say. */
static void classify(kreg_ssh *s, kreg_ssh_result *r, const kreg_spawn_result *rr, const char *text,
		     const char *what)
{
	char *line;

	if (rr->timed_out) {
		r->status = KREG_SSH_TIMEOUT;
		r->error = kreg_asprintf("%s on %s (%s) timed out after %.0f s", what, s->name,
					 s->dest, rr->seconds);
		return;
	}
	if (!rr->exited) {
		r->status = KREG_SSH_UNREACHABLE;
		r->error = kreg_asprintf("%s on %s: ssh killed by signal %d", what, s->name, rr->signo);
		return;
	}
	r->exit_code = rr->status;
	if (rr->status == 0) {
		r->status = KREG_SSH_OK;
		return;
	}
	if (strstr(text, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
	    strstr(text, "Host key verification failed")) {
		r->status = KREG_SSH_HOSTKEY;
		r->error = kreg_asprintf("host '%s' (%s): its ssh host key changed: it is not the key "
					 "in %s; nothing was run (if the machine was reinstalled, "
					 "remove its line there)", s->name, s->dest, s->known_hosts);
		return;
	}
	line = last_line(text);
	if (rr->status == 255 && strstr(text, "Permission denied")) {
		r->status = KREG_SSH_DENIED;
		r->error = kreg_asprintf("host '%s' (%s) refused kreg's key%s%s: %s", s->name, s->dest,
					 s->identity ? " " : "", s->identity ? s->identity : "", line);
	} else if (rr->status == 255) {
		r->status = KREG_SSH_UNREACHABLE;
		r->error = kreg_asprintf("host '%s' (%s) unreachable: %s", s->name, s->dest,
					 *line ? line : "ssh exit 255");
	} else {
		r->status = KREG_SSH_FAILED;
		r->error = kreg_asprintf("%s on %s exited %d%s%s", what, s->name, rr->status,
					 *line ? ": " : "", line);
	}
	free(line);
}

static int run_client(kreg_ssh *s, kreg_ssh_result *r, argvec *a, double timeout,
		      const char *out_path, const char *what)
{
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result rr;
	kreg_buf text = KREG_BUF_INIT;
	char *output = NULL;
	int error;

	memset(r, 0, sizeof(*r));
	o.argv = a->v;
	o.timeout = timeout;
	o.kill_grace = 2;
	if (out_path) {
		o.out_path = out_path;
		error = kreg_spawn(&rr, &o);
		if (error == 0 && rr.exited && rr.status == 255 && kreg_buf_read_file(&text, out_path) < 0)
			kreg_error_clear();
	} else {
		error = kreg_spawn_capture(&rr, &output, &o);
		if (output)
			kreg_buf_puts(&text, output);
	}
	if (error < 0) {
		kreg_error_set("host '%s': cannot run %s: %s", s->name, a->v[0], kreg_error_last());
		free(output);
		kreg_buf_release(&text);
		return error;
	}
	classify(s, r, &rr, kreg_buf_cstr(&text), what);
	r->output = output ? output : kreg_strdup("");
	kreg_buf_release(&text);
	log_debug("host %s: %s: %s%s%s", s->name, what,
		  r->status == KREG_SSH_OK ? "ok" : "failed", r->error ? ": " : "",
		  r->error ? r->error : "");
	return 0;
}

int kreg_ssh_exec(kreg_ssh *s, kreg_ssh_result *r, const char *command, double timeout,
		  const char *out_path)
{
	argvec a = { 0 };
	int error;

	push(&a, "ssh");
	common_options(&a, s, 0);
	push(&a, "-T");
	push(&a, "--");
	push(&a, s->dest);
	push(&a, command);
	error = run_client(s, r, &a, timeout, out_path, "ssh");
	argvec_free(&a);
	return error;
}

/* scp's remote operand: user@host:path ([v6] in brackets). */
static char *remote_operand(const kreg_ssh *s, const char *path)
{
	const char *at = strchr(s->dest, '@');
	const char *host = at ? at + 1 : s->dest;

	if (strchr(host, ':'))
		return kreg_asprintf("%.*s[%s]:%s", at ? (int)(at - s->dest + 1) : 0, s->dest, host,
				     path);
	return kreg_asprintf("%s:%s", s->dest, path);
}

int kreg_ssh_put(kreg_ssh *s, kreg_ssh_result *r, const char *const *local, size_t n,
		 const char *remote_dir, double timeout)
{
	argvec a = { 0 };
	char *dst;
	int error;

	if (!kreg_ssh_plain_path(remote_dir)) {
		kreg_error_set("host '%s': remote directory '%s' is not a plain path", s->name,
			       remote_dir);
		return KREG_EINVAL;
	}
	dst = remote_operand(s, remote_dir);
	push(&a, "scp");
	push(&a, "-O");		/* the scp protocol: the box needs no sftp server */
	push(&a, "-q");
	push(&a, "-p");
	common_options(&a, s, 1);
	push(&a, "--");
	for (size_t i = 0; i < n; i++)
		push(&a, local[i]);
	push(&a, dst);
	error = run_client(s, r, &a, timeout, NULL, "scp to the machine");
	argvec_free(&a);
	free(dst);
	return error;
}

int kreg_ssh_get(kreg_ssh *s, kreg_ssh_result *r, const char *remote_path,
		 const char *local_path, double timeout)
{
	argvec a = { 0 };
	char *src;
	int error;

	if (!kreg_ssh_plain_path(remote_path)) {
		kreg_error_set("host '%s': remote path '%s' is not a plain path", s->name, remote_path);
		return KREG_EINVAL;
	}
	src = remote_operand(s, remote_path);
	push(&a, "scp");
	push(&a, "-O");
	push(&a, "-q");
	common_options(&a, s, 1);
	push(&a, "--");
	push(&a, src);
	push(&a, local_path);
	error = run_client(s, r, &a, timeout, NULL, "scp from the machine");
	argvec_free(&a);
	free(src);
	return error;
}

void kreg_ssh_disconnect(kreg_ssh *s)
{
	argvec a = { 0 };
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result rr;

	if (!s->dest)
		return;
	push(&a, "ssh");
	common_options(&a, s, 0);
	push(&a, "-O");
	push(&a, "exit");
	push(&a, "--");
	push(&a, s->dest);
	o.argv = a.v;
	o.timeout = 10;
	o.kill_grace = 1;
	if (kreg_spawn(&rr, &o) < 0)
		kreg_error_clear();
	argvec_free(&a);
}

void kreg_ssh_release(kreg_ssh *s)
{
	if (s->control_path)
		kreg_ssh_disconnect(s);
	free(s->dest);
	free(s->port);
	free(s->identity);
	free(s->known_hosts);
	free(s->control_path);
	memset(s, 0, sizeof(*s));
}

void kreg_ssh_result_release(kreg_ssh_result *r)
{
	free(r->output);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

int kreg_ssh_cmdline_has(const char *cmdline, const char *word)
{
	size_t n = strlen(word);

	if (!n)
		return 0;
	for (const char *s = cmdline; (s = strstr(s, word)); s += n)
		if ((s == cmdline || s[-1] == ' ' || s[-1] == '\t') &&
		    (s[n] == '\0' || s[n] == ' ' || s[n] == '\t' || s[n] == '\n'))
			return 1;
	return 0;
}

char *kreg_ssh_next_cmdline(const char *running, const char *append, const char *build)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *w = running ? running : "";

	for (;;) {
		size_t n;
		char *word;

		w += strspn(w, " \t\n");
		if (!*w)
			break;
		n = strcspn(w, " \t\n");
		word = kreg_strndup(w, n);
		w += n;
		if (!strncmp(word, "kreg.build=", 11) || !strncmp(word, "BOOT_IMAGE=", 11) ||
		    !strncmp(word, "initrd=", 7) || (append && kreg_ssh_cmdline_has(append, word))) {
			free(word);
			continue;
		}
		kreg_buf_printf(&b, "%s%s", b.len ? " " : "", word);
		free(word);
	}
	if (append && *append)
		kreg_buf_printf(&b, "%s%s", b.len ? " " : "", append);
	kreg_buf_printf(&b, "%skreg.build=%s", b.len ? " " : "", build);
	return kreg_buf_detach(&b);
}
