/* The ssh backend: a lab machine reached over ssh (the ktest.pl / LKP
 * cycle). For each run: copy the commit's kernel to the machine, boot it
 * with kexec (or the host's install_command), wait for ssh within
 * reboot_timeout, check that the running kernel is the one kreg built (the
 * kreg.build=<artifact> token kreg puts on its command line, read back
 * from /proc/cmdline), run the atom's plan, fetch its raw output and parse
 * it. A machine that does not come back is power cycled (the host's
 * power_cycle argv, run here) and waited for on its good_kernel; the run is
 * a kernel failure of that commit.
 *
 * Runs of the same kernel back to back boot it once: a machine already on
 * kreg.build=<artifact> runs the job at once. */
#include "hosts/host_backend.h"

#include "hosts/ssh_client.h"
#include "jobs/job.h"
#include "kernel/image.h"
#include "jobs/parse.h"
#include "jobs/plan.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/run.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROBE_TIMEOUT 20.0		/* one ssh answer, handshake included */
#define COPY_TIMEOUT 600.0
#define COMMAND_TIMEOUT 120.0
#define POWER_CYCLE_TIMEOUT 300.0
#define WAIT_STEP 2.0
#define BUILD_TOKEN "kreg.build="
#define MIN_FREE_KB (256ull * 1024)

typedef struct {
	kreg_ssh ssh;
} ssh_host;

/* What the machine says about itself. */
typedef struct {
	char *boot_id;
	char *release;
	char *cmdline;
	int cpus;
} machine_state;

static void state_free(machine_state *m)
{
	free(m->boot_id);
	free(m->release);
	free(m->cmdline);
	memset(m, 0, sizeof(*m));
}

static const char probe_command[] =
	"cat /proc/sys/kernel/random/boot_id && uname -r && cat /proc/cmdline && "
	"{ nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1; }";

static char *next_line(char **p)
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
static int probe(ssh_host *st, kreg_ssh_result *r, machine_state *m, double timeout)
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
	id = next_line(&p);
	rel = next_line(&p);
	cmd = next_line(&p);
	cpus = next_line(&p);
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

static int has_any_build(const char *cmdline)
{
	const char *s = strstr(cmdline, BUILD_TOKEN);

	return s && (s == cmdline || s[-1] == ' ');
}

/* The build id of an artifact: its directory name (<tree>-<config hash>). */
static char *build_id_of(const char *artifact)
{
	const char *base;
	size_t n = strlen(artifact);

	while (n > 1 && artifact[n - 1] == '/')
		n--;
	base = artifact + n;
	while (base > artifact && base[-1] != '/')
		base--;
	return kreg_strndup(base, (size_t)(artifact + n - base));
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

typedef enum {
	WAIT_ANSWERED,		/* a new boot answered (m filled) */
	WAIT_SAME_BOOT,		/* only the old boot answered */
	WAIT_SILENT,		/* nothing answered */
	WAIT_HOSTKEY,		/* it answered with another host key */
} wait_status;

/* Wait up to the reboot timeout for the machine to answer from a boot other
 * than old_boot (NULL: any). *why gets ssh's last complaint. */
static int wait_boot(ssh_host *st, const kreg_host_cfg *hc, const char *old_boot,
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

		if ((error = probe(st, &r, m, left < PROBE_TIMEOUT ? (left > 5 ? left : 5) : PROBE_TIMEOUT)) < 0)
			return error;
		if (r.status == KREG_SSH_OK && (!old_boot || strcmp(m->boot_id, old_boot))) {
			*ws = WAIT_ANSWERED;
			kreg_ssh_result_free(&r);
			return 0;
		}
		/* the last answer decides: still the old boot (kexec did
		 * nothing), or silent after it (the new kernel went down) */
		same = r.status == KREG_SSH_OK;
		state_free(m);
		if (r.status == KREG_SSH_HOSTKEY) {
			*ws = WAIT_HOSTKEY;
			*why = r.error;
			r.error = NULL;
			kreg_ssh_result_free(&r);
			return 0;
		}
		if (r.error) {
			free(*why);
			*why = r.error;
			r.error = NULL;
		}
		kreg_ssh_result_free(&r);
		/* a reboot kills the shared connection: start afresh */
		kreg_ssh_disconnect(&st->ssh);
		sleep_for(WAIT_STEP);
	}
	*ws = same ? WAIT_SAME_BOOT : WAIT_SILENT;
	return 0;
}

