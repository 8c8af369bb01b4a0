/* kreg.yaml: load with libyaml's document API, walk the tree against schema
 * tables, collect every problem with its position.
 *
 * The tables below are the whole description of the file: each field names
 * its key, its type, where it lands in the structs of config.h, its default
 * and its constraints. One walker (schema.c, config/schema_internal.h)
 * reads any table, frees and prints what a table describes. What a table
 * cannot say (a path relative to data_dir, a default that depends on the
 * backend, a job file looked up in job_path) is done in finish() once the
 * whole tree is read. */
#include "config/config.h"
#include "config/config_internal.h"
#include "config/schema_internal.h"

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

enum { K_NONE, K_REPO, K_HOST, K_KCONFIG };
static const char *const kind_names[] = { "", "repo", "host", "kernel config" };

/* ---- enums and schema tables --------------------------------------------- */

static const enum_val backend_enum[] = {
	{ "local", KREG_BACKEND_LOCAL }, { "qemu", KREG_BACKEND_QEMU },
	{ "ssh", KREG_BACKEND_SSH }, { "sim", KREG_BACKEND_SIM }, { "lava", KREG_BACKEND_LAVA },
	{ NULL, 0 },
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
#define B_LAVA (1u << KREG_BACKEND_LAVA)

#define O(type, member) offsetof(type, member)
#define C(type, member) .cnt = offsetof(type, member)

static void repo_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void kconfig_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void job_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void detect_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);

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
	{ .key = "nice", .type = T_INT, .off = O(kreg_build_cfg, nice), .def = "10", .min = 0, .max = 19 },
	{ .key = "timeout", .type = T_DURATION, .off = O(kreg_build_cfg, timeout), .def = "2h", .min = 1, .max = HUGE_VAL },
	{ .key = "arch", .type = T_STR, .off = O(kreg_build_cfg, arch), .def = "x86_64" },
	{ .key = "cross_compile", .type = T_STR, .off = O(kreg_build_cfg, cross_compile) },
	{ .key = "target", .type = T_STR, .off = O(kreg_build_cfg, target), .def = "bzImage" },
	{ .key = "dir", .type = T_PATH, .off = O(kreg_build_cfg, dir) },
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
	{ .key = "noise_floor", .type = T_DOUBLE, .off = O(kreg_sim_metric_cfg, noise_floor), .def = "0", .min = 0, .max = HUGE_VAL },
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
	{ .key = "max_load", .type = T_DOUBLE, .off = O(kreg_host_cfg, max_load), .def = "0", .min = 0, .max = 4096,
	  .only = B_LOCAL | B_QEMU },
	/* qemu */
	{ .key = "qemu", .type = T_STR, .off = O(kreg_host_cfg, qemu), .def = "qemu-system-x86_64", .only = B_QEMU },
	{ .key = "kvm", .type = T_ENUM, .off = O(kreg_host_cfg, kvm), .def = "auto", .only = B_QEMU, .enums = kvm_enum },
	{ .key = "disk", .type = T_PATH, .off = O(kreg_host_cfg, disk), .only = B_QEMU },
	{ .key = "pin", .type = T_STRLIST, .off = O(kreg_host_cfg, pin), C(kreg_host_cfg, npin), .only = B_QEMU },
	/* qemu: 1G when unset (below); lava: a test disk only when set */
	{ .key = "disk_size", .type = T_SIZE, .off = O(kreg_host_cfg, disk_size), .only = B_QEMU | B_LAVA },
	{ .key = "image", .type = T_PATH, .off = O(kreg_host_cfg, image), .only = B_QEMU | B_LAVA },
	{ .key = "append", .type = T_STR, .off = O(kreg_host_cfg, append), .only = B_QEMU | B_SSH | B_LAVA },
	{ .key = "kernel_config", .type = T_STR, .off = O(kreg_host_cfg, kernel_config), .only = B_QEMU | B_SSH | B_SIM | B_LAVA,
	  .flags = F_REF, .kind = K_KCONFIG },
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
	/* lava */
	{ .key = "url", .type = T_STR, .off = O(kreg_host_cfg, url), .only = B_LAVA },
	{ .key = "token_file", .type = T_PATH, .off = O(kreg_host_cfg, token_file), .only = B_LAVA },
	{ .key = "device_type", .type = T_STR, .off = O(kreg_host_cfg, device_type), .only = B_LAVA },
	{ .key = "tags", .type = T_STRLIST, .off = O(kreg_host_cfg, tags), C(kreg_host_cfg, ntags), .only = B_LAVA },
	{ .key = "priority", .type = T_INT, .off = O(kreg_host_cfg, priority), .def = "50", .min = 0, .max = 100,
	  .only = B_LAVA },
	{ .key = "serve_dir", .type = T_PATH, .off = O(kreg_host_cfg, serve_dir), .only = B_LAVA },
	{ .key = "serve_url", .type = T_STR, .off = O(kreg_host_cfg, serve_url), .only = B_LAVA },
	{ .key = "submit_timeout", .type = T_DURATION, .off = O(kreg_host_cfg, submit_timeout), .def = "10m",
	  .only = B_LAVA, .min = 1, .max = HUGE_VAL },
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
SCHEMA(host_schema, kreg_host_cfg, host_fields, kreg_config__host_check);

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


