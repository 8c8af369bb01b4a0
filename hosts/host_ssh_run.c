/* The ssh backend: the job on the machine. Its plan on the host's target,
 * its files and the run script copied there (a program the machine lacks
 * copied from here), run within the deadline, its raw output fetched and
 * parsed; a job that loses the machine ends as a kernel failure. */
#include "hosts/host_ssh_internal.h"

#include "jobs/monitors.h"
#include "jobs/needs.h"
#include "jobs/parse.h"
#include "kernel/image.h"
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
	"mod=\n"
	"setup_failed() {\n"
	"\techo \"kreg: $*\" > \"$out\"\n"
	"\t[ -n \"$mod\" ] && modprobe -r \"$mod\" 2>/dev/null\n"
	"\techo 125 > kreg-exit\n"
	"\texit 125\n"
	"}\n"
	"# kreg-module, when the job asks for a RAM test device (disk: 1BRD_<size>,\n"
	"# 1NULLB): DEVICE BYTES MODULE PARAMETERS..., loaded afresh before (as\n"
	"# LKP's setup/disk does), unloaded after, giving its memory back.\n"
	"if [ -f kreg-module ]; then\n"
	"\tread -r rdev bytes mod args < kreg-module\n"
	"\tmodprobe -r \"$mod\" 2>/dev/null\n"
	"\tavail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)  # KiB\n"
	"\tfits=\"the RAM disk $rdev of $((bytes >> 20)) MiB does not fit in the machine's\"\n"
	"\t[ \"$mod\" != brd ] || [ -z \"$avail\" ] || [ $((bytes >> 10)) -lt \"$avail\" ] ||\n"
	"\t\tsetup_failed \"$fits available memory ($((avail >> 10)) MiB)\"\n"
	"\t# the parameters are one word each\n"
	"\twhy=$(modprobe \"$mod\" $args 2>&1) || setup_failed \"cannot load $mod $args: $why\"\n"
	"\tfor i in 1 2 3 4 5 6 7 8 9 10; do [ -b \"$rdev\" ] && break; sleep 0.5; done\n"
	"\t[ -b \"$rdev\" ] || setup_failed \"$mod is loaded and there is no $rdev\"\n"
	"\thave=$(( $(cat \"/sys/class/block/${rdev#/dev/}/size\") * 512 ))\n"
	"\t[ \"$bytes\" = 0 ] || [ \"$have\" = \"$bytes\" ] ||\n"
	"\t\tsetup_failed \"$rdev has $have bytes, not $bytes: is $mod built in (its size then\" \\\n"
	"\t\t\t\"on the kernel command line)?\"\n"
	"fi\n"
	"mnt=\n"
	"if [ -f kreg-disk ]; then\n"
	"\tread -r dev fs mnt < kreg-disk\n"
	"\t# a run killed earlier may have left it mounted\n"
	"\tumount \"$mnt\" 2>/dev/null\n"
	"\tif ! why=$(disk_setup \"$dev\" \"$fs\" \"$mnt\"); then\n"
	"\t\tsetup_failed \"cannot set up the target $dev: $why\"\n"
	"\tfi\n"
	"fi\n"
	"set --\n"
	"while IFS= read -r a || [ -n \"$a\" ]; do set -- \"$@\" \"$a\"; done < argv\n"
	"[ -d ../bin ] && PATH=$(cd ../bin && pwd):$PATH && export PATH\n"
	"# kreg-monitors: where the monitors' snapshots go (jobs/monitors.h)\n"
	"mon=\n"
	"[ -f kreg-monitors ] && mon=$(cat kreg-monitors)\n"
	"[ -n \"$mon\" ] && sh " KREG_MONITORS_SCRIPT " begin \"$mon\"\n"
	"\"$@\" > \"$out\" 2>&1 &\n"
	"echo $! > kreg-pgid\n"
	"wait $!\n"
	"rc=$?\n"
	"[ -n \"$mon\" ] && sh " KREG_MONITORS_SCRIPT " end \"$mon\"\n"
	"[ -n \"$mnt\" ] && umount \"$mnt\" 2>/dev/null\n"
	"[ -n \"$mod\" ] && modprobe -r \"$mod\" 2>/dev/null\n"
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
	kreg_ssh_result_release(&r);
	if ((error = kreg_host_ssh__wait_boot(st, hc, NULL, &m, &ws, &why)) < 0)
		goto done;
	if (ws == WAIT_ANSWERED && !strcmp(m.boot_id, before->boot_id)) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s; the job was killed on %s", what,
				hc->name);
	} else if (ws == WAIT_ANSWERED) {
		if (!kreg_host_ssh__on_good_kernel(hc, &m) && (error = kreg_host_ssh__recover(st, hc, out_dir, &note)) < 0)
			goto done;
		kreg_host__fail(out, KREG_RUN_KERNEL_FAILED, "%s: %s rebooted during the job (now %s)%s%s",
				what, hc->name, m.release, note ? "; " : "", note ? note : "");
	} else {
		if ((error = kreg_host_ssh__recover(st, hc, out_dir, &note)) < 0)
			goto done;
		kreg_host__fail(out, KREG_RUN_KERNEL_FAILED,
				"%s: %s stopped answering during the job; %s", what, hc->name, note);
	}
	error = 0;
