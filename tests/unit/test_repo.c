/* kernel/repo: a bare mirror of a real git repository, fetched with libgit2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/repo.h"
#include "db/commits.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[64];

static void git(const char *cwd, const char *a1, const char *a2, const char *a3, const char *a4)
{
	const char *argv[] = { "git", "-c", "user.name=Test Author", "-c",
			       "user.email=author@example.org", "-c", "init.defaultBranch=master",
			       a1, a2, a3, a4, NULL };
	kreg_spawn_opts o = { .argv = argv, .cwd = cwd };
	kreg_spawn_result r;

	assert_int_equal(kreg_spawn(&r, &o), 0);
	assert_true(r.exited && r.status == 0);
}

static void commit(const char *src, const char *file, const char *msg)
{
	char *path = kreg_path_join(src, file);

	assert_int_equal(kreg_write_file_atomic(path, msg, strlen(msg)), 0);
	git(src, "add", file, NULL, NULL);
	git(src, "commit", "-qm", msg, NULL);
	free(path);
}

static void mirror_fetch_resolve_record(void **state)
{
	kreg_config cfg;
	kreg_repo_cfg rc;
	char *branches[] = { "master" };
	char *src, *data, *dbpath;
	kreg_repo *r;
	kreg_db *db;
	char oid[KREG_REPO_SHA_SIZE], oid2[KREG_REPO_SHA_SIZE];
	kreg_commit_row row;
	int64_t id, repo_id;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/kreg-test-repo-XXXXXX");
	assert_non_null(mkdtemp(dir));
	src = kreg_path_join(dir, "src");
	data = kreg_path_join(dir, "data");
	dbpath = kreg_path_join(dir, "kreg.db");
	assert_int_equal(kreg_mkdir_p(src, 0755), 0);
	git(src, "init", "-q", NULL, NULL);
	commit(src, "a.c", "first");
	commit(src, "b.c", "block: reduce kblockd_mod_delayed_work_on() CPU consumption");

	memset(&cfg, 0, sizeof(cfg));
	memset(&rc, 0, sizeof(rc));
	cfg.path = "test";
	cfg.data_dir = data;
	rc.name = "linux";
	rc.url = src;
	rc.branches = branches;
	rc.nbranches = 1;
	cfg.repos = &rc;
	cfg.nrepos = 1;

	assert_int_equal(kreg_repo_open(&r, &cfg, "nope"), KREG_ENOTFOUND);
	assert_int_equal(kreg_repo_open(&r, &cfg, "linux"), 0);
	assert_true(kreg_str_endswith(kreg_repo_path(r), "data/repos/linux.git"));
	assert_int_equal(kreg_repo_resolve(r, oid, "master"), 0);
	assert_int_equal(kreg_repo_resolve(r, oid2, "master~1"), 0);
	assert_int_equal(kreg_repo_resolve(r, oid2, "no-such-branch"), KREG_ENOTFOUND);
	assert_non_null(strstr(kreg_error_last(), "no-such-branch"));

	assert_int_equal(kreg_db_open(&db, dbpath, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	assert_int_equal(kreg_repo_record(r, db, &id, oid), 0);
	assert_int_equal(kreg_db_repo_find(db, &repo_id, "linux"), 0);
	assert_int_equal(kreg_db_commit_find(db, &row, repo_id, oid), 0);
	assert_int_equal(row.id, id);
	assert_string_equal(row.subject, "block: reduce kblockd_mod_delayed_work_on() CPU consumption");
	assert_string_equal(row.author_name, "Test Author");
	assert_int_equal(strlen(row.parents), 40);
	kreg_db_commit_release(&row);

	/* A new upstream commit appears after a fetch, not before. */
	commit(src, "c.c", "third");
	assert_int_equal(kreg_repo_resolve(r, oid2, "master"), 0);
	assert_string_equal(oid, oid2);
	assert_int_equal(kreg_repo_fetch(r), 0);
	assert_int_equal(kreg_repo_resolve(r, oid2, "master"), 0);
	assert_string_not_equal(oid, oid2);
	kreg_repo_close(r);

	/* Reopening uses the existing mirror. */
	assert_int_equal(kreg_repo_open(&r, &cfg, "linux"), 0);
	assert_int_equal(kreg_repo_resolve(r, oid, "master~2"), 0);
	kreg_repo_close(r);

	/* Read only: the mirror as it is, its branches, pushes, commits, trees. */
	assert_int_equal(kreg_repo_open_mirror(&r, &cfg, "absent"), KREG_ENOTFOUND);
	assert_int_equal(kreg_repo_open_mirror(&r, &cfg, "linux"), 0);
	{
		char **names, head[KREG_REPO_SHA_SIZE], base[KREG_REPO_SHA_SIZE], sha[KREG_REPO_SHA_SIZE];
		size_t n, nwalked = 0;
		kreg_repo_walk *w;
		kreg_repo_commit c;
		kreg_repo_change *ch;
		kreg_repo_tree *t;
		char *text;
		size_t len;
		int forced;

		assert_int_equal(kreg_repo_branches(r, &names, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(names[0], "master");
		kreg_repo_names_free(names, n);
		assert_int_equal(kreg_repo_branch_head(r, head, "master"), 0);
		assert_int_equal(kreg_repo_branch_head(r, sha, "nope"), KREG_ENOTFOUND);
		assert_int_equal(kreg_repo_resolve(r, oid, "master~2"), 0);
		assert_int_equal(kreg_repo_push(r, &forced, base, head, oid), 0);
		assert_false(forced);
		assert_int_equal(kreg_repo_push(r, &forced, base, oid, head), 0);
		assert_true(forced);
		assert_string_equal(base, oid);
		assert_int_equal(kreg_repo_walk_new(&w, r, head, oid, 0), 0);
		while (kreg_repo_walk_next(w, sha) == 1)
			nwalked++;
		kreg_repo_walk_free(w);
		assert_int_equal(nwalked, 2);
		assert_int_equal(kreg_repo_commit_read(r, &c, head), 0);
		assert_string_equal(c.subject, "third");
		assert_string_equal(c.author_name, "Test Author");
		kreg_repo_commit_release(&c);
		assert_int_equal(kreg_repo_changes(r, &ch, &n, head, KREG_REPO_RENAMES), 0);
		assert_int_equal(n, 1);
		assert_string_equal(ch[0].new_path, "c.c");
		kreg_repo_changes_free(ch, n);
		assert_int_equal(kreg_repo_tree_open(&t, r, head), 0);
		assert_int_equal(kreg_repo_tree_file(t, &text, &len, "b.c"), 0);
		assert_int_equal(len, strlen(text));
		assert_non_null(strstr(text, "kblockd"));
		free(text);
		assert_int_equal(kreg_repo_tree_file(t, &text, &len, "MAINTAINERS"), KREG_ENOTFOUND);
		assert_false(kreg_repo_tree_is_dir(t, "a.c"));
		kreg_repo_tree_free(t);
		assert_true(kreg_repo_record(r, db, &id, head) < 0);	/* only read */
	}
	kreg_repo_close(r);

	/* An unreachable url: a clear error naming the repo, and no half mirror. */
	rc.name = "gone";
	rc.url = "/nonexistent/linux";
	assert_true(kreg_repo_open(&r, &cfg, "gone") < 0);
	assert_non_null(strstr(kreg_error_last(), "repo 'gone'"));
	{
		char *half = kreg_path_join(data, "repos/gone.git");

		assert_false(kreg_path_exists(half));
		free(half);
	}

	kreg_db_close(db);
	kreg_rm_rf(dir);
	free(src);
	free(data);
	free(dbpath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mirror_fetch_resolve_record),
	};

	return cmocka_run_group_tests_name("repo", tests, NULL, NULL);
}