/* On a kernel kreg knows: the good_kernel (when configured), booted without
 * a kreg.build token. */
static int on_good_kernel(const kreg_host_cfg *hc, const machine_state *m)
{
	if (has_any_build(m->cmdline))
		return 0;
	return !hc->good_kernel || !*hc->good_kernel || !strcmp(m->release, hc->good_kernel);
}

/* The machine is lost (silent, or on a kernel nobody chose): power cycle it
 * and wait for its good kernel. *note says what happened, for the run's
 * error. <0 only for kreg's own failures. */
static int recover(ssh_host *st, const kreg_host_cfg *hc, const char *out_dir, char **note)
{
	kreg_run_opts o = { 0 };
	kreg_run_result rr;
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
	error = kreg_run(&rr, &o);
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
				      kreg_run_describe(&rr, desc, sizeof(desc)));
		log_error("host %s: %s", hc->name, *note);
		return 0;
	}
	if ((error = wait_boot(st, hc, NULL, &m, &ws, &why)) < 0)
		return error;
	if (ws != WAIT_ANSWERED)
		*note = kreg_asprintf("power cycled, but no answer within %.0f s%s%s: the machine "
				      "needs a hand", hc->reboot_timeout, why ? ": " : "", why ? why : "");
	else if (!on_good_kernel(hc, &m))
		*note = kreg_asprintf("power cycled, back on %s, not the good_kernel %s", m.release,
				      hc->good_kernel ? hc->good_kernel : "(a kernel without kreg.build)");
	else
		*note = kreg_asprintf("power cycled, back on %s", m.release);
	if (ws != WAIT_ANSWERED || !on_good_kernel(hc, &m))
		log_error("host %s: %s", hc->name, *note);
	else
		log_info("host %s: %s", hc->name, *note);
	state_free(&m);
	free(why);
	return 0;
}

