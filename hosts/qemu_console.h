/* Reading a qemu guest's serial console: what the kernel and kreg's /init
 * said (kernel/image.h's markers), and the verdict of a run from it and
 * from how qemu ended. Pure functions over text, for the qemu backend and
 * its tests. */
#ifndef KREG_QEMU_CONSOLE_H
#define KREG_QEMU_CONSOLE_H

#include "hosts/host.h"
#include "lib/spawn.h"

#include <stddef.h>

typedef struct {
	size_t lines;			/* non-empty console lines */
	int booted;			/* /init ran */
	char *kernel;			/* uname -r, from the init marker */
	char *kernel_failure;		/* first panic/oops/BUG line, timestamp removed */
	char *setup_failure;		/* why /init could not set the job up */
	char *clock_failure;		/* a clock that makes timings meaningless */
	int job_started;
	int exited;			/* the exit marker was printed */
	int exit_status;
	char *output;			/* between the output markers (kernel lines left out) */
	int output_complete;		/* the end marker was seen */
	char *log;			/* between the log markers */
	char *monitors;			/* between the monitors' markers (jobs/monitors.h) */
	double job_start, poweroff;	/* guest uptime at those markers; <0: not seen */
	char *last_line;		/* the last non-empty line */
} kreg_qemu_console;

void kreg_qemu_console_parse(kreg_qemu_console *out, const char *text);
void kreg_qemu_console_release(kreg_qemu_console *c);

/* The run's status from the console and qemu's end (r, its own messages in
 * qemu_log): every status but OK comes with *error (one line, caller
 * frees). where names the host and accelerator in messages, program the
 * job's program. OK means the job exited 0: its output is still to be
 * parsed. */
kreg_run_status kreg_qemu_verdict(char **error, const kreg_qemu_console *c,
				  const kreg_spawn_result *r, const char *qemu_log,
				  const char *where, const char *program);

#endif
