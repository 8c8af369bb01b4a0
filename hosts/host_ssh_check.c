/* The ssh backend: `kreg host check` on a lab machine. Reached, its host
 * key, the key accepted, the kernel it runs, then its side of the checks
 * (the boot command, the target, fio and dbench, free space) and here the
 * power cycle command. */
#include "hosts/host_ssh_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

#define MIN_FREE_KB (256ull * 1024)

/* The machine's side of the check: one "name|0-or-1|detail" line each. */
static char *check_script(const kreg_host_cfg *hc)
{
	kreg_buf b = KREG_BUF_INIT;
	char *t = kreg_ssh_quote(hc->target ? hc->target : "");
	char *w = kreg_ssh_quote(hc->work_dir);
	char *boot = kreg_ssh_quote(hc->ninstall_command ? hc->install_command[0] : "kexec");

	kreg_buf_printf(&b, "T=%s; W=%s; B=%s\n", t, w, boot);
	kreg_buf_puts(&b,
		"if p=$(command -v \"$B\" 2>/dev/null); then echo \"boot|1|$p\"; "
		"else echo \"boot|0|$B: not found in PATH\"; fi\n"
		"if [ -z \"$T\" ]; then echo 'target|0|no target configured (where tests write)'\n"
		"elif [ -b \"$T\" ]; then R=$(readlink -f \"$T\"); "
		"if grep -q \"^$R[p0-9]* \" /proc/mounts; then echo \"target|0|$T is mounted: $(grep \"^$R\" /proc/mounts | head -1)\"; "
		"else echo \"target|1|$T: a block device, not mounted\"; fi\n"
		"elif [ -d \"$T\" ]; then if [ -w \"$T\" ]; then echo \"target|1|$T: a directory\"; "
		"else echo \"target|0|$T: not writable\"; fi\n"
		"elif [ -f \"$T\" ]; then echo \"target|1|$T: a file\"\n"
		"else echo \"target|0|$T: no such file or device\"; fi\n"
		"for p in fio dbench; do if q=$(command -v $p 2>/dev/null); then echo \"$p|1|$q\"; "
		"elif [ -x \"$W/bin/$p\" ]; then echo \"$p|1|$W/bin/$p (copied by kreg)\"; "
		"else echo \"$p|0|not found in PATH\"; fi; done\n"
		"if mkdir -p \"$W\" 2>/dev/null && k=$(df -Pk \"$W\" | awk 'NR == 2 { print $4 }') && [ -n \"$k\" ]; then "
		"echo \"space|$k|$W\"; else echo \"space|-1|$W: cannot make it\"; fi\n");
	free(boot);
	free(w);
	free(t);
	return kreg_buf_detach(&b);
}

/* One line of the machine's side of the check ("name|0-or-1|detail"), told
 * to fn: 1 when it failed. */
static int check_line(const kreg_host_cfg *hc, kreg_host_check_fn fn, void *arg, char *line)
{
	char *name = line, *v = strchr(line, '|'), *detail, *d;

	if (!v || !(detail = strchr(v + 1, '|')))
		return 0;
	*v++ = '\0';
	*detail++ = '\0';
	if (!strcmp(name, "space")) {
		long long kb = -1;

		if (kreg_parse_ll(&kb, v, "free space") < 0)
			kreg_error_clear();
		if (kb < 0) {
			fn(arg, 0, "space", detail);
		} else {
			d = kreg_asprintf("%lld MiB free in %s (kreg needs %llu MiB)", kb / 1024, detail,
					  MIN_FREE_KB / 1024);
			fn(arg, (unsigned long long)kb >= MIN_FREE_KB, "space", d);
			free(d);
		}
		return kb < 0 || (unsigned long long)kb < MIN_FREE_KB;
	}
	if ((!strcmp(name, "fio") || !strcmp(name, "dbench")) && strcmp(v, "1")) {
		char *here = kreg_host_ssh__find_in_path(name);
		int missing = here == NULL;

		d = here ? kreg_asprintf("not on the machine: kreg copies %s (with its libraries) "
					 "at the first run", here) :
			   kreg_asprintf("not on the machine, nor here to copy: install it there");
		fn(arg, here != NULL, name, d);
		free(d);
		free(here);
		return missing;
	}
	fn(arg, !strcmp(v, "1"), !strcmp(name, "boot") && !hc->ninstall_command ? "kexec" :
	   !strcmp(name, "boot") ? "install_command" : name, detail);
	return strcmp(v, "1") != 0;
}

