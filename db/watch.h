/* What the daemon's watch saw: every move of a watched branch (pushes,
 * force-pushes included) and each repo's last poll. */
#ifndef KREG_DB_WATCH_H
#define KREG_DB_WATCH_H

#include "db/db.h"

#include <stdint.h>

/* A branch moved from old_sha (NULL: first seen) to new_sha; forced: old
 * is not an ancestor of new, base_sha their merge base (NULL when none). */
int kreg_db_push_add(kreg_db *db, int64_t repo_id, const char *branch, const char *old_sha,
		     const char *new_sha, int forced, const char *base_sha);
/* The repo was polled now; error NULL when the fetch went well. */
int kreg_db_repo_polled(kreg_db *db, int64_t repo_id, const char *error);

typedef struct {
	const char *repo, *url, *branch, *head;	/* head NULL: not seen yet */
	const char *poll_error;			/* NULL: the last poll went well */
	int64_t polled_at;
	int pushes, forced;			/* moves seen, force-pushes among them */
} kreg_db_branch_status;
typedef int (*kreg_db_branch_cb)(const kreg_db_branch_status *b, void *arg);
/* Every branch of every repo (repos not polled yet have none). */
int kreg_db_branches_status(kreg_db *db, kreg_db_branch_cb cb, void *arg);

#endif
