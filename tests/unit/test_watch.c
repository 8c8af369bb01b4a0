/* daemon/watch.c: the stamp of a local repository's branch refs, the look
 * the daemon takes before fetching it. Real git repositories, changed by
 * the git program the way a push changes them: every move of a branch
 * changes the stamp, nothing else does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "daemon/daemon.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char dir[64];
	char *work, *bare, *wt;
} fixture;

/* git ARGS... (NULL-terminated), which must succeed */
static void git(const char *first, ...)
{
	const char *argv[24] = { "git", "-c", "user.name=t", "-c", "user.email=t@example.org" };
	kreg_spawn_opts o = { .argv = argv, .timeout = 60 };
	kreg_spawn_result r;
	size_t n = 5;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && n < 23; a = va_arg(ap, const char *))
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	assert_int_equal(kreg_spawn(&r, &o), 0);
	assert_true(r.exited);
	assert_int_equal(r.status, 0);
}

static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-watch-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->work = kreg_path_join(f->dir, "work");
	f->bare = kreg_path_join(f->dir, "bare.git");
	f->wt = kreg_path_join(f->dir, "wt");
	git("init", "-q", "-b", "main", f->work, NULL);
	git("-C", f->work, "commit", "-q", "--allow-empty", "-m", "one", NULL);
	git("-C", f->work, "commit", "-q", "--allow-empty", "-m", "two", NULL);
	git("clone", "-q", "--bare", f->work, f->bare, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	kreg_rm_rf(f->dir);
	free(f->work);
	free(f->bare);
	free(f->wt);
	free(f);
	return 0;
}

static uint64_t stamp_of(const char *url)
{
	kreg_repo_cfg rc = { .name = "r", .url = (char *)url };
	uint64_t s = 0;

	assert_int_equal(kreg_daemon_repo_stamp(&rc, &s), 1);
	return s;
}

static int stamps(const char *url)
{
	kreg_repo_cfg rc = { .name = "r", .url = (char *)url };
	uint64_t s = 0;

	return kreg_daemon_repo_stamp(&rc, &s);
}

static void every_move_changes_the_stamp(void **state)
{
	fixture *f = *state;
	uint64_t s0 = stamp_of(f->bare), s;

	/* nothing moved: the same stamp, however often it is taken */
	assert_true(stamp_of(f->bare) == s0);
	/* reading the repository moves nothing */
	git("-C", f->bare, "log", "-q", "--oneline", "main", NULL);
	assert_true(stamp_of(f->bare) == s0);

	/* a push */
	git("-C", f->work, "commit", "-q", "--allow-empty", "-m", "three", NULL);
	git("-C", f->work, "push", "-q", f->bare, "main", NULL);
	s = stamp_of(f->bare);
	assert_true(s != s0);
	assert_true(stamp_of(f->bare) == s);

	/* a new branch, in a folder of its own */
	git("-C", f->work, "push", "-q", f->bare, "main:refs/heads/topic/a", NULL);
	s0 = s;
	s = stamp_of(f->bare);
	assert_true(s != s0);

	/* a force-push */
	git("-C", f->work, "push", "-q", "--force", f->bare, "HEAD~2:main", NULL);
	s0 = s;
	s = stamp_of(f->bare);
	assert_true(s != s0);

	/* the refs packed (loose files gone, packed-refs written) */
	git("-C", f->bare, "pack-refs", "--all", NULL);
	s0 = s;
	s = stamp_of(f->bare);
	assert_true(s != s0);

	/* a packed branch moved: only packed-refs and a loose file change */
	git("-C", f->work, "push", "-q", "--force", f->bare, "HEAD~1:refs/heads/topic/a", NULL);
	s0 = s;
	s = stamp_of(f->bare);
	assert_true(s != s0);

	/* a branch deleted */
	git("-C", f->bare, "update-ref", "-d", "refs/heads/topic/a", NULL);
	s0 = s;
	s = stamp_of(f->bare);
	assert_true(s != s0);
	assert_true(stamp_of(f->bare) == s);
}

static void only_local_repositories_have_one(void **state)
{
	fixture *f = *state;
	char *url = kreg_asprintf("file://%s", f->bare);

	/* file:// is the same repository */
	assert_true(stamp_of(url) == stamp_of(f->bare));
	/* a work tree's repository is its .git */
	assert_int_equal(stamps(f->work), 1);
	/* remotes, relative paths, what is not a repository: fetch */
	assert_int_equal(stamps("https://git.example.org/linux.git"), 0);
	assert_int_equal(stamps("ssh://git@example.org/linux.git"), 0);
	assert_int_equal(stamps("linux.git"), 0);
	assert_int_equal(stamps(f->dir), 0);
	/* a linked worktree (a .git file): its refs are elsewhere */
	git("-C", f->work, "worktree", "add", "-q", f->wt, "HEAD", NULL);
	assert_int_equal(stamps(f->wt), 0);
	free(url);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(every_move_changes_the_stamp, setup, teardown),
		cmocka_unit_test_setup_teardown(only_local_repositories_have_one, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
