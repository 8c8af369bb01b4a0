/* kreg changes: change points of a metric's history along a branch's
 * first-parent line, and what the detector makes of the newest commits. */
#include "cmd.h"

#include "db/commits.h"
#include "db/history.h"
#include "db/results.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "stats/changes.h"
#include "stats/detect.h"
#include "usecase/judge_opts.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg changes --job JOB --host HOST [--metric METRIC] [--repo REPO]\n"
	"                    [--branch BRANCH | --head SHA] [--limit N] [--json]\n"
	"\n"
	"  Change points of METRIC (every metric of JOB on HOST when not given)\n"
	"  along the first-parent line of BRANCH, and the detector's view of the\n"
	"  newest commits.\n"
	"  --repo    the repository (default: the only one configured)\n"
	"  --branch  default: the repository's first configured branch\n"
	"  --head    start from this commit instead of the branch head\n"
	"  --limit   look at the newest N commits only (default: all)\n"
	"  --json    machine-readable output\n";

/* Commit subjects are untrusted: no control characters to the terminal. */
static char *printable(const char *s)
{
	char *p = kreg_strdup(s ? s : "");

	for (unsigned char *c = (unsigned char *)p; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			*c = '?';
	return p;
}

static const char *short_sha(char buf[13], const char *sha)
{
	snprintf(buf, 13, "%s", sha ? sha : "?");
	return buf;
}

typedef struct {
	kreg_db *db;
	const kreg_config *cfg;
	kreg_stats_opts stats;	/* from cfg */
	int64_t repo_id, job_id, host_id;
	const char *head;
	size_t limit;
	int json;
	json_t *jmetrics;
	size_t nfound;
} changes_ctx;

static int one_metric(changes_ctx *x, const char *metric)
{
	kreg_db_history h = { 0 };
	kreg_stats_change_point *cp = NULL;
	kreg_stats_detect_opts dopts = { 0 };
	kreg_stats_detection det;
	kreg_stats_history sh;
	size_t ncp = 0, with_runs = 0;
	int error;

	if ((error = kreg_db_history_load(x->db, &h, x->repo_id, x->head, x->limit, x->job_id,
					  x->host_id, metric)) < 0)
		return error;
	for (size_t i = 0; i < h.ncommits; i++)
		with_runs += h.offset[i + 1] > h.offset[i];
	sh = (kreg_stats_history){ h.ncommits, h.offset, h.values };
	if ((error = kreg_stats_change_points(&cp, &ncp, &sh, NULL)) < 0)
		goto done;
	dopts.since = ncp ? cp[ncp - 1].index : 0;
	if ((error = kreg_stats_detect(&det, &x->stats, metric, &sh, &dopts)) < 0)
		goto done;
	x->nfound += ncp;

	if (x->json) {
		json_t *m = json_object(), *arr = json_array(), *d = json_object();

		json_object_set_new(m, "metric", json_string(metric));
		json_object_set_new(m, "commits", json_integer((json_int_t)h.ncommits));
		json_object_set_new(m, "commits_with_runs", json_integer((json_int_t)with_runs));
		json_object_set_new(m, "runs", json_integer((json_int_t)h.nvalues));
		for (size_t i = 0; i < ncp; i++) {
			json_t *c = json_object();

			json_object_set_new(c, "commit", json_string(h.shas[cp[i].index]));
			json_object_set_new(c, "prev", json_string(h.shas[cp[i].prev]));
			json_object_set_new(c, "bisect_good", json_string(h.shas[cp[i].good]));
			json_object_set_new(c, "bisect_bad", json_string(h.shas[cp[i].bad]));
			json_object_set_new(c, "subject", json_string(h.subjects[cp[i].index] ?
								       h.subjects[cp[i].index] : ""));
			json_object_set_new(c, "before", json_real(cp[i].before));
			json_object_set_new(c, "after", json_real(cp[i].after));
			json_object_set_new(c, "change", json_real(cp[i].change));
			json_object_set_new(c, "pvalue", json_real(cp[i].pvalue));
			json_array_append_new(arr, c);
		}
		json_object_set_new(m, "change_points", arr);
		json_object_set_new(d, "action", json_string(kreg_stats_detect_action_name(det.action)));
		if (h.ncommits && det.action != KREG_DETECT_WAIT)
			json_object_set_new(d, "commit", json_string(h.shas[det.index]));
		if (det.action == KREG_DETECT_MORE_RUNS)
			json_object_set_new(d, "runs", json_integer(det.runs));
		if (det.action == KREG_DETECT_CHANGE) {
			json_object_set_new(d, "verdict", json_string(kreg_stats_verdict_name(det.verdict)));
			json_object_set_new(d, "prev", json_string(h.shas[det.prev]));
		}
		json_object_set_new(d, "reason", json_string(det.reason));
		json_object_set_new(m, "detector", d);
		json_array_append_new(x->jmetrics, m);
		goto done;
	}

	printf("%s: %zu commits, %zu with runs, %zu runs\n", metric, h.ncommits, with_runs, h.nvalues);
	if (!ncp)
		printf("  no change points\n");
	for (size_t i = 0; i < ncp; i++) {
		char a[13], g[13], b[13], *subject = printable(h.subjects[cp[i].index]);

		printf("  %s %+7.1f%%  %.6g -> %.6g  p=%.2g  bisect %s..%s  %s\n",
		       short_sha(a, h.shas[cp[i].index]), 100 * cp[i].change, cp[i].before,
		       cp[i].after, cp[i].pvalue, short_sha(g, h.shas[cp[i].good]),
		       short_sha(b, h.shas[cp[i].bad]), subject);
		free(subject);
	}
	{
		char a[13];

		printf("  newest: %s", kreg_stats_detect_action_name(det.action));
		if (h.ncommits && det.action != KREG_DETECT_WAIT && det.action != KREG_DETECT_NONE)
			printf(" at %s", short_sha(a, h.shas[det.index]));
		printf(": %s\n", det.reason);
	}
done:
	free(cp);
	kreg_db_history_free(&h);
	return error;
}

int cmd_changes(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "host", required_argument, NULL, 'H' },
		{ "metric", required_argument, NULL, 'm' },
		{ "repo", required_argument, NULL, 'r' },
		{ "branch", required_argument, NULL, 'b' },
		{ "head", required_argument, NULL, 'c' },
		{ "limit", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *job = NULL, *host = NULL, *metric = NULL, *repo = NULL, *branch = NULL;
	const char *head = NULL;
	changes_ctx x = { 0 };
	kreg_config *cfg = NULL;
	kreg_commit_row c = { 0 };
	char *branch_head = NULL, **metrics = NULL;
	size_t nmetrics = 0;
	long long limit = 0;
	int opt, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+j:H:m:r:b:c:n:J", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': job = optarg; break;
		case 'H': host = optarg; break;
		case 'm': metric = optarg; break;
		case 'r': repo = optarg; break;
		case 'b': branch = optarg; break;
		case 'c': head = optarg; break;
		case 'J': x.json = 1; break;
		case 'n':
			if (kreg_parse_ll(&limit, optarg, "--limit") < 0 || limit < 2) {
				kreg_cmd_error("--limit: '%s' is not a number of commits (2 or more)", optarg);
				return KREG_EXIT_USAGE;
			}
			break;
		default:
			return kreg_cmd_usage(usage, "changes: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "changes: unexpected argument '%s'", argv[optind]);
	if (!job || !host)
		return kreg_cmd_usage(usage, "changes: --job and --host are needed");
	if (branch && head)
		return kreg_cmd_usage(usage, "changes: --branch or --head, not both");
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	x.cfg = cfg;
	kreg_judge_stats_opts(&x.stats, cfg);
	x.limit = (size_t)limit;
	if (kreg_cmd_open_db(&x.db, cfg, KREG_DB_READONLY) < 0)
		goto done;

	if (!repo) {
		if (cfg->nrepos != 1) {
			kreg_cmd_error("%zu repositories are configured: say which with --repo", cfg->nrepos);
			goto done;
		}
		repo = cfg->repos[0].name;
	}
	if (kreg_db_repo_find(x.db, &x.repo_id, repo) < 0) {
		kreg_cmd_error("repository '%s' is not in the database", repo);
		goto done;
	}
	if (head) {
		if (kreg_db_commit_find(x.db, &c, x.repo_id, head) < 0)
			goto fail;
		head = c.sha;
	} else {
		if (!branch) {
			const kreg_repo_cfg *rc = kreg_config_repo(cfg, repo);

			if (!rc || !rc->nbranches) {
				kreg_cmd_error("no branch configured for '%s': say which with --branch", repo);
				goto done;
			}
			branch = rc->branches[0];
		}
		if (kreg_db_branch_head(x.db, &branch_head, x.repo_id, branch) < 0)
			goto fail;
		if (!branch_head) {
			kreg_cmd_error("branch '%s' of '%s' has not been polled yet", branch, repo);
			goto done;
		}
		head = branch_head;
	}
	x.head = head;
	if (kreg_db_job_find(x.db, &x.job_id, job) < 0) {
		kreg_cmd_error("job '%s' has no runs in the database", job);
		goto done;
	}
	if (kreg_db_host_find(x.db, &x.host_id, host) < 0) {
		kreg_cmd_error("host '%s' is not in the database", host);
		goto done;
	}
	if (!metric) {
		if (kreg_db_history_metrics(x.db, &metrics, &nmetrics, x.job_id, x.host_id) < 0)
			goto fail;
		if (!nmetrics) {
			kreg_cmd_error("job '%s' on '%s' has no samples", job, host);
			goto done;
		}
	}

	if (x.json)
		x.jmetrics = json_array();
	else
		printf("%s %s: %s on %s\n", repo, branch ? branch : head, job, host);
	if (metric) {
		if (one_metric(&x, metric) < 0)
			goto fail;
	} else {
		for (size_t i = 0; i < nmetrics; i++)
			if (one_metric(&x, metrics[i]) < 0)
				goto fail;
	}
	if (x.json) {
		json_t *root = json_object();
		char *text;

		json_object_set_new(root, "repo", json_string(repo));
		if (branch)
			json_object_set_new(root, "branch", json_string(branch));
		json_object_set_new(root, "head", json_string(head));
		json_object_set_new(root, "job", json_string(job));
		json_object_set_new(root, "host", json_string(host));
		json_object_set_new(root, "metrics", x.jmetrics);
		x.jmetrics = NULL;
		text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		json_decref(root);
		if (!text)
			kreg_die("out of memory");
		puts(text);
		free(text);
	}
	ret = KREG_EXIT_OK;
	goto done;
fail:
	kreg_cmd_error(NULL);
done:
	json_decref(x.jmetrics);
	for (size_t i = 0; i < nmetrics; i++)
		free(metrics[i]);
	free(metrics);
	free(branch_head);
	kreg_db_commit_free(&c);
	kreg_db_close(x.db);
	kreg_judge_stats_opts_free(&x.stats);
	kreg_config_free(cfg);
	return ret;
}