/* ---- booting the kernel ---- */

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
		kreg_ssh_result_free(&r);
		log_info("host %s: copying %s%s", hc->name, bzimage, nfiles > 1 ? " and its modules" : "");
		if ((ret = kreg_ssh_put(&st->ssh, &r, files, nfiles, kdir, COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status != KREG_SSH_OK) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "cannot copy the kernel to %s: %s",
				hc->name, r.error);
		goto done;
	}
	kreg_ssh_result_free(&r);
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
		kreg_ssh_result_free(&r);
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
	kreg_ssh_result_free(&r);
	kreg_buf_free(&cmd);
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
static int boot_kernel(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
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
	state_free(m);
	t0 = kreg_now_mono();
	if ((error = wait_boot(st, hc, old_boot, m, &ws, &why)) < 0)
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
		if ((error = recover(st, hc, req->out_dir, &note)) < 0)
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

			if (!on_good_kernel(hc, m) && (error = recover(st, hc, req->out_dir, &note)) < 0) {
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

/* ---- the job ---- */

static const char run_script[] =
	"# kreg: runs one job on a lab machine (written by kreg for each run).\n"
	"# argv: the program's argv, one argument per line; kreg-stdout: where\n"
	"# its stdout and stderr go; kreg-exit: its exit status, at the end;\n"
	"# kreg-disk, when the job needs a file system on the target device:\n"
	"# DEVICE FS MOUNTPOINT, formatted and mounted before, unmounted after.\n"
	"cd \"$(dirname \"$0\")\" || exit 125\n"
	"# Job control: the program leads a process group of its own (kreg-pgid),\n"
	"# everything it starts is in it, and kreg kills that after a timeout.\n"
	"set -m 2>/dev/null\n"
	"out=$(cat kreg-stdout)\n"
	"mnt=\n"
	"if [ -f kreg-disk ]; then\n"
	"\tread -r dev fs mnt < kreg-disk\n"
	"\t# a run killed earlier may have left it mounted\n"
	"\tumount \"$mnt\" 2>/dev/null\n"
	"\tif ! why=$(disk_setup \"$dev\" \"$fs\" \"$mnt\"); then\n"
	"\t\techo \"kreg: cannot set up the target $dev: $why\" > \"$out\"\n"
	"\t\techo 125 > kreg-exit\n"
	"\t\texit 125\n"
	"\tfi\n"
	"fi\n"
	"set --\n"
	"while IFS= read -r a || [ -n \"$a\" ]; do set -- \"$@\" \"$a\"; done < argv\n"
	"[ -d ../bin ] && PATH=$(cd ../bin && pwd):$PATH && export PATH\n"
	"\"$@\" > \"$out\" 2>&1 &\n"
	"echo $! > kreg-pgid\n"
	"wait $!\n"
	"rc=$?\n"
	"[ -n \"$mnt\" ] && umount \"$mnt\" 2>/dev/null\n"
	"echo $rc > kreg-exit\n"
	"exit $rc\n";

static int write_file(const char *dir, const char *name, const char *data, size_t len,
		      char ***paths, size_t *n)
{
	char *p = kreg_path_join(dir, name);

	if (strchr(name, '/') || !strcmp(name, "..") || !strcmp(name, ".")) {
		kreg_error_set("plan file '%s' is not a plain name", name);
		free(p);
		return KREG_EINVAL;
	}
	if (kreg_write_file_atomic(p, data, len) < 0) {
		free(p);
		return KREG_ERROR;
	}
	*paths = kreg_reallocarray(*paths, *n + 1, sizeof(**paths));
	(*paths)[(*n)++] = p;
	return 0;
}

/* After the job lost its connection or ran past its timeout: end what is
 * left of it and see whether the machine is still there. The run's status
 * follows (kernel failed when the machine died or rebooted). */
static int after_lost_job(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
			  const char *out_dir, const char *run_dir, const machine_state *before,
			  const char *what)
{
	kreg_ssh_result r = { 0 };
	machine_state m = { 0 };
	kreg_buf cmd = KREG_BUF_INIT;
	char *pgid = kreg_path_join(run_dir, "kreg-pgid"), *q = kreg_ssh_quote(pgid);
	char *note = NULL, *why = NULL;
	wait_status ws;
	int error;

	/* the job's process group, and everything it started */
	kreg_ssh_disconnect(&st->ssh);
	kreg_buf_printf(&cmd, "p=$(cat %s 2>/dev/null) && [ \"$p\" -gt 1 ] && "
			"{ kill -9 -\"$p\" 2>/dev/null || kill -9 \"$p\" 2>/dev/null; }; true",
			q);
	if ((error = kreg_ssh_exec(&st->ssh, &r, cmd.ptr, PROBE_TIMEOUT, NULL)) < 0)
		goto done;
	kreg_ssh_result_free(&r);
	if ((error = wait_boot(st, hc, NULL, &m, &ws, &why)) < 0)
		goto done;
	if (ws == WAIT_ANSWERED && !strcmp(m.boot_id, before->boot_id)) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s; the job was killed on %s", what,
				hc->name);
	} else if (ws == WAIT_ANSWERED) {
		if (!on_good_kernel(hc, &m) && (error = recover(st, hc, out_dir, &note)) < 0)
			goto done;
		kreg_host__fail(out, KREG_RUN_KERNEL_FAILED, "%s: %s rebooted during the job (now %s)%s%s",
				what, hc->name, m.release, note ? "; " : "", note ? note : "");
	} else {
		if ((error = recover(st, hc, out_dir, &note)) < 0)
			goto done;
		kreg_host__fail(out, KREG_RUN_KERNEL_FAILED,
				"%s: %s stopped answering during the job; %s", what, hc->name, note);
	}
	error = 0;
done:
	state_free(&m);
	kreg_buf_free(&cmd);
	free(why);
	free(note);
	free(q);
	free(pgid);
	return error;
}

