/* Private to hosts/: the lava backend's talk with a LAVA server
 * (lava_api.c) and the parts of its answers it reads, apart from the run
 * (host_lava.c) so that a unit test reads them without a server. */
#ifndef KREG_HOST_LAVA_INTERNAL_H
#define KREG_HOST_LAVA_INTERNAL_H

#include "config/config.h"

/* One request to the REST API (<url>api/v0.2/<path>), by the curl program
 * with the token in a file of mode 0600 (never on a command line). */
typedef struct {
	long code;		/* HTTP status; 0: no answer (error says why) */
	char *body;		/* the answer, NUL-terminated ("" when none) */
	char *error;		/* one line when code is not 2xx, naming the server */
} kreg_lava_reply;

typedef struct {
	const kreg_host_cfg *hc;
	char *auth;		/* curl's config file holding the token's header */
	char *dir;		/* where the request and answer files go */
} kreg_lava_api;

/* Ready to talk to hc's server: the token read from token_file into a
 * private file in dir. <0 (error set, naming the file) when it cannot be
 * read or is empty. */
int kreg_lava_api_open(kreg_lava_api *api, const kreg_host_cfg *hc, const char *dir);
void kreg_lava_api_close(kreg_lava_api *api);

/* GET (body NULL) or POST body as JSON. Returns 0 when curl ran: the
 * status and error in out (a refused connection, a bad token, a 404 each
 * get a line of their own); <0 only when curl could not be run. */
int kreg_lava_request(kreg_lava_reply *out, kreg_lava_api *api, const char *path, const char *body,
		      double timeout);
void kreg_lava_reply_release(kreg_lava_reply *r);

/* The job definition kreg submits (JSON, which LAVA reads as YAML): deploy
 * kernel and ramdisk (and the test disk, when the host has one) by URL to
 * tmpfs, boot with qemu's -kernel, -append, -initrd (and the disk as the
 * first virtio drive), and wait for kreg's /init to power the guest off. */
typedef struct {
	const char *name;		/* job_name */
	const char *kernel_url, *initrd_url;
	const char *disk_url;		/* the blank test disk; NULL: none */
	const char *cmdline;		/* the kernel command line */
	int cpus;
	double timeout;			/* the boot and the job, seconds */
} kreg_lava_job;

/* The definition as text (caller frees). */
char *kreg_lava_job_definition(const kreg_host_cfg *hc, const kreg_lava_job *job);

/* The body of POST jobs/: {"definition": definition} (caller frees). */
char *kreg_lava_submission(const char *definition);

/* A job's state and health (GET jobs/ID/), "" when absent. */
typedef struct {
	char state[32];		/* Submitted, Scheduling, Scheduled, Running, Canceling, Finished */
	char health[32];	/* Unknown, Complete, Incomplete, Canceled */
} kreg_lava_status;

/* The string member key of the JSON object body; "?" when none. */
char *kreg_lava_json_string(const char *body, const char *key);
/* <0 (error set) when body is not a job. */
int kreg_lava_status_parse(kreg_lava_status *out, const char *body);
/* The id of a submitted job from the answer to POST jobs/; <0 when none. */
int kreg_lava_submitted_id(long long *id, const char *body);

/* A job's log (GET jobs/ID/logs/: one YAML flow mapping a line, as LAVA
 * writes them): what the device's serial line said, and the job's own
 * result line (definition lava, case job). */
typedef struct {
	char *console;		/* the target's lines (lvl target and feedback), one a line */
	char *result;		/* "pass", "fail" or NULL when the log has no result line */
	char *error_type;	/* Infrastructure, Job, Bug, Configuration, Canceled... or NULL */
	char *error_msg;	/* or NULL */
	size_t lines;		/* log lines read */
	size_t bad_lines;	/* lines that are not a log entry (a log cut short) */
} kreg_lava_log;

void kreg_lava_log_parse(kreg_lava_log *out, const char *text);
void kreg_lava_log_release(kreg_lava_log *l);

/* From a device list (GET devices/?device_type=T): how many devices, how
 * are Good (Idle or busy: a job waits for it), and a short "name
 * state/health" list. */
int kreg_lava_devices_parse(size_t *total, size_t *ready, char **list, const char *body);

#endif
