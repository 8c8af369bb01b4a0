/* Bisection as a resumable state machine. It runs nothing: given what is
 * known (the ends, the samples of every commit tried, the steps taken so far)
 * and the commit graph, kreg_bisect_next() answers what to do next ("N more
 * runs at commit X, as step / verify-culprit / ...") or that it is done
 * (found X with confidence c; inconclusive: one of {...}; not reproduced;
 * failed). The driver (usecase/bisect_driver.h) does the runs, stores them and
 * asks again, so a bisection killed anywhere resumes from its rows and reuses
 * every sample.
 *
 * The answer is a pure function of its input. Verdicts are recomputed from
 * all samples on every call: more runs at a commit may change an earlier
 * verdict, and the search follows. */
#ifndef KREG_BISECT_H
#define KREG_BISECT_H

#include "bisect/graph.h"	/* kreg_bisect_oid, the ids of its interface */
#include "stats/stats.h"

typedef enum {
	KREG_BISECT_ROLE_GOOD = 0,
	KREG_BISECT_ROLE_BAD,
	KREG_BISECT_ROLE_STEP,
	KREG_BISECT_ROLE_VERIFY_CULPRIT,
	KREG_BISECT_ROLE_VERIFY_PARENT,
	KREG_BISECT_ROLE_REVERT,
} kreg_bisect_role;

/* "good", "bad", "step", "verify-culprit", "verify-parent", "revert": the
 * bisect_steps.role values. */
const char *kreg_bisect_role_name(kreg_bisect_role r);
int kreg_bisect_role_parse(kreg_bisect_role *out, const char *name);

typedef enum {
	KREG_BISECT_PENDING = 0,	/* not enough samples yet */
	KREG_BISECT_GOOD,
	KREG_BISECT_BAD,
	KREG_BISECT_SKIP,		/* does not build, boot, or revert */
	KREG_BISECT_UNKNOWN,		/* the run budget is spent without a verdict */
} kreg_bisect_verdict;

/* "pending", "good", "bad", "skip", "unknown": the bisect_steps.verdict values. */
const char *kreg_bisect_verdict_name(kreg_bisect_verdict v);

typedef enum {
	KREG_BISECT_FOUND = 0,
	KREG_BISECT_INCONCLUSIVE,
	KREG_BISECT_NOT_REPRODUCED,
	KREG_BISECT_FAILED,
} kreg_bisect_outcome;

/* "found", "inconclusive", "not_reproduced", "failed": bisections.state. */
const char *kreg_bisect_outcome_name(kreg_bisect_outcome o);

/* Everything known of one commit for the bisection's (job, host, metric). */
typedef struct {
	kreg_bisect_oid id;
	const double *values;	/* the metric over the OK runs, oldest first */
	size_t nvalues;
	unsigned runs;		/* runs tried, whatever their status */
	unsigned kernel_failed;	/* runs whose kernel (or job) failed */
	unsigned infra_failed;	/* runs the host failed */
	int build_failed;	/* the host could not prepare its kernel */
} kreg_bisect_commit;

/* A step taken (a bisect_steps row), in order. */
typedef struct {
	kreg_bisect_role role;
	kreg_bisect_oid id;		/* revert: the revert commit (zero when it did not apply) */
	kreg_bisect_oid reverts;	/* revert: the culprit it reverts */
	unsigned runs;		/* runs done for this step */
	int failed;		/* revert: the culprit does not revert cleanly on bad */
} kreg_bisect_event;

typedef struct {
	unsigned runs_per_step;	/* first runs at a commit; the ends too */
	unsigned max_runs;	/* budget of runs at one commit */
	unsigned batch;		/* more runs asked at a time when unsure */
	unsigned max_builds;	/* distinct commits built, ends included */
	int verify_revert;	/* build and run the culprit reverted on bad */
	kreg_direction direction;	/* of good for the metric */
	double floor;		/* the ends must differ by this much (relative) */
	double alpha;		/* and by a rank test at this level */
	double search_error;	/* accepted error of a search verdict */
	double verify_error;	/* accepted error of the culprit's and parents' verdicts */
	double min_confidence;	/* a culprit is named only this sure; else inconclusive */
	int absolute_scale;	/* judge on the metric's own scale even when every
				 * value is positive (the old way: the bench compares) */
	int pooled_screen;	/* screen a commit's runs with the pooled noise alone,
				 * even when it drops most of them (before the
				 * per-side scale of issue 14: the bench compares) */
} kreg_bisect_params;

/* The defaults; from kreg.yaml: usecase/judge_opts.h. */
void kreg_bisect_params_default(kreg_bisect_params *p);

typedef struct {
	kreg_bisect_oid good, bad;
	kreg_bisect_params params;
	const kreg_bisect_commit *commits;	/* any order; the ends among them once run */
	size_t ncommits;
	const kreg_bisect_event *events;
	size_t nevents;
} kreg_bisect_state;

typedef struct {
	int done;

	/* Not done: run `runs` more times at commit, in role (a verification
	 * may ask 0: the runs stored there are enough to check it; its row is
	 * the check). When make_revert is set, first make the commit
	 * reverting `commit` on the bad end (kernel/repo.h: kreg_repo_revert)
	 * and run there. */
	kreg_bisect_role role;
	kreg_bisect_oid commit;
	unsigned runs;
	int make_revert;
	const char *why;	/* what the runs are for, in words (a static string) */

	/* Done. */
	kreg_bisect_outcome outcome;
	kreg_bisect_oid culprit;		/* found */
	kreg_bisect_oid *candidates;		/* inconclusive: the first bad commit is one of */
	size_t ncandidates;
	double confidence;		/* found: 0..1 */
	char *message;			/* one line for people */
} kreg_bisect_action;

/* What to do next. <0 only for kreg's own failures (error set). */
int kreg_bisect_next(kreg_bisect_action *out, const kreg_bisect_graph *g,
		     const kreg_bisect_state *st);
void kreg_bisect_action_release(kreg_bisect_action *a);

/* The commits the search would test next once commit's verdict is in:
 * its next step if commit is good and if it is bad (git bisect's two
 * possible midpoints, one when both agree), for kernels built ahead while
 * commit runs. While the ends run (commit is one of them), the first step.
 * *n is 0, 1 or 2; a guess from the verdicts as they stand, never an
 * action. */
int kreg_bisect_ahead(kreg_bisect_oid out[2], size_t *n, const kreg_bisect_graph *g,
		      const kreg_bisect_state *st, const kreg_bisect_oid *commit);

/* The current judgement of one commit (for the steps' rows and the log). */
typedef struct {
	kreg_bisect_verdict verdict;
	double llr;		/* nats towards bad (> 0) or good (< 0) */
	double mean;		/* of its samples */
	size_t n;		/* samples */
	size_t kept;		/* of them, kept by the outlier screen */
	double noise;		/* pooled noise of the bisection: a stddev of the log
				 * of the values (relative) when log_scale, else absolute */
	int log_scale;		/* the values were judged as their logarithms (all
				 * positive): the noise is relative, the same both sides */
	double ref_good, ref_bad;	/* the references it was judged against (geometric
					 * means on the log scale) */
} kreg_bisect_judgement;

int kreg_bisect_judge(kreg_bisect_judgement *out, const kreg_bisect_graph *g,
		      const kreg_bisect_state *st, const kreg_bisect_oid *id);

#endif
