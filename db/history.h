/* A metric's history along a branch: the first-parent line of commits from
 * a head back, with the values of the metric in the OK runs of a job on a
 * host at each commit. What change points and the detector read. */
#ifndef KREG_DB_HISTORY_H
#define KREG_DB_HISTORY_H

#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
	size_t ncommits;	/* oldest first; the head is the last */
	int64_t *commit_ids;
	char **shas;
	char **subjects;	/* untrusted: escape before showing */
	size_t *offset;		/* ncommits + 1: runs of commit i are values[offset[i] .. offset[i + 1]) */
	double *values;
	size_t nvalues;
} kreg_db_history;

/* Walk the first parents from head (a full sha of repo_id's commits table)
 * back, at most max_commits commits (0: all), and collect the metric's
 * values of the OK runs of (job_id, host_id) at each, oldest run first. A
 * commit without runs is kept with none. KREG_ENOTFOUND when head is not
 * a known commit. *out is the caller's (kreg_db_history_release). */
int kreg_db_history_load(kreg_db *db, kreg_db_history *out, int64_t repo_id, const char *head,
			 size_t max_commits, int64_t job_id, int64_t host_id, const char *metric);
/* The same, walking on past max_commits while fewer than min_tested
 * commits of the line have OK runs of (job_id, host_id): a push of many
 * untested commits (100,000 in a line) does not cut a head off from the
 * tested commits below them. min_tested 0: kreg_db_history_load. */
int kreg_db_history_load_until(kreg_db *db, kreg_db_history *out, int64_t repo_id,
			       const char *head, size_t max_commits, size_t min_tested,
			       int64_t job_id, int64_t host_id, const char *metric);
void kreg_db_history_release(kreg_db_history *h);
/* The index of the commit with this sha (or unique prefix) in h; -1 when
 * it is not on the line. For the detector's `since`. */
long kreg_db_history_find(const kreg_db_history *h, const char *sha);

/* The metrics the OK runs of (job_id, host_id) have samples of, sorted by
 * name; *names is the caller's (free each, then the array). */
int kreg_db_history_metrics(kreg_db *db, char ***names, size_t *n, int64_t job_id,
			    int64_t host_id);

#endif
