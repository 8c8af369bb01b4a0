/* kreg compare: the 0-day comparison table of two or more sample sets,
 * from matrix files (LKP's matrix.json form, JSON or YAML) or from the
 * samples of commits in the database. */
#include "cmd.h"

#include "db/commits.h"
#include "db/results.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "stats/compare.h"
#include "stats/matrix.h"
#include "usecase/judge_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg compare [--all] [--json] FILE FILE [FILE...]\n"
	"       kreg compare [--all] [--json] --job JOB --host HOST [--repo REPO] COMMIT COMMIT [COMMIT...]\n"
	"\n"
	"  The first column is the base; each other is compared to it.\n"
	"  FILE      a sample matrix: {\"metric\": [v1, v2, ...]} in JSON or YAML\n"
	"  COMMIT    a sha (or unique prefix) whose runs of JOB on HOST are in the database\n"
	"  --all     list every metric, not only the changed ones\n"
	"  --json    machine-readable output, with the verdicts\n"
	"  --job     the atomic job's name; --host: the host's name\n"
	"  --repo    the repository (default: the only one configured)\n";

/* The label LKP would show for a matrix file: its result directory when
 * the file is matrix.json (or stats.json), else the file name without
 * its extension. */
static char *file_label(const char *path)
{
	const char *base = strrchr(path, '/');
	char *label;
	size_t len;

	base = base ? base + 1 : path;
	if (!strncmp(base, "matrix.", 7) || !strncmp(base, "stats.", 6)) {
		const char *end = base - 1, *start;

		if (base != path && end > path) {
			start = end;
			while (start > path && start[-1] != '/')
				start--;
			if (end > start)
				return kreg_strndup(start, (size_t)(end - start));
		}
	}
	label = kreg_strdup(base);
	len = strlen(label);
	for (const char *const *ext = (const char *const[]){ ".json", ".yaml", ".yml", NULL }; *ext; ext++)
		if (kreg_str_endswith(label, *ext)) {
			label[len - strlen(*ext)] = '\0';
			break;
		}
	return label;
}

static int load_commit(kreg_stats_matrix **out, kreg_db *db, int64_t repo_id, int64_t job_id,
		       int64_t host_id, const char *sha)
{
	kreg_commit_row c = { 0 };
	kreg_samples *runs = NULL;
	size_t nruns = 0;
	kreg_stats_matrix *m = NULL;
	int error;

	if ((error = kreg_db_commit_find(db, &c, repo_id, sha)) < 0)
		return error;
	if ((error = kreg_db_runs_samples(db, &runs, &nruns, job_id, host_id, c.id)) < 0)
		goto done;
	if (!nruns) {
		kreg_error_set("%s: no successful runs of this job on this host", sha);
		error = KREG_ENOTFOUND;
		goto done;
	}
	m = kreg_stats_matrix_new(c.sha);
	for (size_t i = 0; i < nruns; i++)
		for (size_t k = 0; k < runs[i].count; k++)
			kreg_stats_matrix_add(m, runs[i].items[k].metric, runs[i].items[k].value);
	*out = m;
	error = 0;
done:
	for (size_t i = 0; i < nruns; i++)
		kreg_samples_free(&runs[i]);
	free(runs);
	kreg_db_commit_free(&c);
	return error;
}

static int resolve_repo(int64_t *repo_id, kreg_db *db, const kreg_config *cfg, const char *repo)
{
	if (!repo) {
		if (cfg->nrepos != 1) {
			kreg_error_set("%zu repositories are configured: say which with --repo",
				       cfg->nrepos);
			return KREG_EUSAGE;
		}
		repo = cfg->repos[0].name;
	}
	if (kreg_db_repo_find(db, repo_id, repo) < 0) {
		kreg_error_set("repository '%s' is not in the database", repo);
		return KREG_ENOTFOUND;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'J' },
		{ "job", required_argument, NULL, 'j' },
		{ "host", required_argument, NULL, 'H' },
		{ "repo", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *job = NULL, *host = NULL, *repo = NULL;
	kreg_stats_table_opts topts = { 0 };
	kreg_stats_opts sopts = { 0 };
	kreg_stats_matrix **cols = NULL;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	kreg_buf out = KREG_BUF_INIT;
	int64_t repo_id = 0, job_id = 0, host_id = 0;
	int json = 0, opt, ret = KREG_EXIT_FAIL;
	size_t ncols = 0, shown = 0;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+ajJH:r:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': topts.all = 1; break;
		case 'J': json = 1; break;
		case 'j': job = optarg; break;
		case 'H': host = optarg; break;
		case 'r': repo = optarg; break;
		default:
			return kreg_cmd_usage(usage, "compare: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return kreg_cmd_usage(usage, "compare: needs two sample sets at least");
	if (!!job != !!host)
		return kreg_cmd_usage(usage, "compare: --job and --host go together");
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	kreg_judge_stats_opts(&sopts, cfg);
	topts.stats = &sopts;

	cols = kreg_calloc((size_t)(argc - optind), sizeof(*cols));
	for (int i = optind; i < argc; i++) {
		const char *arg = argv[i];

		if (kreg_path_exists(arg)) {
			char *label;

			if (kreg_stats_matrix_load(&cols[ncols], arg, NULL) < 0)
				goto fail;
			label = file_label(arg);
			free(cols[ncols]->label);
			cols[ncols++]->label = label;
			continue;
		}
		if (!job) {
			kreg_cmd_error("%s: no such file (to compare commits, give --job and --host)", arg);
			goto done;
		}
		if (!db) {
			if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
				goto done;
			if (resolve_repo(&repo_id, db, cfg, repo) < 0)
				goto fail;
			if (kreg_db_job_find(db, &job_id, job) < 0) {
				kreg_cmd_error("job '%s' has no runs in the database", job);
				goto done;
			}
			if (kreg_db_host_find(db, &host_id, host) < 0) {
				kreg_cmd_error("host '%s' is not in the database", host);
				goto done;
			}
		}
		if (load_commit(&cols[ncols], db, repo_id, job_id, host_id, arg) < 0)
			goto fail;
		ncols++;
	}

	if ((json ? kreg_stats_table_json(&out, &shown, cols, ncols, &topts)
		  : kreg_stats_table(&out, &shown, cols, ncols, &topts)) < 0)
		goto fail;
	fputs(kreg_buf_cstr(&out), stdout);
	if (!json && !shown && !kreg_opts.quiet)
		fprintf(stderr, "kreg: no metric changed (--all lists them all)\n");
	ret = KREG_EXIT_OK;
	goto done;
fail:
	kreg_cmd_error(NULL);
done:
	for (size_t i = 0; i < ncols; i++)
		kreg_stats_matrix_free(cols[i]);
	free(cols);
	kreg_buf_free(&out);
	kreg_db_close(db);
	kreg_judge_stats_opts_free(&sopts);
	kreg_config_free(cfg);
	return ret;
}
