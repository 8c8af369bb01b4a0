/* A person's triage of a regression (triage.h). */
#include "usecase/triage.h"

#include "db/commits.h"
#include "db/regressions.h"
#include "db/work.h"
#include "kernel/repo.h"
#include "usecase/try.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixing commit as a full sha: a stored commit of the regression's
 * repo (sha or unique prefix), else a full sha of one kreg has not seen. */
static int fixing_sha(kreg_db *db, char out[41], int64_t repo_id, const char *spec)
{
	kreg_commit_row c = { 0 };
	size_t len = strlen(spec);

	if (repo_id && kreg_db_commit_find(db, &c, repo_id, spec) == 0) {
		snprintf(out, 41, "%s", c.sha);
		kreg_db_commit_release(&c);
		return 0;
	}
	kreg_error_clear();
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)spec[i]))
			len = 0;
	if (len != 40) {
		kreg_error_set("fixed-by '%s': not a stored commit of the regression's repo, nor a "
			       "full sha", spec);
		return KREG_EINVAL;
	}
	for (size_t i = 0; i <= len; i++)
		out[i] = (char)tolower((unsigned char)spec[i]);
	return 0;
}

int kreg_triage_mark(kreg_db *db, int *changed, char *fixed_sha, int64_t id, const char *mark,
		     const char *arg, const char *note, const char *who)
{
	kreg_db_regression r;
	char sha[41];
	int error;

	*changed = 0;
	if (strcmp(mark, "invalid") && strcmp(mark, "noise") && strcmp(mark, "reopen") &&
	    strcmp(mark, "duplicate") && strcmp(mark, "fixed")) {
		kreg_error_set("mark: say one of invalid, noise, duplicate-of N, fixed-by SHA, reopen");
		return KREG_EUSAGE;
	}
	if (!strcmp(mark, "duplicate")) {
		long long v;

		if (!arg || kreg_parse_ll(&v, arg, "regression id") < 0 || v <= 0) {
			kreg_error_set("duplicate of '%s': not a regression id", arg ? arg : "");
			return KREG_EINVAL;
		}
	}
	if (!strcmp(mark, "fixed")) {
		if (!arg) {
			kreg_error_set("fixed by what? name the fixing commit");
			return KREG_EINVAL;
		}
		if ((error = kreg_db_regression_get(db, &r, id)) < 0)
			return error;
		error = fixing_sha(db, sha, r.repo_id, arg);
		kreg_db_regression_release(&r);
		if (error < 0)
			return error;
		arg = sha;
		if (fixed_sha)
			memcpy(fixed_sha, sha, sizeof(sha));
	}
	return kreg_db_regression_mark(db, changed, id, mark, arg, note, who);
}

int kreg_triage_queue_patch(kreg_db *db, const kreg_config *cfg, int64_t *work_id, char *fix_sha,
			    char **why, int64_t id, const char *patch, size_t len, const char *tag)
{
	kreg_db_regression r;
	kreg_repo *repo = NULL;
	int64_t commit_id = 0;
	char *key = NULL;
	int rc, error;

	*work_id = 0;
	*why = NULL;
	fix_sha[0] = '\0';
	if ((error = kreg_db_regression_get(db, &r, id)) < 0)
		return error;
	if (!r.culprit_commit_id || !r.culprit_sha[0]) {
		*why = kreg_asprintf("regression %lld has no culprit (state %s): nothing to try a "
				     "patch on", (long long)id, r.state);
		error = 1;
		goto done;
	}
	if ((error = kreg_repo_open(&repo, cfg, r.repo)) < 0)
		goto done;
	rc = kreg_repo_apply(repo, fix_sha, patch, len, r.culprit_sha);
	if (rc == 1) {
		*why = kreg_asprintf("the patch does not apply on culprit %.12s: %s", r.culprit_sha,
				     kreg_error_last());
		kreg_error_clear();
		error = 1;
		goto done;
	}
	if ((error = rc) < 0 || (error = kreg_repo_record(repo, db, &commit_id, fix_sha)) < 0)
		goto done;
	key = kreg_work_key_try(id, commit_id);
	{
		/* a patch sent to kreg (daemon/work_try.c) */
		kreg_work_new w = { .kind = KREG_WORK_TRY, .key = key, .commit_id = commit_id,
				    .host_id = r.host_id, .regression_id = id,
				    .seq = kreg_try_source_seq("patch"),
				    .config_name = tag, .priority = KREG_PRIO_BISECT };

		error = kreg_db_work_add(db, work_id, NULL, &w);
	}
done:
	free(key);
	kreg_repo_close(repo);
	kreg_db_regression_release(&r);
	return error;
}

int kreg_triage_queue_retest(kreg_db *db, int64_t *work_id, int64_t id, const char *tag)
{
	kreg_db_regression r;
	char *key;
	int error;

	*work_id = 0;
	if ((error = kreg_db_regression_get(db, &r, id)) < 0)
		return error;
	if (!r.culprit_commit_id) {
		kreg_error_set("regression %lld has no culprit (state %s): nothing to run again",
			       (long long)id, r.state);
		kreg_db_regression_release(&r);
		return KREG_EINVAL;
	}
	key = kreg_asprintf("retest:%lld:%s", (long long)id, tag);
	{
		kreg_work_new w = { .kind = KREG_WORK_TRY, .key = key,
				    .commit_id = r.culprit_commit_id, .host_id = r.host_id,
				    .regression_id = id, .seq = kreg_try_source_seq("retest"), .priority = KREG_PRIO_BISECT };

		error = kreg_db_work_add(db, work_id, NULL, &w);
	}
	free(key);
	kreg_db_regression_release(&r);
	return error;
}
