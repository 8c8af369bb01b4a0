/* kreg.yaml: load with libyaml's document API, walk the tree against schema
 * tables, collect every problem with its position.
 *
 * The tables below are the whole description of the file: each field names
 * its key, its type, where it lands in the structs of config.h, its default
 * and its constraints. One walker reads any table; one function frees and
 * one prints what a table describes. What a table cannot say (a path
 * relative to data_dir, a default that depends on the backend, a job file
 * looked up in job_path) is done in finish() once the whole tree is read. */
#include "config/config.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/shared.h"
#include "lib/util.h"
#include "lib/yaml_depth.h"

#include <yaml.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef KREG_SHAREDIR
#define KREG_SHAREDIR "/usr/local/share/kreg"
#endif

/* Aliases can make a small file expand to a huge tree ("billion laughs");
 * past this many values the walk stops. */
#define VALUE_BUDGET 200000
#define MAX_DEPTH 32	/* nesting of values: kreg.yaml needs 5 */

typedef enum {
	T_STR,		/* char * */
	T_PATH,		/* char *, relative to the config file's directory */
	T_WORD,		/* char *, one of f->words */
	T_INT,		/* int */
	T_U64,		/* uint64_t */
	T_DOUBLE,	/* double */
	T_RATIO,	/* double: 0.05 or 5% */
	T_SIZE,		/* uint64_t bytes: 512M */
	T_DURATION,	/* double seconds: 30m */
	T_BOOL,		/* int 0/1 */
	T_ENUM,		/* int, one of f->enums */
	T_STRLIST,	/* char ** + size_t count; a single string is a list of one */
	T_PATHLIST,	/* the same, each resolved like T_PATH */
	T_STRUCT,	/* an embedded struct, f->sub */
	T_LIST,		/* an array of f->sub structs + size_t count */
	T_FORBIDDEN,	/* a key that must not be there; f->def says why */
} ftype;

enum {
	F_REQUIRED = 1 << 0,
	F_SELECT = 1 << 1,	/* this enum selects which other keys apply */
	F_NAME = 1 << 2,	/* a name that must be unique among its kind */
	F_REF = 1 << 3,		/* a reference to a name of kind f->kind */
	F_IDENT = 1 << 4,	/* letters, digits, '.', '_', '-' (used in paths) */
};

enum { K_NONE, K_REPO, K_HOST, K_KCONFIG };
static const char *const kind_names[] = { "", "repo", "host", "kernel config" };

typedef struct {
	const char *name;
	int value;
} enum_val;

typedef struct schema schema;
typedef struct loader loader;

typedef struct {
	const char *key;
	ftype type;
	size_t off;		/* of the value in the struct */
	size_t cnt;		/* of the count, for lists */
	const char *def;	/* default, parsed like a value from the file */
	unsigned flags;
	unsigned only;		/* selector values (bits) the key applies to; 0 all */
	int kind;		/* K_* for F_NAME / F_REF */
	const enum_val *enums;	/* T_ENUM */
	const char *const *words; /* T_WORD */
	double min, max;	/* range of numbers when min < max */
	const schema *sub;	/* T_STRUCT, T_LIST */
} field;

struct schema {
	const char *what;	/* "host", for messages */
	size_t size;
	const field *fields;
	size_t nfields;
	/* Checks across keys of one record, after its keys are read. */
	void (*check)(loader *ld, void *rec, const yaml_node_t *map, const char *path);
};

typedef struct {
	int kind;
	char *name;
	char *path;		/* where, for messages: hosts[1].name */
	int line, col;
	size_t order;
} named;

