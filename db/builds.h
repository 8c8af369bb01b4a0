/* Kernel builds: one row per (tree, kernel config hash), the artifact cache's
 * index. A tree and config are built once; the row says how it went. */
#ifndef KREG_DB_BUILDS_H
#define KREG_DB_BUILDS_H

#include "db/db.h"

#include <stdint.h>

typedef struct {
	int64_t id;
	int64_t commit_id;	/* the commit it was first built for */
	char *tree;		/* git tree id */
	char *config_name;
	char *config_hash;
	char *status;		/* "running", "ok", "failed" */
	char *artifact;		/* directory of bzImage, .config, build.log */
	char *log_tail;		/* the end of build.log when it failed */
	char *error;		/* one line: why it failed */
	double seconds;
	int64_t started, finished;
} kreg_db_build;

/* The build of (tree, config_hash); KREG_ENOTFOUND when there is none. */
int kreg_db_build_find(kreg_db *db, kreg_db_build *out, const char *tree,
		       const char *config_hash);

/* Start (or restart, when a row exists) the build of
 * (tree, config_hash) for commit_id: the row is "running"; *id is its id. */
int kreg_db_build_start(kreg_db *db, int64_t *id, int64_t commit_id, const char *tree,
			const char *config_name, const char *config_hash);
/* Finish it: status "ok" or "failed", with what it left behind. */
int kreg_db_build_finish(kreg_db *db, int64_t id, const char *status, const char *artifact,
			 const char *log_tail, const char *error, double seconds);

void kreg_db_build_release(kreg_db_build *b);

#endif
