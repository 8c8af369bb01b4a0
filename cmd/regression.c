/* kreg regression: list, show and triage the regressions kreg found. A
 * person's mark (invalid, noise, duplicate, fixed) closes a regression: it
 * leaves the open list, `kreg status` and the mail; invalid and noise no
 * longer start a level for the detector; reopen takes it back. */
#include "cmd/cmd.h"

#include "db/commits.h"
#include "db/regressions.h"
#include "db/tries.h"
#include "usecase/triage.h"
#include "usecase/try.h"
#include "lib/err.h"
#include "lib/esc.h"
#include "lib/util.h"
#include "report/report.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
	"usage: kreg regression list [--all | --closed]\n"
	"       kreg regression show ID\n"
	"       kreg regression retest ID\n"
	"       kreg regression mark ID (invalid | noise | duplicate-of N | fixed-by SHA | reopen)\n"
	"                            [--note TEXT] [--by NAME]\n"
	"\n"
	"list    the open regressions (found by kreg, not fixed, refuted or closed by a\n"
	"        person), newest first; --closed the others, --all every one\n"
	"show    one regression: what kreg found, every mark with who and why, and\n"
	"        the fixes tried (kreg try, the daemon) with their verdicts\n"
	"retest  run the culprit and its parent again (fresh runs, as many as the\n"
	"        comparison needs) and say whether the regression is still there\n"
	"mark    close a regression as invalid, noise or a duplicate of regression N,\n"
	"        or fixed by a commit (a sha or unique prefix of a stored commit, or a\n"
	"        full sha); reopen undoes the marks since it was last opened. Invalid\n"
	"        and noise no longer start a level for the detector; a closed\n"
	"        regression is not mailed. --by defaults to $USER.\n";

static const char *shown_state(const kreg_db_regression *r)
{
	return r->triage[0] ? r->triage : r->state;
}

/* Closed: a person's mark, or fixed, or refuted by the robot (the
 * pages' rule, kreg_report_state_closed). */
static int is_closed(const kreg_db_regression *r)
{
	return kreg_report_state_closed(shown_state(r));
}

/* The change a list prints is THE figure of the report model, the mail's
 * and the page's (kreg_report_regression_figure), said what it compares
 * when it is not the culprit against its parent. */
static int list(kreg_db *db, const kreg_config *cfg, int which)
{
	kreg_db_regression *v = NULL;
	size_t n = 0, shown = 0;

	if (kreg_db_regression_list(db, &v, &n, 0) < 0)
		return KREG_ERROR;
	for (size_t i = 0; i < n; i++) {
		const kreg_db_regression *r = &v[i];
		kreg_report_fig fig;

		if (which != 2 && is_closed(r) != which)
			continue;
		if (!shown++)
			printf("%-5s %-15s %8s %-12s %s\n", "ID", "STATE", "CHANGE", "CULPRIT",
			       "METRIC (JOB ON HOST)");
		kreg_report_regression_figure(&fig, db, cfg, r->id, r->change);
		kreg_fprintf_esc(stdout, "%-5lld %-15s %8s %-12.12s %s (%s on %s)%s%s%s\n",
				 (long long)r->id, shown_state(r), fig.text,
				 r->culprit_sha[0] ? r->culprit_sha : "-", r->metric, r->job, r->host,
				 fig.of_culprit ? "" : " [", fig.of_culprit ? "" : fig.what,
				 fig.of_culprit ? "" : "]");
	}
	if (!shown)
		printf("no %sregressions\n", which == 0 ? "open " : which == 1 ? "closed " : "");
	kreg_db_regression_list_free(v, n);
	return 0;
}

static void put_time(int64_t at)
{
	char buf[32];
	time_t t = (time_t)at;
	struct tm tm;

	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
	printf("%s", buf);
}

/* The culprit and its parent again: is the regression still there? */
static int retest(const kreg_config *cfg, kreg_db *db, int64_t id)
{
	kreg_try_retest_result r;
	int error;

	if ((error = kreg_try_retest(&r, cfg, db, id, kreg_opts.quiet ? NULL : stdout)) == 0) {
		kreg_fprintf_esc(stdout, "regression %lld: %s: %s %+.1f%% (last good %.12s %g, culprit "
				 "%.12s %g; %zu and %zu fresh runs): %s\n", (long long)id,
				 r.reproduced ? "reproduced" : r.cmp.verdict == KREG_VERDICT_UNKNOWN ?
				 "not settled" : "not reproduced", r.metric, 100 * r.cmp.change,
				 r.good, r.cmp.base.mean, r.culprit, r.cmp.cur.mean, r.cmp.base.n,
				 r.cmp.cur.n, r.cmp.reason);
	}
	kreg_try_retest_release(&r);
	return error;
}

/* The fixes tried (kreg try, the daemon), oldest first. */
static int show_tries(kreg_db *db, int64_t id)
{
	kreg_db_try *t = NULL;
	size_t n = 0;
	int error;

	if ((error = kreg_db_tries_list(db, &t, &n, id)) < 0)
		return error;
	printf("tries:%s\n", n ? "" : "    none");
	for (size_t i = 0; i < n; i++) {
		printf("  ");
		put_time(t[i].created);
		printf(" %s %.12s %s", t[i].source, t[i].fix_sha[0] ? t[i].fix_sha : "-",
		       t[i].verdict);
		if (isfinite(t[i].share))
			printf(" (%.0f%% recovered)", 100 * t[i].share);
		printf("\n");
	}
	kreg_db_tries_free(t, n);
	return 0;
}

