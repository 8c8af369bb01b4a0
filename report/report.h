/* The report model: what kreg knows about a regression, read from the
 * database, as plain structs that the web pages (web/) and the e-mail
 * (mail/) both present. Nothing here formats HTML or mail headers; the one
 * rendering it owns is the 0-day comparison table as text, which both reuse.
 *
 * A "regression" is a regressions row (the detector's, with its state), or
 * a bisection that named a culprit without one (`kreg bisect start` by
 * hand): both are presented alike, so a culprit found by hand is reported
 * the same way.
 *
 * Every string that came from a repository, a job or the configuration is
 * untrusted: escape it before HTML, check it before a mail header. */
#ifndef KREG_REPORT_H
#define KREG_REPORT_H

#include "config/config.h"
#include "db/db.h"
#include "lib/buf.h"
#include "stats/compare.h"

#include <stddef.h>
#include <stdint.h>

/* A commit as a report shows it. */
typedef struct {
	int64_t id;			/* commits row; 0: none (the struct is empty) */
	char sha[41];
	char *subject;			/* untrusted, may hold any byte */
	char *author_name, *author_email;
	int64_t author_time;		/* seconds since the epoch; 0 when unknown */
	char *committer_name, *committer_email;
	int64_t committer_time;
	char *parent;			/* first parent's sha; NULL for a root */
	char **files;			/* paths it changes against its first parent, */
	size_t nfiles;			/* when the repo's mirror is here (else none) */
	int files_truncated;		/* more than KREG_REPORT_MAX_FILES */
	char *url;			/* its web page (the repo's commit_url), or NULL */
} kreg_report_commit;

#define KREG_REPORT_MAX_FILES 50

/* One option of the atom, as 0-day's `parameters:` lists it. */
typedef struct {
	char *key, *value;		/* untrusted */
} kreg_report_param;

/* One step of the bisection, in order. */
typedef struct {
	int seq;
	char sha[41];
	char *subject;			/* untrusted */
	char *role;			/* good, bad, step, verify-culprit, verify-parent, revert */
	char *verdict;			/* pending, good, bad, skip, unknown */
	int runs;
	double mean;			/* the metric's mean over its OK runs there; NAN: none */
	char *detail;
} kreg_report_step;

/* One metric of the comparison: every column against the first. */
typedef struct {
	char *metric;
	kreg_stats_cmp *cmp;		/* ncols - 1 comparisons (cols[i + 1] v cols[0]) */
} kreg_report_row;

/* The 0-day comparison of a regression: the culprit's parent (or the base),
 * the culprit (or the bad commit), and the bad head when it is another
 * commit with runs. */
typedef struct {
	size_t ncols;
	char **labels;			/* each column's sha */
	char **roles;			/* what each column is: "parent" (the culprit's),
					 * "last good", "culprit", "bad", "bad head" */
	char **subjects;		/* each column's commit subject (untrusted; may be NULL) */
	kreg_report_row *rows;		/* every metric the columns share, sorted */
	size_t nrows;
	char *text;			/* kreg_stats_table: the changed metrics, as `kreg compare`
					 * prints, each column's role above its sha and 0-day's
					 * `\ | \` line under the header */
	char *text_all;			/* the same with every metric (--all) */
	/* text and text_all leave the monitors out (jobs/monitors.h); the
	 * detail table is 0-day's attachment: every metric that changed, the
	 * monitors that moved with the job's metric among them; NULL when no
	 * monitor changed */
	char *detail;
	size_t detail_monitors;		/* the monitors it lists */
} kreg_report_table;

/* One event of a regression's life, as its page lists them, oldest first:
 * found, bisection started, bisected, reported (the mail sent), each
 * follow-up and answer mailed, each fix tried, each mark by a person. */
typedef struct {
	int64_t at;			/* seconds since the epoch */
	char *what;			/* "found", "bisection started", "bisected", "reported",
					 * "mailed", "fix tried", "marked" */
	char *detail;			/* one line, made printable (kreg_report_printable);
					 * a page escapes it */
	char sha[41];			/* the commit it names (culprit, fix); "" */
} kreg_report_event;