struct loader {
	yaml_document_t *doc;
	const char *file;	/* as given, for messages */
	char *dir;		/* absolute directory of the file */
	kreg_config_problems *problems;
	kreg_config *cfg;
	named *names;
	size_t nnames, anames;
	named *refs;
	size_t nrefs, arefs;
	/* job files to look up in job_path once everything is read */
	struct pending_file { size_t job; int line, col; } *jobfiles;
	size_t njobfiles, ajobfiles;
	size_t budget;
	int over_budget;
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SCHEMA(name, type, fields, check) \
	static const schema name = { #type, sizeof(type), fields, ARRAY_SIZE(fields), check }
#define AT(rec, off, type) ((type *)((char *)(rec) + (off)))

/* ---- problems ------------------------------------------------------------ */

static void problems_vadd(kreg_config_problems *p, const char *file, int line, int col,
			  const char *fmt, va_list ap)
{
	kreg_buf b = KREG_BUF_INIT;
	kreg_config_problem *q;

	kreg_buf_vprintf(&b, fmt, ap);
	KREG_ARRAY_GROW(p->items, p->count + 1, p->alloc);
	q = &p->items[p->count++];
	q->file = kreg_strdup(file);
	q->line = line;
	q->col = col;
	q->message = kreg_buf_detach(&b);
}

__attribute__((format(printf, 4, 5)))
static void problem_at(loader *ld, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problems_vadd(ld->problems, ld->file, line, col, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static void problem(loader *ld, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problems_vadd(ld->problems, ld->file, n ? (int)n->start_mark.line + 1 : 0,
		      n ? (int)n->start_mark.column + 1 : 0, fmt, ap);
	va_end(ap);
}

void kreg_config_problems_free(kreg_config_problems *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->count; i++) {
		free(p->items[i].file);
		free(p->items[i].message);
	}
	free(p->items);
	p->items = NULL;
	p->count = p->alloc = 0;
}

static int problem_cmp(const void *a, const void *b)
{
	const kreg_config_problem *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return 0;
}

/* A value quoted in a message: printable, and not too long. */
static const char *shown(kreg_buf *b, const char *s)
{
	size_t n = 0;

	kreg_buf_clear(b);
	for (; *s && n < 60; s++, n++)
		kreg_buf_putc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
	if (*s)
		kreg_buf_puts(b, "...");
	return kreg_buf_cstr(b);
}

static const char *sep(const char *path)
{
	return *path ? ": " : "";
}

/* ---- enums and schema tables --------------------------------------------- */

static const enum_val backend_enum[] = {
	{ "local", KREG_BACKEND_LOCAL }, { "qemu", KREG_BACKEND_QEMU },
	{ "ssh", KREG_BACKEND_SSH }, { "sim", KREG_BACKEND_SIM }, { NULL, 0 },
};
static const enum_val kvm_enum[] = {
	{ "auto", KREG_KVM_AUTO }, { "on", KREG_KVM_ON }, { "off", KREG_KVM_OFF },
	{ "true", KREG_KVM_ON }, { "false", KREG_KVM_OFF }, { "yes", KREG_KVM_ON },
	{ "no", KREG_KVM_OFF }, { NULL, 0 },
};
static const enum_val direction_enum[] = {
	{ "higher", KREG_CFG_DIR_HIGHER }, { "lower", KREG_CFG_DIR_LOWER }, { NULL, 0 },
};
static const char *const log_words[] = { "error", "warn", "info", "debug", NULL };
static const char *const distribution_words[] = { "normal", "lognormal", NULL };

#define B_LOCAL (1u << KREG_BACKEND_LOCAL)
#define B_QEMU (1u << KREG_BACKEND_QEMU)
#define B_SSH (1u << KREG_BACKEND_SSH)
#define B_SIM (1u << KREG_BACKEND_SIM)

#define O(type, member) offsetof(type, member)
#define C(type, member) .cnt = offsetof(type, member)

static void repo_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void kconfig_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void host_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void job_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void detect_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void mail_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);

static const field repo_fields[] = {
	{ .key = "name", .type = T_STR, .off = O(kreg_repo_cfg, name), .flags = F_REQUIRED | F_NAME | F_IDENT, .kind = K_REPO },
	{ .key = "url", .type = T_STR, .off = O(kreg_repo_cfg, url), .flags = F_REQUIRED },
	{ .key = "branches", .type = T_STRLIST, .off = O(kreg_repo_cfg, branches), C(kreg_repo_cfg, nbranches) },
	{ .key = "poll_interval", .type = T_DURATION, .off = O(kreg_repo_cfg, poll_interval), .def = "300",
	  .min = 1, .max = HUGE_VAL },
	{ .key = "maintainers", .type = T_STRLIST, .off = O(kreg_repo_cfg, maintainers), C(kreg_repo_cfg, nmaintainers) },
	{ .key = "commit_url", .type = T_STR, .off = O(kreg_repo_cfg, commit_url) },
};
SCHEMA(repo_schema, kreg_repo_cfg, repo_fields, repo_check);

static const field kconfig_fields[] = {
	{ .key = "name", .type = T_STR, .off = O(kreg_kconfig_cfg, name), .flags = F_REQUIRED | F_NAME | F_IDENT, .kind = K_KCONFIG },
	{ .key = "base", .type = T_STR, .off = O(kreg_kconfig_cfg, base), .def = "defconfig" },
	{ .key = "fragments", .type = T_STRLIST, .off = O(kreg_kconfig_cfg, fragments), C(kreg_kconfig_cfg, nfragments) },
};
SCHEMA(kconfig_schema, kreg_kconfig_cfg, kconfig_fields, kconfig_check);

static const field build_fields[] = {
	{ .key = "configs", .type = T_LIST, .off = O(kreg_build_cfg, configs), C(kreg_build_cfg, nconfigs), .sub = &kconfig_schema },
	{ .key = "make_jobs", .type = T_INT, .off = O(kreg_build_cfg, make_jobs), .min = 0, .max = 4096 },
	{ .key = "timeout", .type = T_DURATION, .off = O(kreg_build_cfg, timeout), .def = "2h", .min = 1, .max = HUGE_VAL },
	{ .key = "arch", .type = T_STR, .off = O(kreg_build_cfg, arch), .def = "x86_64" },
	{ .key = "cross_compile", .type = T_STR, .off = O(kreg_build_cfg, cross_compile) },
	{ .key = "target", .type = T_STR, .off = O(kreg_build_cfg, target), .def = "bzImage" },
};
SCHEMA(build_schema, kreg_build_cfg, build_fields, NULL);

static const field sim_metric_fields[] = {
	{ .key = "metric", .type = T_STR, .off = O(kreg_sim_metric_cfg, metric), .flags = F_REQUIRED },
	{ .key = "base", .type = T_DOUBLE, .off = O(kreg_sim_metric_cfg, base), .flags = F_REQUIRED },
	{ .key = "noise", .type = T_RATIO, .off = O(kreg_sim_metric_cfg, noise), .def = "0.02", .min = 0, .max = 10 },
	{ .key = "distribution", .type = T_WORD, .off = O(kreg_sim_metric_cfg, distribution), .def = "normal",
	  .words = distribution_words },
	{ .key = "outlier_rate", .type = T_RATIO, .off = O(kreg_sim_metric_cfg, outlier_rate), .def = "0", .min = 0, .max = 1 },
	{ .key = "outlier_scale", .type = T_RATIO, .off = O(kreg_sim_metric_cfg, outlier_scale), .def = "0.3", .min = 0, .max = 100 },
};
SCHEMA(sim_metric_schema, kreg_sim_metric_cfg, sim_metric_fields, NULL);

static const field sim_effect_fields[] = {
	{ .key = "commit", .type = T_STR, .off = O(kreg_sim_effect_cfg, commit), .flags = F_REQUIRED },
	{ .key = "metric", .type = T_STR, .off = O(kreg_sim_effect_cfg, metric), .flags = F_REQUIRED },
	{ .key = "change", .type = T_RATIO, .off = O(kreg_sim_effect_cfg, change), .flags = F_REQUIRED, .min = -1, .max = 1000 },
};
SCHEMA(sim_effect_schema, kreg_sim_effect_cfg, sim_effect_fields, NULL);

static const field host_fields[] = {
	{ .key = "name", .type = T_STR, .off = O(kreg_host_cfg, name), .flags = F_REQUIRED | F_NAME | F_IDENT, .kind = K_HOST },
	{ .key = "backend", .type = T_ENUM, .off = O(kreg_host_cfg, backend), .flags = F_REQUIRED | F_SELECT, .enums = backend_enum },
	{ .key = "cpus", .type = T_INT, .off = O(kreg_host_cfg, cpus), .min = 0, .max = 4096 },
	{ .key = "memory", .type = T_SIZE, .off = O(kreg_host_cfg, memory) },
	{ .key = "timeout", .type = T_DURATION, .off = O(kreg_host_cfg, timeout), .def = "30m", .min = 1, .max = HUGE_VAL },
	{ .key = "capacity", .type = T_INT, .off = O(kreg_host_cfg, capacity), .def = "1", .min = 1, .max = 1024 },
	{ .key = "target", .type = T_STR, .off = O(kreg_host_cfg, target), .only = B_LOCAL | B_QEMU | B_SSH },
	/* qemu */
	{ .key = "qemu", .type = T_STR, .off = O(kreg_host_cfg, qemu), .def = "qemu-system-x86_64", .only = B_QEMU },
	{ .key = "kvm", .type = T_ENUM, .off = O(kreg_host_cfg, kvm), .def = "auto", .only = B_QEMU, .enums = kvm_enum },
	{ .key = "disk", .type = T_PATH, .off = O(kreg_host_cfg, disk), .only = B_QEMU },
	{ .key = "disk_size", .type = T_SIZE, .off = O(kreg_host_cfg, disk_size), .def = "1G", .only = B_QEMU },
	{ .key = "image", .type = T_PATH, .off = O(kreg_host_cfg, image), .only = B_QEMU },
	{ .key = "append", .type = T_STR, .off = O(kreg_host_cfg, append), .only = B_QEMU | B_SSH },
	/* ssh */
	{ .key = "address", .type = T_STR, .off = O(kreg_host_cfg, address), .only = B_SSH },
	{ .key = "user", .type = T_STR, .off = O(kreg_host_cfg, user), .def = "root", .only = B_SSH },
	{ .key = "identity", .type = T_PATH, .off = O(kreg_host_cfg, identity), .only = B_SSH },
	{ .key = "good_kernel", .type = T_STR, .off = O(kreg_host_cfg, good_kernel), .only = B_SSH },
	{ .key = "reboot_timeout", .type = T_DURATION, .off = O(kreg_host_cfg, reboot_timeout), .def = "5m", .only = B_SSH,
	  .min = 1, .max = HUGE_VAL },
	{ .key = "known_hosts", .type = T_PATH, .off = O(kreg_host_cfg, known_hosts), .only = B_SSH },
	{ .key = "initrd", .type = T_STR, .off = O(kreg_host_cfg, initrd), .only = B_SSH },
	{ .key = "work_dir", .type = T_STR, .off = O(kreg_host_cfg, work_dir), .def = "/tmp/kreg", .only = B_SSH },
	{ .key = "install_command", .type = T_STRLIST, .off = O(kreg_host_cfg, install_command),
	  C(kreg_host_cfg, ninstall_command), .only = B_SSH },
	{ .key = "power_cycle", .type = T_STRLIST, .off = O(kreg_host_cfg, power_cycle),
	  C(kreg_host_cfg, npower_cycle), .only = B_SSH },
	/* sim */
	{ .key = "seed", .type = T_U64, .off = O(kreg_host_cfg, seed), .def = "1", .only = B_SIM },
	{ .key = "metrics", .type = T_LIST, .off = O(kreg_host_cfg, sim_metrics), C(kreg_host_cfg, nsim_metrics),
	  .only = B_SIM, .sub = &sim_metric_schema },
	{ .key = "effects", .type = T_LIST, .off = O(kreg_host_cfg, sim_effects), C(kreg_host_cfg, nsim_effects),
	  .only = B_SIM, .sub = &sim_effect_schema },
	{ .key = "build_fail_rate", .type = T_RATIO, .off = O(kreg_host_cfg, build_fail_rate), .def = "0", .only = B_SIM, .min = 0, .max = 1 },
	{ .key = "boot_fail_rate", .type = T_RATIO, .off = O(kreg_host_cfg, boot_fail_rate), .def = "0", .only = B_SIM, .min = 0, .max = 1 },
	{ .key = "infra_fail_rate", .type = T_RATIO, .off = O(kreg_host_cfg, infra_fail_rate), .def = "0", .only = B_SIM, .min = 0, .max = 1 },
};
SCHEMA(host_schema, kreg_host_cfg, host_fields, host_check);

static const field job_fields[] = {
	{ .key = "file", .type = T_STR, .off = O(kreg_job_cfg, file), .flags = F_REQUIRED },
	{ .key = "hosts", .type = T_STRLIST, .off = O(kreg_job_cfg, hosts), C(kreg_job_cfg, nhosts), .flags = F_REF, .kind = K_HOST },
	{ .key = "runs", .type = T_INT, .off = O(kreg_job_cfg, runs), .def = "3", .min = 1, .max = 1000 },
	{ .key = "kconfig", .type = T_STR, .off = O(kreg_job_cfg, kconfig), .flags = F_REF, .kind = K_KCONFIG },
};
SCHEMA(job_schema, kreg_job_cfg, job_fields, job_check);

static const field rule_fields[] = {
	{ .key = "pattern", .type = T_STR, .off = O(kreg_metric_rule, pattern), .flags = F_REQUIRED },
	{ .key = "direction", .type = T_ENUM, .off = O(kreg_metric_rule, direction), .enums = direction_enum },
	{ .key = "floor", .type = T_RATIO, .off = O(kreg_metric_rule, floor), .def = "-1", .min = -1, .max = 1000 },
};
SCHEMA(rule_schema, kreg_metric_rule, rule_fields, NULL);

static const field detect_fields[] = {
	{ .key = "min_runs", .type = T_INT, .off = O(kreg_detect_cfg, min_runs), .def = "3", .min = 2, .max = 1000 },
	{ .key = "max_runs", .type = T_INT, .off = O(kreg_detect_cfg, max_runs), .def = "10", .min = 2, .max = 1000 },
	{ .key = "threshold", .type = T_RATIO, .off = O(kreg_detect_cfg, threshold), .def = "0.05", .min = 0, .max = 100 },
	{ .key = "alpha", .type = T_DOUBLE, .off = O(kreg_detect_cfg, alpha), .def = "0.01", .min = 0, .max = 0.5 },
	{ .key = "metrics", .type = T_LIST, .off = O(kreg_detect_cfg, metrics), C(kreg_detect_cfg, nmetrics), .sub = &rule_schema },
	{ .key = "window", .type = T_INT, .off = O(kreg_detect_cfg, window), .def = "20", .min = 2, .max = 10000 },
	{ .key = "lookback", .type = T_INT, .off = O(kreg_detect_cfg, lookback), .def = "4", .min = 1, .max = 1000 },
	{ .key = "confirm", .type = T_DOUBLE, .off = O(kreg_detect_cfg, confirm), .def = "0.0001", .min = 0, .max = 0.5 },
	{ .key = "suggest", .type = T_DOUBLE, .off = O(kreg_detect_cfg, suggest), .def = "0.05", .min = 0, .max = 0.5 },
	{ .key = "step_runs", .type = T_INT, .off = O(kreg_detect_cfg, step_runs), .def = "3", .min = 1, .max = 1000 },
	{ .key = "baseline_runs", .type = T_INT, .off = O(kreg_detect_cfg, baseline_runs), .def = "0", .min = 0, .max = 1000 },
};
SCHEMA(detect_schema, kreg_detect_cfg, detect_fields, detect_check);

static const field bisect_fields[] = {
	{ .key = "max_builds", .type = T_INT, .off = O(kreg_bisect_cfg, max_builds), .def = "30", .min = 1, .max = 100000 },
	{ .key = "runs_per_step", .type = T_INT, .off = O(kreg_bisect_cfg, runs_per_step), .def = "3", .min = 1, .max = 1000 },
	{ .key = "max_runs_per_step", .type = T_INT, .off = O(kreg_bisect_cfg, max_runs_per_step), .def = "12", .min = 1, .max = 1000 },
	{ .key = "verify_revert", .type = T_BOOL, .off = O(kreg_bisect_cfg, verify_revert), .def = "false" },
};
SCHEMA(bisect_schema, kreg_bisect_cfg, bisect_fields, NULL);

static const field mail_fields[] = {
	{ .key = "smtp_url", .type = T_STR, .off = O(kreg_mail_cfg, smtp_url) },
	{ .key = "from", .type = T_STR, .off = O(kreg_mail_cfg, from), .def = "kreg <kreg@localhost>" },
	{ .key = "to", .type = T_STRLIST, .off = O(kreg_mail_cfg, to), C(kreg_mail_cfg, nto) },
	{ .key = "cc", .type = T_STRLIST, .off = O(kreg_mail_cfg, cc), C(kreg_mail_cfg, ncc) },
	{ .key = "to_author", .type = T_BOOL, .off = O(kreg_mail_cfg, to_author), .def = "true" },
	{ .key = "cc_committer", .type = T_BOOL, .off = O(kreg_mail_cfg, cc_committer), .def = "true" },
	{ .key = "dry_run", .type = T_BOOL, .off = O(kreg_mail_cfg, dry_run), .def = "false" },
	{ .key = "outbox", .type = T_PATH, .off = O(kreg_mail_cfg, outbox) },
	{ .key = "username", .type = T_STR, .off = O(kreg_mail_cfg, username) },
	{ .key = "password_file", .type = T_PATH, .off = O(kreg_mail_cfg, password_file) },
	{ .key = "password", .type = T_FORBIDDEN,
	  .def = "the password never goes in the configuration: put it in a file "
		 "readable only by kreg and name that file in password_file" },
	{ .key = "tls", .type = T_BOOL, .off = O(kreg_mail_cfg, tls), .def = "false" },
	{ .key = "ca_file", .type = T_PATH, .off = O(kreg_mail_cfg, ca_file) },
	{ .key = "override_to", .type = T_STR, .off = O(kreg_mail_cfg, override_to) },
	{ .key = "reported_by", .type = T_STR, .off = O(kreg_mail_cfg, reported_by) },
	{ .key = "maintainers", .type = T_BOOL, .off = O(kreg_mail_cfg, maintainers), .def = "true" },
	{ .key = "confirmed", .type = T_BOOL, .off = O(kreg_mail_cfg, confirmed), .def = "false" },
	{ .key = "attempts", .type = T_INT, .off = O(kreg_mail_cfg, attempts), .def = "5", .min = 1, .max = 1000 },
	{ .key = "backoff", .type = T_DURATION, .off = O(kreg_mail_cfg, backoff), .def = "60", .min = 0, .max = HUGE_VAL },
	{ .key = "timeout", .type = T_DURATION, .off = O(kreg_mail_cfg, timeout), .def = "60", .min = 1, .max = 86400 },
};
SCHEMA(mail_schema, kreg_mail_cfg, mail_fields, mail_check);

static const field web_fields[] = {
	{ .key = "output", .type = T_PATH, .off = O(kreg_web_cfg, output) },
	{ .key = "base_url", .type = T_STR, .off = O(kreg_web_cfg, base_url) },
	{ .key = "title", .type = T_STR, .off = O(kreg_web_cfg, title), .def = "kreg" },
};
SCHEMA(web_schema, kreg_web_cfg, web_fields, NULL);

static const field root_fields[] = {
	{ .key = "data_dir", .type = T_PATH, .off = O(kreg_config, data_dir), .flags = F_REQUIRED },
	{ .key = "database", .type = T_PATH, .off = O(kreg_config, database) },
	{ .key = "job_path", .type = T_PATHLIST, .off = O(kreg_config, job_path), C(kreg_config, njob_path) },
	{ .key = "log_level", .type = T_WORD, .off = O(kreg_config, log_level), .def = "info", .words = log_words },
	{ .key = "fxmark", .type = T_PATH, .off = O(kreg_config, fxmark) },
	{ .key = "repos", .type = T_LIST, .off = O(kreg_config, repos), C(kreg_config, nrepos), .sub = &repo_schema },
	{ .key = "build", .type = T_STRUCT, .off = O(kreg_config, build), .sub = &build_schema },
	{ .key = "hosts", .type = T_LIST, .off = O(kreg_config, hosts), C(kreg_config, nhosts), .sub = &host_schema },
	{ .key = "jobs", .type = T_LIST, .off = O(kreg_config, jobs), C(kreg_config, njobs), .sub = &job_schema },
	{ .key = "detect", .type = T_STRUCT, .off = O(kreg_config, detect), .sub = &detect_schema },
	{ .key = "bisect", .type = T_STRUCT, .off = O(kreg_config, bisect), .sub = &bisect_schema },
	{ .key = "mail", .type = T_STRUCT, .off = O(kreg_config, mail), .sub = &mail_schema },
	{ .key = "web", .type = T_STRUCT, .off = O(kreg_config, web), .sub = &web_schema },
};
SCHEMA(root_schema, kreg_config, root_fields, NULL);

/* ---- values ---------------------------------------------------------------- */

/* dir/s with "." and ".." folded away (lexically, like git's
 * normalize_path_copy): the paths kreg prints stay readable. */
static char *resolve_path(const loader *ld, const char *s)
{
	char *joined = s[0] == '/' || !ld->dir ? kreg_strdup(s) : kreg_path_join(ld->dir, s);
	char *out = kreg_malloc(strlen(joined) + 2), *o = out;
	const char *p = joined;

	if (joined[0] != '/') {
		/* no directory to anchor it: leave it as written */
		free(out);
		return joined;
	}
	while (*p) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > out && *--o != '/')
				;
		} else {
			*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p = e;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	free(joined);
	return out;
}

static const char *type_wants(ftype t)
{
	switch (t) {
	case T_INT: case T_U64: case T_DOUBLE: return "a number";
	case T_RATIO: return "a number or a percentage (like 0.05 or 5%)";
	case T_SIZE: return "a size (like 4k, 512M, 1G)";
	case T_DURATION: return "a duration (like 90, 300s, 30m, 2h)";
	case T_BOOL: return "true or false";
	case T_STRLIST: case T_PATHLIST: return "a list of strings";
	case T_STRUCT: case T_LIST: return "a mapping";
	default: return "a string";
	}
}

static int parse_bool(int *out, const char *s)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

static int parse_ratio(double *out, const char *s)
{
	size_t n = strlen(s);

	if (n > 1 && s[n - 1] == '%') {
		char *t = kreg_strndup(s, n - 1);
		int r = kreg_parse_double(out, t, "ratio");

		free(t);
		if (r == 0)
			*out /= 100;
		return r;
	}
	return kreg_parse_double(out, s, "ratio");
}

static const char *nearest(const char *s, const char *const *cands, size_t n, size_t stride)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, len = strlen(s);
	size_t limit = len / 3 > 2 ? len / 3 : 2;

