/* kreg changes: change points of a metric's history along a branch's
 * first-parent line, and what the detector makes of the newest commits. */
#include "cmd/cmd.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "stats/compare.h"
#include "usecase/changes.h"

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
	"  Steps (with the range to bisect) and drifts (with their slope) of METRIC\n"
	"  (every metric of JOB on HOST when not given)\n"
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

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *noise_json(const kreg_metric_noise *n)
{
	json_t *o = json_object();

	json_object_set_new(o, "rsd", real_or_null(n->rsd));
	json_object_set_new(o, "df", json_integer((json_int_t)n->df));
	json_object_set_new(o, "baseline_runs", json_integer((json_int_t)n->base_runs));
	json_object_set_new(o, "runs", json_integer(n->runs));
	json_object_set_new(o, "floor", json_real(n->floor));
	json_object_set_new(o, "mde", real_or_null(n->mde));
	json_object_set_new(o, "max_runs", json_integer(n->max_runs));
	json_object_set_new(o, "mde_max_runs", real_or_null(n->mde_max));
	json_object_set_new(o, "runs_for_5pct", n->runs_for_5 ? json_integer(n->runs_for_5) :
				json_null());
	return o;
}

static json_t *metric_json(const kreg_metric_changes *mc)
{
	const kreg_db_history *h = &mc->h;
	const kreg_stats_detection *det = &mc->det;
	json_t *m = json_object(), *arr = json_array(), *d = json_object();

	json_object_set_new(m, "metric", json_string(mc->metric));
	json_object_set_new(m, "commits", json_integer((json_int_t)h->ncommits));
	json_object_set_new(m, "commits_with_runs", json_integer((json_int_t)mc->with_runs));
	json_object_set_new(m, "runs", json_integer((json_int_t)h->nvalues));
	for (size_t i = 0; i < mc->ncp; i++) {
		const kreg_stats_change_point *cp = &mc->cp[i];
		json_t *c = json_object();

		json_object_set_new(c, "commit", json_string(h->shas[cp->index]));
		json_object_set_new(c, "prev", json_string(h->shas[cp->prev]));
		json_object_set_new(c, "bisect_good", json_string(h->shas[cp->good]));
		json_object_set_new(c, "bisect_bad", json_string(h->shas[cp->bad]));
		json_object_set_new(c, "subject", json_string(h->subjects[cp->index] ?
							       h->subjects[cp->index] : ""));
		json_object_set_new(c, "before", json_real(cp->before));
		json_object_set_new(c, "after", json_real(cp->after));
		json_object_set_new(c, "change", json_real(cp->change));
		json_object_set_new(c, "pvalue", json_real(cp->pvalue));
		json_array_append_new(arr, c);
	}
	json_object_set_new(m, "change_points", arr);
	arr = json_array();
	for (size_t i = 0; i < mc->ndrifts; i++) {
		const kreg_stats_drift *dr = &mc->drifts[i];
		json_t *o = json_object();

		json_object_set_new(o, "first", json_string(h->shas[dr->first]));
		json_object_set_new(o, "last", json_string(h->shas[dr->last]));
		json_object_set_new(o, "commits", json_integer((json_int_t)(dr->last - dr->first + 1)));
		json_object_set_new(o, "from", json_real(dr->from));
		json_object_set_new(o, "to", json_real(dr->to));
		json_object_set_new(o, "change", json_real(dr->change));
		json_object_set_new(o, "slope", json_real(dr->slope));
		json_object_set_new(o, "rel_slope", json_real(dr->rel_slope));
		json_array_append_new(arr, o);
	}
	json_object_set_new(m, "drifts", arr);
	json_object_set_new(d, "action", json_string(kreg_stats_detect_action_name(det->action)));
	if (h->ncommits && det->action != KREG_DETECT_WAIT)
		json_object_set_new(d, "commit", json_string(h->shas[det->index]));
	if (det->action == KREG_DETECT_MORE_RUNS)
		json_object_set_new(d, "runs", json_integer(det->runs));
	if (det->action == KREG_DETECT_CHANGE) {
		json_object_set_new(d, "verdict", json_string(kreg_stats_verdict_name(det->verdict)));
		json_object_set_new(d, "prev", json_string(h->shas[det->prev]));
	}
	json_object_set_new(d, "reason", json_string(det->reason));
	json_object_set_new(m, "detector", d);
	json_object_set_new(m, "noise", noise_json(&mc->noise));
	return m;
}