int kreg_host_ssh__check(kreg_host *h, kreg_host_check_fn fn, void *arg)
{
	ssh_host *st = h->priv;
	const kreg_host_cfg *hc = h->hc;
	kreg_ssh_result r = { 0 };
	machine_state m = { 0 };
	char *script = NULL, *p, *line, *d = NULL;
	int failed = 0, error, known_before = kreg_path_exists(st->ssh.known_hosts);

	if ((error = kreg_host_ssh__probe(st, &r, &m, PROBE_TIMEOUT)) < 0)
		return error;
	if (r.status == KREG_SSH_UNREACHABLE || r.status == KREG_SSH_TIMEOUT) {
		fn(arg, 0, "reachable", r.error);
		failed = 1;
		goto done;
	}
	d = kreg_asprintf("%s%s%s answers", st->ssh.dest, st->ssh.port ? " port " : "",
			  st->ssh.port ? st->ssh.port : "");
	fn(arg, 1, "reachable", d);
	free(d);
	if (r.status == KREG_SSH_HOSTKEY) {
		fn(arg, 0, "host key", r.error);
		failed = 1;
		goto done;
	}
	d = kreg_asprintf("%s %s", known_before ? "matches" : "recorded in", st->ssh.known_hosts);
	fn(arg, 1, "host key", d);
	free(d);
	if (r.status == KREG_SSH_DENIED) {
		fn(arg, 0, "key accepted", r.error);
		failed = 1;
		goto done;
	}
	if (r.status != KREG_SSH_OK) {
		fn(arg, 0, "key accepted", r.error);
		failed = 1;
		goto done;
	}
	d = kreg_asprintf("logged in as %s%s%s", hc->user ? hc->user : "(ssh's default)",
			  hc->identity ? " with " : "", hc->identity ? hc->identity : "");
	fn(arg, 1, "key accepted", d);
	free(d);
	{
		int ok = kreg_host_ssh__has_any_build(m.cmdline) || kreg_host_ssh__on_good_kernel(hc, &m);

		d = kreg_asprintf("%s%s%s", m.release,
				  kreg_host_ssh__has_any_build(m.cmdline) ? ", a kernel kreg built" :
				  ok ? "" : ", not the good_kernel ",
				  kreg_host_ssh__has_any_build(m.cmdline) || ok ? "" : hc->good_kernel);
		fn(arg, ok, "kernel", d);
		failed += !ok;
		free(d);
	}
	kreg_ssh_result_release(&r);
	script = check_script(hc);
	if ((error = kreg_ssh_exec(&st->ssh, &r, script, COMMAND_TIMEOUT, NULL)) < 0)
		goto done;
	if (r.status != KREG_SSH_OK) {
		fn(arg, 0, "checks", r.error);
		failed++;
		goto done;
	}
	p = r.output;
	while ((line = kreg_host_ssh__next_line(&p)))
		failed += check_line(hc, fn, arg, line);
	/* Here: the power cycle command. */
	if (hc->npower_cycle) {
		const char *prog = hc->power_cycle[0];
		char *where = kreg_host_ssh__find_in_path(prog);
		int found = where != NULL;

		free(where);
		d = kreg_asprintf("%s%s", prog, found ? "" : ": not found here");
		fn(arg, found, "power_cycle", d);
		failed += !found;
		free(d);
	} else {
		fn(arg, 1, "power_cycle", "none configured: a machine that does not come back needs a hand");
	}
done:
	kreg_ssh_result_release(&r);
	kreg_host_ssh__state_release(&m);
	free(script);
	return failed;
}