static const field web_fields[] = {
	{ .key = "output", .type = T_PATH, .off = O(kreg_web_cfg, output) },
	{ .key = "base_url", .type = T_STR, .off = O(kreg_web_cfg, base_url) },
	{ .key = "title", .type = T_STR, .off = O(kreg_web_cfg, title), .def = "kreg" },
};
SCHEMA(web_schema, kreg_web_cfg, web_fields, NULL);

/* KCIDB names a CI system with [a-z0-9_]+ and starts every id with it. */
static void kcidb_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	const kreg_kcidb_cfg *k = rec;
	const yaml_node_t *v;

	if (k->origin && (!*k->origin || strspn(k->origin, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
			  strlen(k->origin)) && (v = schema_map_get(ld, map, "origin")))
		schema_problem(ld, v, "%s.origin: KCIDB's origin is lower-case letters, digits "
			       "and '_' only", path);
}

static const field kcidb_fields[] = {
	{ .key = "origin", .type = T_STR, .off = O(kreg_kcidb_cfg, origin), .def = "kreg" },
};
SCHEMA(kcidb_schema, kreg_kcidb_cfg, kcidb_fields, kcidb_check);

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
	{ .key = "mail", .type = T_STRUCT, .off = O(kreg_config, mail), .sub = &kreg_config_mail_schema },
	{ .key = "web", .type = T_STRUCT, .off = O(kreg_config, web), .sub = &web_schema },
	{ .key = "kcidb", .type = T_STRUCT, .off = O(kreg_config, kcidb), .sub = &kcidb_schema },
};
SCHEMA(root_schema, kreg_config, root_fields, NULL);

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
		char *p = schema_resolve_path(ld, r->url);

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
	char *p = schema_resolve_path(ld, given), *found = kreg_shared_find(p, "kernel", "config/kernel");

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
			if ((v = schema_map_get(ld, map, "base")))
				schema_problem(ld, v, "%s.base: cannot read '%s': no such file, and it is not a "
					"make target (tinyconfig, defconfig, allnoconfig, *_defconfig, "
					"kvm_guest.config, ...)", path, k->base);
		} else {
			free(k->base);
			k->base = p;
		}
	}
	/* Relative to the config file, else among the fragments kreg ships. */
	v = schema_map_get(ld, map, "fragments");
	for (size_t i = 0; i < k->nfragments; i++) {
		char *given = k->fragments[i], *p = kconfig_file(ld, given);

		if (!p) {
			schema_problem(ld, v && v->type == YAML_SEQUENCE_NODE &&
				(size_t)(v->data.sequence.items.top - v->data.sequence.items.start) == k->nfragments ?
				schema_node(ld, v->data.sequence.items.start[i]) : v,
				"%s.fragments[%zu]: cannot read '%s': no such file here nor among the "
				"shipped fragments", path, i, given);
			continue;
		}
		k->fragments[i] = p;
		free(given);
	}
}