static int show(kreg_db *db, const kreg_config *cfg, int64_t id)
{
	kreg_db_regression r;
	kreg_db_regression_mark_row *m = NULL;
	kreg_report_fig fig;
	size_t n = 0;
	int error;

	if ((error = kreg_db_regression_get(db, &r, id)) < 0)
		return error;
	kreg_report_regression_figure(&fig, db, cfg, id, r.change);
	kreg_fprintf_esc(stdout, "regression %lld: %s %s (%s on %s)\n", (long long)r.id,
			 r.metric, fig.text, r.job, r.host);
	printf("change:   %s, %s\n", fig.text, fig.what);
	printf("state:    %s%s\n", shown_state(&r), is_closed(&r) ? " (closed)" : " (open)");
	if (r.triage[0])
		printf("found:    %s\n", r.state);
	if (r.duplicate_of)
		printf("duplicate of: regression %lld\n", (long long)r.duplicate_of);
	if (r.fixed_by[0])
		printf("fixed by: %s\n", r.fixed_by);
	kreg_fprintf_esc(stdout, "repo:     %s\n", r.repo ? r.repo : "-");
	printf("range:    %.12s..%.12s\n", r.base_sha, r.bad_sha);
	printf("culprit:  %s\n", r.culprit_sha[0] ? r.culprit_sha : "-");
	if ((error = kreg_db_regression_marks(db, &m, &n, id)) < 0)
		goto done;
	printf("marks:%s\n", n ? "" : "    none");
	for (size_t i = 0; i < n; i++) {
		printf("  ");
		put_time(m[i].at);
		kreg_fprintf_esc(stdout, " %s%s%s by %s (was %s)%s%s\n", m[i].mark,
				 m[i].arg ? " " : "", m[i].arg ? m[i].arg : "",
				 m[i].who ? m[i].who : "?",
				 m[i].triage_before[0] ? m[i].triage_before : m[i].state_before,
				 m[i].note ? ": " : "", m[i].note ? m[i].note : "");
	}
	error = show_tries(db, id);
done:
	kreg_db_regression_marks_free(m, n);
	kreg_db_regression_release(&r);
	return error;
}

static int parse_id(int64_t *id, const char *s)
{
	long long v;

	if (kreg_parse_ll(&v, s, "regression id") < 0 || v <= 0) {
		kreg_error_set("'%s' is not a regression id", s);
		return KREG_EUSAGE;
	}
	*id = v;
	return 0;
}

static int mark(kreg_db *db, int argc, char **argv, const char *note, const char *who)
{
	const char *what = argv[1], *mark, *arg = NULL;
	char sha[41];
	int64_t id;
	int changed, error;

	if ((error = parse_id(&id, argv[0])) < 0)
		return error;
	if (!strcmp(what, "invalid") || !strcmp(what, "noise") || !strcmp(what, "reopen")) {
		mark = what;
		if (argc != 2)
			goto usage;
	} else if (!strcmp(what, "duplicate-of") || !strcmp(what, "fixed-by")) {
		mark = what[0] == 'd' ? "duplicate" : "fixed";
		if (argc != 3)
			goto usage;
		arg = argv[2];
	} else {
		goto usage;
	}
	if ((error = kreg_triage_mark(db, &changed, sha, id, mark, arg, note, who)) < 0)
		return error;
	if (!strcmp(mark, "fixed"))
		arg = sha;
	printf(changed ? "regression %lld: %s%s%s\n" : "regression %lld: %s%s%s already\n",
	       (long long)id, mark, arg ? " " : "", arg ? arg : "");
	return 0;
usage:
	kreg_error_set("mark: say one of invalid, noise, duplicate-of N, fixed-by SHA, reopen "
		       "(after the regression's id)");
	return KREG_EUSAGE;
}

int cmd_regression(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "closed", no_argument, NULL, 'c' },
		{ "note", required_argument, NULL, 'n' },
		{ "by", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub, *note = NULL, *who = getenv("USER");
	int opt, which = 0, error = 0, ret = KREG_EXIT_FAIL;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2)
		return kreg_cmd_usage(usage, "regression: say list, show or mark");
	sub = argv[1];
	/* options anywhere after the subcommand (GNU permutation, which
	 * optind = 0 starts afresh), which is getopt's argv[0] */
	argc--;
	argv++;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': which = 2; break;
		case 'c': which = 1; break;
		case 'n': note = optarg; break;
		case 'b': who = optarg; break;
		default:
			return kreg_cmd_usage(usage, "regression: unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (strcmp(sub, "list") && strcmp(sub, "show") && strcmp(sub, "mark") &&
	    strcmp(sub, "retest"))
		return kreg_cmd_usage(usage, "regression: unknown subcommand '%s'", sub);
	if ((!strcmp(sub, "list") && argc) || (!strcmp(sub, "show") && argc != 1) ||
	    (!strcmp(sub, "retest") && argc != 1) ||
	    (!strcmp(sub, "mark") && argc < 2))
		return kreg_cmd_usage(usage, "regression %s: wrong arguments", sub);
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_cmd_open_db(&db, cfg, strcmp(sub, "mark") && strcmp(sub, "retest") ?
			     KREG_DB_READONLY : 0) < 0)
		goto done;
	if (!strcmp(sub, "list")) {
		error = list(db, cfg, which);
	} else if (!strcmp(sub, "retest")) {
		int64_t id;

		error = parse_id(&id, argv[0]);
		if (!error)
			error = retest(cfg, db, id);
	} else if (!strcmp(sub, "show")) {
		int64_t id;

		error = parse_id(&id, argv[0]);
		if (!error)
			error = show(db, cfg, id);
	} else {
		error = mark(db, argc, argv, note, who);
	}
	if (error == KREG_EUSAGE) {
		ret = kreg_cmd_usage(usage, "%s", kreg_error_last());
		goto done;
	}
	if (error < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	ret = KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
