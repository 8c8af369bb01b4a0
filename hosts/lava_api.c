/* The lava backend's talk with a LAVA server: its REST API (v0.2) through
 * the curl program, the job definition kreg writes, and the answers and
 * logs it reads back. */
#include "hosts/host_lava_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CODE_MARK "kreg-http-code "

/* ---- the token and requests ---- */

int kreg_lava_api_open(kreg_lava_api *api, const kreg_host_cfg *hc, const char *dir)
{
	kreg_buf tok = KREG_BUF_INIT, conf = KREG_BUF_INIT;
	int fd, error = KREG_EINVAL;

	memset(api, 0, sizeof(*api));
	api->hc = hc;
	api->dir = kreg_strdup(dir);
	if (kreg_buf_read_file_max(&tok, hc->token_file, 4096, "token_file") < 0) {
		kreg_error_set("host '%s': token_file %s: %s", hc->name, hc->token_file,
			       kreg_error_last());
		goto done;
	}
	kreg_buf_rtrim(&tok);
	for (size_t i = 0; i < tok.len; i++)
		if (!isalnum((unsigned char)tok.ptr[i]) && !strchr("-_.", tok.ptr[i])) {
			kreg_error_set("host '%s': token_file %s: a token is letters, digits, '-', "
				       "'_' and '.' on one line", hc->name, hc->token_file);
			goto done;
		}
	if (!tok.len) {
		kreg_error_set("host '%s': token_file %s is empty", hc->name, hc->token_file);
		goto done;
	}
	kreg_buf_printf(&conf, "header = \"Authorization: Token %s\"\n", tok.ptr);
	api->auth = kreg_path_join(dir, ".lava-auth");
	unlink(api->auth);
	fd = open(api->auth, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, conf.ptr, conf.len) != (ssize_t)conf.len) {
		kreg_error_errno("host '%s': %s: cannot write", hc->name, api->auth);
		if (fd >= 0)
			close(fd);
		goto done;
	}
	close(fd);
	error = 0;
done:
	/* the token is left in no freed memory */
	if (tok.ptr)
		memset(tok.ptr, 0, tok.len);
	if (conf.ptr)
		memset(conf.ptr, 0, conf.len);
	kreg_buf_release(&tok);
	kreg_buf_release(&conf);
	if (error < 0)
		kreg_lava_api_close(api);
	return error;
}

void kreg_lava_api_close(kreg_lava_api *api)
{
	if (api->auth)
		unlink(api->auth);
	free(api->auth);
	free(api->dir);
	memset(api, 0, sizeof(*api));
}