static void job_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	const yaml_node_t *v = schema_map_get(ld, map, "file");

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
		const yaml_node_t *v = schema_map_get(ld, map, "max_runs");

		schema_problem(ld, v ? v : map, "%s: max_runs (%d) is less than min_runs (%d)", path,
			d->max_runs, d->min_runs);
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
			schema_problem_at(ld, n->line, n->col, "%s: duplicate %s name '%s' (first at line %d)",
				   n->path, kind_names[n->kind], schema_shown(&b, n->name), a->line);
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
		/* kreg's own kernel configs need not be configured to be named */
		if (!found && r->kind == K_KCONFIG && kreg_config_kconfig_builtin(r->name))
			continue;
		/* a worker's load built some hosts: the daemon's checked the rest */
		if (!found && r->kind == K_HOST && ld->some_hosts)
			continue;
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
				schema_problem_at(ld, r->line, r->col, "%s: no %s named '%s', did you mean '%s'?",
					   r->path, kind_names[r->kind], schema_shown(&b, r->name), near);
			else
				schema_problem_at(ld, r->line, r->col, "%s: no %s named '%s'",
					   r->path, kind_names[r->kind], schema_shown(&b, r->name));
		}
	}
	kreg_buf_release(&b);
}

/* ---- derived defaults -------------------------------------------------------- */

static int ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 && n < 4096 ? (int)n : 1;
}

/* A job file: as written relative to the config file, else in job_path,
 * else among the shipped jobs (lib/shared.h: installed, or the source
 * tree's jobs/). */
static void resolve_job(loader *ld, kreg_config *c, kreg_job_cfg *j, int line, int col)
{
	char *p;

	if (j->file[0] == '/') {
		p = kreg_strdup(j->file);
	} else {
		p = schema_resolve_path(ld, j->file);
		for (size_t i = 0; access(p, R_OK) < 0 && i <= c->njob_path; i++) {
			free(p);
			if (i < c->njob_path) {
				p = kreg_path_join(c->job_path[i], j->file);
			} else {
				/* the shipped jobs: lib/shared.h's rule, as for
				 * kconfig files (installed, or the source tree's) */
				char *shipped = kreg_asprintf("jobs/%s", j->file);

				p = kreg_shared_file(shipped, shipped);
				if (!p) {
					kreg_error_clear();
					p = kreg_path_join(KREG_SHAREDIR, shipped);
				}
				free(shipped);
			}
		}
		if (access(p, R_OK) < 0) {
			free(p);
			p = schema_resolve_path(ld, j->file);
		}
	}
	if (access(p, R_OK) < 0)
		schema_problem_at(ld, line, col, "jobs[%zu].file: cannot find '%s' (looked in the config's "
				  "directory%s the shipped jobs, " KREG_SHAREDIR "/jobs or jobs/ of the "
				  "source tree kreg runs from)", (size_t)(j - c->jobs), j->file,
				  c->njob_path ? ", job_path and" : " and");
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
	if (!c->build.dir)
		c->build.dir = kreg_strdup(dd);
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
				char *p = schema_resolve_path(ld, h->target);

				free(h->target);
				h->target = p;
			}
			break;
		case KREG_BACKEND_QEMU:
		case KREG_BACKEND_LAVA:
			if (!h->cpus)
				h->cpus = 1;
			if (!h->memory)
				h->memory = 1024ull << 20;
			if (!h->image)
				h->image = kreg_path_join(dd, "images/kreg-initrd.cpio");
			if (h->backend == KREG_BACKEND_QEMU && !h->disk_size)
				h->disk_size = 1024ull << 20;
			break;
		default:
			break;
		}
	}
}

/* ---- loading ----------------------------------------------------------------- */

static int problem_cmp(const void *a, const void *b)
{
	const kreg_config_problem *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return 0;
}

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
		schema_problem_at(ld, line, col, "YAML: %s", p->problem ? p->problem : "cannot read");
		return;
	}
	if (p->error == YAML_MEMORY_ERROR)
		kreg_die("out of memory parsing %s", ld->file);
	line = (int)p->problem_mark.line + 1;
	col = (int)p->problem_mark.column + 1;
	if (p->context)
		schema_problem_at(ld, line, col, "YAML syntax error: %s (%s at line %zu)",
			   p->problem ? p->problem : "?", p->context, p->context_mark.line + 1);
	else
		schema_problem_at(ld, line, col, "YAML syntax error: %s", p->problem ? p->problem : "?");
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

