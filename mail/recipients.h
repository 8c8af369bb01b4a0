/* Who a regression's mail goes to: the culprit's author (To) and, when
 * configured, its committer; the people and lists the culprit tree's
 * MAINTAINERS names for the files it changes; the repo's maintainers and
 * mail.to / mail.cc. Every address is checked; one that is not plain
 * local@domain is left out with a warning. */
#ifndef KREG_MAIL_RECIPIENTS_H
#define KREG_MAIL_RECIPIENTS_H

#include "config/config.h"
#include "report/report.h"

#include <stddef.h>

typedef struct {
	char *name;		/* display name, untrusted, may be "" */
	char *address;		/* checked */
	int cc;			/* 0: To, 1: Cc */
	char *why;		/* "author", "maintainer:BLOCK LAYER", "mail.cc", ... */
} kreg_mail_rcpt;

typedef struct {
	kreg_mail_rcpt *items;
	size_t count, alloc;
} kreg_mail_rcpts;

int kreg_mail_recipients(kreg_mail_rcpts *out, const kreg_config *cfg,
			 const kreg_report_regression *r);
void kreg_mail_rcpts_release(kreg_mail_rcpts *v);

#endif
