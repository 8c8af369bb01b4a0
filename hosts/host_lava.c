/* The lava backend: a run is a LAVA job. kreg writes its definition from
 * the atom (the commit's kernel and the qemu guest's initramfs with the job
 * in it, deployed by URL from serve_dir, booted, kreg's /init running the
 * job and printing its output on the serial line), submits it through the
 * REST API, follows it to its end, reads its log back and reads the
 * console in it as the qemu backend reads its own (hosts/qemu_console.h).
 * docs/lava.md. */
#include "hosts/host_backend.h"
#include "hosts/host_lava_internal.h"

#include "hosts/qemu_console.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define POLL_SECONDS 1.0
#define REQUEST_TIMEOUT 60.0
#define DEFAULT_TIMEOUT 1800.0
#define CMDLINE "console=ttyS0,115200 panic=-1 oops=panic rdinit=/init printk.time=1 random.trust_cpu=on"

/* What one run holds. */
typedef struct {
	kreg_host *h;
	const kreg_host_request *req;
	kreg_host_result *out;
	kreg_lava_api api;
	kreg_plan plan;
	int have_plan;
	char *serve;		/* the run's directory under serve_dir */
	char *name;		/* its name there and in the job's name */
	long long id;		/* the LAVA job */
	double timeout;
} lava_run_ctx;

static double run_timeout(const kreg_host *h, const kreg_host_request *req)
{
	return req->timeout > 0 ? req->timeout : h->hc->timeout > 0 ? h->hc->timeout : DEFAULT_TIMEOUT;
}

static int write_run_file(const char *dir, const char *name, const char *data, size_t len)
{
	char *p = kreg_path_join(dir, name);
	int error = kreg_write_file_atomic_nosync(p, data, len);

	free(p);
	return error;
}

static int copy_file(const char *from, const char *to)
{
	kreg_buf b = KREG_BUF_INIT;
	int error;

	if (link(from, to) == 0)
		return 0;
	if ((error = kreg_buf_read_file(&b, from)) == 0)
		error = kreg_write_file_atomic_nosync(to, b.ptr, b.len);
	kreg_buf_release(&b);
	return error;
}

/* Where the guest's job writes: the test disk kreg gives the device
 * (disk_size: a blank raw image, the guest's vda), formatted only when the
 * job names a file system, as on the qemu host; /tmp (a tmpfs) when the
 * host has none. */
static int lava_plan(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom,
		     int cpus)
{
	kreg_plan_opts po = { "/tmp", 1, cpus > 0 ? cpus : h->hc->cpus > 0 ? h->hc->cpus : 1,
			      h->cfg->fxmark };

	*fs = NULL;
	if (!h->hc->disk_size)
		return kreg_job_plan(out, atom, &po);
	return kreg_host__plan_disk(out, fs, atom, &po, "/dev/" KREG_GUEST_DISK, KREG_GUEST_MNT);
}

/* The kernel and the initramfs with the job, in the run's directory under
 * serve_dir. 1 when the job cannot run (out says why). */
