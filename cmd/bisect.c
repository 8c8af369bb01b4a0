/* kreg bisect: start, resume, status and log of bisections. The work is
 * usecase/bisect_driver.c (running) and bisect/ (deciding). */
#include "cmd/cmd.h"

#include "usecase/bisect_driver.h"
#include "db/bisect.h"
#include "hosts/host.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "stats/compare.h"
#include "usecase/judge_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
	"usage: kreg bisect start --repo R --good G --bad B --job ATOM --host H --metric M\n"
	"                         [--kconfig NAME] [--no-run]\n"
	"       kreg bisect resume ID\n"
	"       kreg bisect step ID       one action (runs at one commit, or the outcome)\n"
	"       kreg bisect status [ID]\n"
	"       kreg bisect log ID\n"
	"\n"
	"start runs the bisection to its end, printing each step (--no-run: only\n"
	"creates it); a bisection that was interrupted (even killed) continues with\n"
	"resume, reusing its samples; step does one action of it and exits.\n";

/* Subjects and names are untrusted: nothing that moves a terminal's cursor. */
static void put_clean(const char *s)
{
	for (; s && *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static size_t count_words(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (*s != ' ' && (s[1] == ' ' || !s[1]))
			n++;
	return n;
}

static int parse_id(int64_t *id, const char *s)
{
	long long v;

	if (kreg_parse_ll(&v, s, "bisection id") < 0 || v <= 0) {
		kreg_cmd_error("'%s' is not a bisection id", s);
		return KREG_EUSAGE;
	}
	*id = v;
	return 0;
}

static const char *sim_label(const kreg_db_bisection *b)
{
	return kreg_host_backend_simulated(b->backend) ? " (sim: simulated samples)" : "";
}

static const char *outcome_of(const kreg_db_bisection *b)
{
	return b->state ? b->state : "?";
}

static int cmd_start(kreg_config *cfg, kreg_db *db, int argc, char **argv)
{
	kreg_bisect_request req;
	int64_t id;
	int no_run = 0;

	memset(&req, 0, sizeof(req));
	for (int i = 2; i < argc; i++) {
		const char **slot = NULL;
		const char *a = argv[i];

		if (!strcmp(a, "--no-run")) {
			no_run = 1;
			continue;
		}
		if (!strcmp(a, "--repo"))
			slot = &req.repo;
		else if (!strcmp(a, "--good"))
			slot = &req.good;
		else if (!strcmp(a, "--bad"))
			slot = &req.bad;
		else if (!strcmp(a, "--job"))
			slot = &req.job;
		else if (!strcmp(a, "--host"))
			slot = &req.host;
		else if (!strcmp(a, "--metric"))
			slot = &req.metric;
		else if (!strcmp(a, "--kconfig"))
			slot = &req.kconfig;
		else
			return kreg_cmd_usage(usage, "bisect start: unknown option '%s'", a);
		if (++i >= argc)
			return kreg_cmd_usage(usage, "bisect start: %s needs a value", a);
		*slot = argv[i];
	}
	if (!req.repo || !req.good || !req.bad || !req.job || !req.host || !req.metric)
		return kreg_cmd_usage(usage, "bisect start: --repo, --good, --bad, --job, --host "
				      "and --metric are all needed");
	if (kreg_bisect_driver_start(&id, cfg, db, &req) < 0) {
		kreg_cmd_error(NULL);
		return KREG_EXIT_FAIL;
	}
	printf("bisection %lld started\n", (long long)id);
	fflush(stdout);
	if (no_run)
		return KREG_EXIT_OK;
	if (kreg_bisect_driver_run(cfg, db, id, stdout) < 0) {
		kreg_cmd_error("bisection %lld stopped: %s (continue with `kreg bisect resume %lld`)",
			       (long long)id, kreg_error_last(), (long long)id);
		return KREG_EXIT_FAIL;
	}
	return KREG_EXIT_OK;
}

static int cmd_resume(kreg_config *cfg, kreg_db *db, int64_t id)
{
	if (kreg_bisect_driver_run(cfg, db, id, stdout) < 0) {
		kreg_cmd_error("bisection %lld stopped: %s", (long long)id, kreg_error_last());
		return KREG_EXIT_FAIL;
	}
	return KREG_EXIT_OK;
}

static int cmd_step(kreg_config *cfg, kreg_db *db, int64_t id)
{
	int over;

	if (kreg_bisect_driver_step(cfg, db, id, stdout, &over) < 0) {
		kreg_cmd_error("bisection %lld stopped: %s", (long long)id, kreg_error_last());
		return KREG_EXIT_FAIL;
	}
	if (!over)
		printf("bisection %lld goes on: `kreg bisect step %lld` again, or resume\n",
		       (long long)id, (long long)id);
	return KREG_EXIT_OK;
}

static void print_outcome(const kreg_db_bisection *b)
{
	printf("  state:    %s\n", outcome_of(b));
	if (b->culprit_sha[0])
		printf("  culprit:  %s (confidence %.4f)\n", b->culprit_sha, b->confidence);
	if (b->candidates) {
		printf("  candidates (the first bad commit is one of):\n");
		for (const char *p = b->candidates; *p;) {
			size_t n = strcspn(p, " ");

			printf("    %.*s\n", (int)n, p);
			p += n;
			while (*p == ' ')
				p++;
		}
	}
	if (b->message) {
		printf("  message:  ");
		put_clean(b->message);
		putchar('\n');
	}
	printf("  cost:     %d builds, %d runs\n", b->builds, b->runs);
}

static int bisect_status(kreg_db *db, int argc, char **argv)
{
	kreg_db_bisection *v = NULL, one;
	size_t n = 0;
	int64_t id;

	if (argc > 3)
		return kreg_cmd_usage(usage, "bisect status: too many arguments");
	if (argc == 3) {
		if (parse_id(&id, argv[2]) < 0)
			return KREG_EXIT_USAGE;
		if (kreg_db_bisection_get(db, &one, id) < 0) {
			kreg_cmd_error(NULL);
			return KREG_EXIT_FAIL;
		}
		printf("bisection %lld%s\n", (long long)one.id, sim_label(&one));
		if (one.recovers)	/* usecase/recovery.h: its sense reversed */
			printf("  recovery of regression %lld: the first commit back at the "
			       "level before it\n", (long long)one.recovers);
		printf("  repo:     %s\n  good:     %s\n  bad:      %s\n", one.repo, one.good_sha,
		       one.bad_sha);
		printf("  job:      ");
		put_clean(one.job);
		printf("\n  metric:   %s\n  host:     %s (%s)\n", one.metric, one.host, one.backend);
		print_outcome(&one);
		kreg_db_bisection_release(&one);
		return KREG_EXIT_OK;
	}
	if (kreg_db_bisection_list(db, &v, &n) < 0) {
		kreg_cmd_error(NULL);
		return KREG_EXIT_FAIL;
	}
	if (!n)
		printf("no bisections yet\n");
	for (size_t i = 0; i < n; i++) {
		kreg_db_bisection *b = &v[i];

		printf("%4lld  %-14s %s %.12s..%.12s  %s on %s%s  %d builds %d runs", (long long)b->id,
		       outcome_of(b), b->repo, b->good_sha, b->bad_sha, b->metric, b->host,
		       sim_label(b), b->builds, b->runs);
		if (b->culprit_sha[0])
			printf("  culprit %.12s", b->culprit_sha);
		else if (b->candidates)
			printf("  %zu candidates", count_words(b->candidates));
		if (b->recovers)
			printf("  (recovery of regression %lld)", (long long)b->recovers);
		putchar('\n');
	}
	kreg_db_bisection_list_free(v, n);
	return KREG_EXIT_OK;
}

/* "n=5 mean=1000.3 ..." -> 5 and 1000.3 */
static void detail_numbers(const char *detail, long long *n, double *mean)
{
	const char *p;

	*n = -1;
	*mean = 0;
	if (!detail)
		return;
	if ((p = strstr(detail, "n=")))
		*n = strtoll(p + 2, NULL, 10);
	if ((p = strstr(detail, "mean=")))
		*mean = strtod(p + 5, NULL);
}

static int cmd_log(kreg_config *cfg, kreg_db *db, int64_t id)
{
	kreg_db_bisection b;
	kreg_db_bisect_step *steps = NULL;
	size_t n = 0;
	kreg_bisect_params params;
	kreg_direction dir;

	if (kreg_db_bisection_get(db, &b, id) < 0 || kreg_db_bisect_steps(db, &steps, &n, id) < 0) {
		kreg_cmd_error(NULL);
		kreg_db_bisection_release(&b);
		return KREG_EXIT_FAIL;
	}
	kreg_judge_bisect_params(&params, cfg, b.metric);
	dir = params.direction;
	printf("# bisection %lld of %s on host %s%s\n", (long long)id, b.repo, b.host, sim_label(&b));
	printf("# job ");
	put_clean(b.job);
	printf(", metric %s (%s)\n", b.metric, kreg_stats_direction_phrase(dir));
	printf("# good %s\n# bad  %s\n", b.good_sha, b.bad_sha);
	printf("# %3s  %-14s  %-12s  %-7s  %4s  %4s  %12s  %s\n", "seq", "role", "commit", "verdict",
	       "runs", "n", "mean", "subject");
	for (size_t i = 0; i < n; i++) {
		kreg_db_bisect_step *s = &steps[i];
		long long ns;
		double mean;

		detail_numbers(s->detail, &ns, &mean);
		printf("  %3d  %-14s  %.12s  %-7s  %4d  ", s->seq, s->role, s->sha, s->verdict, s->runs);
		if (ns >= 0)
			printf("%4lld  %12.6g  ", ns, mean);
		else
			printf("%4s  %12s  ", "-", "-");
		put_clean(s->subject);
		if (s->of_sha[0] && strcmp(s->of_sha, s->sha))
			printf("  [reverts %.12s]", s->of_sha);
		if (s->detail && strstr(s->detail, " for=")) {
			printf("  [for: ");
			put_clean(strstr(s->detail, " for=") + 5);
			putchar(']');
		}
		if (s->detail && !strncmp(s->detail, "does not", 8)) {
			printf("  [");
			put_clean(s->detail);
			putchar(']');
		}
		putchar('\n');
	}
	printf("# %s", outcome_of(&b));
	if (b.culprit_sha[0])
		printf(": %s is the first bad commit (confidence %.4f)", b.culprit_sha, b.confidence);
	putchar('\n');
	if (b.candidates) {
		printf("# the first bad commit is one of: ");
		put_clean(b.candidates);
		putchar('\n');
	}
	if (b.message) {
		/* found: the line above says it; the message adds its notes */
		const char *notes = b.culprit_sha[0] ? strstr(b.message, "; ") : b.message;

		if (notes) {
			printf("# ");
			put_clean(notes[0] == ';' ? notes + 2 : notes);
			putchar('\n');
		}
	}
	printf("# cost: %d builds, %d runs%s\n", b.builds, b.runs,
	       sim_label(&b)[0] ? " (sim host: nothing was built or run)" : "");
	kreg_db_bisect_steps_free(steps, n);
	kreg_db_bisection_release(&b);
	return KREG_EXIT_OK;
}

int cmd_bisect(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	const char *sub;
	int64_t id = 0;
	int ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2)
		return kreg_cmd_usage(usage, "bisect: which subcommand?");
	sub = argv[1];
	if (!strcmp(sub, "resume") || !strcmp(sub, "log") || !strcmp(sub, "step")) {
		if (argc != 3)
			return kreg_cmd_usage(usage, "bisect %s: which bisection (ID)?", sub);
		if (parse_id(&id, argv[2]) < 0)
			return KREG_EXIT_USAGE;
	} else if (strcmp(sub, "start") && strcmp(sub, "status")) {
		return kreg_cmd_usage(usage, "bisect: unknown subcommand '%s'", sub);
	}
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	/* status and log only read: a read-only database will do */
	if (kreg_cmd_open_db(&db, cfg, !strcmp(sub, "start") ? KREG_DB_CREATE | KREG_DB_MIGRATE :
				       !strcmp(sub, "status") || !strcmp(sub, "log") ?
				       KREG_DB_READONLY : 0) < 0)
		goto done;
	if (!strcmp(sub, "start"))
		ret = cmd_start(cfg, db, argc, argv);
	else if (!strcmp(sub, "resume"))
		ret = cmd_resume(cfg, db, id);
	else if (!strcmp(sub, "step"))
		ret = cmd_step(cfg, db, id);
	else if (!strcmp(sub, "status"))
		ret = bisect_status(db, argc, argv);
	else
		ret = cmd_log(cfg, db, id);
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