	for (size_t i = 0; i < n; i++) {
		const char *c = *(const char *const *)((const char *)cands + i * stride);
		size_t d;

		if (!c)
			continue;
		d = kreg_str_distance(s, c);
		if (d < bestd) {
			bestd = d;
			best = c;
		}
	}
	return best && bestd <= limit && bestd < len ? best : NULL;
}

static void list_names(kreg_buf *b, const char *const *cands, size_t n, size_t stride)
{
	for (size_t i = 0; i < n; i++) {
		const char *c = *(const char *const *)((const char *)cands + i * stride);

		if (c)
			kreg_buf_printf(b, "%s%s", i ? ", " : "", c);
	}
}

static size_t enum_count(const enum_val *e)
{
	size_t n = 0;

	while (e[n].name)
		n++;
	return n;
}

static size_t words_count(const char *const *w)
{
	size_t n = 0;

	while (w[n])
		n++;
	return n;
}

/* Convert a scalar for field f into rec. 0, or -1 with *why set to what was
 * wrong (the caller names where). Used for defaults too. */
static int convert(const loader *ld, const field *f, void *rec, const char *s, char **why)
{
	long long ll;
	double d;
	uint64_t u;
	int b;

	*why = NULL;
	switch (f->type) {
	case T_STR:
		free(*AT(rec, f->off, char *));
		*AT(rec, f->off, char *) = kreg_strdup(s);
		return 0;
	case T_PATH:
		free(*AT(rec, f->off, char *));
		*AT(rec, f->off, char *) = resolve_path(ld, s);
		return 0;
	case T_WORD:
		for (size_t i = 0; f->words[i]; i++) {
			if (!strcmp(f->words[i], s)) {
				free(*AT(rec, f->off, char *));
				*AT(rec, f->off, char *) = kreg_strdup(s);
				return 0;
			}
		}
		goto bad_choice;
	case T_ENUM:
		for (size_t i = 0; f->enums[i].name; i++) {
			if (!strcmp(f->enums[i].name, s)) {
				*AT(rec, f->off, int) = f->enums[i].value;
				return 0;
			}
		}
		goto bad_choice;
	case T_INT:
		if (kreg_parse_ll(&ll, s, f->key) < 0) {
			if (kreg_parse_double(&d, s, f->key) == 0)
				*why = kreg_asprintf("expected a whole number, got '%s'", s);
			goto bad;
		}
		if (f->min < f->max && (ll < f->min || ll > f->max))
			goto range;
		if (ll < INT_MIN || ll > INT_MAX)
			goto range;
		*AT(rec, f->off, int) = (int)ll;
		return 0;
	case T_U64:
		if (kreg_parse_ll(&ll, s, f->key) < 0 || ll < 0) {
			*why = kreg_asprintf("expected a whole number from 0 up, got '%s'", s);
			goto bad;
		}
		*AT(rec, f->off, uint64_t) = (uint64_t)ll;
		return 0;
	case T_DOUBLE:
	case T_RATIO:
	case T_DURATION:
		if ((f->type == T_DOUBLE ? kreg_parse_double(&d, s, f->key) :
		     f->type == T_RATIO ? parse_ratio(&d, s) :
		     kreg_parse_duration(&d, s, f->key)) < 0)
			goto bad;
		if (f->min < f->max && (d < f->min || d > f->max)) {
			ll = 0;
			goto range;
		}
		*AT(rec, f->off, double) = d;
		return 0;
	case T_SIZE:
		if (kreg_parse_size(&u, s, f->key) < 0)
			goto bad;
		*AT(rec, f->off, uint64_t) = u;
		return 0;
	case T_BOOL:
		if (parse_bool(&b, s) < 0)
			goto bad;
		*AT(rec, f->off, int) = b;
		return 0;
	default:
		goto bad;
	}
bad:
	if (!*why)
		*why = kreg_asprintf("expected %s, got '%s'", type_wants(f->type), s);
	return -1;
range:
	if (isinf(f->max))
		*why = kreg_asprintf("'%s' is too small (at least %g)", s, f->min);
	else
		*why = kreg_asprintf("'%s' is out of range (%g to %g)", s, f->min, f->max);
	return -1;
bad_choice: {
		kreg_buf b2 = KREG_BUF_INIT;
		const char *near;

		if (f->type == T_ENUM) {
			list_names(&b2, &f->enums[0].name, enum_count(f->enums), sizeof(enum_val));
			near = nearest(s, &f->enums[0].name, enum_count(f->enums), sizeof(enum_val));
		} else {
			list_names(&b2, f->words, words_count(f->words), sizeof(char *));
			near = nearest(s, f->words, words_count(f->words), sizeof(char *));
		}
		if (near)
			*why = kreg_asprintf("unknown value '%s', did you mean '%s'? (one of %s)",
					     s, near, b2.ptr);
		else
			*why = kreg_asprintf("unknown value '%s' (one of %s)", s, b2.ptr);
		kreg_buf_free(&b2);
		return -1;
	}
}

