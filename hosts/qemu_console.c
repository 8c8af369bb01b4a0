/* Reading a qemu guest's serial console. */
#include "hosts/qemu_console.h"

#include "kernel/image.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Kernel lines that mean the kernel failed (a WARNING does not: the run
 * goes on and its numbers stand). The first is matched anywhere in a line,
 * the others at its start. */
static const char *const kernel_failures[] = {
	"Kernel panic - not syncing", "Oops:", "BUG:", "kernel BUG at",
	"general protection fault", "Unable to handle kernel",
	NULL,
};

/* Kernel lines that mean the guest's clock cannot time a run: the TSC
 * could not be calibrated against anything (a failed PIT calibration saved
 * by the HPET or the PM timer is fine), or the kernel fell back to a
 * jiffies clocksource (4 ms resolution: latency percentiles of 0 ns).
 * Matched anywhere. */
static const char *const clock_failures[] = {
	"Marking TSC unstable due to could not calculate TSC khz",
	"Switched to clocksource refined-jiffies",
	"Switched to clocksource jiffies",
	NULL,
};

/* The line without its "[    1.234567] " printk timestamp. */
static const char *strip_time(const char *line)
{
	if (line[0] == '[') {
		const char *e = strstr(line, "] ");

		if (e && e - line < 20)
			return e + 2;
	}
	return line;
}

/* A kernel line: it starts with a printk timestamp. */
static int is_kernel_line(const char *line)
{
	const char *p = line;

	if (*p++ != '[')
		return 0;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.')
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == ']';
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The uptime after a marker ("KREG-GUEST: job start 3.23"); -1 if none. */
static double marker_uptime(const char *line, const char *marker)
{
	double v;

	if (kreg_parse_double(&v, line + strlen(marker) + (line[strlen(marker)] == ' '), "uptime") < 0) {
		kreg_error_clear();
		return -1;
	}
	return v;
}

#define ALL ((size_t)-1)

/* A copy of l when it holds one of pats (the first `anywhere` of them
 * anywhere in it, the others at its start), else NULL. */
static char *failure_line(const char *l, const char *const *pats, size_t anywhere)
{
	for (size_t k = 0; pats[k]; k++)
		if (k < anywhere ? strstr(l, pats[k]) != NULL : starts(l, pats[k]))
			return kreg_strdup(l);
	return NULL;
}

void kreg_qemu_console_parse(kreg_qemu_console *out, const char *text)
{
	char *copy = kreg_strdup(text ? text : ""), *p = copy;
	kreg_buf output = KREG_BUF_INIT, log = KREG_BUF_INIT, mon = KREG_BUF_INIT;
	enum { NONE, OUTPUT, LOG, MON } in = NONE;
	int have_output = 0, have_log = 0, have_mon = 0;

	memset(out, 0, sizeof(*out));
	out->exit_status = -1;
	out->job_start = out->poweroff = -1;
	while (*p) {
		char *line = p, *e = strchr(p, '\n'), *q, *w;

		if (e)
			*e = '\0';
		p = e ? e + 1 : p + strlen(p);
		/* the serial line ends lines with \r\n */
		for (q = w = line; *q; q++)
			if (*q != '\r')
				*w++ = *q;
		*w = '\0';
		if (*line) {
			out->lines++;
			free(out->last_line);
			out->last_line = kreg_strdup(line);
		}
		if (in != NONE) {
			const char *end = in == OUTPUT ? KREG_GUEST_OUT_END :
					  in == LOG ? KREG_GUEST_LOG_END : KREG_GUEST_MON_END;

			if (starts(line, end)) {
				if (in == OUTPUT)
					out->output_complete = 1;
				in = NONE;
			} else if (!is_kernel_line(line)) {
				kreg_buf *b = in == OUTPUT ? &output : in == LOG ? &log : &mon;

				kreg_buf_printf(b, "%s\n", line);
			}
			continue;
		}
		if (!out->kernel_failure)
			out->kernel_failure = failure_line(strip_time(line), kernel_failures, 1);
		if (!out->clock_failure && is_kernel_line(line))
			out->clock_failure = failure_line(strip_time(line), clock_failures, ALL);
		if (starts(line, KREG_GUEST_INIT) && !out->booted) {
			const char *rel = line + strlen(KREG_GUEST_INIT);

			while (*rel == ' ')
				rel++;
			out->booted = 1;
			out->kernel = kreg_strdup(*rel ? rel : "unknown");
		} else if (starts(line, KREG_GUEST_SETUP_FAILED) && !out->setup_failure) {
			const char *why = line + strlen(KREG_GUEST_SETUP_FAILED);

			while (*why == ' ')
				why++;
			out->setup_failure = kreg_strdup(why);
		} else if (starts(line, KREG_GUEST_JOB_START)) {
			out->job_started = 1;
			out->job_start = marker_uptime(line, KREG_GUEST_JOB_START);
		} else if (starts(line, KREG_GUEST_OUT_BEGIN) && !have_output) {
			in = OUTPUT;
			have_output = 1;
		} else if (starts(line, KREG_GUEST_LOG_BEGIN) && !have_log) {
			in = LOG;
			have_log = 1;
		} else if (starts(line, KREG_GUEST_MON_BEGIN) && !have_mon) {
			in = MON;
			have_mon = 1;
		} else if (starts(line, KREG_GUEST_EXIT) && !out->exited) {
			long long rc;

			if (kreg_parse_ll(&rc, line + strlen(KREG_GUEST_EXIT) + 1, "exit status") == 0) {
				out->exited = 1;
				out->exit_status = (int)rc;
			}
			kreg_error_clear();
		} else if (starts(line, KREG_GUEST_POWEROFF)) {
			out->poweroff = marker_uptime(line, KREG_GUEST_POWEROFF);
		}
	}
	if (have_output)
		out->output = kreg_strdup(kreg_buf_cstr(&output));
	if (have_log)
		out->log = kreg_strdup(kreg_buf_cstr(&log));
	if (have_mon)
		out->monitors = kreg_strdup(kreg_buf_cstr(&mon));
	kreg_buf_release(&mon);
	kreg_buf_release(&log);
	kreg_buf_release(&output);
	free(copy);
}

void kreg_qemu_console_release(kreg_qemu_console *c)
{
	if (!c)
		return;
	free(c->kernel);
	free(c->kernel_failure);
	free(c->setup_failure);
	free(c->clock_failure);
	free(c->output);
	free(c->log);
	free(c->monitors);
	free(c->last_line);
	memset(c, 0, sizeof(*c));
}

/* The last non-empty line of text, at most 300 bytes. Caller frees. */
static char *last_text_line(const char *text)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *s;
	char *line;

	kreg_buf_puts(&b, text ? text : "");
	kreg_buf_rtrim(&b);
	s = strrchr(b.ptr, '\n') ? strrchr(b.ptr, '\n') + 1 : b.ptr;
	line = kreg_strndup(s, strlen(s) > 300 ? 300 : strlen(s));
	kreg_buf_release(&b);
	return line;
}

