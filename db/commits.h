/* Repositories, branches and commits as rows: what the daemon has seen. */
#ifndef KREG_DB_COMMITS_H
#define KREG_DB_COMMITS_H

#include "db/db.h"

#include <stdint.h>

typedef struct {
	int64_t id;
	int64_t repo_id;
	char sha[41];
	char tree[41];
	char *parents;		/* space-separated shas */
	char *author_name, *author_email;
	int64_t author_time;
	char *committer_name, *committer_email;
	int64_t committer_time;
	char *subject;		/* untrusted: escape before HTML, check before mail headers */
} kreg_commit_row;

int kreg_db_repo_id(kreg_db *db, int64_t *id, const char *name, const char *url);
int kreg_db_repo_find(kreg_db *db, int64_t *id, const char *name);

/* Insert the commit when new (by repo and sha); *id is its row either way. */
int kreg_db_commit_put(kreg_db *db, int64_t *id, const kreg_commit_row *c);
/* By full sha, or a unique prefix of at least 7 hex digits. */
int kreg_db_commit_find(kreg_db *db, kreg_commit_row *out, int64_t repo_id, const char *sha);
int kreg_db_commit_get(kreg_db *db, kreg_commit_row *out, int64_t id);
void kreg_db_commit_release(kreg_commit_row *c);

/* The branch's last seen head (NULL when never polled; caller frees). */
int kreg_db_branch_head(kreg_db *db, char **sha, int64_t repo_id, const char *branch);
int kreg_db_branch_set_head(kreg_db *db, int64_t repo_id, const char *branch, const char *sha);

#endif
