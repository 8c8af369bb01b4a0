/* The lab's static web site over the report model: index, one page per
 * regression, per job and metric on a branch (an inline SVG trend chart,
 * no script), per tested commit and per host, and regressions.json for
 * other tools. Links are relative, so the site works from any path or
 * from the file system. Pages are written atomically (a temporary file,
 * then rename) and only when their content changed. */
#ifndef KREG_WEB_H
#define KREG_WEB_H

#include "config/config.h"
#include "db/db.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
	const char *output;		/* NULL: cfg->web.output, else <data_dir>/site */
	int force;			/* write every page, changed or not */
	int quiet;			/* no progress lines */
} kreg_web_opts;

typedef struct {
	size_t pages;			/* files the site has */
	size_t written;			/* of them, written this time (changed or new) */
	size_t removed;			/* stale pages removed */
	uint64_t bytes;			/* total size of the site's files */
	uint64_t biggest;		/* the biggest file's size */
	char biggest_name[128];
	size_t regressions, trends, commits, hosts;
} kreg_web_stats;

/* Generate (or bring up to date) the site from the database. stats may be
 * NULL. */
int kreg_web_generate(kreg_db *db, const kreg_config *cfg, const kreg_web_opts *opts,
		      kreg_web_stats *stats);

/* The directory the site goes to (caller frees). */
char *kreg_web_output(const kreg_config *cfg, const char *output);

#endif