void kreg_lava_reply_release(kreg_lava_reply *r)
{
	free(r->body);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

/* The first line of text, at most 200 bytes. */
static char *first_line(const char *text)
{
	size_t n = strcspn(text, "\r\n");

	return kreg_strndup(text, n > 200 ? 200 : n);
}

/* The error line of a reply that is not 2xx. */
static void reply_error(kreg_lava_reply *out, const kreg_host_cfg *hc, const char *path,
			const char *curl_out)
{
	char *line;

	if (out->code >= 200 && out->code < 300)
		return;
	if (!out->code) {
		const char *c = strstr(curl_out, "curl: ");

		line = first_line(c ? c : curl_out);
		out->error = kreg_asprintf("LAVA server %s: no answer (%s)", hc->url,
					   *line ? line : "curl failed");
	} else if (out->code == 401 || out->code == 403) {
		line = first_line(out->body);
		out->error = kreg_asprintf("LAVA server %s refused the token in %s (HTTP %ld: %s)",
					   hc->url, hc->token_file, out->code, line);
	} else {
		line = first_line(out->body);
		out->error = kreg_asprintf("LAVA server %s: api/v0.2/%s: HTTP %ld%s%s", hc->url, path,
					   out->code, *line ? ": " : "", line);
	}
	free(line);
}

int kreg_lava_request(kreg_lava_reply *out, kreg_lava_api *api, const char *path, const char *body,
		      double timeout)
{
	const kreg_host_cfg *hc = api->hc;
	const char *slash = hc->url[strlen(hc->url) - 1] == '/' ? "" : "/";
	char *url = kreg_asprintf("%s%sapi/v0.2/%s", hc->url, slash, path);
	char *ans = kreg_path_join(api->dir, ".lava-answer");
	char *req = kreg_path_join(api->dir, ".lava-request");
	char *log = kreg_path_join(api->dir, ".lava-curl");
	char *max = kreg_asprintf("%.0f", ceil(timeout > 1 ? timeout : 1));
	char *data = kreg_asprintf("@%s", req);
	kreg_buf b = KREG_BUF_INIT, cout = KREG_BUF_INIT;
	kreg_spawn_opts o = { 0 };
	kreg_spawn_result r;
	const char *argv[20];
	size_t n = 0;
	int error;

	memset(out, 0, sizeof(*out));
	argv[n++] = "curl";
	argv[n++] = "-sS";
	argv[n++] = "-K";
	argv[n++] = api->auth;
	argv[n++] = "-o";
	argv[n++] = ans;
	argv[n++] = "-w";
	argv[n++] = "\n" CODE_MARK "%{http_code}\n";
	argv[n++] = "--max-time";
	argv[n++] = max;
	if (body) {
		argv[n++] = "-H";
		argv[n++] = "Content-Type: application/json";
		argv[n++] = "--data-binary";
		argv[n++] = data;
	}
	argv[n++] = "--";
	argv[n++] = url;
	argv[n] = NULL;
	unlink(ans);
	if (body && (error = kreg_write_file_atomic_nosync(req, body, strlen(body))) < 0)
		goto done;
	o.argv = argv;
	o.out_path = log;
	o.timeout = timeout + 10;
	if ((error = kreg_spawn(&r, &o)) < 0) {
		kreg_error_set("host '%s': cannot run curl: %s", hc->name, kreg_error_last());
		goto done;
	}
	if (kreg_buf_read_file(&cout, log) < 0)
		kreg_error_clear();
	if (kreg_path_exists(ans) && kreg_buf_read_file(&b, ans) < 0)
		kreg_error_clear();
	out->body = kreg_strdup(kreg_buf_cstr(&b));
	{
		const char *c = strstr(kreg_buf_cstr(&cout), CODE_MARK);
		long code = c ? strtol(c + strlen(CODE_MARK), NULL, 10) : 0;

		out->code = r.exited && r.status == 0 ? code : 0;
	}
	reply_error(out, hc, path, kreg_buf_cstr(&cout));
	error = 0;
done:
	unlink(req);
	unlink(ans);
	unlink(log);
	kreg_buf_release(&cout);
	kreg_buf_release(&b);
	free(data);
	free(max);
	free(log);
	free(req);
	free(ans);
	free(url);
	return error;
}

/* ---- the job definition ---- */

char *kreg_lava_job_definition(const kreg_host_cfg *hc, const kreg_lava_job *job)
{
	json_t *d = json_object(), *t = json_object(), *ctx = json_object(), *extra = json_array();
	json_t *actions = json_array(), *images = json_object(), *img, *deploy, *boot;
	long minutes = (long)ceil(job->timeout / 60.0);
	char *arg, *text, *s;

	json_object_set_new(d, "device_type", json_string(hc->device_type));
	json_object_set_new(d, "job_name", json_string(job->name));
	json_object_set_new(d, "priority", json_integer(hc->priority));
	json_object_set_new(d, "visibility", json_string("public"));
	if (hc->ntags) {
		json_t *tags = json_array();

		for (size_t i = 0; i < hc->ntags; i++)
			json_array_append_new(tags, json_string(hc->tags[i]));
		json_object_set_new(d, "tags", tags);
	}
	/* the deploy's few minutes on top of the boot and the job */
	json_object_set_new(t, "job", json_pack("{s:I}", "minutes", (json_int_t)minutes + 10));
	json_object_set_new(t, "action", json_pack("{s:I}", "minutes", (json_int_t)minutes + 5));
	json_object_set_new(d, "timeouts", t);
	s = kreg_asprintf("-smp %d", job->cpus > 0 ? job->cpus : 1);
	json_array_append_new(extra, json_string("-no-reboot"));
	json_array_append_new(extra, json_string(s));
	free(s);
	json_object_set_new(ctx, "arch", json_string("amd64"));
	json_object_set_new(ctx, "extra_options", extra);
	json_object_set_new(d, "context", ctx);

	arg = kreg_asprintf("-kernel {kernel} -append \"%s\"", job->cmdline);
	img = json_pack("{s:s, s:s}", "image_arg", arg, "url", job->kernel_url);
	json_object_set_new(images, "kernel", img);
	img = json_pack("{s:s, s:s}", "image_arg", "-initrd {ramdisk}", "url", job->initrd_url);
	json_object_set_new(images, "ramdisk", img);
	if (job->disk_url) {
		img = json_pack("{s:s, s:s}", "image_arg", "-drive format=raw,if=virtio,file={disk}",
				"url", job->disk_url);
		json_object_set_new(images, "disk", img);
	}
	deploy = json_pack("{s:{s:s, s:{s:I}, s:o}}", "deploy", "to", "tmpfs", "timeout", "minutes",
			   (json_int_t)5, "images", images);
	boot = json_pack("{s:{s:s, s:s, s:{s:I}, s:[s]}}", "boot", "method", "qemu", "media", "tmpfs",
			 "timeout", "minutes", (json_int_t)minutes, "prompts", "KREG-GUEST: poweroff");
	json_array_append_new(actions, deploy);
	json_array_append_new(actions, boot);
	json_object_set_new(d, "actions", actions);
	text = json_dumps(d, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	s = kreg_strdup(text);
	free(text);
	free(arg);
	json_decref(d);
	return s;
}

char *kreg_lava_submission(const char *definition)
{
	json_t *j = json_pack("{s:s}", "definition", definition);
	char *text = json_dumps(j, 0), *s = kreg_strdup(text);

	free(text);
	json_decref(j);
	return s;
}

/* ---- answers ---- */

static void copy_field(char *dst, size_t size, json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	snprintf(dst, size, "%s", v ? v : "");
}

char *kreg_lava_json_string(const char *body, const char *key)
{
	json_t *j = json_loads(body ? body : "", 0, NULL);
	const char *v = json_string_value(json_object_get(j, key));
	char *s = kreg_strdup(v && *v ? v : "?");

	json_decref(j);
	return s;
}

int kreg_lava_status_parse(kreg_lava_status *out, const char *body)
{
	json_t *j = json_loads(body ? body : "", 0, NULL);

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || !json_is_string(json_object_get(j, "state"))) {
		json_decref(j);
		kreg_error_set("not a LAVA job: %.100s", body ? body : "");
		return KREG_EINVAL;
	}
	copy_field(out->state, sizeof(out->state), j, "state");
	copy_field(out->health, sizeof(out->health), j, "health");
	json_decref(j);
	return 0;
}

int kreg_lava_submitted_id(long long *id, const char *body)
{
	json_t *j = json_loads(body ? body : "", 0, NULL);
	json_t *ids = json_object_get(j, "job_ids");
	json_t *first = json_array_get(ids, 0);
	int error = 0;

	*id = 0;
	if (json_is_integer(first))
		*id = json_integer_value(first);
	else
		error = KREG_EINVAL;
	json_decref(j);
	if (error)
		kreg_error_set("the answer names no job: %.200s", body ? body : "");
	return error;
}

static void log_entry(kreg_lava_log *out, kreg_buf *con, json_t *e)
{
	const char *lvl = json_string_value(json_object_get(e, "lvl"));
	json_t *msg = json_object_get(e, "msg");

	if (!lvl)
		return;
	if ((!strcmp(lvl, "target") || !strcmp(lvl, "feedback")) && json_is_string(msg)) {
		/* the dispatcher wrote every '"' of the serial line as '\"'
		 * (lava_dispatcher/shell.py): each '"' here has a '\' of its
		 * own before it */
		for (const char *c = json_string_value(msg); *c; c++)
			if (!(c[0] == '\\' && c[1] == '"'))
				kreg_buf_putc(con, *c);
		kreg_buf_putc(con, '\n');
	} else if (!strcmp(lvl, "results") && json_is_object(msg)) {
		const char *def = json_string_value(json_object_get(msg, "definition"));
		const char *c = json_string_value(json_object_get(msg, "case"));
		const char *res = json_string_value(json_object_get(msg, "result"));
		const char *et = json_string_value(json_object_get(msg, "error_type"));
		const char *em = json_string_value(json_object_get(msg, "error_msg"));

		if (!def || strcmp(def, "lava") || !c || strcmp(c, "job"))
			return;
		free(out->result);
		out->result = res ? kreg_strdup(res) : NULL;
		free(out->error_type);
		out->error_type = et ? kreg_strdup(et) : NULL;
		free(out->error_msg);
		out->error_msg = em ? kreg_strdup(em) : NULL;
	}
}

/* A log line is YAML in flow style, JSON but for a value's non-specific
 * tag (`"size": ! "1700864"`, in the results of a download): read without
 * it. */
static json_t *load_untagged(const char *p, size_t n)
{
	kreg_buf b = KREG_BUF_INIT;
	json_t *j;

	for (size_t i = 0; i < n; i++) {
		if (i + 3 < n && !memcmp(p + i, ": ! ", 4)) {
			kreg_buf_puts(&b, ": ");
			i += 3;
			continue;
		}
		kreg_buf_putc(&b, p[i]);
	}
	j = json_loadb(b.ptr ? b.ptr : "", b.len, 0, NULL);
	kreg_buf_release(&b);
	return j;
}

void kreg_lava_log_parse(kreg_lava_log *out, const char *text)
{
	kreg_buf con = KREG_BUF_INIT;
	const char *p = text ? text : "";

	memset(out, 0, sizeof(*out));
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		json_t *j;

		if (n > 2 && p[0] == '-' && p[1] == ' ') {
			out->lines++;
			j = json_loadb(p + 2, n - 2, 0, NULL);
			if (!j)
				j = load_untagged(p + 2, n - 2);
			if (json_is_object(j))
				log_entry(out, &con, j);
			else
				out->bad_lines++;
			json_decref(j);
		} else if (n) {
			out->lines++;
			out->bad_lines++;
		}
		p += n + (e != NULL);
	}
	out->console = kreg_buf_detach(&con);
}

