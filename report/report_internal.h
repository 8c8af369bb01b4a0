/* Shared inside report/: a regression's life read from the database
 * (life.c), for kreg_report_regression_load. */
#ifndef KREG_REPORT_REPORT_INTERNAL_H
#define KREG_REPORT_REPORT_INTERNAL_H

#include "db/db.h"
#include "report/report.h"

/* r->life, r->fixed_by and r->fixed_share of the regressions row of r. */
int kreg_report__life_load(kreg_report_regression *r, kreg_db *db);
void kreg_report__life_free(kreg_report_regression *r);

#endif