/* How small a change the detector sees: the numbers a lab tunes by. */
static void noise_print(const kreg_metric_noise *n)
{
	kreg_buf b = KREG_BUF_INIT;

	kreg_metric_noise_text(&b, n);
	printf("  noise: %s\n", kreg_buf_cstr(&b));
	kreg_buf_release(&b);
}

static void metric_print(const kreg_metric_changes *mc)
{
	const kreg_db_history *h = &mc->h;
	const kreg_stats_detection *det = &mc->det;
	char a[13];

	printf("%s: %zu commits, %zu with runs, %zu runs\n", mc->metric, h->ncommits,
	       mc->with_runs, h->nvalues);
	if (!mc->ncp && !mc->ndrifts)
		printf("  no change points\n");
	for (size_t i = 0; i < mc->ncp; i++) {
		const kreg_stats_change_point *cp = &mc->cp[i];
		char g[13], b[13], *subject = printable(h->subjects[cp->index]);

		printf("  %s %+7.1f%%  %.6g -> %.6g  p=%.2g  bisect %s..%s  %s\n",
		       short_sha(a, h->shas[cp->index]), 100 * cp->change, cp->before, cp->after,
		       cp->pvalue, short_sha(g, h->shas[cp->good]), short_sha(b, h->shas[cp->bad]),
		       subject);
		free(subject);
	}
	for (size_t i = 0; i < mc->ndrifts; i++) {
		const kreg_stats_drift *dr = &mc->drifts[i];
		char f[13], l[13];

		printf("  drift %s..%s %+6.1f%% over %zu commits: %+.3g%%/commit (%+.4g a commit)  %.6g -> %.6g\n",
		       short_sha(f, h->shas[dr->first]), short_sha(l, h->shas[dr->last]),
		       100 * dr->change, dr->last - dr->first + 1, 100 * dr->rel_slope, dr->slope,
		       dr->from, dr->to);
	}
	printf("  newest: %s", kreg_stats_detect_action_name(det->action));
	if (h->ncommits && det->action != KREG_DETECT_WAIT && det->action != KREG_DETECT_NONE)
		printf(" at %s", short_sha(a, h->shas[det->index]));
	printf(": %s\n", det->reason);
	noise_print(&mc->noise);
}

static void changes_json(const kreg_changes *ch, const kreg_changes_spec *spec)
{
	json_t *root = json_object(), *arr = json_array();
	char *text;

	for (size_t i = 0; i < ch->nmetrics; i++)
		json_array_append_new(arr, metric_json(&ch->metrics[i]));
	json_object_set_new(root, "repo", json_string(ch->repo));
	if (ch->branch)
		json_object_set_new(root, "branch", json_string(ch->branch));
	json_object_set_new(root, "head", json_string(ch->head));
	json_object_set_new(root, "job", json_string(spec->job));
	json_object_set_new(root, "host", json_string(spec->host));
	json_object_set_new(root, "metrics", arr);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	if (!text)
		kreg_die("out of memory");
	puts(text);
	free(text);
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
	kreg_changes_spec spec = { 0 };
	kreg_changes ch = { 0 };
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	long long limit = 0;
	int opt, json = 0, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+j:H:m:r:b:c:n:J", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': spec.job = optarg; break;
		case 'H': spec.host = optarg; break;
		case 'm': spec.metric = optarg; break;
		case 'r': spec.repo = optarg; break;
		case 'b': spec.branch = optarg; break;
		case 'c': spec.head = optarg; break;
		case 'J': json = 1; break;
		case 'n':
			if (kreg_parse_ll(&limit, optarg, "--limit") < 0 || limit < 2) {
				kreg_cmd_error("--limit: '%s' is not a number of commits (2 or more)", optarg);
				return KREG_EXIT_USAGE;
			}
			spec.limit = (size_t)limit;
			break;
		default:
			return kreg_cmd_usage(usage, "changes: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "changes: unexpected argument '%s'", argv[optind]);
	if (!spec.job || !spec.host)
		return kreg_cmd_usage(usage, "changes: --job and --host are needed");
	if (spec.branch && spec.head)
		return kreg_cmd_usage(usage, "changes: --branch or --head, not both");
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
		goto done;
	if (kreg_changes_load(&ch, cfg, db, &spec) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (json) {
		changes_json(&ch, &spec);
	} else {
		printf("%s %s: %s on %s\n", ch.repo, ch.branch ? ch.branch : ch.head, spec.job,
		       spec.host);
		for (size_t i = 0; i < ch.nmetrics; i++)
			metric_print(&ch.metrics[i]);
	}
	ret = KREG_EXIT_OK;
done:
	kreg_changes_release(&ch);
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