static int stage(lava_run_ctx *x)
{
	const kreg_host_cfg *hc = x->h->hc;
	const char *fs;
	kreg_buf argv_text = KREG_BUF_INIT, disk = KREG_BUF_INIT;
	kreg_image_file *files = NULL;
	char *image = NULL, *bz = NULL, *to = NULL, *initrd = NULL;
	size_t nfiles = 0;
	int error;

	if (kreg_host__no_ram_device(x->out, hc->name, "lava", x->req->atom))
		return 1;
	if (lava_plan(x->h, &x->plan, &fs, x->req->atom, 0) < 0) {
		kreg_host__fail(x->out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		return 1;
	}
	x->have_plan = 1;
	for (size_t i = 0; i < x->plan.nfiles; i++)
		if ((error = write_run_file(x->req->out_dir, x->plan.files[i].name,
					    x->plan.files[i].content, x->plan.files[i].len)) < 0)
			goto done;
	if ((error = kreg_host__guest_job_files(&files, &nfiles, &argv_text, &disk, &x->plan, fs,
						hc->disk_size ? KREG_GUEST_DISK : NULL,
						KREG_GUEST_MNT)) < 0) {
		kreg_host__fail(x->out, KREG_RUN_JOB_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		error = 1;
		goto done;
	}
	if ((error = write_run_file(x->req->out_dir, "argv", argv_text.ptr, argv_text.len)) < 0)
		goto done;
	image = kreg_image_path(x->h->cfg, hc);
	if ((error = kreg_image_ensure(x->h->cfg, image)) < 0)
		goto done;
	if ((error = kreg_mkdir_p(x->serve, 0755)) < 0)
		goto done;
	bz = kreg_path_join(x->req->kernel->artifact, "bzImage");
	to = kreg_path_join(x->serve, "bzImage");
	initrd = kreg_path_join(x->serve, "initrd.cpio");
	if ((error = copy_file(bz, to)) < 0) {
		kreg_error_set("host '%s': cannot put the kernel in serve_dir %s: %s", hc->name,
			       hc->serve_dir, kreg_error_last());
		goto done;
	}
	if ((error = kreg_image_with_files(initrd, image, files, nfiles)) < 0 || !hc->disk_size)
		goto done;
	free(to);
	/* the blank test disk beside them: a sparse file, nothing written
	 * here; LAVA's worker writes it out when it fetches it */
	to = kreg_path_join(x->serve, "disk.img");
	if ((error = kreg_host__blank_disk(hc, to)) > 0)
		error = 0;
done:
	for (size_t i = 0; i < nfiles; i++)
		free(files[i].path);
	free(files);
	free(initrd);
	free(to);
	free(bz);
	free(image);
	kreg_buf_release(&disk);
	kreg_buf_release(&argv_text);
	return error;
}

/* Submit the job. 1 when LAVA would not take it (out says why). */
static int submit(lava_run_ctx *x)
{
	const kreg_host_cfg *hc = x->h->hc;
	const char *sl = hc->serve_url[strlen(hc->serve_url) - 1] == '/' ? "" : "/";
	char *kurl = kreg_asprintf("%s%s%s/bzImage", hc->serve_url, sl, x->name);
	char *iurl = kreg_asprintf("%s%s%s/initrd.cpio", hc->serve_url, sl, x->name);
	char *durl = hc->disk_size ? kreg_asprintf("%s%s%s/disk.img", hc->serve_url, sl, x->name) : NULL;
	kreg_buf cmdline = KREG_BUF_INIT;
	kreg_lava_reply r;
	kreg_lava_job job;
	char *def, *body;
	int error;

	kreg_buf_puts(&cmdline, CMDLINE);
	if (hc->append && *hc->append)
		kreg_buf_printf(&cmdline, " %s", hc->append);
	job = (kreg_lava_job){ x->name, kurl, iurl, durl, cmdline.ptr, hc->cpus, x->timeout };
	def = kreg_lava_job_definition(hc, &job);
	if ((error = write_run_file(x->req->out_dir, "lava-job.yaml", def, strlen(def))) < 0)
		goto done;
	body = kreg_lava_submission(def);
	error = kreg_lava_request(&r, &x->api, "jobs/", body, REQUEST_TIMEOUT);
	free(body);
	if (error < 0)
		goto done;
	if (r.code != 201 || kreg_lava_submitted_id(&x->id, r.body) < 0) {
		kreg_host__fail(x->out, KREG_RUN_INFRA_FAILED, "%s",
				r.error ? r.error : kreg_error_last());
		kreg_error_clear();
		error = 1;
	} else {
		log_info("host %s: LAVA job %lld submitted to %s (%s, %s)", hc->name, x->id, hc->url,
			 hc->device_type, x->req->atom_name ? x->req->atom_name : "the job");
	}
	kreg_lava_reply_release(&r);
done:
	free(def);
	kreg_buf_release(&cmdline);
	free(durl);
	free(iurl);
	free(kurl);
	return error;
}

static void cancel(lava_run_ctx *x)
{
	kreg_lava_reply r;
	char *path = kreg_asprintf("jobs/%lld/cancel/", x->id);

	if (kreg_lava_request(&r, &x->api, path, NULL, REQUEST_TIMEOUT) < 0)
		kreg_error_clear();
	else if (r.error)
		log_warn("host %s: canceling LAVA job %lld: %s", x->h->hc->name, x->id, r.error);
	kreg_lava_reply_release(&r);
	free(path);
}

/* Follow the job to its end: 0 with st Finished; 1 when it did not get
 * there (out says why: a job that waited for a device past submit_timeout
 * or ran past the run's timeout is canceled; a server that stopped
 * answering is left as it is). */
static int follow(lava_run_ctx *x, kreg_lava_status *st)
{
	const kreg_host_cfg *hc = x->h->hc;
	char *path = kreg_asprintf("jobs/%lld/", x->id);
	double start = kreg_now_mono(), running = 0, silent = 0;
	int error = 0;

	for (;;) {
		kreg_lava_reply r;
		double now = kreg_now_mono();

		if ((error = kreg_lava_request(&r, &x->api, path, NULL, REQUEST_TIMEOUT)) < 0)
			break;
		if (r.code == 200 && kreg_lava_status_parse(st, r.body) == 0) {
			silent = 0;
			if (!running && strcmp(st->state, "Submitted") && strcmp(st->state, "Scheduling"))
				running = now;
		} else {
			kreg_error_clear();
			if (!silent)
				silent = now;
			if (now - silent > 2 * REQUEST_TIMEOUT) {
				kreg_host__fail(x->out, KREG_RUN_INFRA_FAILED, "LAVA job %lld: %s", x->id,
						r.error ? r.error : "no answer about the job");
				kreg_lava_reply_release(&r);
				error = 1;
				break;
			}
		}
		kreg_lava_reply_release(&r);
		if (!strcmp(st->state, "Finished"))
			break;
		if (!running && now - start > hc->submit_timeout) {
			cancel(x);
			kreg_host__fail(x->out, KREG_RUN_INFRA_FAILED, "LAVA job %lld was still %s after "
					"%.0f s (submit_timeout): no %s device took it; canceled", x->id,
					st->state[0] ? st->state : "Submitted", now - start,
					hc->device_type);
			error = 1;
			break;
		}
		if (running && now - running > x->timeout + 600) {
			cancel(x);
			kreg_host__fail(x->out, KREG_RUN_INFRA_FAILED, "LAVA job %lld still %s %.0f s "
					"after it started (the run's timeout is %.0f s); canceled", x->id,
					st->state, now - running, x->timeout);
			error = 1;
			break;
		}
		usleep((useconds_t)(POLL_SECONDS * 1e6));
	}
	free(path);
	return error;
}

/* The job's log, kept as lava.log; its console as console.log. */
static int fetch_log(lava_run_ctx *x, kreg_lava_log *log)
{
	char *path = kreg_asprintf("jobs/%lld/logs/", x->id);
	kreg_lava_reply r;
	int error;

	memset(log, 0, sizeof(*log));
	if ((error = kreg_lava_request(&r, &x->api, path, NULL, 10 * REQUEST_TIMEOUT)) < 0)
		goto done;
	if (r.code != 200) {
		kreg_host__fail(x->out, KREG_RUN_INFRA_FAILED, "LAVA job %lld: no log: %s", x->id,
				r.error ? r.error : "empty");
		error = 1;
		goto done;
	}
	if ((error = write_run_file(x->req->out_dir, "lava.log", r.body, strlen(r.body))) < 0)
		goto done;
	kreg_lava_log_parse(log, r.body);
	error = write_run_file(x->req->out_dir, "console.log", log->console, strlen(log->console));
done:
	kreg_lava_reply_release(&r);
	free(path);
	return error;
}

/* An error LAVA blames on itself or its set-up, not on what was booted. */
static int infra_error(const kreg_lava_log *log)
{
	static const char *const kinds[] = { "Infrastructure", "Bug", "Configuration", "Canceled",
					     NULL };

	for (size_t i = 0; log->error_type && kinds[i]; i++)
		if (!strcmp(log->error_type, kinds[i]))
			return 1;
	return 0;
}

/* What happened, from the job's health, LAVA's own result and the console. */
static int classify(lava_run_ctx *x, const kreg_lava_status *st, const kreg_lava_log *log)
{
	kreg_host_result *out = x->out;
	kreg_spawn_result r = { .exited = 1, .status = 0, .seconds = 0 };
	kreg_qemu_console c;
	char *where = kreg_asprintf("LAVA job %lld, %s", x->id, x->h->hc->name);
	int error = 0;

	kreg_qemu_console_parse(&c, log->console);
	if (c.kernel)
		out->kernel = kreg_strdup(c.kernel);
	if (!strcmp(st->health, "Canceled")) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "LAVA job %lld was canceled", x->id);
	} else if ((!c.kernel_failure && infra_error(log)) ||
		   (!c.lines && strcmp(st->health, "Complete"))) {
		/* LAVA's own error, or one before anything booted (a
		 * download that failed: LAVA calls that the Job's) */
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "LAVA job %lld%s: %s error: %s", x->id,
				c.lines ? "" : ", nothing booted", log->error_type ? log->error_type :
				st->health, log->error_msg ? log->error_msg : "(no message)");
	} else if (!log->result || (c.output && !c.output_complete && !strcmp(st->health, "Complete"))) {
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "LAVA job %lld (%s): its log is cut short "
				"(%s; %zu of %zu lines unreadable); last console line: %s", x->id,
				st->health, !log->result ? "no result line" :
				"the job's output has no end marker", log->bad_lines, log->lines,
				c.last_line ? c.last_line : "(nothing)");
	} else {
		error = kreg_host__console_result(out, x->h->hc->name, &x->plan, x->req->out_dir, &c,
						  &r, "", where);
	}
	kreg_qemu_console_release(&c);
	free(where);
	return error;
}