static void init_record(const loader *ld, const schema *s, void *rec)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];
		char *why;

		if (f->type == T_STRUCT)
			init_record(ld, f->sub, AT(rec, f->off, char));
		else if (f->def && f->type != T_FORBIDDEN && convert(ld, f, rec, f->def, &why) < 0)
			kreg_die("config: bad built-in default for %s: %s", f->key, why);
	}
}

static void free_record(const schema *s, void *rec)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];

		switch (f->type) {
		case T_STR: case T_PATH: case T_WORD:
			free(*AT(rec, f->off, char *));
			break;
		case T_STRLIST: case T_PATHLIST: {
			char **v = *AT(rec, f->off, char **);

			for (size_t j = 0; j < *AT(rec, f->cnt, size_t); j++)
				free(v[j]);
			free(v);
			break;
		}
		case T_STRUCT:
			free_record(f->sub, AT(rec, f->off, char));
			break;
		case T_LIST: {
			char *v = *AT(rec, f->off, char *);

			for (size_t j = 0; j < *AT(rec, f->cnt, size_t); j++)
				free_record(f->sub, v + j * f->sub->size);
			free(v);
			break;
		}
		default:
			break;
		}
	}
}

/* ---- the walk -------------------------------------------------------------- */

static yaml_node_t *node(loader *ld, int i)
{
	return yaml_document_get_node(ld->doc, i);
}

static int spend(loader *ld, const yaml_node_t *n)
{
	if (ld->budget == 0) {
		if (!ld->over_budget)
			problem(ld, n, "the configuration is too large (aliases expand to more than %d values)",
				VALUE_BUDGET);
		ld->over_budget = 1;
		return -1;
	}
	ld->budget--;
	return 0;
}

static const char *describe(kreg_buf *b, const yaml_node_t *n)
{
	kreg_buf tmp = KREG_BUF_INIT;

	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	shown(&tmp, (const char *)n->data.scalar.value);
	kreg_buf_clear(b);
	kreg_buf_printf(b, "'%s'", tmp.ptr);
	kreg_buf_free(&tmp);
	return b->ptr;
}

static int is_null(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

/* The scalar's string: 0, 1 when it is null, -1 (problem reported). */
static int scalar(loader *ld, const field *f, const yaml_node_t *v, const char *path, const char **out)
{
	const char *s;
	kreg_buf b = KREG_BUF_INIT;

	if (v->type != YAML_SCALAR_NODE) {
		problem(ld, v, "%s%sexpected %s, got %s", path, sep(path),
			type_wants(f->type == T_PATHLIST ? T_PATH : f->type == T_STRLIST ? T_STR : f->type),
			describe(&b, v));
		kreg_buf_free(&b);
		return -1;
	}
	s = (const char *)v->data.scalar.value;
	if (strlen(s) != v->data.scalar.length) {
		problem(ld, v, "%s%sa NUL character in a value", path, sep(path));
		return -1;
	}
	for (const char *p = s; *p; p++) {
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
			problem(ld, v, "%s%scontrol characters (like a line break) are not allowed here",
				path, sep(path));
			return -1;
		}
	}
	*out = s;
	return is_null(v) ? 1 : 0;
}

static void add_named(named **arr, size_t *n, size_t *alloc, int kind, const char *name,
		      const char *path, const yaml_node_t *at)
{
	KREG_ARRAY_GROW(*arr, *n + 1, *alloc);
	(*arr)[*n].kind = kind;
	(*arr)[*n].path = kreg_strdup(path);
	(*arr)[*n].name = kreg_strdup(name);
	(*arr)[*n].line = (int)at->start_mark.line + 1;
	(*arr)[*n].col = (int)at->start_mark.column + 1;
	(*arr)[*n].order = *n;
	(*n)++;
}