kreg_run_status kreg_qemu_verdict(char **error, const kreg_qemu_console *c,
				  const kreg_spawn_result *r, const char *qemu_log,
				  const char *where, const char *program)
{
	const char *last = c->last_line ? c->last_line : "(nothing)";
	char desc[128];

	*error = NULL;
	/* A panic is the kernel's fault, even when the run also timed out. */
	if (c->kernel_failure) {
		*error = kreg_asprintf("kernel: %s", c->kernel_failure);
		return KREG_RUN_KERNEL_FAILED;
	}
	if (r->timed_out) {
		*error = kreg_asprintf("timed out after %.0f s (%s): the guest %s; last console line: %s",
				       r->seconds, where,
				       !c->booted ? "did not reach /init" :
				       !c->exited ? "hung in the job" : "did not power off", last);
		return KREG_RUN_INFRA_FAILED;
	}
	if (!c->booted && c->lines <= 1 && (!r->exited || r->status != 0)) {
		char *q = last_text_line(qemu_log);

		*error = kreg_asprintf("qemu would not start (%s): %s",
				       kreg_spawn_describe(r, desc, sizeof(desc)), *q ? q : "no message");
		free(q);
		return KREG_RUN_INFRA_FAILED;
	}
	if (!c->booted) {
		*error = kreg_asprintf("no boot: the kernel stopped before /init (qemu %s); "
				       "last console line: %s", kreg_spawn_describe(r, desc, sizeof(desc)),
				       last);
		return KREG_RUN_KERNEL_FAILED;
	}
	if (c->setup_failure) {
		*error = kreg_asprintf("guest: %s", c->setup_failure);
		return KREG_RUN_INFRA_FAILED;
	}
	if (!c->exited || !c->output_complete) {
		*error = kreg_asprintf("the guest stopped during the job (qemu %s); last console line: %s",
				       kreg_spawn_describe(r, desc, sizeof(desc)), last);
		return KREG_RUN_KERNEL_FAILED;
	}
	if (c->exit_status != 0) {
		char *why = last_text_line(c->log && *c->log ? c->log : c->output);

		*error = kreg_asprintf("%s exited with status %d: %s", program ? program : "the job",
				       c->exit_status, why);
		free(why);
		return KREG_RUN_JOB_FAILED;
	}
	/* The job ran ok, but its timings cannot be trusted: not stored. */
	if (c->clock_failure) {
		*error = kreg_asprintf("the guest's clock is unfit for timing (%s): its numbers "
				       "are not stored", c->clock_failure);
		return KREG_RUN_INFRA_FAILED;
	}
	return KREG_RUN_OK;
}
