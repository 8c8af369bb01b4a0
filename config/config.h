/* kreg.yaml: the one configuration file. Parsed with libyaml, validated
 * against a schema (unknown keys, types, required fields, duplicates), with
 * every problem reported as FILE:LINE:COL: message.
 *
 * The loaded configuration is one of the two pieces of global state kreg
 * allows; it is read-only once loaded. */
#ifndef KREG_CONFIG_H
#define KREG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* A configuration file larger than this is refused (/dev/zero, a pipe). */
#define KREG_CONFIG_MAX_FILE ((size_t)4 << 20)

typedef struct {
	char *name;		/* short name used in paths and e-mail subjects */
	char *url;		/* anything libgit2 can fetch: path, file://, https:// */
	char **branches;	/* watched branches */
	size_t nbranches;
	double poll_interval;	/* seconds */
	char **maintainers;	/* extra recipients for this tree's reports */
	size_t nmaintainers;
	char *commit_url;	/* a commit's web page, "%s" standing for its sha; NULL: none */
} kreg_repo_cfg;

typedef struct {
	char *name;		/* "default", "tiny-fio", ... */
	char *base;		/* a make target (kreg_kconfig_base_is_target) or a file path */
	char **fragments;	/* paths of config fragments, applied in order */
	size_t nfragments;
} kreg_kconfig_cfg;

typedef struct {
	kreg_kconfig_cfg *configs;
	size_t nconfigs;
	int make_jobs;		/* -jN; 0: number of CPUs */
	int nice;		/* make runs this much nicer than kreg (default 10) */
	double timeout;		/* seconds for one build */
	char *arch;		/* ARCH=, default x86_64 */
	char *cross_compile;	/* CROSS_COMPILE=, default none */
	char *target;		/* make target, default bzImage */
	char *dir;		/* trees/ and builds/ (checkouts, object directories);
				 * default data_dir */
} kreg_build_cfg;

typedef enum {
	KREG_BACKEND_LOCAL,
	KREG_BACKEND_QEMU,
	KREG_BACKEND_SSH,
	KREG_BACKEND_SIM,
	KREG_BACKEND_LAVA,
} kreg_backend;

typedef enum { KREG_KVM_AUTO, KREG_KVM_ON, KREG_KVM_OFF } kreg_kvm_mode;

/* One modelled metric of the sim backend. */
typedef struct {
	char *metric;		/* "fio.read_iops" */
	double base;		/* mean at a commit with no effects */
	double noise;		/* relative stddev, 0.05 = 5% */
	char *distribution;	/* "normal" (default), "lognormal" */
	double outlier_rate;	/* fraction of runs that are outliers */
	double outlier_scale;	/* an outlier is off by this factor, default 0.3 */
	double noise_floor;	/* absolute stddev added to every run, whatever
				 * the level (a slow device's floor); 0: none */
} kreg_sim_metric_cfg;

/* An effect tied to a commit: persists in every descendant. */
typedef struct {
	char *commit;		/* sha or unique prefix */
	char *metric;
	double change;		/* relative: -0.20 = -20% */
} kreg_sim_effect_cfg;

