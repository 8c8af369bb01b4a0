/* Test hosts: one interface, four backends (local, qemu, ssh, sim).
 *
 * A host runs one atomic job on a commit's kernel (run), returning the
 * samples and a status that tells apart the job failing, the kernel
 * failing and the infrastructure failing. The kernel of a host that boots
 * one kreg builds (qemu, ssh) is built by usecase/build.h; a host that
 * boots none makes it ready itself (prepare: for local nothing, for sim
 * the model's verdict), which usecase/build.h asks of it. */
#ifndef KREG_HOST_H
#define KREG_HOST_H

#include "config/config.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "lib/sample.h"

typedef struct kreg_atom kreg_atom;	/* jobs/job.h */
typedef struct kreg_host kreg_host;

typedef enum {
	KREG_RUN_OK = 0,
	KREG_RUN_JOB_FAILED,		/* the program failed or its output did not parse */
	KREG_RUN_KERNEL_FAILED,		/* panic, oops, BUG, no boot */
	KREG_RUN_INFRA_FAILED,		/* qemu would not start, timeout, host unreachable */
} kreg_run_status;

/* "ok", "job_failed", "kernel_failed", "infra_failed": the runs.status values. */
const char *kreg_run_status_name(kreg_run_status s);

/* The commit whose kernel is wanted. */
typedef struct {
	const char *repo;	/* configured repo name */
	const char *repo_path;	/* a git repository holding the commit */
	const char *sha;	/* full sha */
	const char *kconfig;	/* kernel config name (build.configs[].name or
				 * built in); NULL: the host's */
	const kreg_atom *atom;	/* the job the kernel is for: its fs: and need_kconfig:
				 * go into the config (jobs/needs.h); NULL: none */
} kreg_host_commit;

typedef enum {
	KREG_PREPARE_OK = 0,
	KREG_PREPARE_BUILD_FAILED,	/* the commit does not build: a bisection skips it */
} kreg_prepare_status;

typedef struct {
	kreg_prepare_status status;
	char *artifact;		/* directory with bzImage, .config, build.log; NULL when none */
	char *error;		/* why the build failed (log tail), or NULL */
	int cached;		/* 1 when nothing had to be built */
	double seconds;
	int64_t build_id;	/* the builds row (qemu, ssh); 0 when none */
} kreg_host_kernel;

typedef struct {
	const kreg_atom *atom;		/* the atomic job (jobs/job.h) */
	const char *atom_name;		/* its name: <job>-<path_params> */
	const kreg_host_commit *commit;	/* NULL: the running kernel (local) */
	const kreg_host_kernel *kernel;	/* kreg_build_for_host's; NULL for local */
	const char *out_dir;		/* where raw output and logs go (exists) */
	unsigned run_index;		/* n-th run of this atom at this commit (sim seeds on it) */
	double timeout;			/* seconds, boot included; 0: the host's own */
} kreg_host_request;

typedef struct {
	kreg_run_status status;
	char *error;			/* one line: why it is not OK, or NULL */
	char *kernel;			/* the kernel it ran on (uname -r, artifact, "sim") */
	kreg_samples samples;		/* parsed metrics; empty unless OK */
	double seconds;
} kreg_host_result;

/* Open the configured host name. */
int kreg_host_open(kreg_host **out, const kreg_config *cfg, const char *name);
void kreg_host_close(kreg_host *h);
const kreg_host_cfg *kreg_host_config(const kreg_host *h);
/* 1 when the host runs on a kernel kreg builds (qemu, ssh; a sim host that
 * names a kernel_config builds it for real before it draws its samples). */
int kreg_host_needs_kernel(const kreg_host *h);
/* The same asked of a configured host without opening it (planning builds). */
int kreg_host_cfg_needs_kernel(const kreg_host_cfg *hc);
/* The host a build item builds on: the first configured one that boots a
 * kernel kreg builds; NULL when none does. The daemon hands a build's
 * worker this host, and the worker builds on it. */
const kreg_host_cfg *kreg_host_cfg_build_host(const kreg_config *cfg);
/* 1 when the host runs nothing and draws its samples from a model (sim):
 * it needs no job file, and what it gives is labelled simulated. */
int kreg_host_simulated(const kreg_host *h);
/* The same asked of a backend by the name stored with a run, a host or a
 * bisection ("sim"), for what outlives the configuration; 0 for a name no
 * backend has. */
int kreg_host_backend_simulated(const char *backend);
/* The load of the machine a run of this host starts on, when that is this
 * machine (local, qemu): its 1-minute load average per online CPU, from
 * /proc/loadavg ($KREG_LOADAVG_FILE instead, for tests), and whether it is
 * above the host's max_load (0: never). Returns 1 when measured, 0 when the
 * host runs elsewhere (ssh, sim) or the file cannot be read. */
int kreg_host_load(const kreg_host *h, double *per_cpu, int *loaded);
/* 0 when runs on this host can give a sample of metric; <0 (error set,
 * naming what it gives) when they cannot (a sim host draws only its
 * configured metrics). */
int kreg_host_check_metric(const kreg_host *h, const char *metric);

/* Make the kernel of commit ready on a host that boots no kernel kreg
 * builds (local, sim; a host that does: usecase/build.h's
 * kreg_build_for_host, which calls this for the others). <0 only for
 * kreg's own failures (error set; a host that needs a built kernel too); a
 * commit that does not build is status BUILD_FAILED, return 0. */
int kreg_host_prepare(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *commit);
/* Run one atomic job. <0 only for kreg's own failures; every failure of the
 * job, the kernel or the host is a status in out, return 0. */
int kreg_host_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req);

/* The plan of atom as this host runs it: where it writes (the configured
 * target; a qemu host's test disk; an ssh host's target device), and *fs,
 * the file system the host makes there first (NULL: none). cpus 0: the
 * host's. <0 (error set) when the job cannot run there. `kreg job plan`. */
int kreg_host_plan(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom, int cpus);

/* `kreg host check`: fn is called once per check (what was checked, whether
 * it holds, a detail to show). Returns the number of checks that failed;
 * <0 only for kreg's own failures. */
typedef void (*kreg_host_check_fn)(void *arg, int ok, const char *what, const char *detail);
int kreg_host_check(kreg_host *h, kreg_host_check_fn fn, void *arg);

void kreg_host_kernel_release(kreg_host_kernel *k);
void kreg_host_result_release(kreg_host_result *r);

#endif
