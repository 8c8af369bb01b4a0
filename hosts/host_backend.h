/* Private to hosts/: what each backend file provides to host.c. */
#ifndef KREG_HOST_BACKEND_H
#define KREG_HOST_BACKEND_H

#include "hosts/host.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "hosts/qemu_console.h"
#include "kernel/image.h"
#include "lib/buf.h"

struct kreg_host {
	const kreg_config *cfg;
	const kreg_host_cfg *hc;
	const struct kreg_host_ops *ops;
	void *priv;			/* the backend's state */
};

struct kreg_host_ops {
	const char *name;
	int needs_kernel;
	int kernel_if_configured;	/* needs_kernel only when the host names a
					 * kernel_config (sim: a real build, then drawn
					 * samples: the build lane without a machine) */
	int simulated;			/* runs nothing: draws samples (sim) */
	int (*open)(kreg_host *h);	/* may be NULL */
	void (*close)(kreg_host *h);	/* may be NULL */
	/* NULL for a backend that boots a kernel kreg builds (needs_kernel):
	 * usecase/build.h builds it */
	int (*prepare)(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *c);
	int (*run)(kreg_host *h, kreg_host_result *out, const kreg_host_request *req);
	/* may be NULL: nothing to check */
	int (*check)(kreg_host *h, kreg_host_check_fn fn, void *arg);
	/* may be NULL: the job planned on the configured target */
	int (*plan)(kreg_host *h, kreg_plan *out, const char **fs, const kreg_atom *atom,
		    int cpus);
	/* may be NULL: any metric the job gives */
	int (*check_metric)(const kreg_host *h, const char *metric);
};

/* Mark out failed with status and a one-line message (new lines folded),
 * dropping any samples: what every backend does when a run goes wrong. */
void kreg_host__fail(kreg_host_result *out, kreg_run_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

extern const struct kreg_host_ops kreg_host_local_ops;
extern const struct kreg_host_ops kreg_host_qemu_ops;
extern const struct kreg_host_ops kreg_host_ssh_ops;
extern const struct kreg_host_ops kreg_host_sim_ops;
extern const struct kreg_host_ops kreg_host_lava_ops;

/* The bzImage of the kernel a run boots (req->kernel's artifact): *out,
 * the caller's; <0 (error set, naming the host) when there is none. */
int kreg_host__bzimage(char **out, const kreg_host_cfg *hc, const kreg_host_request *req);

/* A guest's run from its console c (kreg's /init's markers; how the
 * machine ended in r, its own messages in qemu_log): the raw output
 * files written in out_dir whatever happened, the status
 * (kreg_qemu_verdict), the output parsed and the monitors read when OK.
 * <0 only when a file cannot be written. The qemu and lava backends. */
int kreg_host__console_result(kreg_host_result *out, const char *host, const kreg_plan *plan,
			      const char *out_dir, const kreg_qemu_console *c,
			      const kreg_spawn_result *r, const char *qemu_log, const char *where);

/* A guest's test disk (the qemu host's disk image, the one kreg gives a
 * LAVA qemu device) is its first virtio disk; a job that wants a file
 * system has it mounted here. */
#define KREG_GUEST_DISK "vda"
#define KREG_GUEST_MNT "/mnt/kreg"

/* A blank test disk at path: a new sparse file of hc's disk_size. 1 when
 * the file is there already (left as it is); <0 (error set, naming host and
 * path; nothing left behind) when it cannot be made. */
int kreg_host__blank_disk(const kreg_host_cfg *hc, const char *path);

/* The job's part of a guest's initramfs (kernel/image.h's per-run
 * archive): argv (its text in argv_text), where output goes, the test disk
 * (disk_dev, "vda", formatted with fs and mounted on mnt; NULL: none; its
 * line in disk) and the plan's files. *out (paths the caller frees, data
 * pointing into plan and the buffers) for kreg_image_with_files. The qemu
 * and lava backends boot the same image. */
int kreg_host__guest_job_files(kreg_image_file **out, size_t *n, kreg_buf *argv_text, kreg_buf *disk,
			       const kreg_plan *plan, const char *fs, const char *disk_dev,
			       const char *mnt);

/* The last non-empty line of a local file (at most 200 bytes), for a
 * one-line error; NULL when there is none or it cannot be read. */
char *kreg_host__file_last_line(const char *path);

/* The plan of a job on a test disk DEV: formatted with the job's file
 * system and mounted on MNT; the raw device when the job names none; the
 * default file system (ext4) when it names none but needs a directory
 * (dbench). *fs: the file system to make, NULL for the raw device. <0 (error
 * set) when the job cannot run there. qemu's guest and ssh's target decide
 * it alike. */
int kreg_host__plan_disk(kreg_plan *plan, const char **fs, const kreg_atom *atom,
			 kreg_plan_opts *po, const char *dev, const char *mnt);

/* 1 (out says why: a job failure) when the atom asks for a RAM test
 * device (disk: 1BRD_..., 1NULLB) or names a disk: kreg does not read, on
 * a host that makes none (local, lava); 0 when it asks for none. */
int kreg_host__no_ram_device(kreg_host_result *out, const char *host, const char *backend,
			     const kreg_atom *atom);

/* The monitors (jobs/monitors.h) of a run whose plan wants them
 * (plan->monitors), hosts/monitors.c: the snapshot snippet run here, in
 * dir, before (mark "begin") and after ("end") the program (the local
 * host; a guest and an ssh machine run the same snippet themselves); and
 * the snapshots in out_dir parsed into out's samples after the job's own
 * when the run is OK. A monitor that fails costs its samples (a warning),
 * never the run's. */
void kreg_host__monitors_snap(const kreg_plan *plan, const char *dir, const char *mark);
void kreg_host__monitors_parse(kreg_host_result *out, const kreg_plan *plan, const char *out_dir,
			       const char *host);

#endif
