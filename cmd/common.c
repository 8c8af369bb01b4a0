/* Shared plumbing of the commands: configuration, database, messages. */
#include "cmd/cmd.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/esc.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kreg_cmd_error(const char *fmt, ...)
{
	va_list ap;

	/* an error may quote a program's output or a commit: escaped */
	fputs("kreg: ", stderr);
	if (!fmt) {
		kreg_fputs_esc(kreg_error_last(), stderr);
	} else {
		va_start(ap, fmt);
		kreg_vfprintf_esc(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
}

int kreg_cmd_usage(const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs("kreg: ", stderr);
		va_start(ap, fmt);
		kreg_vfprintf_esc(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputs(usage, stderr);
	return KREG_EXIT_USAGE;
}

int kreg_cmd_wants_help(int argc, char **argv, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 1;
		}
	}
	return 0;
}

static void print_problems(const kreg_config_problems *p)
{
	for (size_t i = 0; i < p->count; i++) {
		const kreg_config_problem *q = &p->items[i];

		if (q->line > 0)
			kreg_fprintf_esc(stderr, "%s:%d:%d: %s\n", q->file, q->line, q->col, q->message);
		else
			kreg_fprintf_esc(stderr, "%s: %s\n", q->file, q->message);
	}
}

static int loaded(kreg_config **out, int error, kreg_config_problems *problems);

static int load_text(kreg_config **out, const char *text_path, const char *const *hosts,
		     size_t nhosts, int some);

int kreg_cmd_load_config_text(kreg_config **out, const char *text_path)
{
	return load_text(out, text_path, NULL, 0, 0);
}

int kreg_cmd_load_config_hosts(kreg_config **out, const char *text_path,
			       const char *const *hosts, size_t nhosts)
{
	return load_text(out, text_path, hosts, nhosts, 1);
}

static int load_text(kreg_config **out, const char *text_path, const char *const *hosts,
		     size_t nhosts, int some)
{
	kreg_config_problems problems = { 0 };
	kreg_buf b = KREG_BUF_INIT;
	int error;

	if (!kreg_opts.config_path) {
		kreg_cmd_error("a configuration text without its file (-c FILE)");
		return KREG_EINVAL;
	}
	if ((error = kreg_buf_read_file_max(&b, text_path, KREG_CONFIG_MAX_FILE,
					    "a configuration file")) < 0) {
		kreg_cmd_error(NULL);
		return error;
	}
	error = some ? kreg_config_load_hosts(out, kreg_opts.config_path, b.ptr, b.len, hosts, nhosts,
					      &problems) :
		       kreg_config_load_string(out, kreg_opts.config_path, b.ptr, b.len, &problems);
	kreg_buf_release(&b);
	return loaded(out, error, &problems);
}

int kreg_cmd_load_config(kreg_config **out)
{
	kreg_config_problems problems = { 0 };
	const char *path = kreg_opts.config_path;
	int error;

	if (!path) {
		if (kreg_path_exists("kreg.yaml"))
			path = "kreg.yaml";
		else if (kreg_path_exists("/etc/kreg/kreg.yaml"))
			path = "/etc/kreg/kreg.yaml";
	}
	if (!path) {
		const char *dd = getenv("KREG_DATA_DIR");

		error = kreg_config_default(out, dd ? dd : "kreg-data");
		if (error < 0)
			kreg_cmd_error(NULL);
		else
			log_info("no configuration file: using the built-in default");
		return error;
	}
	error = kreg_config_load(out, path, &problems);
	return loaded(out, error, &problems);
}

/* Problems printed, the log level the file asks for set. */
static int loaded(kreg_config **out, int error, kreg_config_problems *problems)
{
	if (error < 0) {
		if (problems->count)
			print_problems(problems);
		else
			kreg_cmd_error(NULL);
	}
	kreg_config_problems_release(problems);
	if (error == 0 && (*out)->log_level && !kreg_opts.verbose && !kreg_opts.quiet) {
		int l = kreg_log_level_parse((*out)->log_level);

		if (l >= 0)
			kreg_log_set_level((enum kreg_log_level)l);
	}
	return error;
}

int kreg_cmd_open_db(kreg_db **out, const kreg_config *cfg, unsigned flags)
{
	if ((flags & KREG_DB_CREATE) && cfg->data_dir &&
	    kreg_mkdir_p(cfg->data_dir, 0755) < 0) {
		kreg_cmd_error(NULL);
		return KREG_ERROR;
	}
	if (kreg_db_open(out, cfg->database, flags) < 0) {
		kreg_cmd_error(NULL);
		return KREG_ERROR;
	}
	return 0;
}