typedef struct {
	char *name;
	kreg_backend backend;
	int cpus;		/* 0: the machine's (local) or 1 (qemu) */
	uint64_t memory;	/* bytes; 0: default */
	double timeout;		/* seconds for one run, boot included */
	int capacity;		/* runs at once on this host, default 1 */
	char *target;		/* where tests write: a directory or a file/device the
				 * configuration names; nothing else is written */
	char **jobs_dirs;	/* not used yet */
	double max_load;	/* local, qemu: a run that starts while this machine's
				 * 1-minute load average per CPU is above it is
				 * marked loaded (docs/noise.md); 0: not checked */

	/* qemu */
	char *qemu;		/* binary, default qemu-system-x86_64 */
	kreg_kvm_mode kvm;
	char *disk;		/* test disk image path (created when missing) */
	uint64_t disk_size;	/* bytes */
	char *image;		/* guest initramfs; default <data_dir>/images/kreg-initrd.cpio */
	char *append;		/* extra kernel command line (qemu, ssh) */
	char **pin;		/* the CPUs its guests are pinned to: "auto" (or
				 * none given), "off", or CPU numbers and ranges
				 * ("0-3", [2, 3]); kreg_config_host_pin */
	size_t npin;
	char *kernel_config;	/* the kernel config it boots (qemu, ssh); NULL: the
				 * rule of kreg_config_host_kconfig */

	/* ssh */
	char *address;		/* host or host:port */
	char *user;
	char *identity;		/* private key file */
	char *good_kernel;	/* the kernel to return to on failure */
	double reboot_timeout;
	char *known_hosts;	/* kreg's known_hosts; default <data_dir>/ssh/known_hosts */
	char *initrd;		/* on the machine: the initramfs kexec loads, or NULL */
	char *work_dir;		/* on the machine: kernels and runs go here, default /tmp/kreg */
	char **install_command;	/* argv run on the machine instead of kexec, or NULL */
	size_t ninstall_command;
	char **power_cycle;	/* argv run here when the machine does not come back */
	size_t npower_cycle;

	/* lava (docs/lava.md) */
	char *url;		/* the LAVA server, http://host[:port][/path]/ */
	char *token_file;	/* a file holding the API token of kreg's LAVA user */
	char *device_type;	/* the device type jobs ask for */
	char **tags;		/* device tags the jobs ask for */
	size_t ntags;
	int priority;		/* 0..100 */
	char *serve_dir;	/* a directory a web server serves: kernels and images go there */
	char *serve_url;	/* serve_dir's URL as the LAVA workers reach it */
	double submit_timeout;	/* a job still waiting for a device after this is canceled */

	/* sim */
	uint64_t seed;
	kreg_sim_metric_cfg *sim_metrics;
	size_t nsim_metrics;
	kreg_sim_effect_cfg *sim_effects;
	size_t nsim_effects;
	double build_fail_rate;
	double boot_fail_rate;
	double infra_fail_rate;
} kreg_host_cfg;

typedef struct {
	char *file;		/* LKP job file */
	char **hosts;		/* host names it runs on; empty: all */
	size_t nhosts;
	int runs;		/* runs per commit, default 3 */
	char *kconfig;		/* kernel config name, default the first */
} kreg_job_cfg;

/* Direction of good for metrics matching a glob, as kreg.yaml says it
 * (stats/' kreg_direction has the same values; usecase/judge_opts.h maps). */
typedef enum { KREG_CFG_DIR_UNSET = 0, KREG_CFG_DIR_HIGHER = 1, KREG_CFG_DIR_LOWER = -1 } kreg_cfg_direction;

typedef struct {
	char *pattern;		/* fnmatch(3) glob over the metric name */
	kreg_cfg_direction direction;
	double floor;		/* minimal relative change worth a verdict; <0: default */
} kreg_metric_rule;

typedef struct {
	int min_runs;		/* per side, default 3 */
	int max_runs;		/* budget of runs per commit when unsure, default 10 */
	double threshold;	/* default floor, relative (0.05 = 5%) */
	double alpha;		/* significance level of the rank test, default 0.01 */
	kreg_metric_rule *metrics;
	size_t nmetrics;
	/* The daemon's detector (stats/detect.h): */
	int window;		/* baseline commits pooled, default 20 */
	int lookback;		/* newest commits where a step may sit, default 4 */
	double confirm;		/* level that calls a change, default 0.0001 */
	double suggest;		/* level that asks for more runs, default 0.05 */
	int step_runs;		/* runs asked for at once, default 3 */
	int baseline_runs;	/* runs of the first head seen, at least, and of a thin
				 * baseline (stats/detect.h); 0: the job's, and
				 * what the detector needs */
} kreg_detect_cfg;

typedef struct {
	int max_builds;		/* per bisection, default 30 */
	int runs_per_step;	/* default 3 */
	int max_runs_per_step;	/* default 12 */
	int verify_revert;	/* build and run the culprit reverted on bad */
} kreg_bisect_cfg;

/* mail.imap: the mailbox kreg reads replies to its mail from (mail/poll.h). */
typedef struct {
	char *url;		/* imap://HOST[:PORT] or imaps://HOST[:PORT]; NULL: none */
	char *user;
	char *password_file;	/* the password never goes in the YAML */
	char *mailbox;		/* default INBOX */
	double poll;		/* seconds between the daemon's polls, default 300 */
	uint64_t max_size;	/* a reply larger is refused by its size, unread; default 1M */
} kreg_imap_cfg;