static void ctx_release(lava_run_ctx *x)
{
	if (x->serve && kreg_rm_rf(x->serve) < 0) {
		log_warn("%s", kreg_error_last());
		kreg_error_clear();
	}
	kreg_lava_api_close(&x->api);
	if (x->have_plan)
		kreg_plan_release(&x->plan);
	free(x->serve);
	free(x->name);
}

static int lava_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	const kreg_host_cfg *hc = h->hc;
	lava_run_ctx x = { .h = h, .req = req, .out = out, .timeout = run_timeout(h, req) };
	kreg_lava_status st = { { 0 }, { 0 } };
	kreg_lava_log log = { 0 };
	double start = kreg_now_mono();
	static unsigned seq;
	char *bz = NULL;
	int error;

	if ((error = kreg_host__bzimage(&bz, hc, req)) < 0)
		return error;
	x.name = kreg_asprintf("kreg-%s-%ld-%d-%u", hc->name, (long)time(NULL), (int)getpid(), seq++);
	x.serve = kreg_path_join(hc->serve_dir, x.name);
	if ((error = kreg_lava_api_open(&x.api, hc, req->out_dir)) < 0) {
		/* a token kreg cannot read: the host's set-up, retried elsewhere */
		kreg_host__fail(out, KREG_RUN_INFRA_FAILED, "%s", kreg_error_last());
		kreg_error_clear();
		error = 0;
		goto done;
	}
	if ((error = stage(&x)) != 0 || (error = submit(&x)) != 0 ||
	    (error = follow(&x, &st)) != 0 || (error = fetch_log(&x, &log)) != 0)
		goto done;
	error = classify(&x, &st, &log);
	if (!out->kernel)
		out->kernel = kreg_strdup(req->kernel->artifact);
	log_info("host %s: LAVA job %lld %s: %s%s%s", hc->name, x.id, st.health,
		 kreg_run_status_name(out->status), out->error ? ": " : "", out->error ? out->error : "");
