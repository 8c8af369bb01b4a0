/* The regression e-mail in the 0-day robot's form, over the report model:
 * the subject "[repo:branch] [subsystem] sha10: metric -N.N% regression"
 * with the report's one figure (kreg_report_figure: the table's culprit
 * column), the opening line, the commit, the repo's public URL and branch,
 * the test (parameters as key: value lines, the kernel config by its
 * files' names), the tags a fix should carry (Reported-by, Closes), how to
 * reproduce it, 0-day's commit: block and the comparison table, the
 * bisection; headers from mail/header.h. Follow-ups (fixed, culprit
 * changed, the answer of a try of a fix) thread under the report's
 * Message-ID. */
#ifndef KREG_MAIL_MESSAGE_H
#define KREG_MAIL_MESSAGE_H

#include "config/config.h"
#include "db/tries.h"
#include "mail/recipients.h"
#include "report/report.h"

#include <stdint.h>

typedef enum {
	KREG_MAIL_FIRST,	/* the first mail of a regression, naming its culprit */
	KREG_MAIL_FIXED,	/* follow-up: the regression is gone */
	KREG_MAIL_CULPRIT,	/* follow-up: a new bisection named another culprit */
	KREG_MAIL_CONFIRMED,	/* the first mail of a regression confirmed but not
				 * (yet) bisected (mail.confirmed): no culprit */
	KREG_MAIL_BISECTED,	/* follow-up of a CONFIRMED one: the culprit found */
	KREG_MAIL_TRY,		/* follow-up: the answer of a try of a fix (db/tries.h) */
} kreg_mail_kind;

/* The outbox's word for a kind: first, fixed, culprit, confirmed, bisected, try. */
const char *kreg_mail_kind_name(kreg_mail_kind kind);

typedef struct {
	kreg_mail_kind kind;
	char *mail_key;		/* "r12", "h<hash>" (the first mail, FIRST or CONFIRMED),
				 * "r12.fixed", "r12.culprit.<sha12>" (CULPRIT, BISECTED),
				 * "r12.try.<try id>" (TRY) */
	char *subject;		/* as text (the header is encoded) */
	char *body;		/* plain text, '\n' lines */
	char *message;		/* headers and body, CRLF lines */
	char *message_id;	/* "<...>" */
	char *in_reply_to;	/* follow-ups: the report's Message-ID */
	char *from;		/* envelope sender */
	char **rcpts;		/* envelope recipients */
	size_t nrcpts;
} kreg_mail_message;

/* Whether r's change is a regression (its metric has a known direction and
 * moved the wrong way), not an improvement or a change of unknown sense. */
int kreg_mail_is_regression(const kreg_report_regression *r);

/* The outbox's name for a regression: "r<regressions id>", or for a culprit
 * found by hand (no regressions row) "h<hash of repo, job, host, metric,
 * culprit>", the same over every bisection that finds it again. */
void kreg_mail_regression_key(const kreg_report_regression *r, char *buf, size_t size);

/* The Message-ID of a regression's report (stable: the same regression in
 * the same lab always gives the same one). */
char *kreg_mail_message_id(const kreg_config *cfg, const kreg_report_regression *r,
			   kreg_mail_kind kind);

/* Compose. thread: the first mail's Message-ID for a follow-up (NULL for a
 * report or a confirmed one); old_culprit: the sha named before, for
 * KREG_MAIL_CULPRIT;
 * date: seconds since the epoch for the Date header. */
int kreg_mail_compose(kreg_mail_message *out, const kreg_config *cfg,
		      const kreg_report_regression *r, kreg_mail_kind kind, const char *thread,
		      const char *old_culprit, const kreg_mail_rcpts *rcpts, int64_t date);
/* The answer of try t of regression r, in its thread (thread: the first
 * mail's Message-ID): what was tried (the fix's commit, where it came
 * from), the verdict with the share recovered, and the table of the last
 * good, the culprit and the fix as the try made it; a patch that does not
 * apply and a fix that does not build are answered as such. Its key is
 * kreg_mail_try_key's. */
int kreg_mail_compose_try(kreg_mail_message *out, const kreg_config *cfg,
			  const kreg_report_regression *r, const kreg_db_try *t, const char *thread,
			  const kreg_mail_rcpts *rcpts, int64_t date);
/* The outbox's name of the answer of try try_id of the regression whose
 * first mail is key: "<key>.try.<try_id>". The caller frees. */
char *kreg_mail_try_key(const char *key, int64_t try_id);
void kreg_mail_message_release(kreg_mail_message *m);

#endif