typedef struct {
	int64_t regression_id;		/* 0: presented from a bisection alone */
	int64_t bisection_id;		/* the newest bisection of it; 0: none */
	char *state;			/* suspected, confirmed, bisecting, bisected, reported,
					 * fixed, not_reproduced, inconclusive */
	int64_t created, updated;

	char *repo, *repo_url;		/* repo_url: where the lab fetches it (maybe a local path) */
	char *public_url;		/* the repo's public address: its commit_url without the
					 * commit part, else repo_url when it is a remote URL;
					 * NULL: none (a lab's local tree) */
	char *branch;			/* the configured branch it was seen on; NULL: unknown */

	kreg_report_commit base;	/* last good (regression's base, bisection's good) */
	kreg_report_commit bad;		/* where it was seen (the bad end) */
	kreg_report_commit culprit;	/* culprit.id 0: not found (yet) */

	/* The atom. */
	int64_t job_id;
	char *job, *testcase, *path_params;
	char *job_yaml;			/* canonical YAML of the atom, untrusted */
	kreg_report_param *params;	/* the atom's options that name it (its path_params), */
	size_t nparams;			/* sorted by key, as 0-day's `parameters:` lists them */

	/* Where it ran. */
	int64_t host_id;
	char *host, *backend;		/* backend "sim": simulated samples, say so */
	int cpus;
	uint64_t memory;
	char *kconfig;			/* kernel config name; NULL: the default */
	char *kconfig_base;		/* from the configuration when it names it */
	char **kconfig_fragments;
	size_t nkconfig_fragments;
	char *compiler;			/* CONFIG_CC_VERSION_TEXT of the culprit's (else
					 * the bad commit's) kernel build; NULL: not built here */
	char *kernel_config;		/* that build's .config (its path on this machine);
					 * NULL: no build of either here kept one */
	char kernel_config_sha[41];	/* the commit that build is of; "" when none */

	/* The metric and its change. change is THE figure of the regression,
	 * the one the mail's subject and first line and the page's header give
	 * (kreg_report_figure): the comparison table's %change of the metric
	 * in its second column (the culprit, else the bad commit) against its
	 * first (the culprit's parent, else the last good commit), when the
	 * table has the metric's row (change_from_table); else the detector's
	 * estimate. base_mean and bad_mean are the means of those two sides. */
	char *metric;
	kreg_direction direction;
	double change;			/* relative, -0.66 = -66% */
	double base_mean, bad_mean;	/* NAN when not known */
	int change_from_table;		/* 1: change is the table's culprit column */
	/* The detector's estimate (the regressions row): the bad head against
	 * its pooled baseline; NAN when none (a bisection by hand). Not THE
	 * figure: shown, if anywhere, as what it is. */
	double detected_change, detected_base_mean, detected_bad_mean;

	kreg_report_table table;

	/* The bisection (when bisection_id). */
	char *bisect_state;		/* running, found, inconclusive, not_reproduced, failed */
	double confidence;
	int builds, runs;
	char *bisect_message;
	char *candidates;		/* space-separated shas when inconclusive */
	kreg_report_step *steps;
	size_t nsteps;

	/* How to reproduce it with kreg's own commands, one command a line. */
	char **reproduce;
	size_t nreproduce;

	/* The mail that went out (the outbox row), when there is one. */
	char *mail_subject, *mail_body, *mail_state, *mail_message_id, *mail_recipients;
	int64_t mail_sent;

	/* Its life (report/life.c), oldest first; closed as
	 * kreg_report_state_closed says; fixed: by which commit (a person's or
	 * kreg's mark), and the share of the regression the try of that
	 * commit recovered (NAN when no try of it says). */
	kreg_report_event *life;
	size_t nlife;
	char fixed_by[41];		/* "" when not fixed */
	double fixed_share;
	int fixed_by_recovery;		/* fixed_by was found by bisecting the recovery */
	/* The bisection of its recovery (usecase/recovery.h): 0 when none;
	 * its state (running, found, ...). */
	int64_t recovery_id;
	char recovery_state[16];
} kreg_report_regression;