/* The hosts a worker's load builds. */
typedef struct {
	const char *const *names;
	size_t n;
} wanted;

static int want_host(const char *name, void *arg)
{
	const wanted *w = arg;

	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->names[i], name))
			return 1;
	return 0;
}

/* want NULL: every host (what every command and the daemon load) */
static int load(kreg_config **out, const char *name, const char *yaml, size_t len,
		const wanted *want, kreg_config_problems *problems)
{
	kreg_buf names = KREG_BUF_INIT;
	schema_some_input in = { NULL, -1 };
	int loaded;
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
	ld.root = &root_schema;
	ld.some_hosts = want != NULL;
	c->path = kreg_strdup(name);
	schema_init_record(&ld, &root_schema, c);

	/* a worker's: the hosts not wanted blanked out when a fast read of
	 * the text can tell them, else read past by the composer */
	for (int fast = want != NULL;; fast = 0) {
		const char *text = fast ? schema_some_input_set(&in, yaml, len, "hosts", want_host,
								 (void *)want, &names) : yaml;

		/* before loading: libyaml's time grows with the square of the depth */
		if (kreg_yaml_too_deep(text, len, MAX_DEPTH, &line, &col)) {
			schema_problem_at(&ld, line, col, "values nested more than %d deep", MAX_DEPTH);
			goto checked;
		}
		if (!yaml_parser_initialize(&parser))
			kreg_die("out of memory");
		yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
		loaded = want ? schema_load_some(&parser, &doc, "hosts", want_host, (void *)want, &names,
						 &in) :
				yaml_parser_load(&parser, &doc);
		if (loaded || !fast || parser.problem != schema_guess_wrong)
			break;
		yaml_parser_delete(&parser);
		schema_some_input_free(&in);
		kreg_buf_truncate(&names, 0);
	}
	if (!loaded) {
		syntax_problem(&ld, &parser, yaml, len);
		yaml_parser_delete(&parser);
		goto checked;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		schema_problem_at(&ld, 1, 1, "the file is empty (data_dir is required)");
	} else {
		schema_parse_record(&ld, &root_schema, c, root, "");
		check_names(&ld);
		finish(&ld, c);
		/* A second document would be silently ignored: say so. */
		if (!(want ? schema_load_some(&parser, &doc2, "hosts", want_host, (void *)want, &names,
					      NULL) :
			     yaml_parser_load(&parser, &doc2))) {
			syntax_problem(&ld, &parser, yaml, len);
		} else {
			yaml_node_t *r2 = yaml_document_get_root_node(&doc2);

			if (r2)
				schema_problem(&ld, r2, "a second YAML document: kreg reads only one");
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
	} else if (want) {
		c->host_names_len = names.len;
		c->host_names = kreg_buf_detach(&names);
	}
	kreg_buf_release(&names);
	schema_some_input_free(&in);
	kreg_config_problems_release(&own);
	*out = c;
	return error;
}

int kreg_config_load_string(kreg_config **out, const char *name, const char *yaml,
			    size_t len, kreg_config_problems *problems)
{
	return load(out, name, yaml, len, NULL, problems);
}

int kreg_config_load_hosts(kreg_config **out, const char *name, const char *yaml, size_t len,
			   const char *const *hosts, size_t nhosts, kreg_config_problems *problems)
{
	wanted w = { hosts, nhosts };

	return load(out, name, yaml, len, &w, problems);
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
	kreg_buf_release(&b);
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
	kreg_config_problems_release(&own);
	kreg_buf_release(&b);
	return KREG_ERROR;
}

/* ---- the built-in default ----------------------------------------------------- */

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
	schema_yaml_quote(&dd, abs);
	s = kreg_path_join(abs, "scratch");
	schema_yaml_quote(&scratch, s);
	free(s);
	kreg_buf_printf(&y, "data_dir: %s\n", dd.ptr);
	kreg_buf_printf(&y, default_yaml, scratch.ptr);
	error = kreg_config_load_string(out, "<built-in>", y.ptr, y.len, &p);
	if (error < 0)
		kreg_error_set("the built-in configuration does not load: %s",
			       p.count ? p.items[0].message : kreg_error_last());
	kreg_config_problems_release(&p);
	kreg_buf_release(&y);
	kreg_buf_release(&dd);
	kreg_buf_release(&scratch);
	free(abs);
	return error;
}

