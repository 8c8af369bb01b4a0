/* The lab's results as a KCIDB document (KernelCI's common results
 * database, I/O schema 5.3): checkouts (each tested commit), builds (each
 * kernel built, and a stand-in for the runs of a host that builds none),
 * tests (each run's metrics, DONE with a number; failed runs FAIL or
 * ERROR), issues (each regression) and incidents (the tests a regression
 * shows in). A reader of the database and the report model, like web/ and
 * mail/; docs/kcidb.md says what goes where.
 *
 * Every id is "<origin>:..." (kcidb.origin of kreg.yaml) made of what
 * never changes in the database (row ids, shas, names), so an object
 * exported twice has the same id both times. */
#ifndef KREG_KCIDB_H
#define KREG_KCIDB_H

#include "config/config.h"
#include "db/db.h"
#include "lib/buf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
	int64_t since;		/* only what was stored at or after it (seconds
				 * since the epoch); 0: everything */
} kreg_kcidb_opts;

typedef struct {
	size_t checkouts, builds, tests, issues, incidents;
} kreg_kcidb_stats;

/* The document, as JSON text, written to f as it is made (a stream of a
 * failed export holds a part of one: the caller drops it). stats may be
 * NULL. */
int kreg_kcidb_export(FILE *f, kreg_db *db, const kreg_config *cfg,
		      const kreg_kcidb_opts *opts, kreg_kcidb_stats *stats);

/* --since: "@SECONDS" or SECONDS, an ISO 8601 date or time in UTC
 * (2026-12-01, 2026-12-01T18:00, 2026-12-01 18:00:00Z, ...+00:00), or a
 * duration with its unit (90m, 2h, 7d): that long before now. */
int kreg_kcidb_parse_time(int64_t *out, const char *s, int64_t now);

/* The pieces of the document, for the tests. */

/* s as valid UTF-8 (each byte that is not UTF-8 becomes U+FFFD), cut to
 * at most max bytes (0: all) at a character's start. The caller frees. */
char *kreg_kcidb_text(const char *s, size_t max);
/* A KCIDB test path (dot-separated [a-zA-Z0-9_-]+) from a kreg name,
 * appended to out: each other byte becomes '_', and so does '.' unless
 * dots says the name's dots separate components (an empty component
 * becomes "_"). */
void kreg_kcidb_path(kreg_buf *out, const char *name, int dots);
/* The unit of a metric by its name's ending, and the prefix KCIDB may
 * scale it with ("metric" for a unit without one); NULL: not known. */
void kreg_kcidb_unit(const char *metric, const char **unit, const char **prefix);

#endif