/* Closed: fixed, refuted by the robot (not_reproduced), or closed by a
 * person (invalid, noise, duplicate); every other state is open. */
int kreg_report_state_closed(const char *state);

/* What to present: one entry per regression, newest first. */
typedef struct {
	int64_t regression_id;		/* 0: a bisection with a culprit and no regression row */
	int64_t bisection_id;		/* its newest bisection; 0: none */
	char *state;
	char *repo, *job, *host, *metric;
	char culprit_sha[41];		/* "" when none yet */
	char bad_sha[41];
	double change;			/* NAN when not known */
	int64_t updated;
} kreg_report_entry;

/* The regressions rows and the bisections with a culprit that have none,
 * newest first. *out is the caller's (kreg_report_list_free). */
int kreg_report_list(kreg_db *db, kreg_report_entry **out, size_t *n);
void kreg_report_list_free(kreg_report_entry *v, size_t n);

/* Read one regression whole: by regression id, or (regression_id 0) by
 * the bisection that found it. cfg gives the branch, the commit link
 * template, the kernel config's parts and the statistics' options; the
 * repo's mirror (when present under data_dir) gives the files a commit
 * touches. KREG_ENOTFOUND when there is no such row. *out is the caller's
 * (kreg_report_regression_free). */
int kreg_report_regression_load(kreg_report_regression **out, kreg_db *db,
				const kreg_config *cfg, int64_t regression_id,
				int64_t bisection_id);
void kreg_report_regression_free(kreg_report_regression *r);

/* A commit's web page: the repo's commit_url template with every "%s"
 * replaced by sha; NULL without a template (the caller frees). */
char *kreg_report_commit_url(const kreg_repo_cfg *rc, const char *sha);

/* A stable name for the regression, for file names and Message-IDs:
 * "r<regression id>" or "b<bisection id>". */
void kreg_report_regression_key(const kreg_report_regression *r, char *buf, size_t size);

/* The 0-day subject (without the list's prefix): "[repo:branch] sha12:
 * metric -66.0% regression", with THE figure (kreg_report_figure; the
 * subject is the caller's to check). */
void kreg_report_subject(kreg_buf *out, const kreg_report_regression *r);

/* THE figure of r as the table prints it: "-22.8%" (a share in percent,
 * kreg_stats_metric_is_share, by its difference in points: "+5.0 points");
 * nothing when not known. */
void kreg_report_figure(kreg_buf *out, const kreg_report_regression *r);

/* What THE figure compares, in words: "the culprit against its parent",
 * "the bad commit against the last good one", "the bad head against the
 * detector's baseline". */
const char *kreg_report_figure_what(const kreg_report_regression *r);

/* THE figure of a regressions row as the commands' lists print it
 * (`kreg status`, `kreg regression list`): the report model loaded whole
 * and kreg_report_figure, so a list says what the mail and the page say.
 * When the model cannot be read (the error is logged and cleared), the
 * row's own change, detected, as the detector's estimate. */
typedef struct {
	double change;			/* relative; NAN when not known */
	char text[32];			/* kreg_report_figure: "-22.8%", "+5.0 points" */
	const char *what;		/* kreg_report_figure_what (static) */
	int of_culprit;			/* 1: the culprit against its parent (no label
					 * needed); 0: what says what it compares */
} kreg_report_fig;
void kreg_report_regression_figure(kreg_report_fig *out, kreg_db *db, const kreg_config *cfg,
				   int64_t regression_id, double detected);

/* A one-line, printable form of an untrusted string: control characters
 * and bytes that are not UTF-8 become '?', at most max bytes (0: all). For
 * text tables and mail bodies; HTML escapes on its own. */
char *kreg_report_printable(const char *s, size_t max);

#endif