typedef struct {
	char *smtp_url;		/* smtp://127.0.0.1:25; empty: dry-run only */
	char *from;
	char **to;		/* fixed recipients (a list for the lab) */
	size_t nto;
	char **cc;
	size_t ncc;
	int to_author;		/* mail the commit's author, default 1 */
	int cc_committer;	/* default 1 */
	int dry_run;		/* write the outbox, send nothing */
	char *outbox;		/* directory for .eml copies; default <data_dir>/outbox */
	char *username;
	char *password_file;	/* the password never goes in the YAML */
	int tls;		/* require STARTTLS */
	char *ca_file;		/* CA certificates to trust for the server's; default: the system's */
	char *override_to;	/* everything to this address instead (a lab that reads first) */
	char *reported_by;	/* the Reported-by: tag; default: from */
	int maintainers;	/* mail who the tree's MAINTAINERS names, default 1 */
	int confirmed;		/* mail a regression once confirmed, before it is bisected */
	int attempts;		/* refusals (5xx) before a message is given up, default 5;
				   connection failures, 4xx and timeouts never give up */
	double backoff;		/* seconds before the first retry, doubling, default 60 */
	double timeout;		/* seconds for one SMTP (or IMAP) session, default 60 */
	char **admins;		/* may command by reply any regression (mail/poll.h) */
	size_t nadmins;
	kreg_imap_cfg imap;
} kreg_mail_cfg;

typedef struct {
	char *output;		/* default <data_dir>/site */
	char *base_url;		/* for links in e-mail */
	char *title;
} kreg_web_cfg;

typedef struct {
	char *origin;		/* KCIDB origin: the "<origin>:" of every id, [a-z0-9_]+ */
} kreg_kcidb_cfg;

typedef struct {
	char *path;		/* the file it was read from, or "<built-in>" */
	char *database;		/* default <data_dir>/kreg.db */
	char *data_dir;		/* required */
	char **job_path;	/* search path for job includes */
	size_t njob_path;
	char *log_level;	/* error|warn|info|debug */
	char *fxmark;		/* fxmark checkout (bin/run-fxmark.py); NULL: none */

	kreg_repo_cfg *repos;
	size_t nrepos;
	kreg_build_cfg build;
	kreg_host_cfg *hosts;
	size_t nhosts;
	kreg_job_cfg *jobs;
	size_t njobs;
	kreg_detect_cfg detect;
	kreg_bisect_cfg bisect;
	kreg_mail_cfg mail;
	kreg_web_cfg web;

	/* A worker's load (kreg_config_load_hosts): every host's name, each
	 * ending in NUL, the skipped ones' too (kreg_config_has_host); NULL
	 * when every host was built. */
	char *host_names;
	size_t host_names_len;
	kreg_kcidb_cfg kcidb;
} kreg_config;

/* Problems found while loading, each with its position. */
typedef struct {
	char *file;
	int line, col;		/* 1-based; 0 when not known */
	char *message;
} kreg_config_problem;

typedef struct {
	kreg_config_problem *items;
	size_t count, alloc;
} kreg_config_problems;

/* Load and validate path. On success 0 and *out is the caller's
 * (kreg_config_free). On failure <0; every problem found is in *problems
 * (when problems is not NULL) and the first one is the error message. */
int kreg_config_load(kreg_config **out, const char *path, kreg_config_problems *problems);
/* The same from a string; name is used in messages. */
int kreg_config_load_string(kreg_config **out, const char *name, const char *yaml,
			    size_t len, kreg_config_problems *problems);
/* A worker's load (`kreg work`) of the text the daemon loaded and checked:
 * the same, but of the hosts only those named in hosts[nhosts] are built
 * (cfg->hosts), the others skipped unbuilt, in one read of the text,
 * however many there are. Their names are kept (kreg_config_has_host);
 * what spans all hosts (unique names, the jobs' hosts: naming one) is
 * left to the daemon's full load. */
int kreg_config_load_hosts(kreg_config **out, const char *name, const char *yaml, size_t len,
			   const char *const *hosts, size_t nhosts, kreg_config_problems *problems);