static int valid_ident(const char *s)
{
	if (!*s || *s == '.' || *s == '-')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static void parse_record(loader *ld, const schema *s, void *rec, const yaml_node_t *map,
			 const char *path);

static void string_item(loader *ld, const field *f, void *rec, const yaml_node_t *v, const char *path)
{
	const char *s;
	char ***arr = AT(rec, f->off, char **);
	size_t *cnt = AT(rec, f->cnt, size_t);
	int r = scalar(ld, f, v, path, &s);

	if (r < 0)
		return;
	if (r > 0) {
		problem(ld, v, "%s%san empty item", path, sep(path));
		return;
	}
	*arr = kreg_reallocarray(*arr, *cnt + 1, sizeof(char *));
	(*arr)[(*cnt)++] = f->type == T_PATHLIST ? resolve_path(ld, s) : kreg_strdup(s);
	if (f->flags & F_REF)
		add_named(&ld->refs, &ld->nrefs, &ld->arefs, f->kind, s, path, v);
}

static void set_field(loader *ld, const field *f, void *rec, const yaml_node_t *v, const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *s;
	char *why;
	int r;

	if (spend(ld, v) < 0)
		return;
	switch (f->type) {
	case T_FORBIDDEN:
		problem(ld, v, "%s: %s", path, f->def);
		return;
	case T_STRUCT:
		parse_record(ld, f->sub, AT(rec, f->off, char), v, path);
		return;
	case T_LIST: {
		char **arr = AT(rec, f->off, char *);
		size_t *cnt = AT(rec, f->cnt, size_t);

		if (v->type == YAML_SCALAR_NODE && is_null(v))
			return;
		if (v->type != YAML_SEQUENCE_NODE) {
			problem(ld, v, "%s: expected a list (of '- key: value' items), got %s",
				path, describe(&b, v));
			break;
		}
		for (yaml_node_item_t *it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top && !ld->over_budget; it++) {
			yaml_node_t *item = node(ld, *it);
			char *ipath = kreg_asprintf("%s[%zu]", path, (size_t)(it - v->data.sequence.items.start));
			char *elem;

			if (item->type != YAML_MAPPING_NODE) {
				problem(ld, item, "%s: expected a mapping (key: value lines), got %s",
					ipath, describe(&b, item));
				free(ipath);
				continue;
			}
			*arr = kreg_reallocarray(*arr, *cnt + 1, f->sub->size);
			elem = *arr + *cnt * f->sub->size;
			memset(elem, 0, f->sub->size);
			init_record(ld, f->sub, elem);
			(*cnt)++;
			parse_record(ld, f->sub, elem, item, ipath);
			free(ipath);
		}
		break;
	}
	case T_STRLIST:
	case T_PATHLIST:
		if (v->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top && !ld->over_budget; it++) {
				char *ipath = kreg_asprintf("%s[%zu]", path,
							    (size_t)(it - v->data.sequence.items.start));

				if (spend(ld, node(ld, *it)) == 0)
					string_item(ld, f, rec, node(ld, *it), ipath);
				free(ipath);
			}
		} else if (!(v->type == YAML_SCALAR_NODE && is_null(v))) {
			string_item(ld, f, rec, v, path);
		}
		break;
	default:
		r = scalar(ld, f, v, path, &s);
		if (r < 0)
			break;
		if (r > 0) {
			if (f->flags & F_REQUIRED)
				problem(ld, v, "%s: has no value", path);
			break;
		}
		if (convert(ld, f, rec, s, &why) < 0) {
			problem(ld, v, "%s: %s", path, why);
			free(why);
			break;
		}
		if ((f->flags & F_IDENT) && !valid_ident(s))
			problem(ld, v, "%s: '%s' is not a valid name (letters, digits, '.', '_', '-')",
				path, shown(&b, s));
		if (f->flags & F_NAME)
			add_named(&ld->names, &ld->nnames, &ld->anames, f->kind, s, path, v);
		if (f->flags & F_REF)
			add_named(&ld->refs, &ld->nrefs, &ld->arefs, f->kind, s, path, v);
		break;
	}
	kreg_buf_free(&b);
}

static const field *find_field(const schema *s, const char *key)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].key, key))
			return &s->fields[i];
	return NULL;
}

static const yaml_node_t *map_get(loader *ld, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(ld, p->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return node(ld, p->value);
	}
	return NULL;
}

/* The section one level down that has this key: "min_runs" at the top
 * level belongs under "detect". */
static const char *home_of(const schema *s, const char *key)
{
	for (size_t i = 0; i < s->nfields; i++)
		if ((s->fields[i].type == T_STRUCT || s->fields[i].type == T_LIST) &&
		    find_field(s->fields[i].sub, key))
			return s->fields[i].key;
	return NULL;
}

/* "qemu" or "qemu or ssh": the selector values in mask. */
static void mask_names(kreg_buf *b, const field *sel, unsigned mask)
{
	int n = 0;

	for (size_t i = 0; sel->enums[i].name; i++) {
		unsigned bit = 1u << sel->enums[i].value;

		if (!(mask & bit))
			continue;
		mask &= ~bit;
		kreg_buf_printf(b, "%s%s", n++ ? (mask ? ", " : " or ") : "", sel->enums[i].name);
	}
}

static void parse_record(loader *ld, const schema *s, void *rec, const yaml_node_t *map,
			 const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	const field *sel = NULL;
	unsigned selected = 0;
	uint64_t seen = 0;

	if (map->type != YAML_MAPPING_NODE) {
		if (map->type == YAML_SCALAR_NODE && is_null(map) && s != &root_schema)
			goto required;
		problem(ld, map, "%s%sexpected a mapping (key: value lines), got %s",
			path, sep(path), describe(&b, map));
		kreg_buf_free(&b);
		return;
	}
	/* The selector first: it says which other keys belong here. */
	for (size_t i = 0; i < s->nfields; i++)
		if (s->fields[i].flags & F_SELECT)
			sel = &s->fields[i];
	if (sel) {
		const yaml_node_t *v = map_get(ld, map, sel->key);
		const char *str;
		char *why;

		if (v && v->type == YAML_SCALAR_NODE) {
			str = (const char *)v->data.scalar.value;
			if (convert(ld, sel, rec, str, &why) == 0)
				selected = 1u << *AT(rec, sel->off, int);
			free(why);
		}
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(ld, p->key), *v = node(ld, p->value);
		const char *key;
		const field *f;
		char *kpath;
		int dup = 0;

		if (k->type != YAML_SCALAR_NODE) {
			problem(ld, k, "%s%sa key must be a plain string, not %s", path, sep(path),
				describe(&b, k));
			continue;
		}
		key = (const char *)k->data.scalar.value;
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = node(ld, q->key);

			if (k2->type == YAML_SCALAR_NODE && !strcmp((char *)k2->data.scalar.value, key)) {
				problem(ld, k, "%s%sduplicate key '%s' (first at line %zu)", path, sep(path),
					shown(&b, key), k2->start_mark.line + 1);
				dup = 1;
				break;
			}
		}
		if (dup)
			continue;
		f = find_field(s, key);
		if (!f) {
			const char *near = nearest(key, &s->fields[0].key, s->nfields, sizeof(field));
			const char *home;
			kreg_buf b2 = KREG_BUF_INIT;

			shown(&b2, key);
			if (near)
				problem(ld, k, "%s%sunknown key '%s', did you mean '%s'?", path, sep(path),
					b2.ptr, near);
			else if ((home = home_of(s, key)))
				problem(ld, k, "%s%sunknown key '%s' (it belongs under '%s')", path,
					sep(path), b2.ptr, home);
			else
				problem(ld, k, "%s%sunknown key '%s'", path, sep(path), b2.ptr);
			kreg_buf_free(&b2);
			continue;
		}
		seen |= 1ull << (f - s->fields);
		kpath = kreg_asprintf("%s%s%s", path, *path ? "." : "", key);
		if (f->only && selected && !(f->only & selected)) {
			kreg_buf_clear(&b);
			mask_names(&b, sel, f->only);
			kreg_buf_printf(&b, " %s, not ", sel->key);
			mask_names(&b, sel, selected);
			problem(ld, k, "%s: only for the %s", kpath, b.ptr);
		} else if (f != sel || v->type != YAML_SCALAR_NODE || !selected) {
			set_field(ld, f, rec, v, kpath);
		}
		free(kpath);
	}
required:
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];

		if ((f->flags & F_REQUIRED) && !(seen & (1ull << i)))
			problem(ld, map, "%s%smissing required key '%s'", path, sep(path), f->key);
	}
	if (s->check)
		s->check(ld, rec, map, path);
	kreg_buf_free(&b);
}

