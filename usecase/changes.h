/* A metric's history along a branch's first-parent line, its change points
 * and what the detector makes of the newest commits: written once for
 * `kreg changes` and whatever else reads histories (the pages' trend
 * charts). The step after a run that writes `regressions` rows is the
 * daemon's (usecase/detect.h), not this. */
#ifndef KREG_USECASE_CHANGES_H
#define KREG_USECASE_CHANGES_H

#include "config/config.h"
#include "db/db.h"
#include "db/history.h"
#include "lib/buf.h"
#include "stats/changes.h"
#include "stats/detect.h"
#include "stats/segment.h"

#include <stddef.h>
#include <stdint.h>

/* Which history: names as the command line gives them. */
typedef struct {
	const char *repo;	/* NULL: the only one configured */
	const char *branch;	/* NULL: the repo's first configured branch */
	const char *head;	/* a commit (sha or unique prefix) instead of a branch head */
	const char *job, *host;	/* the atom's name, the host's */
	const char *metric;	/* NULL: every metric of the job's runs on the host */
	size_t limit;		/* the newest N commits only; 0: all */
} kreg_changes_spec;

/* How small a change of a metric the detector sees, from the noise of its
 * current level (the commits since its last step, the newest `window` of
 * them: the baseline the detector pools). */
typedef struct {
	double rsd;		/* a run's relative noise, pooled within commits; NAN:
				 * unknown (no commit with 2 runs) */
	size_t df;		/* its degrees of freedom */
	size_t base_runs;	/* the baseline's runs */
	int runs;		/* runs a commit gets there (the median) */
	double floor;		/* the metric's floor (detect.threshold or its rule) */
	double mde;		/* the smallest change confirmed (80% power) for a new
				 * commit with `runs` runs; NAN: none at so few runs */
	int max_runs;		/* the runs the detector may ask of a commit */
	double mde_max;		/* the same at max_runs runs */
	int runs_for_5;		/* runs a new commit needs to see 5% (0: not under
				 * the floor, or more than 1,000) */
} kreg_metric_noise;

/* One metric's history and what is found in it. */
typedef struct {
	char *metric;
	kreg_db_history h;	/* commits (shas, subjects: untrusted) and values */
	size_t with_runs;	/* commits with at least one OK run */
	kreg_stats_change_point *cp;	/* the steps (stats/segment.h), q = z */
	size_t ncp;
	kreg_stats_drift *drifts;	/* segments whose level moves along a line */
	size_t ndrifts;
	kreg_stats_detection det;	/* the detector on the newest commits */
	kreg_metric_noise noise;	/* the smallest change it can see */
} kreg_metric_changes;

typedef struct {
	const char *repo;	/* resolved: the repo's name */
	const char *branch;	/* the branch, or NULL when a head was given */
	char *head;		/* the full sha the walk starts from */
	kreg_metric_changes *metrics;
	size_t nmetrics;
	size_t nfound;		/* change points over every metric */
} kreg_changes;

/* Resolve spec (each missing repo, branch, commit, job or host is an error
 * naming it) and load every metric's history, change points and detector
 * view. *out is the caller's (kreg_changes_release). */
int kreg_changes_load(kreg_changes *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_changes_spec *spec);
void kreg_changes_release(kreg_changes *c);

/* One metric, on rows already resolved: history from head (a full sha),
 * its steps and drifts (kreg_stats_segment(), PELT: chosen over E-Divisive
 * by bench_changes, docs/stats.md), and the detector over what follows the
 * last step (steps among the newest 4 commits are left to the detector). */
int kreg_changes_metric(kreg_metric_changes *out, const kreg_config *cfg, kreg_db *db,
			int64_t repo_id, const char *head, size_t limit, int64_t job_id,
			int64_t host_id, const char *metric);
void kreg_metric_changes_release(kreg_metric_changes *m);

/* The steps, drifts, detector's view and noise (kreg_changes_metric's
 * findings) of a history already in memory (h's indices are out's): the
 * pages' trends call it on the samples they have read. out->metric, out->h
 * and out->with_runs are left alone; kreg_metric_changes_release frees the
 * rest. */
int kreg_changes_history(kreg_metric_changes *out, const kreg_config *cfg,
			 const kreg_stats_history *h, const char *metric);

/* The noise as one line of text, as `kreg changes`, `kreg status --noise`
 * and the trend pages print it: "±3.1% a run (45 runs of the baseline);
 * smallest change seen: none at 3 runs a commit, 5.3% at 10
 * (detect.max_runs) (5%: 12 runs)", or "unknown (...)". */
void kreg_metric_noise_text(kreg_buf *out, const kreg_metric_noise *n);

/* The steps and drifts of a history already in memory, as
 * kreg_changes_metric finds them: out->cp (the range to bisect is the
 * step's, q its z), out->ncp, out->drifts and out->ndrifts, indices into
 * h's commits (commits without runs count, as on the line); the rest of
 * *out is left alone. The pages' trends call it on the samples they have
 * read. kreg_metric_changes_release frees it. */
int kreg_changes_steps(kreg_metric_changes *out, const kreg_stats_history *h);

#endif