done:
	if (error > 0)
		error = 0;
	if (error == 0 && out->status != KREG_RUN_OK && out->error)
		log_warn("host %s: %s", hc->name, out->error);
	kreg_lava_log_release(&log);
	ctx_release(&x);
	free(bz);
	out->seconds = kreg_now_mono() - start;
	return error;
}

/* ---- kreg host check ---- */

/* GET path; fn told what, ok with detail made by ok_detail from the body,
 * or the reply's error. 1 when it failed. */
static int check_get(kreg_lava_api *api, kreg_lava_reply *r, const char *path, kreg_host_check_fn fn,
		     void *arg, const char *what)
{
	if (kreg_lava_request(r, api, path, NULL, 20) < 0) {
		fn(arg, 0, what, kreg_error_last());
		kreg_error_clear();
		return 1;
	}
	if (r->code != 200) {
		fn(arg, 0, what, r->error);
		return 1;
	}
	return 0;
}

static int lava_check(kreg_host *h, kreg_host_check_fn fn, void *arg)
{
	const kreg_host_cfg *hc = h->hc;
	char tmpl[] = "/tmp/kreg-lava-check-XXXXXX";
	kreg_lava_api api;
	kreg_lava_reply r = { 0 };
	char *d = NULL, *v = NULL, *path = NULL, *list = NULL;
	size_t total, good;
	int failed = 0;

	if (!mkdtemp(tmpl)) {
		kreg_error_errno("host '%s': cannot make a directory in /tmp", hc->name);
		return KREG_ERROR;
	}
	if (kreg_lava_api_open(&api, hc, tmpl) < 0) {
		fn(arg, 0, "token", kreg_error_last());
		kreg_error_clear();
		kreg_rm_rf(tmpl);
		return 1;
	}
	if (!(failed += check_get(&api, &r, "system/version/", fn, arg, "server"))) {
		v = kreg_lava_json_string(r.body, "version");
		d = kreg_asprintf("%s answers: LAVA %s", hc->url, v);
		fn(arg, 1, "server", d);
		free(d);
		free(v);
	}
	kreg_lava_reply_release(&r);
	if (!(failed += check_get(&api, &r, "system/whoami/", fn, arg, "token"))) {
		v = kreg_lava_json_string(r.body, "user");
		d = kreg_asprintf("%s: user %s", hc->token_file, v);
		fn(arg, strcmp(v, "?") != 0, "token", d);
		failed += !strcmp(v, "?");
		free(d);
		free(v);
	}
	kreg_lava_reply_release(&r);
	path = kreg_asprintf("devicetypes/%s/", hc->device_type);
	if (kreg_lava_request(&r, &api, path, NULL, 20) == 0 && r.code == 404) {
		d = kreg_asprintf("%s has no device type '%s'", hc->url, hc->device_type);
		fn(arg, 0, "device type", d);
		failed++;
		free(d);
	} else if (r.code == 200) {
		fn(arg, 1, "device type", hc->device_type);
	} else {
		fn(arg, 0, "device type", r.error ? r.error : kreg_error_last());
		kreg_error_clear();
		failed++;
	}
	kreg_lava_reply_release(&r);
	free(path);
	path = kreg_asprintf("devices/?device_type=%s&limit=100", hc->device_type);
	if (!check_get(&api, &r, path, fn, arg, "devices") &&
	    kreg_lava_devices_parse(&total, &good, &list, r.body) == 0) {
		d = kreg_asprintf("%zu of %zu %s device%s Good%s%s", good, total, hc->device_type,
				  total == 1 ? "" : "s", total ? ": " : "", list);
		fn(arg, good > 0, "devices", d);
		failed += good == 0;
		free(d);
	} else {
		failed++;
	}
	free(list);
	kreg_lava_reply_release(&r);
	free(path);
	d = access(hc->serve_dir, W_OK) == 0 ? kreg_asprintf("%s, served as %s", hc->serve_dir, hc->serve_url) :
	    kreg_asprintf("%s: %s", hc->serve_dir, strerror(errno));
	fn(arg, access(hc->serve_dir, W_OK) == 0, "serve_dir", d);
	failed += access(hc->serve_dir, W_OK) != 0;
	free(d);
	kreg_lava_api_close(&api);
	kreg_rm_rf(tmpl);
	return failed;
}

const struct kreg_host_ops kreg_host_lava_ops = {
	.name = "lava",
	.needs_kernel = 1,
	.run = lava_run,
	.check = lava_check,
	.plan = lava_plan,
};