/* prog found in PATH here (or prog itself when it holds a '/'). Caller frees. */
static char *find_in_path(const char *prog)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? kreg_strdup(prog) : NULL;
	for (const char *dir = path; dir && *dir;) {
		size_t n = strcspn(dir, ":");
		char *d0 = kreg_strndup(dir, n), *f = kreg_path_join(n ? d0 : ".", prog);

		free(d0);
		if (access(f, X_OK) == 0)
			return f;
		free(f);
		dir = dir[n] ? dir + n + 1 : NULL;
	}
	return NULL;
}

/* The machine lacks prog: copy this machine's, with its shared libraries
 * and their loader, into <work_dir>/lib, and a wrapper into <work_dir>/bin
 * (which the run script puts first in PATH) that starts it with that loader:
 * the machine's own C library is never mixed in. */
static int copy_program(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
			const char *prog, const char *out_dir)
{
	char *local = find_in_path(prog), *ldd_out = NULL, *loader = NULL;
	char *lib = kreg_path_join(hc->work_dir, "lib"), *bin = kreg_path_join(hc->work_dir, "bin");
	char *wdir = kreg_path_join(out_dir, "kreg-bin"), *wrapper = NULL, *qlib = NULL, *qbin = NULL;
	const char *ldd_argv[] = { "ldd", local, NULL };
	kreg_run_opts o = { .argv = ldd_argv, .timeout = 30 };
	kreg_run_result rr;
	kreg_ssh_result r = { 0 };
	kreg_buf text = KREG_BUF_INIT;
	const char **files = NULL;
	size_t n = 0;
	int error = 0;

	if (!local || strchr(prog, '/')) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s is not on %s%s", prog, hc->name,
				local ? "" : ", nor here to copy");
		goto done;
	}
	if (kreg_run_capture(&rr, &ldd_out, &o) < 0 || !rr.exited) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s is not on %s; ldd %s failed: %s",
				prog, hc->name, local, kreg_error_last());
		kreg_error_clear();
		goto done;
	}
	files = kreg_calloc(2, sizeof(*files));
	files[n++] = local;
	/* "libx.so.1 => /lib/.../libx.so.1 (0x...)" and "/lib64/ld-linux...so.2 (0x...)" */
	for (char *line = ldd_out, *next; line && *line; line = next) {
		char *arrow, *path, *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		arrow = strstr(line, "=> ");
		path = arrow ? arrow + 3 : line + strspn(line, " \t");
		if (*path != '/')
			continue;
		end = path + strcspn(path, " \t");
		*end = '\0';
		if (!arrow) {
			free(loader);
			loader = kreg_strdup(path);
		}
		files = kreg_reallocarray(files, n + 2, sizeof(*files));
		files[n++] = path;
	}
	if (!loader) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s is not on %s, and %s here is not "
				"a dynamic program kreg can carry over", prog, hc->name, local);
		goto done;
	}
	{
		const char *lb = strrchr(loader, '/') + 1;

		kreg_buf_printf(&text, "#!/bin/sh\n# kreg: %s copied from the kreg machine\n"
				"exec %s/%s --library-path %s %s/%s \"$@\"\n", prog, lib, lb, lib, lib, prog);
	}
	if (kreg_mkdir_p(wdir, 0755) < 0) {
		error = KREG_ERROR;
		goto done;
	}
	wrapper = kreg_path_join(wdir, prog);
	if ((error = kreg_write_file_atomic(wrapper, text.ptr, text.len)) < 0)
		goto done;
	qlib = kreg_ssh_quote(lib);
	qbin = kreg_ssh_quote(bin);
	kreg_buf_clear(&text);
	kreg_buf_printf(&text, "mkdir -p %s %s", qlib, qbin);
	log_info("host %s: %s is missing there: copying %s and %zu libraries", hc->name, prog, local,
		 n - 1);
	if ((error = kreg_ssh_exec(&st->ssh, &r, text.ptr, COMMAND_TIMEOUT, NULL)) < 0)
		goto done;
	if (r.status == KREG_SSH_OK) {
		kreg_ssh_result_free(&r);
		if ((error = kreg_ssh_put(&st->ssh, &r, files, n, lib, COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status == KREG_SSH_OK) {
		const char *w[1] = { wrapper };

		kreg_ssh_result_free(&r);
		if ((error = kreg_ssh_put(&st->ssh, &r, w, 1, bin, COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status == KREG_SSH_OK) {
		kreg_ssh_result_free(&r);
		kreg_buf_clear(&text);
		kreg_buf_printf(&text, "chmod 0755 %s/%s", qbin, prog);
		if ((error = kreg_ssh_exec(&st->ssh, &r, text.ptr, COMMAND_TIMEOUT, NULL)) < 0)
			goto done;
	}
	if (r.status != KREG_SSH_OK)
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "cannot copy %s to %s: %s", prog, hc->name,
				r.error);
done:
	kreg_ssh_result_free(&r);
	kreg_buf_free(&text);
	free(files);
	free(qbin);
	free(qlib);
	free(wrapper);
	free(wdir);
	free(loader);
	free(ldd_out);
	free(bin);
	free(lib);
	free(local);
	return error;
}

/* Where the run script mounts the job's file system: <work_dir>/mnt. */
static char *mount_point(const kreg_host_cfg *hc)
{
	return kreg_path_join(hc->work_dir, "mnt");
}

/* Where the job writes: a target device gets the job's file system (made
 * and mounted on mount_point() by the run script) or is used raw; a
 * directory or a file is used as it is. */
static int plan_on(const kreg_host_cfg *hc, const kreg_config *cfg, kreg_plan *plan,
		   const char **fs, const kreg_atom *atom, int cpus)
{
	kreg_plan_opts po = { hc->target, 1, cpus > 0 ? cpus : 1, cfg->fxmark };
	char *mnt;
	int error;

	*fs = NULL;
	if (!hc->target || strncmp(hc->target, "/dev/", 5))
		return kreg_job_plan(plan, atom, &po);
	mnt = mount_point(hc);
	error = kreg_host__plan_disk(plan, fs, atom, &po, hc->target, mnt);
	free(mnt);
	return error;
}

static int ssh_plan(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom, int cpus)
{
	return plan_on(h->hc, h->cfg, out, fs, atom, cpus);
}

static int run_job(ssh_host *st, const kreg_host_cfg *hc, const kreg_config *cfg,
		   kreg_host_result *out, const kreg_host_request *req, const machine_state *m,
		   double deadline)
{
	kreg_plan plan;
	kreg_buf argv_text = KREG_BUF_INIT, cmd = KREG_BUF_INIT;
	kreg_ssh_result r = { 0 };
	char **paths = NULL, *run_dir = kreg_path_join(hc->work_dir, "run");
	char *qdir = kreg_ssh_quote(run_dir), *local = NULL, *remote = NULL;
	char *mnt = NULL, *script = NULL;
	const char *fs = NULL;
	size_t npaths = 0;
	double timeout;
	int error = 0, have_plan = 0;

	if (!hc->target || !*hc->target) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED,
				"host '%s' has no target (where tests write on the machine)", hc->name);
		goto done;
	}
	if (plan_on(hc, cfg, &plan, &fs, req->atom, hc->cpus > 0 ? hc->cpus : m->cpus) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		goto done;
	}
	have_plan = 1;
	if (fs) {
		char *line;

		mnt = mount_point(hc);
		line = kreg_asprintf("%s %s %s\n", hc->target, fs, mnt);

		if (strchr(hc->target, ' ') || strchr(mnt, ' ')) {
			kreg_error_set("host '%s': a target or work_dir with a space cannot be "
				       "formatted and mounted", hc->name);
			error = KREG_EINVAL;
		} else {
			error = write_file(req->out_dir, "kreg-disk", line, strlen(line), &paths,
					   &npaths);
		}
		free(line);
		if (error < 0)
			goto done;
	}
	for (size_t i = 0; i < plan.argc; i++) {
		if (strchr(plan.argv[i], '\n')) {
			kreg_host__fail(out, KREG_RUN_JOB_FAILED, "argument %zu of the plan holds a line feed", i);
			goto done;
		}
		kreg_buf_printf(&argv_text, "%s\n", plan.argv[i]);
	}
	for (size_t i = 0; i < plan.nfiles; i++)
		if ((error = write_file(req->out_dir, plan.files[i].name, plan.files[i].content,
					plan.files[i].len, &paths, &npaths)) < 0)
			goto done;
	script = kreg_asprintf("#!/bin/sh\n%s%s", kreg_image_disk_setup_script(), run_script);
	if ((error = write_file(req->out_dir, "argv", argv_text.ptr, argv_text.len, &paths, &npaths)) < 0 ||
	    (error = write_file(req->out_dir, "kreg-stdout", plan.stdout_name,
				strlen(plan.stdout_name), &paths, &npaths)) < 0 ||
	    (error = write_file(req->out_dir, "kreg-run.sh", script, strlen(script),
				&paths, &npaths)) < 0)
		goto done;

	{
		char *qprog = kreg_ssh_quote(plan.argv[0]), *bin = kreg_path_join(hc->work_dir, "bin");
		char *qbin = kreg_ssh_quote(bin);

		kreg_buf_printf(&cmd, "rm -rf %s && mkdir -p %s && { command -v %s >/dev/null 2>&1 || "
				"[ -x %s/%s ] || echo kreg-missing; }", qdir, qdir, qprog, qbin, qprog);
		free(qbin);
		free(bin);
		free(qprog);
	}
	if ((error = kreg_ssh_exec(&st->ssh, &r, cmd.ptr, COMMAND_TIMEOUT, NULL)) < 0)
		goto done;
	if (r.status == KREG_SSH_OK && strstr(r.output, "kreg-missing")) {
		if ((error = copy_program(st, hc, out, plan.argv[0], req->out_dir)) < 0)
			goto done;
		if (out->error)
			goto done;
	}
	if (r.status == KREG_SSH_OK) {
		kreg_ssh_result_free(&r);
		if ((error = kreg_ssh_put(&st->ssh, &r, (const char *const *)paths, npaths, run_dir,
					  COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status != KREG_SSH_OK) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "cannot copy the job to %s: %s", hc->name,
				r.error);
		goto done;
	}
	kreg_ssh_result_free(&r);

	timeout = deadline - kreg_now_mono();
	if (timeout < 30)
		timeout = 30;
	kreg_buf_clear(&cmd);
	kreg_buf_printf(&cmd, "cd %s && exec sh kreg-run.sh", qdir);
	log_info("host %s: running %s (timeout %.0f s)", hc->name,
		 req->atom_name ? req->atom_name : plan.program, timeout);
	local = kreg_path_join(req->out_dir, "ssh.log");
	if ((error = kreg_ssh_exec(&st->ssh, &r, cmd.ptr, timeout, local)) < 0)
		goto done;
	if (r.status == KREG_SSH_TIMEOUT) {
		char *what = kreg_asprintf("%s timed out after %.0f s (host %s)", plan.program, timeout,
					   hc->name);

		error = after_lost_job(st, hc, out, req->out_dir, run_dir, m, what);
		free(what);
		goto fetch;
	}
	if (r.status == KREG_SSH_UNREACHABLE) {
		char *what = kreg_asprintf("the connection was lost during %s (%s)", plan.program,
					   r.error);

		error = after_lost_job(st, hc, out, req->out_dir, run_dir, m, what);
		free(what);
		goto fetch;
	}
	if (r.status == KREG_SSH_HOSTKEY || r.status == KREG_SSH_DENIED) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", r.error);
		goto done;
	}
	out->status = r.status == KREG_SSH_OK ? KREG_RUN_OK : KREG_RUN_JOB_FAILED;

fetch:
	/* The raw output, whatever happened. */
	{
		int code = r.exit_code;
		int fetched = 0;

		for (int k = 0; k < 2; k++) {
			const char *name = k ? plan.parse_name : plan.stdout_name;
			kreg_ssh_result g = { 0 };

			if (k && !strcmp(plan.parse_name, plan.stdout_name))
				break;
			free(remote);
			free(local);
			remote = kreg_path_join(run_dir, name);
			local = kreg_path_join(req->out_dir, name);
			if ((error = kreg_ssh_get(&st->ssh, &g, remote, local, COPY_TIMEOUT)) < 0)
				goto done;
			if (g.status == KREG_SSH_OK)
				fetched++;
			else if (out->status == KREG_RUN_OK)
				kreg_host__fail(out, KREG_RUN_INFRA_FAILED,
						"cannot fetch %s from %s: %s", name, hc->name, g.error);
			kreg_ssh_result_free(&g);
		}
		(void)fetched;
		if (out->status == KREG_RUN_JOB_FAILED && !out->error) {
			char *stdout_path = kreg_path_join(req->out_dir, plan.stdout_name);
			char *tail = kreg_host__file_last_line(stdout_path);

			kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s exited with status %d on %s%s%s",
					plan.program, code, hc->name, tail ? ": " : "", tail ? tail : "");
			free(tail);
			free(stdout_path);
		}
	}
	if (out->status == KREG_RUN_OK) {
		char *path = kreg_path_join(req->out_dir, plan.parse_name);

		if (kreg_parse_file(&out->samples, plan.parser, path) < 0) {
			kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
			kreg_error_clear();
		}
		free(path);
	}
done:
	kreg_ssh_result_free(&r);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	if (have_plan)
		kreg_plan_free(&plan);
	kreg_buf_free(&argv_text);
	kreg_buf_free(&cmd);
	free(remote);
	free(local);
	free(qdir);
	free(run_dir);
	free(script);
	free(mnt);
	return error;
}

/* ---- kreg host check ---- */

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

static int ssh_check(kreg_host *h, kreg_host_check_fn fn, void *arg)
{
	ssh_host *st = h->priv;
	const kreg_host_cfg *hc = h->hc;
	kreg_ssh_result r = { 0 };
	machine_state m = { 0 };
	char *script = NULL, *p, *line, *d = NULL;
	int failed = 0, error, known_before = kreg_path_exists(st->ssh.known_hosts);

	if ((error = probe(st, &r, &m, PROBE_TIMEOUT)) < 0)
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
		int ok = has_any_build(m.cmdline) || on_good_kernel(hc, &m);

		d = kreg_asprintf("%s%s%s", m.release,
				  has_any_build(m.cmdline) ? ", a kernel kreg built" :
				  ok ? "" : ", not the good_kernel ",
				  has_any_build(m.cmdline) || ok ? "" : hc->good_kernel);
		fn(arg, ok, "kernel", d);
		failed += !ok;
		free(d);
	}
	kreg_ssh_result_free(&r);
	script = check_script(hc);
	if ((error = kreg_ssh_exec(&st->ssh, &r, script, COMMAND_TIMEOUT, NULL)) < 0)
		goto done;
	if (r.status != KREG_SSH_OK) {
		fn(arg, 0, "checks", r.error);
		failed++;
		goto done;
	}
	p = r.output;
	while ((line = next_line(&p))) {
		char *name = line, *v = strchr(line, '|'), *detail;

		if (!v || !(detail = strchr(v + 1, '|')))
			continue;
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
			failed += kb < 0 || (unsigned long long)kb < MIN_FREE_KB;
			continue;
		}
		if ((!strcmp(name, "fio") || !strcmp(name, "dbench")) && strcmp(v, "1")) {
			char *here = find_in_path(name);

			d = here ? kreg_asprintf("not on the machine: kreg copies %s (with its libraries) "
						 "at the first run", here) :
				   kreg_asprintf("not on the machine, nor here to copy: install it there");
			fn(arg, here != NULL, name, d);
			failed += here == NULL;
			free(d);
			free(here);
			continue;
		}
		fn(arg, !strcmp(v, "1"), !strcmp(name, "boot") && !hc->ninstall_command ? "kexec" :
		   !strcmp(name, "boot") ? "install_command" : name, detail);
		failed += strcmp(v, "1") != 0;
	}
	/* Here: the power cycle command. */
	if (hc->npower_cycle) {
		const char *prog = hc->power_cycle[0];
		char *where = find_in_path(prog);
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
	kreg_ssh_result_free(&r);
	state_free(&m);
	free(script);
	return failed;
}