/* ---- checks across keys ------------------------------------------------------ */

/* A url that is a local path (no scheme, not scp-like host:path). */
static int url_is_path(const char *u)
{
	const char *colon = strchr(u, ':'), *slash = strchr(u, '/');

	if (strstr(u, "://"))
		return 0;
	return !colon || (slash && slash < colon);
}

static void repo_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_repo_cfg *r = rec;

	(void)map;
	(void)path;
	if (r->url && url_is_path(r->url)) {
		char *p = resolve_path(ld, r->url);

		free(r->url);
		r->url = p;
	}
}

int kreg_kconfig_base_is_target(const char *base)
{
	static const char *const targets[] = {
		"tinyconfig", "defconfig", "allnoconfig", "allyesconfig", "allmodconfig",
		"alldefconfig",
		/* kernel/configs/ and arch/x86/configs/: `make kvm_guest.config` */
		"kvm_guest.config", "tiny.config", "tiny-base.config", "xen.config",
		"debug.config", "x86_debug.config", "hardening.config", "nopm.config",
		"rust.config", "android-base.config", "android-recommended.config", NULL,
	};

	for (size_t i = 0; targets[i]; i++)
		if (!strcmp(base, targets[i]))
			return 1;
	if (strlen(base) <= strlen("_defconfig") || !kreg_str_endswith(base, "_defconfig"))
		return 0;
	for (const char *p = base; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
			return 0;
	return 1;
}

/* A kconfig file by lib/shared.h's rule: relative to the configuration's
 * folder, else shipped (kernel/qemu-guest.config). NULL when neither. */
static char *kconfig_file(const loader *ld, const char *given)
{
	char *p = resolve_path(ld, given), *found = kreg_shared_find(p, "kernel", "config/kernel");

	if (!found)
		kreg_error_clear();
	free(p);
	return found;
}

static void kconfig_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_kconfig_cfg *k = rec;
	const yaml_node_t *v;

	if (k->base && !kreg_kconfig_base_is_target(k->base)) {
		char *p = kconfig_file(ld, k->base);

		if (!p) {
			if ((v = map_get(ld, map, "base")))
				problem(ld, v, "%s.base: cannot read '%s': no such file, and it is not a "
					"make target (tinyconfig, defconfig, allnoconfig, *_defconfig, "
					"kvm_guest.config, ...)", path, k->base);
		} else {
			free(k->base);
			k->base = p;
		}
	}
	/* Relative to the config file, else among the fragments kreg ships. */
	v = map_get(ld, map, "fragments");
	for (size_t i = 0; i < k->nfragments; i++) {
		char *given = k->fragments[i], *p = kconfig_file(ld, given);

		if (!p) {
			problem(ld, v && v->type == YAML_SEQUENCE_NODE &&
				(size_t)(v->data.sequence.items.top - v->data.sequence.items.start) == k->nfragments ?
				node(ld, v->data.sequence.items.start[i]) : v,
				"%s.fragments[%zu]: cannot read '%s': no such file here nor among the "
				"shipped fragments", path, i, given);
			continue;
		}
		k->fragments[i] = p;
		free(given);
	}
}

static void host_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_host_cfg *h = rec;
	const yaml_node_t *effects = map_get(ld, map, "effects");
	const yaml_node_t *backend = map_get(ld, map, "backend");

	if (!backend || backend->type != YAML_SCALAR_NODE || is_null(backend))
		return;
	if (h->backend == KREG_BACKEND_SSH && !h->address)
		problem(ld, map, "%s: missing required key 'address' (for the ssh backend)", path);
	if (h->backend == KREG_BACKEND_SSH && h->work_dir && h->work_dir[0] != '/')
		problem(ld, map, "%s.work_dir: '%s' is not an absolute path", path, h->work_dir);
	if (h->backend != KREG_BACKEND_SIM || !effects || effects->type != YAML_SEQUENCE_NODE)
		return;
	/* Every effect names a metric the host models. */
	for (yaml_node_item_t *it = effects->data.sequence.items.start;
	     it < effects->data.sequence.items.top; it++) {
		const yaml_node_t *m = map_get(ld, node(ld, *it), "metric");
		const char *name;
		size_t i;

		if (!m || m->type != YAML_SCALAR_NODE)
			continue;
		name = (const char *)m->data.scalar.value;
		for (i = 0; i < h->nsim_metrics; i++)
			if (h->sim_metrics[i].metric && !strcmp(h->sim_metrics[i].metric, name))
				break;
		if (i == h->nsim_metrics) {
			kreg_buf b = KREG_BUF_INIT;

			problem(ld, m, "%s.effects[%zu].metric: host '%s' models no metric '%s'", path,
				(size_t)(it - effects->data.sequence.items.start),
				h->name ? h->name : "?", shown(&b, name));
			kreg_buf_free(&b);
		}
	}
}

static void job_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	const yaml_node_t *v = map_get(ld, map, "file");

	(void)path;
	if (!v || !((kreg_job_cfg *)rec)->file)
		return;
	/* Looked up once job_path is known (keys come in any order). */
	KREG_ARRAY_GROW(ld->jobfiles, ld->njobfiles + 1, ld->ajobfiles);
	ld->jobfiles[ld->njobfiles].line = (int)v->start_mark.line + 1;
	ld->jobfiles[ld->njobfiles].col = (int)v->start_mark.column + 1;
	ld->jobfiles[ld->njobfiles].job = (size_t)((kreg_job_cfg *)rec - ld->cfg->jobs);
	ld->njobfiles++;
}

static void detect_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_detect_cfg *d = rec;

	if (d->max_runs < d->min_runs) {
		const yaml_node_t *v = map_get(ld, map, "max_runs");

		problem(ld, v ? v : map, "%s: max_runs (%d) is less than min_runs (%d)", path,
			d->max_runs, d->min_runs);
	}
}

static void mail_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_mail_cfg *m = rec;
	const yaml_node_t *v;
	struct stat st;

	if (m->smtp_url && *m->smtp_url && strncmp(m->smtp_url, "smtp://", 7) &&
	    strncmp(m->smtp_url, "smtps://", 8)) {
		v = map_get(ld, map, "smtp_url");
		problem(ld, v ? v : map, "%s.smtp_url: expected smtp://HOST[:PORT] or smtps://HOST[:PORT]", path);
	}
	/* A secret others can read is not a secret. */
	if (m->password_file && stat(m->password_file, &st) == 0 && (st.st_mode & S_IROTH)) {
		v = map_get(ld, map, "password_file");
		problem(ld, v ? v : map, "%s.password_file: '%s' is readable by everyone (chmod o-r)",
			path, m->password_file);
	}
	if (m->password_file && !m->username) {
		v = map_get(ld, map, "password_file");
		problem(ld, v ? v : map, "%s.password_file: given without a username", path);
	}
}

/* ---- names and references ------------------------------------------------------ */