/* The built-in default configuration (the demo's), rooted at data_dir. */
int kreg_config_default(kreg_config **out, const char *data_dir);
void kreg_config_free(kreg_config *cfg);
void kreg_config_problems_release(kreg_config_problems *p);

const kreg_host_cfg *kreg_config_host(const kreg_config *cfg, const char *name);
/* Whether a host of that name is configured, built or not (a worker's
 * load skips the hosts it was not asked for). */
int kreg_config_has_host(const kreg_config *cfg, const char *name);
const kreg_repo_cfg *kreg_config_repo(const kreg_config *cfg, const char *name);
/* The default kernel config, where no name is given: the first of
 * build.configs, NULL when there is none. The one place that decides it:
 * the look-up below, a host's (kreg_config_host_kconfig), the build's
 * (kreg_build_kconfig) and the report's ask it. */
const kreg_kconfig_cfg *kreg_config_kconfig_default(const kreg_config *cfg);
/* NULL name: the default (kreg_config_kconfig_default); a name: the
 * configured one, else the built-in one of that name, else NULL. */
const kreg_kconfig_cfg *kreg_config_kconfig(const kreg_config *cfg, const char *name);
/* The kernel configs kreg ships, one per kind of host that boots a kernel
 * it builds: "qemu" (tinyconfig + qemu-guest, fio-dbench, ext4 and f2fs
 * fragments: what a guest needs) and "ssh" (the same + ssh-box.config:
 * network, kexec, modules). NULL when name is neither. */
const kreg_kconfig_cfg *kreg_config_kconfig_builtin(const char *name);

/* The kernel config a host boots, and why (a phrase for `kreg config show`
 * and logs, static). job_kconfig (a job's kconfig:, or NULL) wins, then the
 * host's kernel_config, then for a host that boots kernels kreg builds
 * (qemu, ssh, lava) a config of build.configs named for its backend, then
 * the first of build.configs, then the backend's built-in config (lava:
 * qemu's). NULL for a
 * host that boots nothing (local, sim) when nothing names one. */
const kreg_kconfig_cfg *kreg_config_host_kconfig(const kreg_config *cfg, const kreg_host_cfg *hc,
						 const char *job_kconfig, const char **why);
/* 1 when the host boots kernels kreg builds (qemu, ssh, lava): it has a
 * kernel config. */
int kreg_config_host_boots(const kreg_host_cfg *hc);
/* Whether a kconfig base names a make target of the kernel tree rather
 * than a file (the one rule, for `kreg config check` and the build): the
 * targets that make a config from nothing (tinyconfig, defconfig,
 * allnoconfig, allyesconfig, allmodconfig, alldefconfig), <name>_defconfig
 * (arch/<arch>/configs/), and the fragments the kernel ships as targets
 * (kernel/configs/: kvm_guest.config, tiny.config, xen.config, ...).
 * Anything else is a file. */
int kreg_kconfig_base_is_target(const char *base);
const char *kreg_backend_name(kreg_backend b);

/* The CPUs guest slot `slot` (0 .. capacity - 1) of a qemu host is pinned
 * to, into cpus[] (room for max): their count, 0 when its guests are not
 * pinned, <0 with the error set (naming the host) when the slot has no
 * CPUs of its own. Each slot takes `cpus` CPUs (the host's vCPUs) of the
 * host's list in order: `pin: [2, 3]` or "2-3"; `pin: auto` (the default)
 * pins only a host of capacity 2 or more, its slots taking the CPUs kreg
 * may run on (sched_getaffinity) from the first; `pin: off` never. */
int kreg_config_host_pin(int *cpus, size_t max, const kreg_host_cfg *hc, int slot);
/* "0-1" or "2,5": cpus[] as a CPU list; "-" when n is 0. Caller frees. */
char *kreg_config_cpu_list(const int *cpus, size_t n);

/* The effective configuration (defaults filled in, paths resolved) as YAML
 * that loads back to the same configuration. Caller frees. */
char *kreg_config_dump(const kreg_config *cfg);

/* A path under data_dir: <data_dir>/<sub>. Caller frees. */
char *kreg_config_data_path(const kreg_config *cfg, const char *sub);

/* Where the web site goes: web.output, else <data_dir>/site; NULL when the
 * configuration names neither (an empty one). Caller frees. */
char *kreg_config_site_dir(const kreg_config *cfg);

#endif