void kreg_config_free(kreg_config *cfg)
{
	if (!cfg)
		return;
	schema_free_record(&root_schema, cfg);
	free(cfg->host_names);
	free(cfg->path);
	free(cfg);
}

/* The CPUs each guest slot of a qemu host is pinned to (config/pin.c). */
static void dump_pins(kreg_buf *b, const kreg_config *cfg)
{
	int first = 1;

	for (size_t i = 0; i < cfg->nhosts; i++) {
		const kreg_host_cfg *hc = &cfg->hosts[i];
		int cpus[64], n = 0;

		if (hc->backend != KREG_BACKEND_QEMU)
			continue;
		if (first)
			kreg_buf_puts(b, "# the CPUs each guest slot of a qemu host is pinned to (pin:):\n");
		first = 0;
		kreg_buf_printf(b, "#   %s: capacity %d, pin %s:", hc->name, hc->capacity,
				hc->npin == 1 ? hc->pin[0] : hc->npin ? "list" : "auto");
		for (int s = 0; s < hc->capacity && s < 64; s++) {
			char *l;

			if ((n = kreg_config_host_pin(cpus, 64, hc, s)) <= 0)
				break;
			l = kreg_config_cpu_list(cpus, (size_t)n);
			kreg_buf_printf(b, "%s slot %d on CPU %s", s ? "," : "", s, l);
			free(l);
		}
		if (n < 0)
			kreg_buf_printf(b, " %s", kreg_error_last());
		else if (!n)
			kreg_buf_puts(b, " not pinned");
		kreg_error_clear();
		kreg_buf_puts(b, "\n");
	}
}

char *kreg_config_dump(const kreg_config *cfg)
{
	kreg_buf b = KREG_BUF_INIT;

	kreg_buf_printf(&b, "# effective configuration of %s, defaults filled in\n", cfg->path);
	schema_dump_record(&b, &root_schema, cfg, 0, 0);
	/* Which kernel each host boots, and why (jobs with a kconfig: of
	 * their own boot that one instead). */
	for (size_t i = 0; i < cfg->nhosts; i++) {
		const kreg_host_cfg *hc = &cfg->hosts[i];
		const char *why;
		const kreg_kconfig_cfg *kc = kreg_config_host_kconfig(cfg, hc, NULL, &why);

		if (!i)
			kreg_buf_puts(&b, "# the kernel config each host boots (a job's kconfig: wins):\n");
		if (!kreg_config_host_boots(hc)) {
			kreg_buf_printf(&b, "#   %s (%s): none: it boots no kernel kreg builds\n", hc->name,
					kreg_backend_name(hc->backend));
			continue;
		}
		kreg_buf_printf(&b, "#   %s (%s): %s: %s", hc->name, kreg_backend_name(hc->backend),
				kc ? kc->name : "none", why);
		if (kc) {
			kreg_buf_printf(&b, " (%s", kc->base ? kc->base : "defconfig");
			for (size_t f = 0; f < kc->nfragments; f++) {
				const char *slash = strrchr(kc->fragments[f], '/');

				kreg_buf_printf(&b, " + %s", slash ? slash + 1 : kc->fragments[f]);
			}
			kreg_buf_puts(&b, ")");
		}
		kreg_buf_puts(&b, "\n");
	}
	dump_pins(&b, cfg);
	return kreg_buf_detach(&b);
}

const char *kreg_backend_name(kreg_backend b)
{
	for (size_t i = 0; backend_enum[i].name; i++)
		if (backend_enum[i].value == (int)b)
			return backend_enum[i].name;
	return "unknown";
}
