/* A comparison of commits from the database (or of sample files), written
 * once for `kreg compare`, the web pages and the mail: one column per
 * commit, the first the base, each the samples of one atom's OK runs on one
 * host at that commit, ready for stats/compare.h's table. */
#ifndef KREG_USECASE_COMPARE_H
#define KREG_USECASE_COMPARE_H

#include "config/config.h"
#include "db/db.h"
#include "stats/matrix.h"

#include <stddef.h>
#include <stdint.h>

/* The rows a commit's column is read from. */
typedef struct {
	int64_t repo_id, job_id, host_id;
} kreg_compare_rows;

/* Names to rows: repo (NULL: the only one configured), the atom's name and
 * the host's. Each missing one is an error naming it. */
int kreg_compare_rows_find(kreg_compare_rows *out, const kreg_config *cfg, kreg_db *db,
			   const char *repo, const char *job, const char *host);

/* One commit's column (sha or unique prefix; labelled with the full sha):
 * every metric of its OK runs. KREG_ENOTFOUND when the commit or its runs
 * are not there. *out is the caller's (kreg_stats_matrix_free). */
int kreg_compare_commit(kreg_stats_matrix **out, kreg_db *db, const kreg_compare_rows *rows,
			const char *commit);

/* The columns of a comparison, in order. */
typedef struct {
	kreg_stats_matrix **cols;
	size_t ncols;
} kreg_comparison;

/* What `kreg compare` compares: each source a sample matrix file when a
 * file by that name exists (labelled as LKP labels a matrix.json: its
 * result directory), else a commit whose runs of job on host are read from
 * db. db may be NULL: it is then opened (and closed) when a commit is named.
 * job and host may be NULL when every source is a file. */
typedef struct {
	const char *repo, *job, *host;
	char *const *sources;
	size_t nsources;
} kreg_compare_spec;

int kreg_compare_load(kreg_comparison *out, const kreg_config *cfg, kreg_db *db,
		      const kreg_compare_spec *spec);
void kreg_comparison_release(kreg_comparison *c);

#endif