static int named_cmp(const void *a, const void *b)
{
	const named *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void check_names(loader *ld)
{
	kreg_buf b = KREG_BUF_INIT;

	if (ld->nnames)
		qsort(ld->names, ld->nnames, sizeof(named), named_cmp);
	for (size_t i = 1; i < ld->nnames; i++) {
		const named *a = &ld->names[i - 1], *n = &ld->names[i];

		if (a->kind == n->kind && !strcmp(a->name, n->name))
			problem_at(ld, n->line, n->col, "%s: duplicate %s name '%s' (first at line %d)",
				   n->path, kind_names[n->kind], shown(&b, n->name), a->line);
	}
	for (size_t i = 0; i < ld->nrefs; i++) {
		const named *r = &ld->refs[i];
		named key = { r->kind, r->name, NULL, 0, 0, 0 };
		const named *found;
		size_t lo = 0, hi = ld->nnames;

		/* lower bound of (kind, name) */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (named_cmp(&ld->names[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		found = lo < ld->nnames && ld->names[lo].kind == r->kind &&
			!strcmp(ld->names[lo].name, r->name) ? &ld->names[lo] : NULL;
		if (!found) {
			const char *near = NULL;
			size_t bestd = (size_t)-1, len = strlen(r->name);

			for (size_t j = 0; j < ld->nnames && j < 1000; j++) {
				size_t d;

				if (ld->names[j].kind != r->kind)
					continue;
				d = kreg_str_distance(r->name, ld->names[j].name);
				if (d < bestd) {
					bestd = d;
					near = ld->names[j].name;
				}
			}
			if (near && (bestd > (len / 3 > 2 ? len / 3 : 2) || bestd >= len))
				near = NULL;
			kreg_buf_clear(&b);
			if (near)
				problem_at(ld, r->line, r->col, "%s: no %s named '%s', did you mean '%s'?",
					   r->path, kind_names[r->kind], shown(&b, r->name), near);
			else
				problem_at(ld, r->line, r->col, "%s: no %s named '%s'",
					   r->path, kind_names[r->kind], shown(&b, r->name));
		}
	}
	kreg_buf_free(&b);
}

/* ---- derived defaults -------------------------------------------------------- */

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 && n < 4096 ? (int)n : 1;
}

/* A job file: as written relative to the config file, else in job_path,
 * else in the shipped jobs directory. */
static void resolve_job(loader *ld, kreg_config *c, kreg_job_cfg *j, int line, int col)
{
	char *p;

	if (j->file[0] == '/') {
		p = kreg_strdup(j->file);
	} else {
		p = resolve_path(ld, j->file);
		for (size_t i = 0; access(p, R_OK) < 0 && i <= c->njob_path; i++) {
			free(p);
			if (i < c->njob_path) {
				p = kreg_path_join(c->job_path[i], j->file);
			} else {
				char *d = kreg_path_join(KREG_SHAREDIR, "jobs");

				p = kreg_path_join(d, j->file);
				free(d);
			}
		}
		if (access(p, R_OK) < 0) {
			free(p);
			p = resolve_path(ld, j->file);
		}
	}
	if (access(p, R_OK) < 0)
		problem_at(ld, line, col, "jobs[%zu].file: cannot find '%s' (looked in the config's directory%s)",
			   (size_t)(j - c->jobs), j->file, c->njob_path ? ", job_path and " KREG_SHAREDIR "/jobs" :
			   " and " KREG_SHAREDIR "/jobs");
	free(j->file);
	j->file = p;
}

static void finish(loader *ld, kreg_config *c)
{
	const char *dd = c->data_dir;

	for (size_t i = 0; i < ld->njobfiles; i++)
		if (ld->jobfiles[i].job < c->njobs && c->jobs[ld->jobfiles[i].job].file)
			resolve_job(ld, c, &c->jobs[ld->jobfiles[i].job], ld->jobfiles[i].line,
				    ld->jobfiles[i].col);
	if (c->build.make_jobs == 0)
		c->build.make_jobs = ncpus();
	if (!dd)
		return;
	if (!c->database)
		c->database = kreg_path_join(dd, "kreg.db");
	if (!c->web.output)
		c->web.output = kreg_path_join(dd, "site");
	if (!c->mail.outbox)
		c->mail.outbox = kreg_path_join(dd, "outbox");
	for (size_t i = 0; i < c->nhosts; i++) {
		kreg_host_cfg *h = &c->hosts[i];

		switch (h->backend) {
		case KREG_BACKEND_LOCAL:
			if (!h->cpus)
				h->cpus = ncpus();
			if (!h->target && h->name) {
				char *s = kreg_path_join(dd, "scratch");

				h->target = kreg_path_join(s, h->name);
				free(s);
			} else if (h->target && h->target[0] != '/') {
				char *p = resolve_path(ld, h->target);

				free(h->target);
				h->target = p;
			}
			break;
		case KREG_BACKEND_QEMU:
			if (!h->cpus)
				h->cpus = 1;
			if (!h->memory)
				h->memory = 1024ull << 20;
			if (!h->image)
				h->image = kreg_path_join(dd, "images/kreg-initrd.cpio");
			break;
		default:
			break;
		}
	}
}

/* ---- loading ----------------------------------------------------------------- */

static void offset_to_pos(const char *s, size_t len, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (s[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static void syntax_problem(loader *ld, yaml_parser_t *p, const char *yaml, size_t len)
{
	int line, col;

	if (p->error == YAML_READER_ERROR) {
		offset_to_pos(yaml, len, p->problem_offset, &line, &col);
		problem_at(ld, line, col, "YAML: %s", p->problem ? p->problem : "cannot read");
		return;
	}
	if (p->error == YAML_MEMORY_ERROR)
		kreg_die("out of memory parsing %s", ld->file);
	line = (int)p->problem_mark.line + 1;
	col = (int)p->problem_mark.column + 1;
	if (p->context)
		problem_at(ld, line, col, "YAML syntax error: %s (%s at line %zu)",
			   p->problem ? p->problem : "?", p->context, p->context_mark.line + 1);
	else
		problem_at(ld, line, col, "YAML syntax error: %s", p->problem ? p->problem : "?");
}

static char *dir_of(const char *name)
{
	const char *slash = strrchr(name, '/');
	char *d, cwd[PATH_MAX];

	if (slash == name)
		return kreg_strdup("/");
	d = slash ? kreg_strndup(name, (size_t)(slash - name)) : kreg_strdup(".");
	if (d[0] != '/' && getcwd(cwd, sizeof(cwd))) {
		char *a = !strcmp(d, ".") ? kreg_strdup(cwd) : kreg_path_join(cwd, d);

		free(d);
		d = a;
	}
	return d;
}

int kreg_config_load_string(kreg_config **out, const char *name, const char *yaml,
			    size_t len, kreg_config_problems *problems)
{
	kreg_config_problems own = { 0 };
	kreg_config *c = kreg_calloc(1, sizeof(*c));
	yaml_parser_t parser;
	yaml_document_t doc, doc2;
	yaml_node_t *root;
	loader ld = { 0 };
	size_t first = problems ? problems->count : 0;
	int line, col, error = 0;

	*out = NULL;
	ld.doc = &doc;
	ld.file = name;
	ld.dir = dir_of(name);
	ld.problems = problems ? problems : &own;
	ld.budget = VALUE_BUDGET;
	ld.cfg = c;
	c->path = kreg_strdup(name);
	init_record(&ld, &root_schema, c);

	/* before loading: libyaml's time grows with the square of the depth */
	if (kreg_yaml_too_deep(yaml, len, MAX_DEPTH, &line, &col)) {
		problem_at(&ld, line, col, "values nested more than %d deep", MAX_DEPTH);
		goto checked;
	}
	if (!yaml_parser_initialize(&parser))
		kreg_die("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
	if (!yaml_parser_load(&parser, &doc)) {
		syntax_problem(&ld, &parser, yaml, len);
		yaml_parser_delete(&parser);
		goto checked;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		problem_at(&ld, 1, 1, "the file is empty (data_dir is required)");
	} else {
		parse_record(&ld, &root_schema, c, root, "");
		check_names(&ld);
		finish(&ld, c);
		/* A second document would be silently ignored: say so. */
		if (!yaml_parser_load(&parser, &doc2)) {
			syntax_problem(&ld, &parser, yaml, len);
		} else {
			yaml_node_t *r2 = yaml_document_get_root_node(&doc2);

			if (r2)
				problem(&ld, r2, "a second YAML document: kreg reads only one");
			yaml_document_delete(&doc2);
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
checked:
	for (size_t i = 0; i < ld.nnames; i++) {
		free(ld.names[i].name);
		free(ld.names[i].path);
	}
	for (size_t i = 0; i < ld.nrefs; i++) {
		free(ld.refs[i].name);
		free(ld.refs[i].path);
	}
	free(ld.names);
	free(ld.refs);
	free(ld.jobfiles);
	free(ld.dir);
	if (ld.problems->count > first) {
		kreg_config_problem *q;

		qsort(ld.problems->items + first, ld.problems->count - first,
		      sizeof(kreg_config_problem), problem_cmp);
		q = &ld.problems->items[first];
		if (q->line > 0)
			kreg_error_set("%s:%d:%d: %s", q->file, q->line, q->col, q->message);
		else
			kreg_error_set("%s: %s", q->file, q->message);
		error = KREG_EINVAL;
		kreg_config_free(c);
		c = NULL;
	}
	kreg_config_problems_free(&own);
	*out = c;
	return error;
}

int kreg_config_load(kreg_config **out, const char *path, kreg_config_problems *problems)
{
	kreg_config_problems own = { 0 };
	kreg_config_problems *p = problems ? problems : &own;
	kreg_buf b = KREG_BUF_INIT;
	struct stat st;
	int fd, error;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		kreg_error_errno("%s: cannot read the configuration", path);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		kreg_error_set("%s: cannot read the configuration: it is a directory", path);
		goto fail;
	}
	close(fd);
	fd = -1;
	if (kreg_buf_read_file_max(&b, path, KREG_CONFIG_MAX_FILE, "a configuration file") < 0)
		goto fail;
	error = kreg_config_load_string(out, path, b.ptr, b.len, problems);
	kreg_buf_free(&b);
	return error;
fail:
	if (fd >= 0)
		close(fd);
	/* The problem carries the message without the file name: it is the prefix. */
	{
		const char *msg = kreg_error_last();
		size_t n = strlen(path);
		kreg_config_problem *q;

		KREG_ARRAY_GROW(p->items, p->count + 1, p->alloc);
		q = &p->items[p->count++];
		q->file = kreg_strdup(path);
		q->line = q->col = 0;
		q->message = kreg_strdup(!strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2) ?
					 msg + n + 2 : msg);
	}
	kreg_config_problems_free(&own);
	kreg_buf_free(&b);
	return KREG_ERROR;
}

/* ---- the built-in default ----------------------------------------------------- */

static void yaml_quote(kreg_buf *b, const char *s)
{
	kreg_buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			kreg_buf_putc(b, '\\');
		if ((unsigned char)*s < 0x20)
			kreg_buf_printf(b, "\\x%02x", (unsigned char)*s);
		else
			kreg_buf_putc(b, *s);
	}
	kreg_buf_putc(b, '"');
}

/* What kreg runs on when no file is given: the demo's configuration. */
static const char default_yaml[] =
	"hosts:\n"
	"  - name: local\n"
	"    backend: local\n"
	"    target: %s\n"
	"  - name: sim\n"
	"    backend: sim\n"
	"    seed: 1\n"
	"    metrics:\n"
	"      - { metric: fio.read_iops, base: 10000, noise: 3%% }\n"
	"      - { metric: fio.write_iops, base: 8000, noise: 3%% }\n"
	"      - { metric: fio.read_bw_MBps, base: 400, noise: 2%% }\n"
	"      - { metric: fio.read_clat_mean_us, base: 95, noise: 4%% }\n"
	"      - { metric: dbench.throughput_MB/s, base: 1200, noise: 5%% }\n"
	"build:\n"
	"  configs:\n"
	"    - name: default\n"
	"      base: defconfig\n";

int kreg_config_default(kreg_config **out, const char *data_dir)
{
	kreg_config_problems p = { 0 };
	kreg_buf y = KREG_BUF_INIT, dd = KREG_BUF_INIT, scratch = KREG_BUF_INIT;
	char *abs = NULL, cwd[PATH_MAX], *s;
	int error;

	if (data_dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
		abs = kreg_path_join(cwd, data_dir);
	else
		abs = kreg_strdup(data_dir);
	yaml_quote(&dd, abs);
	s = kreg_path_join(abs, "scratch");
	yaml_quote(&scratch, s);
	free(s);
	kreg_buf_printf(&y, "data_dir: %s\n", dd.ptr);
	kreg_buf_printf(&y, default_yaml, scratch.ptr);
	error = kreg_config_load_string(out, "<built-in>", y.ptr, y.len, &p);
	if (error < 0)
		kreg_error_set("the built-in configuration does not load: %s",
			       p.count ? p.items[0].message : kreg_error_last());
	kreg_config_problems_free(&p);
	kreg_buf_free(&y);
	kreg_buf_free(&dd);
	kreg_buf_free(&scratch);
	free(abs);
	return error;
}

void kreg_config_free(kreg_config *cfg)
{
	if (!cfg)
		return;
	free_record(&root_schema, cfg);
	free(cfg->path);
	free(cfg);
}

/* ---- printing ------------------------------------------------------------------ */

static void dump_str(kreg_buf *b, const char *s)
{
	int plain = *s && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/", *s) &&
		    strcmp(s, "true") && strcmp(s, "false") && strcmp(s, "yes") && strcmp(s, "no") &&
		    strcmp(s, "on") && strcmp(s, "off") && strcmp(s, "null");

	for (const char *p = s; plain && *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-", *p))
			plain = 0;
	if (plain)
		kreg_buf_puts(b, s);
	else
		yaml_quote(b, s);
}

static void dump_size(kreg_buf *b, uint64_t v)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (v && v % 1024 == 0 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u >= 0)
		kreg_buf_printf(b, "%llu%c", (unsigned long long)v, units[u]);
	else
		kreg_buf_printf(b, "%llu", (unsigned long long)v);
}

static void dump_record(kreg_buf *b, const schema *s, const void *rec, int indent, int dash);

/* One key, or nothing when it has no value. dash: the "- " of a list item
 * goes before the first key printed. */
static int dump_field(kreg_buf *b, const field *f, const void *rec, int indent, int *dash)
{
	const void *at = (const char *)rec + f->off;
	int pad = indent;

	switch (f->type) {
	case T_STR: case T_PATH: case T_WORD:
		if (!*(char *const *)at)
			return 0;
		break;
	case T_STRLIST: case T_PATHLIST: case T_LIST:
		if (!*(const size_t *)((const char *)rec + f->cnt))
			return 0;
		break;
	case T_FORBIDDEN:
		return 0;
	default:
		break;
	}
	if (*dash) {
		kreg_buf_printf(b, "%*s- ", indent - 2, "");
		*dash = 0;
		pad = 0;
	}
	kreg_buf_printf(b, "%*s%s:", pad, "", f->key);
	switch (f->type) {
	case T_STR: case T_PATH: case T_WORD:
		kreg_buf_putc(b, ' ');
		dump_str(b, *(char *const *)at);
		break;
	case T_INT:
		kreg_buf_printf(b, " %d", *(const int *)at);
		break;
	case T_BOOL:
		kreg_buf_puts(b, *(const int *)at ? " true" : " false");
		break;
	case T_ENUM:
		for (size_t i = 0; f->enums[i].name; i++) {
			if (f->enums[i].value == *(const int *)at) {
				kreg_buf_printf(b, " %s", f->enums[i].name);
				break;
			}
		}
		break;
	case T_U64:
		kreg_buf_printf(b, " %llu", (unsigned long long)*(const uint64_t *)at);
		break;
	case T_SIZE:
		kreg_buf_putc(b, ' ');
		dump_size(b, *(const uint64_t *)at);
		break;
	case T_DOUBLE: case T_RATIO:
		kreg_buf_printf(b, " %.15g", *(const double *)at);
		break;
	case T_DURATION:
		kreg_buf_printf(b, " %.15gs", *(const double *)at);
		break;
	case T_STRLIST: case T_PATHLIST: {
		char *const *v = *(char *const *const *)at;
		size_t n = *(const size_t *)((const char *)rec + f->cnt);

		kreg_buf_puts(b, " [");
		for (size_t i = 0; i < n; i++) {
			if (i)
				kreg_buf_puts(b, ", ");
			dump_str(b, v[i]);
		}
		kreg_buf_putc(b, ']');
		break;
	}
	case T_STRUCT:
		kreg_buf_putc(b, '\n');
		dump_record(b, f->sub, at, indent + 2, 0);
		return 1;
	case T_LIST: {
		const char *v = *(const char *const *)at;
		size_t n = *(const size_t *)((const char *)rec + f->cnt);

		kreg_buf_putc(b, '\n');
		for (size_t i = 0; i < n; i++)
			dump_record(b, f->sub, v + i * f->sub->size, indent + 4, 1);
		return 1;
	}
	default:
		break;
	}
	kreg_buf_putc(b, '\n');
	return 1;
}

static void dump_record(kreg_buf *b, const schema *s, const void *rec, int indent, int dash)
{
	unsigned selected = 0;

	for (size_t i = 0; i < s->nfields; i++)
		if (s->fields[i].flags & F_SELECT)
			selected = 1u << *(const int *)((const char *)rec + s->fields[i].off);
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];

		if (f->only && !(f->only & selected))
			continue;
		dump_field(b, f, rec, indent, &dash);
	}
}

char *kreg_config_dump(const kreg_config *cfg)
{
	kreg_buf b = KREG_BUF_INIT;

	kreg_buf_printf(&b, "# effective configuration of %s, defaults filled in\n", cfg->path);
	dump_record(&b, &root_schema, cfg, 0, 0);
	return kreg_buf_detach(&b);
}

/* ---- look-ups ------------------------------------------------------------------ */

const kreg_host_cfg *kreg_config_host(const kreg_config *cfg, const char *name)
{
	for (size_t i = 0; name && i < cfg->nhosts; i++)
		if (cfg->hosts[i].name && !strcmp(cfg->hosts[i].name, name))
			return &cfg->hosts[i];
	return NULL;
}

const kreg_repo_cfg *kreg_config_repo(const kreg_config *cfg, const char *name)
{
	for (size_t i = 0; name && i < cfg->nrepos; i++)
		if (cfg->repos[i].name && !strcmp(cfg->repos[i].name, name))
			return &cfg->repos[i];
	return NULL;
}

/* NULL name: the first configured kernel config (the default one). */
const kreg_kconfig_cfg *kreg_config_kconfig(const kreg_config *cfg, const char *name)
{
	if (!name)
		return cfg->build.nconfigs ? &cfg->build.configs[0] : NULL;
	for (size_t i = 0; i < cfg->build.nconfigs; i++)
		if (cfg->build.configs[i].name && !strcmp(cfg->build.configs[i].name, name))
			return &cfg->build.configs[i];
	return NULL;
}

const char *kreg_backend_name(kreg_backend b)
{
	for (size_t i = 0; backend_enum[i].name; i++)
		if (backend_enum[i].value == (int)b)
			return backend_enum[i].name;
	return "unknown";
}

char *kreg_config_data_path(const kreg_config *cfg, const char *sub)
{
	return kreg_path_join(cfg->data_dir, sub);
}
