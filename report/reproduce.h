/* The materials to reproduce a regression without kreg, as 0-day gives
 * them ("The kernel config and materials to reproduce are available at"):
 * the atom's job.yaml, the kernel's .config, a reproduce.sh that runs the
 * atom's program as kreg runs it (the run plan of jobs/plan.h, the same
 * code every host backend carries out) on a machine booted into the kernel
 * under test, and a README with the steps. One writer for the site's copy
 * beside the regression's page (web/), `kreg reproduce` (a directory of
 * the caller's) and the steps the mail, the page and the README give.
 *
 *   kreg_report_bundle b;
 *   kreg_report_bundle_make(&b, r, cfg);
 *   for (i < b.nfiles) ... write b.files[i] into <dir> ...
 *   kreg_report_bundle_release(&b);
 *
 * reproduce.sh is POSIX sh: `sh reproduce.sh TARGET [RUN_DIR]`. Every value
 * that came from the job, the repository or the configuration is in it
 * single-quoted (or as a comment made printable), never where the shell
 * reads it as code; the target is the script's argument, never written
 * into it. */
#ifndef KREG_REPORT_REPRODUCE_H
#define KREG_REPORT_REPRODUCE_H

#include "config/config.h"
#include "lib/buf.h"
#include "report/report.h"

#include <stddef.h>

typedef struct {
	char *name;		/* "job.yaml", "config", "reproduce.sh", "README" */
	char *content;
	size_t len;
	int executable;		/* reproduce.sh */
} kreg_report_file;

typedef struct {
	kreg_report_file *files;
	size_t nfiles;
} kreg_report_bundle;

/* The bundle's directory beside the regression's page in the site:
 * "reproduce-<key>" (kreg_report_regression_key). Caller frees. */
char *kreg_report_bundle_dir(const kreg_report_regression *r);

/* Where a reader finds the site's copy: web.base_url's
 * ".../reproduce-<key>/" when it is set, else the site's directory on this
 * machine; NULL when the configuration names neither. Caller frees. */
char *kreg_report_bundle_where(const kreg_report_regression *r, const kreg_config *cfg);

/* The steps to reproduce, as text lines (every untrusted value made
 * printable): where the materials are (when where is not NULL), the
 * kernel to build with the config, reproduce.sh to run on it and the
 * commit to compare with. For the mail, the page and the README. */
void kreg_report_bundle_steps(kreg_buf *out, const kreg_report_regression *r, const char *where);

/* Make the bundle of r: job.yaml, config (when r->kernel_config can be
 * read), reproduce.sh, README. Never fails for a job kreg cannot plan:
 * its reproduce.sh says why and exits 2. cfg gives the fxmark checkout
 * (whether kreg runs fxmark's micro-benchmarks or its dbench tests). */
void kreg_report_bundle_make(kreg_report_bundle *out, const kreg_report_regression *r,
			     const kreg_config *cfg);
void kreg_report_bundle_release(kreg_report_bundle *b);

/* Write the bundle's files into dir (made when missing), each atomically,
 * reproduce.sh executable. <0 with the error set. */
int kreg_report_bundle_write(const kreg_report_bundle *b, const char *dir);

#endif
