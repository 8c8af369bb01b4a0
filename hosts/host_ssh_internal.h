/* Private to the ssh backend (host_ssh.c, the ops), shared by its files:
 * the machine and its boot (host_ssh_boot.c: who it is, kexec into the
 * kernel under test and wait for it, power cycle a lost one), the job
 * (host_ssh_run.c: its plan, files, run and raw output) and `kreg host
 * check` (host_ssh_check.c). */
#ifndef KREG_HOST_SSH_INTERNAL_H
#define KREG_HOST_SSH_INTERNAL_H

#include "hosts/host_backend.h"
#include "hosts/ssh_client.h"
#include "jobs/job.h"
#include "jobs/plan.h"

#define PROBE_TIMEOUT 20.0		/* one ssh answer, handshake included */
#define COPY_TIMEOUT 600.0
#define COMMAND_TIMEOUT 120.0
#define BUILD_TOKEN "kreg.build="

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

typedef enum {
	WAIT_ANSWERED,		/* a new boot answered (m filled) */
	WAIT_SAME_BOOT,		/* only the old boot answered */
	WAIT_SILENT,		/* nothing answered */
	WAIT_HOSTKEY,		/* it answered with another host key */
} wait_status;

/* host_ssh_boot.c: what the machine says about itself (probe: r says how
 * ssh went), a boot other than old_boot waited for, the machine lost and
 * power cycled (recover), the request's kernel booted (boot_kernel: 1 when
 * it runs, 0 when the run is over, out says why). */
void kreg_host_ssh__state_release(machine_state *m);
char *kreg_host_ssh__next_line(char **p);
int kreg_host_ssh__probe(ssh_host *st, kreg_ssh_result *r, machine_state *m, double timeout);
int kreg_host_ssh__has_any_build(const char *cmdline);
int kreg_host_ssh__on_good_kernel(const kreg_host_cfg *hc, const machine_state *m);
int kreg_host_ssh__wait_boot(ssh_host *st, const kreg_host_cfg *hc, const char *old_boot,
			     machine_state *m, wait_status *ws, char **why);
int kreg_host_ssh__recover(ssh_host *st, const kreg_host_cfg *hc, const char *out_dir, char **note);
int kreg_host_ssh__boot_kernel(ssh_host *st, const kreg_host_cfg *hc, kreg_host_result *out,
			       const kreg_host_request *req, machine_state *m, const char *build);

/* host_ssh_run.c: the job planned on the host's target, and run there. */
char *kreg_host_ssh__find_in_path(const char *prog);
int kreg_host_ssh__plan_on(const kreg_host_cfg *hc, const kreg_config *cfg, kreg_plan *plan,
			   const char **fs, const kreg_atom *atom, int cpus);
int kreg_host_ssh__run_job(ssh_host *st, const kreg_host_cfg *hc, const kreg_config *cfg,
			   kreg_host_result *out, const kreg_host_request *req, const machine_state *m,
			   double deadline);

/* host_ssh_check.c: the check op (`kreg host check`). */
int kreg_host_ssh__check(kreg_host *h, kreg_host_check_fn fn, void *arg);

#endif
