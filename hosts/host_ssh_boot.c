/* The ssh backend: the machine and its boot. Who the machine is (boot id,
 * release, command line), the commit's kernel copied there and booted
 * with kexec (or the host's install_command), the wait for ssh within
 * reboot_timeout, and a machine that does not come back power cycled and
 * waited for on its good_kernel. */
#include "hosts/host_ssh_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POWER_CYCLE_TIMEOUT 300.0
#define WAIT_STEP 2.0

void kreg_host_ssh__state_release(machine_state *m)
{
	free(m->boot_id);
	free(m->release);
	free(m->cmdline);
	memset(m, 0, sizeof(*m));
}

static const char probe_command[] =
	"cat /proc/sys/kernel/random/boot_id && uname -r && cat /proc/cmdline && "
	"{ nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1; }";

char *kreg_host_ssh__next_line(char **p)
{
	char *s = *p, *nl;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

/* Ask the machine who it is. r says how ssh went. */
int kreg_host_ssh__probe(ssh_host *st, kreg_ssh_result *r, machine_state *m, double timeout)
{
	char *p, *id, *rel, *cmd, *cpus;
	long long n = 1;
	int error;

	memset(m, 0, sizeof(*m));
	if ((error = kreg_ssh_exec(&st->ssh, r, probe_command, timeout, NULL)) < 0)
		return error;
	if (r->status != KREG_SSH_OK)
		return 0;
	p = r->output;
	id = kreg_host_ssh__next_line(&p);
	rel = kreg_host_ssh__next_line(&p);
	cmd = kreg_host_ssh__next_line(&p);
	cpus = kreg_host_ssh__next_line(&p);
	if (!id || !rel || !cmd) {
		r->status = KREG_SSH_FAILED;
		free(r->error);
		r->error = kreg_asprintf("host '%s': the machine's answer is not boot_id, "
					 "uname -r, /proc/cmdline", st->ssh.name);
		return 0;
	}
	if (cpus && kreg_parse_ll(&n, cpus, "nproc") < 0)
		kreg_error_clear();
	m->boot_id = kreg_strdup(id);
	m->release = kreg_strdup(rel);
	m->cmdline = kreg_strdup(cmd);
	m->cpus = n > 0 && n < 100000 ? (int)n : 1;
	return 0;
}

int kreg_host_ssh__has_any_build(const char *cmdline)
{
	const char *s = strstr(cmdline, BUILD_TOKEN);

	return s && (s == cmdline || s[-1] == ' ');
}

static void sleep_for(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* Wait up to the reboot timeout for the machine to answer from a boot other
 * than old_boot (NULL: any). *why gets ssh's last complaint. */
int kreg_host_ssh__wait_boot(ssh_host *st, const kreg_host_cfg *hc, const char *old_boot,
			     machine_state *m, wait_status *ws, char **why)
{
	double limit = hc->reboot_timeout > 0 ? hc->reboot_timeout : 300, t0 = kreg_now_mono();
	int same = 0, error = 0;

	*ws = WAIT_SILENT;
	*why = NULL;
	memset(m, 0, sizeof(*m));
	while (kreg_now_mono() - t0 < limit) {
		kreg_ssh_result r;
		double left = limit - (kreg_now_mono() - t0);

		if ((error = kreg_host_ssh__probe(st, &r, m, left < PROBE_TIMEOUT ? (left > 5 ? left : 5) : PROBE_TIMEOUT)) < 0)
			return error;
		if (r.status == KREG_SSH_OK && (!old_boot || strcmp(m->boot_id, old_boot))) {
			*ws = WAIT_ANSWERED;
			kreg_ssh_result_release(&r);
			return 0;
		}
		/* the last answer decides: still the old boot (kexec did
		 * nothing), or silent after it (the new kernel went down) */
		same = r.status == KREG_SSH_OK;
		kreg_host_ssh__state_release(m);
		if (r.status == KREG_SSH_HOSTKEY) {
			*ws = WAIT_HOSTKEY;
			*why = r.error;
			r.error = NULL;
			kreg_ssh_result_release(&r);
			return 0;
		}
		if (r.error) {
			free(*why);
			*why = r.error;
			r.error = NULL;
		}
		kreg_ssh_result_release(&r);
		/* a reboot kills the shared connection: start afresh */
		kreg_ssh_disconnect(&st->ssh);
		sleep_for(WAIT_STEP);
	}
	*ws = same ? WAIT_SAME_BOOT : WAIT_SILENT;
	return 0;
}

/* On a kernel kreg knows: the good_kernel (when configured), booted without
 * a kreg.build token. */
int kreg_host_ssh__on_good_kernel(const kreg_host_cfg *hc, const machine_state *m)
{
	if (kreg_host_ssh__has_any_build(m->cmdline))
		return 0;
	return !hc->good_kernel || !*hc->good_kernel || !strcmp(m->release, hc->good_kernel);
}

/* The machine is lost (silent, or on a kernel nobody chose): power cycle it
 * and wait for its good kernel. *note says what happened, for the run's
 * error. <0 only for kreg's own failures. */
int kreg_host_ssh__recover(ssh_host *st, const kreg_host_cfg *hc, const char *out_dir, char **note)
{
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result rr;
	machine_state m;
	wait_status ws;
	char *log = NULL, *why = NULL, desc[96];
	int error;

	if (!hc->npower_cycle) {
		*note = kreg_asprintf("no power_cycle configured for %s: the machine needs a hand",
				      hc->name);
		log_error("host %s: %s", hc->name, *note);
		return 0;
	}
	log = out_dir ? kreg_path_join(out_dir, "power-cycle.log") : NULL;
	o.argv = (const char *const *)hc->power_cycle;
	o.out_path = log;
	o.timeout = POWER_CYCLE_TIMEOUT;
	o.kill_grace = 2;
	log_info("host %s: power cycling (%s)", hc->name, hc->power_cycle[0]);
	kreg_ssh_disconnect(&st->ssh);
	error = kreg_spawn(&rr, &o);
	free(log);
	if (error < 0) {
		*note = kreg_asprintf("power_cycle %s would not start: %s", hc->power_cycle[0],
				      kreg_error_last());
		kreg_error_clear();
		log_error("host %s: %s", hc->name, *note);
		return 0;
	}
	if (!rr.exited || rr.status != 0) {
		*note = kreg_asprintf("power_cycle %s failed (%s)", hc->power_cycle[0],
				      kreg_spawn_describe(&rr, desc, sizeof(desc)));
		log_error("host %s: %s", hc->name, *note);
		return 0;
	}
	if ((error = kreg_host_ssh__wait_boot(st, hc, NULL, &m, &ws, &why)) < 0)
		return error;
	if (ws != WAIT_ANSWERED)
		*note = kreg_asprintf("power cycled, but no answer within %.0f s%s%s: the machine "
				      "needs a hand", hc->reboot_timeout, why ? ": " : "", why ? why : "");
	else if (!kreg_host_ssh__on_good_kernel(hc, &m))
		*note = kreg_asprintf("power cycled, back on %s, not the good_kernel %s", m.release,
				      hc->good_kernel ? hc->good_kernel : "(a kernel without kreg.build)");
	else
		*note = kreg_asprintf("power cycled, back on %s", m.release);
	if (ws != WAIT_ANSWERED || !kreg_host_ssh__on_good_kernel(hc, &m))
		log_error("host %s: %s", hc->name, *note);
	else
		log_info("host %s: %s", hc->name, *note);
	kreg_host_ssh__state_release(&m);
	free(why);
	return 0;
}

/* Replace {kernel}, {cmdline}, {build} in an install_command argument. */
static char *expand(const char *arg, const char *kernel, const char *cmdline, const char *build)
{
	kreg_buf b = KREG_BUF_INIT;

	while (*arg) {
		if (!strncmp(arg, "{kernel}", 8)) {
			kreg_buf_puts(&b, kernel);
			arg += 8;
		} else if (!strncmp(arg, "{cmdline}", 9)) {
			kreg_buf_puts(&b, cmdline);
			arg += 9;
		} else if (!strncmp(arg, "{build}", 7)) {
			kreg_buf_puts(&b, build);
			arg += 7;
		} else {
			kreg_buf_putc(&b, *arg++);
		}
	}
	return kreg_buf_detach(&b);
}

/* A remote command from words: each quoted. */
static void put_word(kreg_buf *b, const char *w)
{
	char *q = kreg_ssh_quote(w);

	kreg_buf_printf(b, "%s%s", b->len ? " " : "", q);
	free(q);
}

/* Copy the kernel and start it. 1 when the machine is rebooting, 0 when not
 * (out says why). */
static int start_kernel(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
			const kreg_host_request *req, const machine_state *now, const char *build)
{
	char *bzimage = kreg_path_join(req->kernel->artifact, "bzImage");
	char *kdir = kreg_path_join(hc->work_dir, "kernel");
	char *kpath = kreg_path_join(kdir, "bzImage");
	char *cmdline = kreg_ssh_next_cmdline(now->cmdline, hc->append, build);
	char *modules = kreg_path_join(req->kernel->artifact, "modules.tar");
	char *mpath = kreg_path_join(kdir, "modules.tar");
	const char *files[2] = { bzimage, modules };
	size_t nfiles = kreg_path_exists(modules) ? 2 : 1;
	kreg_buf cmd = KREG_BUF_INIT;
	kreg_ssh_result r = { 0 };
	int ret = 0;

	if (!kreg_path_exists(bzimage)) {
		kreg_error_set("host '%s': %s: no such kernel", hc->name, bzimage);
		ret = KREG_ERROR;
		goto done;
	}
	put_word(&cmd, "rm");
	put_word(&cmd, "-rf");
	put_word(&cmd, kdir);
	kreg_buf_puts(&cmd, " &&");
	put_word(&cmd, "mkdir");
	put_word(&cmd, "-p");
	put_word(&cmd, kdir);
	if ((ret = kreg_ssh_exec(&st->ssh, &r, cmd.ptr, COMMAND_TIMEOUT, NULL)) < 0)
		goto done;
	if (r.status == KREG_SSH_OK) {
		kreg_ssh_result_release(&r);
		log_info("host %s: copying %s%s", hc->name, bzimage, nfiles > 1 ? " and its modules" : "");
		if ((ret = kreg_ssh_put(&st->ssh, &r, files, nfiles, kdir, COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status != KREG_SSH_OK) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "cannot copy the kernel to %s: %s",
				hc->name, r.error);
		goto done;
	}
	kreg_ssh_result_release(&r);
	kreg_buf_clear(&cmd);
	if (nfiles > 1) {
		/* lib/modules/RELEASE/, where the new kernel's modprobe looks */
		put_word(&cmd, "tar");
		put_word(&cmd, "-xf");
		put_word(&cmd, mpath);
		put_word(&cmd, "-C");
		put_word(&cmd, "/");
		if ((ret = kreg_ssh_exec(&st->ssh, &r, cmd.ptr, COPY_TIMEOUT, NULL)) < 0)
			goto done;
		if (r.status != KREG_SSH_OK) {
			kreg_host__fail(out, KREG_RUN_INFRA_FAILED,
					"cannot install the kernel's modules on %s: %s", hc->name,
					r.error);
			goto done;
		}
		kreg_ssh_result_release(&r);
		kreg_buf_clear(&cmd);
	}
	if (hc->ninstall_command) {
		for (size_t i = 0; i < hc->ninstall_command; i++) {
			char *w = expand(hc->install_command[i], kpath, cmdline, build);

			put_word(&cmd, w);
			free(w);
		}
		log_info("host %s: installing and rebooting (%s)", hc->name, hc->install_command[0]);
	} else {
		char *append = kreg_asprintf("--append=%s", cmdline);

		put_word(&cmd, "kexec");
		put_word(&cmd, "-l");
		put_word(&cmd, kpath);
		put_word(&cmd, append);
		free(append);
		if (hc->initrd && *hc->initrd) {
			char *initrd = kreg_asprintf("--initrd=%s", hc->initrd);

			put_word(&cmd, initrd);
			free(initrd);
		}
		/* kexec -e from the background: this ssh session ends first.
		 * Not nohup: a lab machine's busybox may not have it (the
		 * test box has none, and the kexec never happened). */
		kreg_buf_puts(&cmd, " && sync && { sh -c 'trap \"\" HUP; sleep 1; kexec -e' "
			      "</dev/null >/dev/null 2>&1 & }");
		log_info("host %s: kexec into %s (%s)", hc->name, build, cmdline);
	}
	if ((ret = kreg_ssh_exec(&st->ssh, &r, cmd.ptr, COMMAND_TIMEOUT, NULL)) < 0)
		goto done;
	/* install_command may lose the connection while the machine reboots */
	if (r.status == KREG_SSH_OK || (hc->ninstall_command && r.status == KREG_SSH_UNREACHABLE)) {
		ret = 1;
	} else {
		char *line = r.output ? kreg_strdup(r.output) : NULL;

		if (line)
			for (char *s = line; *s; s++)
				if (*s == '\n')
					*s = ' ';
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s on %s: %s%s%s",
				hc->ninstall_command ? "install_command" : "kexec -l", hc->name,
				r.error ? r.error : "failed", line && *line ? ": " : "",
				line ? line : "");
		free(line);
	}
done:
	kreg_ssh_result_release(&r);
	kreg_buf_release(&cmd);
	free(cmdline);
	free(mpath);
	free(modules);
	free(kpath);
	free(kdir);
	free(bzimage);
	return ret;
}

/* Boot the request's kernel. 1 when it runs (m filled), 0 when the run is
 * over (out says why). */
int kreg_host_ssh__boot_kernel(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
			       const kreg_host_request *req, machine_state *m, const char *build)
{
	char *old_boot = m->boot_id ? kreg_strdup(m->boot_id) : NULL, *why = NULL, *note = NULL;
	wait_status ws;
	double t0;
	int error;

	error = start_kernel(st, hc, out, req, m, build);
	if (error <= 0)
		goto done;
	kreg_ssh_disconnect(&st->ssh);
	kreg_host_ssh__state_release(m);
	t0 = kreg_now_mono();
	if ((error = kreg_host_ssh__wait_boot(st, hc, old_boot, m, &ws, &why)) < 0)
		goto done;
	error = 0;
	switch (ws) {
	case WAIT_HOSTKEY:
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", why);
		break;
	case WAIT_SAME_BOOT:
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED,
				"%s did not reboot within %.0f s: it still runs the same boot (%s)",
				hc->name, hc->reboot_timeout, hc->ninstall_command ?
				"install_command" : "kexec -e had no effect");
		break;
	case WAIT_SILENT:
		log_warn("host %s: no ssh within %.0f s of booting %s", hc->name, hc->reboot_timeout,
			 build);
		if ((error = kreg_host_ssh__recover(st, hc, req->out_dir, &note)) < 0)
			break;
		kreg_host__fail(out, KREG_RUN_KERNEL_FAILED,
				"no boot: %s did not answer within %.0f s of booting kernel %s; %s",
				hc->name, hc->reboot_timeout, build, note);
		break;
	case WAIT_ANSWERED:
		{
			char *tok = kreg_asprintf(BUILD_TOKEN "%s", build);
			int ours = kreg_ssh_cmdline_has(m->cmdline, tok);

			free(tok);
			if (ours) {
				log_info("host %s: up on kernel %s (%s) in %.1f s", hc->name, m->release,
					 build, kreg_now_mono() - t0);
				error = 1;
				break;
			}
		}
		/* It came back on some other kernel: the boot failed. */
		{
			char *release = kreg_strdup(m->release);

			if (!kreg_host_ssh__on_good_kernel(hc, m) && (error = kreg_host_ssh__recover(st, hc, req->out_dir, &note)) < 0) {
				free(release);
				break;
			}
			kreg_host__fail(out, KREG_RUN_KERNEL_FAILED,
					"no boot: %s came back on %s without " BUILD_TOKEN "%s "
					"(the kernel did not boot; the machine fell back)%s%s",
					hc->name, release, build, note ? "; " : "", note ? note : "");
			free(release);
			error = 0;
		}
		break;
	}
done:
	free(note);
	free(why);
	free(old_boot);
	return error;
}