/* ---- the backend ---- */

static int ssh_open(kreg_host *h)
{
	ssh_host *st = kreg_calloc(1, sizeof(*st));

	if (!kreg_ssh_plain_path(h->hc->work_dir)) {
		kreg_error_set("host '%s': work_dir '%s': only letters, digits and /._-+ please",
			       h->hc->name, h->hc->work_dir ? h->hc->work_dir : "");
		free(st);
		return KREG_EINVAL;
	}
	if (kreg_ssh_init(&st->ssh, h->cfg, h->hc) < 0) {
		free(st);
		return KREG_ERROR;
	}
	h->priv = st;
	return 0;
}

static void ssh_close(kreg_host *h)
{
	ssh_host *st = h->priv;

	if (!st)
		return;
	kreg_ssh_free(&st->ssh);
	free(st);
	h->priv = NULL;
}

static int ssh_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	ssh_host *st = h->priv;
	const kreg_host_cfg *hc = h->hc;
	kreg_ssh_result r = { 0 };
	machine_state m = { 0 };
	char *build = NULL, *tok = NULL, *note = NULL;
	double t0 = kreg_now_mono();
	double deadline = t0 + (req->timeout > 0 ? req->timeout : hc->timeout > 0 ? hc->timeout : 1800);
	int error;

	if (!req->kernel || !req->kernel->artifact) {
		kreg_error_set("host '%s': no kernel to boot (prepare the commit's kernel first)",
			       hc->name);
		return KREG_EINVAL;
	}
	build = build_id_of(req->kernel->artifact);
	tok = kreg_asprintf(BUILD_TOKEN "%s", build);
	if ((error = probe(st, &r, &m, PROBE_TIMEOUT)) < 0)
		goto done;
	if (r.status == KREG_SSH_UNREACHABLE || r.status == KREG_SSH_TIMEOUT) {
		/* Silent before anything was done: bring it back for the
		 * next run, but this one is the host's failure. */
		log_warn("host %s: %s", hc->name, r.error);
		if ((error = recover(st, hc, req->out_dir, &note)) < 0)
			goto done;
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s; %s", r.error, note);
		goto done;
	}
	if (r.status != KREG_SSH_OK) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", r.error);
		goto done;
	}
	if (kreg_ssh_cmdline_has(m.cmdline, tok)) {
		log_info("host %s: already on kernel %s (%s)", hc->name, m.release, build);
	} else {
		error = boot_kernel(st, hc, out, req, &m, build);
		if (error <= 0)
			goto done;
	}
	free(out->kernel);
	out->kernel = kreg_asprintf("%s " BUILD_TOKEN "%s", m.release, build);
	error = run_job(st, hc, h->cfg, out, req, &m, deadline);
	log_info("host %s: %s%s%s (%.1f s)", hc->name, kreg_run_status_name(out->status),
		 out->error ? ": " : "", out->error ? out->error : "", kreg_now_mono() - t0);
done:
	if (!out->kernel)
		out->kernel = kreg_strdup(req->kernel->artifact);
	out->seconds = kreg_now_mono() - t0;
	kreg_ssh_result_free(&r);
	state_free(&m);
	free(note);
	free(tok);
	free(build);
	return error < 0 ? error : 0;
}

const struct kreg_host_ops kreg_host_ssh_ops = {
	.name = "ssh",
	.needs_kernel = 1,
	.open = ssh_open,
	.close = ssh_close,
	.prepare = kreg_host__build_kernel,
	.run = ssh_run,
	.plan = ssh_plan,
	.check = ssh_check,
};