void kreg_lava_log_release(kreg_lava_log *l)
{
	free(l->console);
	free(l->result);
	free(l->error_type);
	free(l->error_msg);
	memset(l, 0, sizeof(*l));
}

int kreg_lava_devices_parse(size_t *total, size_t *ready, char **list, const char *body)
{
	json_t *j = json_loads(body ? body : "", 0, NULL), *v;
	json_t *res = json_object_get(j, "results");
	kreg_buf b = KREG_BUF_INIT;
	size_t i;

	*total = *ready = 0;
	*list = NULL;
	if (!json_is_array(res)) {
		json_decref(j);
		kreg_error_set("not a LAVA device list: %.100s", body ? body : "");
		return KREG_EINVAL;
	}
	json_array_foreach(res, i, v) {
		const char *name = json_string_value(json_object_get(v, "hostname"));
		const char *state = json_string_value(json_object_get(v, "state"));
		const char *health = json_string_value(json_object_get(v, "health"));

		(*total)++;
		if (health && !strcmp(health, "Good"))
			(*ready)++;
		if (i < 8)
			kreg_buf_printf(&b, "%s%s %s/%s", i ? ", " : "", name ? name : "?",
					state ? state : "?", health ? health : "?");
	}
	*list = kreg_buf_detach(&b);
	json_decref(j);
	return 0;
}