done:
	kreg_host_ssh__state_release(&m);
	kreg_buf_release(&cmd);
	free(why);
	free(note);
	free(q);
	free(pgid);
	return error;
}

/* prog found in PATH here (or prog itself when it holds a '/'). Caller frees. */
char *kreg_host_ssh__find_in_path(const char *prog)
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
	char *local = kreg_host_ssh__find_in_path(prog), *ldd_out = NULL, *loader = NULL;
	char *lib = kreg_path_join(hc->work_dir, "lib"), *bin = kreg_path_join(hc->work_dir, "bin");
	char *wdir = kreg_path_join(out_dir, "kreg-bin"), *wrapper = NULL, *qlib = NULL, *qbin = NULL;
	const char *ldd_argv[] = { "ldd", local, NULL };
	kreg_spawn_opts o = { .argv = ldd_argv, .timeout = 30 };
	kreg_spawn_result rr;
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
	if (kreg_spawn_capture(&rr, &ldd_out, &o) < 0 || !rr.exited) {
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
		kreg_ssh_result_release(&r);
		if ((error = kreg_ssh_put(&st->ssh, &r, files, n, lib, COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status == KREG_SSH_OK) {
		const char *w[1] = { wrapper };

		kreg_ssh_result_release(&r);
		if ((error = kreg_ssh_put(&st->ssh, &r, w, 1, bin, COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status == KREG_SSH_OK) {
		kreg_ssh_result_release(&r);
		kreg_buf_clear(&text);
		kreg_buf_printf(&text, "chmod 0755 %s/%s", qbin, prog);
		if ((error = kreg_ssh_exec(&st->ssh, &r, text.ptr, COMMAND_TIMEOUT, NULL)) < 0)
			goto done;
	}
	if (r.status != KREG_SSH_OK)
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "cannot copy %s to %s: %s", prog, hc->name,
				r.error);
done:
	kreg_ssh_result_release(&r);
	kreg_buf_release(&text);
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

/* The device the job runs on: the RAM device its disk: asks for (the
 * module kreg loads on the machine: /dev/ram0, /dev/nullb0), else the
 * host's target. Caller frees. */
static char *test_target(const kreg_host_cfg *hc, const kreg_disk *d)
{
	if (d->kind != KREG_DISK_HOST)
		return kreg_asprintf("/dev/%s", kreg_disk_dev(d));
	return hc->target ? kreg_strdup(hc->target) : NULL;
}

/* Where the job writes: a target device (or the RAM device the job asks
 * for) gets the job's file system (made and mounted on mount_point() by the
 * run script) or is used raw; a directory or a file is used as it is. */
int kreg_host_ssh__plan_on(const kreg_host_cfg *hc, const kreg_config *cfg, kreg_plan *plan,
			   const char **fs, const kreg_atom *atom, int cpus)
{
	kreg_plan_opts po = { NULL, 1, cpus > 0 ? cpus : 1, cfg->fxmark };
	char *mnt, *target;
	kreg_disk d;
	int error;

	*fs = NULL;
	if ((error = kreg_atom_disk(&d, atom)) < 0)
		return error;
	po.target = target = test_target(hc, &d);
	if (!target || strncmp(target, "/dev/", 5)) {
		error = kreg_job_plan(plan, atom, &po);
		free(target);
		return error;
	}
	mnt = mount_point(hc);
	error = kreg_host__plan_disk(plan, fs, atom, &po, target, mnt);
	free(mnt);
	free(target);
	return error;
}

/* kreg-module: the RAM device the job asks for, loaded by the run script
 * (DEVICE BYTES MODULE PARAMETERS...); nothing for the host's target. */
static int write_module(const kreg_host_request *req, const kreg_disk *d, char ***paths,
			size_t *npaths)
{
	char *params, *line, *dev;
	int error;

	if (d->kind == KREG_DISK_HOST)
		return 0;
	params = kreg_disk_params(d, 0);
	dev = test_target(NULL, d);
	line = kreg_asprintf("%s %llu %s %s\n", dev, (unsigned long long)d->size,
			     kreg_disk_driver(d), params);
	error = write_file(req->out_dir, "kreg-module", line, strlen(line), paths, npaths);
	free(line);
	free(dev);
	free(params);
	return error;
}

/* The job's files in out_dir, to be copied to the machine: the disk the
 * run script sets up (kreg-disk), the plan's files, its argv, where its
 * output goes and the run script. 1 when the plan cannot run there (out
 * says why). */
static int write_job(const kreg_host_cfg *hc, kreg_host_result *out, const kreg_host_request *req,
		     const kreg_plan *plan, const char *fs, char ***paths, size_t *npaths)
{
	kreg_buf argv_text = KREG_BUF_INIT;
	char *mnt = NULL, *script = NULL, *target = NULL;
	kreg_disk d;
	int error = 0;

	/* the plan was made of this atom: its disk: reads */
	if ((error = kreg_atom_disk(&d, req->atom)) < 0 ||
	    (error = write_module(req, &d, paths, npaths)) < 0)
		goto done;
	if (fs) {
		char *line;

		mnt = mount_point(hc);
		target = test_target(hc, &d);
		line = kreg_asprintf("%s %s %s\n", target, fs, mnt);

		if (strchr(target, ' ') || strchr(mnt, ' ')) {
			kreg_error_set("host '%s': a target or work_dir with a space cannot be "
				       "formatted and mounted", hc->name);
			error = KREG_EINVAL;
		} else {
			error = write_file(req->out_dir, "kreg-disk", line, strlen(line), paths,
					   npaths);
		}
		free(line);
		if (error < 0)
			goto done;
	}
	for (size_t i = 0; i < plan->argc; i++) {
		if (strchr(plan->argv[i], '\n')) {
			kreg_host__fail(out, KREG_RUN_JOB_FAILED, "argument %zu of the plan holds a line feed", i);
			error = 1;
			goto done;
		}
		kreg_buf_printf(&argv_text, "%s\n", plan->argv[i]);
	}
	for (size_t i = 0; i < plan->nfiles; i++)
		if ((error = write_file(req->out_dir, plan->files[i].name, plan->files[i].content,
					plan->files[i].len, paths, npaths)) < 0)
			goto done;
	if (plan->monitors &&
	    ((error = write_file(req->out_dir, "kreg-monitors", plan->monitors,
				 strlen(plan->monitors), paths, npaths)) < 0 ||
	     (error = write_file(req->out_dir, KREG_MONITORS_SCRIPT, kreg_monitors_script(),
				 strlen(kreg_monitors_script()), paths, npaths)) < 0))
		goto done;
	script = kreg_asprintf("#!/bin/sh\n%s%s", kreg_image_disk_setup_script(), run_script);
	if ((error = write_file(req->out_dir, "argv", argv_text.ptr, argv_text.len, paths, npaths)) < 0 ||
	    (error = write_file(req->out_dir, "kreg-stdout", plan->stdout_name,
				strlen(plan->stdout_name), paths, npaths)) < 0 ||
	    (error = write_file(req->out_dir, "kreg-run.sh", script, strlen(script),
				paths, npaths)) < 0)
		goto done;
done:
	kreg_buf_release(&argv_text);
	free(target);
	free(script);
	free(mnt);
	return error;
}

/* A fresh run directory on the machine with the job's files in it, the
 * program copied there first when the machine lacks it. 1 when the job
 * cannot get there (out says why). */
static int send_job(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
		    const kreg_host_request *req, const kreg_plan *plan, char **paths,
		    size_t npaths, const char *run_dir, const char *qdir)
{
	kreg_buf cmd = KREG_BUF_INIT;
	kreg_ssh_result r = { 0 };
	int error;

	{
		char *qprog = kreg_ssh_quote(plan->argv[0]), *bin = kreg_path_join(hc->work_dir, "bin");
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
		if ((error = copy_program(st, hc, out, plan->argv[0], req->out_dir)) < 0)
			goto done;
		if (out->error) {
			error = 1;
			goto done;
		}
	}
	if (r.status == KREG_SSH_OK) {
		kreg_ssh_result_release(&r);
		if ((error = kreg_ssh_put(&st->ssh, &r, (const char *const *)paths, npaths, run_dir,
					  COPY_TIMEOUT)) < 0)
			goto done;
	}
	if (r.status != KREG_SSH_OK) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "cannot copy the job to %s: %s", hc->name,
				r.error);
		error = 1;
	}
done:
	kreg_ssh_result_release(&r);
	kreg_buf_release(&cmd);
	return error;
}

/* The run script on the machine, within the deadline: out's status from
 * how it ended, *code its exit status. *fetch when its raw output is to be
 * fetched: also after a job that lost the machine (after_lost_job), not
 * when ssh was refused. */
static int exec_job(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
		    const kreg_host_request *req, const kreg_plan *plan, const char *run_dir,
		    const char *qdir, const machine_state *m, double deadline, int *code, int *fetch)
{
	kreg_buf cmd = KREG_BUF_INIT;
	kreg_ssh_result r = { 0 };
	char *local = NULL;
	double timeout;
	int error;

	*fetch = 0;
	timeout = deadline - kreg_now_mono();
	if (timeout < 30)
		timeout = 30;
	kreg_buf_printf(&cmd, "cd %s && exec sh kreg-run.sh", qdir);
	log_info("host %s: running %s (timeout %.0f s)", hc->name,
		 req->atom_name ? req->atom_name : plan->program, timeout);
	local = kreg_path_join(req->out_dir, "ssh.log");
	if ((error = kreg_ssh_exec(&st->ssh, &r, cmd.ptr, timeout, local)) < 0)
		goto done;
	*code = r.exit_code;
	if (r.status == KREG_SSH_TIMEOUT) {
		char *what = kreg_asprintf("%s timed out after %.0f s (host %s)", plan->program, timeout,
					   hc->name);

		error = after_lost_job(st, hc, out, req->out_dir, run_dir, m, what);
		free(what);
		*fetch = 1;
		goto done;
	}
	if (r.status == KREG_SSH_UNREACHABLE) {
		char *what = kreg_asprintf("the connection was lost during %s (%s)", plan->program,
					   r.error);

		error = after_lost_job(st, hc, out, req->out_dir, run_dir, m, what);
		free(what);
		*fetch = 1;
		goto done;
	}
	if (r.status == KREG_SSH_HOSTKEY || r.status == KREG_SSH_DENIED) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", r.error);
		goto done;
	}
	out->status = r.status == KREG_SSH_OK ? KREG_RUN_OK : KREG_RUN_JOB_FAILED;
	*fetch = 1;
done:
	kreg_ssh_result_release(&r);
	kreg_buf_release(&cmd);
	free(local);
	return error;
}

/* The raw output, whatever happened: the program's stdout and the file it
 * is parsed from, fetched into out_dir; a job that failed says how it
 * ended (code: its exit status). */
static int fetch_output(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
			const kreg_host_request *req, const kreg_plan *plan, const char *run_dir,
			int code)
{
	char *remote = NULL, *local = NULL;
	int fetched = 0, error = 0;

	for (int k = 0; k < 2; k++) {
		const char *name = k ? plan->parse_name : plan->stdout_name;
		kreg_ssh_result g = { 0 };

		if (k && !strcmp(plan->parse_name, plan->stdout_name))
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
		kreg_ssh_result_release(&g);
	}
	(void)fetched;
	if (out->status == KREG_RUN_JOB_FAILED && !out->error) {
		char *stdout_path = kreg_path_join(req->out_dir, plan->stdout_name);
		char *tail = kreg_host__file_last_line(stdout_path);

		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s exited with status %d on %s%s%s",
				plan->program, code, hc->name, tail ? ": " : "", tail ? tail : "");
		free(tail);
		free(stdout_path);
	}
done:
	free(remote);
	free(local);
	return error;
}

/* The monitors' snapshots fetched into out_dir; a machine that does not
 * give them costs the run its monitors (a warning), not its result. */
static int fetch_monitors(ssh_host *st, const kreg_host_request *req, const kreg_plan *plan,
			  const char *run_dir)
{
	char *remote = kreg_path_join(run_dir, plan->monitors);
	char *local = kreg_path_join(req->out_dir, plan->monitors);
	kreg_ssh_result g = { 0 };
	int error = kreg_ssh_get(&st->ssh, &g, remote, local, COPY_TIMEOUT);

	if (error == 0 && g.status != KREG_SSH_OK)
		log_warn("cannot fetch %s: %s", plan->monitors, g.error);
	kreg_ssh_result_release(&g);
	free(local);
	free(remote);
	return error;
}

/* The atom's plan on the machine: its files written and sent, run, its
 * raw output fetched and parsed. */
int kreg_host_ssh__run_job(ssh_host *st, const kreg_host_cfg *hc, const kreg_config *cfg,
			   kreg_host_result *out, const kreg_host_request *req, const machine_state *m,
			   double deadline)
{
	kreg_plan plan;
	char **paths = NULL, *run_dir = kreg_path_join(hc->work_dir, "run");
	char *qdir = kreg_ssh_quote(run_dir);
	const char *fs = NULL;
	size_t npaths = 0;
	int error = 0, have_plan = 0, code = 0, fetch = 0;

	if (!hc->target || !*hc->target) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED,
				"host '%s' has no target (where tests write on the machine)", hc->name);
		goto done;
	}
	if (kreg_host_ssh__plan_on(hc, cfg, &plan, &fs, req->atom,
				   hc->cpus > 0 ? hc->cpus : m->cpus) < 0) {
		kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		goto done;
	}
	have_plan = 1;
	/* 1 from a step: the run is over, out says why */
	if ((error = write_job(hc, out, req, &plan, fs, &paths, &npaths)) != 0 ||
	    (error = send_job(st, hc, out, req, &plan, paths, npaths, run_dir, qdir)) != 0)
		goto done;
	error = exec_job(st, hc, out, req, &plan, run_dir, qdir, m, deadline, &code, &fetch);
	if (!fetch || (error = fetch_output(st, hc, out, req, &plan, run_dir, code)) < 0)
		goto done;
	if (out->status == KREG_RUN_OK) {
		char *path = kreg_path_join(req->out_dir, plan.parse_name);

		if (kreg_parse_file(&out->samples, plan.parser, path) < 0) {
			kreg_host__fail(out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
			kreg_error_clear();
		}
		free(path);
		if (plan.monitors && (error = fetch_monitors(st, req, &plan, run_dir)) < 0)
			goto done;
		kreg_host__monitors_parse(out, &plan, req->out_dir, hc->name);
	}
done:
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	if (have_plan)
		kreg_plan_release(&plan);
	free(qdir);
	free(run_dir);
	return error < 0 ? error : 0;
}
