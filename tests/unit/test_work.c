/* db/work.c: the work queue on a real SQLite file: order, lanes, leases,
 * retries with backoff, the worker's proof that it still holds its item,
 * host health. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "db/bisect.h"
#include "db/commits.h"
#include "db/db.h"
#include "db/results.h"
#include "db/work.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char dir[64];
	char *path;
	kreg_db *db;
	int64_t host1, host2;
} fixture;

static int setup(void **state)
{
	fixture *f = kreg_calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/kreg-test-work-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->path = kreg_path_join(f->dir, "kreg.db");
	if (kreg_db_open(&f->db, f->path, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return -1;
	if (kreg_db_host_id(f->db, &f->host1, "h1", "sim", 1, 0) < 0 ||
	    kreg_db_host_id(f->db, &f->host2, "h2", "sim", 1, 0) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	kreg_db_close(f->db);
	kreg_rm_rf(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static int64_t add(fixture *f, const char *kind, const char *key, int64_t host, int prio,
		   int64_t after)
{
	kreg_work_new w = { .key = key, .host_id = host, .priority = prio, .after_id = after };
	int64_t id = 0;
	int added = 0;

	assert_int_equal(kreg_work_kind_parse(&w.kind, kind), 0);

	assert_int_equal(kreg_db_work_add(f->db, &id, &added, &w), 0);
	assert_true(id > 0);
	return id;
}

/* The daemon's lanes: a host's runs and bisect steps, the builds (kind
 * "build"), the rest (kind NULL). */
static unsigned lane(int64_t host, const char *kind)
{
	if (host > 0)
		return KREG_WORK_KIND(KREG_WORK_RUN) | KREG_WORK_KIND(KREG_WORK_BISECT);
	if (kind) {
		kreg_work_kind k;

		assert_int_equal(kreg_work_kind_parse(&k, kind), 0);
		return KREG_WORK_KIND(k);
	}
	return KREG_WORK_KIND(KREG_WORK_DETECT) | KREG_WORK_KIND(KREG_WORK_SITE) |
	       KREG_WORK_KIND(KREG_WORK_MAIL);
}

static int64_t claim(fixture *f, int64_t host, const char *kind, int64_t now)
{
	kreg_work w;
	int found;
	int64_t id;

	assert_int_equal(kreg_db_work_claim(f->db, &w, &found, host, lane(host, kind), "me", now,
					    60), 0);
	if (!found)
		return 0;
	id = w.id;
	assert_string_equal(w.state, "running");
	assert_string_equal(w.lease_owner, "me");
	kreg_work_release(&w);
	return id;
}

static void same_key_is_one_item(void **state)
{
	fixture *f = *state;
	kreg_work_new w = { .kind = KREG_WORK_RUN, .key = "run:1", .host_id = f->host1 };
	int64_t a, b;
	int added;

	assert_int_equal(kreg_db_work_add(f->db, &a, &added, &w), 0);
	assert_int_equal(added, 1);
	assert_int_equal(kreg_db_work_add(f->db, &b, &added, &w), 0);
	assert_int_equal(added, 0);
	assert_int_equal(a, b);
	w.kind = KREG_WORK_NKINDS;	/* no name: refused */
	w.key = "x";
	assert_true(kreg_db_work_add(f->db, &b, &added, &w) < 0);
}

static void priority_then_age_per_lane(void **state)
{
	fixture *f = *state;
	int64_t head = add(f, "run", "head", f->host1, KREG_PRIO_HEAD, 0);
	int64_t other = add(f, "run", "other-host", f->host2, KREG_PRIO_BISECT, 0);
	int64_t bis = add(f, "bisect", "bisect", f->host1, KREG_PRIO_BISECT, 0);
	int64_t conf = add(f, "run", "confirm", f->host1, KREG_PRIO_CONFIRM, 0);
	int64_t det = add(f, "detect", "detect", f->host1, KREG_PRIO_DETECT, 0);
	int64_t build = add(f, "build", "build", 0, KREG_PRIO_BUILD, 0);
	int64_t mail = add(f, "mail", "mail", 0, KREG_PRIO_PUBLISH, 0);

	/* host 1's lane: bisect steps, then confirmation runs, then heads;
	 * never another host's item, never a detect item (it takes no host). */
	assert_int_equal(claim(f, f->host1, NULL, 100), bis);
	assert_int_equal(claim(f, f->host1, NULL, 100), conf);
	assert_int_equal(claim(f, f->host1, NULL, 100), head);
	assert_int_equal(claim(f, f->host1, NULL, 100), 0);
	assert_int_equal(claim(f, f->host2, NULL, 100), other);
	assert_int_equal(claim(f, 0, "build", 100), build);
	assert_int_equal(claim(f, 0, NULL, 100), det);
	assert_int_equal(claim(f, 0, NULL, 100), mail);
	assert_int_equal(claim(f, 0, NULL, 100), 0);
}

static void waits_for_its_build(void **state)
{
	fixture *f = *state;
	int64_t build = add(f, "build", "b", 0, KREG_PRIO_BUILD, 0);
	int64_t run = add(f, "run", "r", f->host1, 0, build);
	kreg_work w;

	assert_int_equal(claim(f, f->host1, NULL, 100), 0);
	assert_int_equal(claim(f, 0, "build", 100), build);
	assert_int_equal(claim(f, f->host1, NULL, 100), 0);
	assert_int_equal(kreg_db_work_get(f->db, &w, build), 0);
	assert_int_equal(kreg_db_work_finish(f->db, build, "me", w.attempts, "done", NULL), 0);
	kreg_work_release(&w);
	assert_int_equal(claim(f, f->host1, NULL, 100), run);
}

static void worker_proves_its_hold(void **state)
{
	fixture *f = *state;
	int64_t id = add(f, "run", "r", f->host1, 0, 0);
	kreg_work w;
	int held, count;

	assert_int_equal(claim(f, f->host1, NULL, 100), id);
	assert_int_equal(kreg_db_work_held(f->db, &held, id, "me", 1), 0);
	assert_int_equal(held, 1);
	assert_int_equal(kreg_db_work_held(f->db, &held, id, "me", 2), 0);
	assert_int_equal(held, 0);
	/* A new daemon takes it back: the old worker can no longer end it. */
	assert_int_equal(kreg_db_work_requeue_others(f->db, "new daemon", &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(kreg_db_work_finish(f->db, id, "me", 1, "done", NULL), KREG_ENOTFOUND);
	assert_non_null(strstr(kreg_error_last(), "taken back"));
	assert_int_equal(kreg_db_work_get(f->db, &w, id), 0);
	assert_string_equal(w.state, "queued");
	/* its worker died with its daemon: the attempt is not counted */
	assert_int_equal(w.attempts, 0);
	assert_non_null(strstr(w.error, "not counted"));
	kreg_work_release(&w);
	/* Claimed again by the new daemon it is attempt 1 under the new
	 * owner: the old worker (me, 1) still cannot end it; it ends once. */
	{
		int found;

		assert_int_equal(kreg_db_work_claim(f->db, &w, &found, f->host1,
						    lane(f->host1, NULL), "new daemon",
						    100, 60), 0);
		assert_int_equal(found, 1);
		assert_int_equal(w.id, id);
		assert_int_equal(w.attempts, 1);
		kreg_work_release(&w);
	}
	assert_int_equal(kreg_db_work_finish(f->db, id, "me", 1, "done", NULL), KREG_ENOTFOUND);
	assert_int_equal(kreg_db_work_finish(f->db, id, "new daemon", 1, "done", NULL), 0);
	assert_int_equal(kreg_db_work_finish(f->db, id, "new daemon", 1, "done", NULL),
			 KREG_ENOTFOUND);
}

static void leases_expire_and_renew(void **state)
{
	fixture *f = *state;
	int64_t id = add(f, "run", "r", f->host1, 0, 0);
	int count;

	assert_int_equal(claim(f, f->host1, NULL, 100), id);	/* lease until 160 */
	assert_int_equal(kreg_db_work_expire(f->db, 150, &count), 0);
	assert_int_equal(count, 0);
	assert_int_equal(kreg_db_work_renew(f->db, "me", 300), 0);
	assert_int_equal(kreg_db_work_expire(f->db, 200, &count), 0);
	assert_int_equal(count, 0);
	assert_int_equal(kreg_db_work_expire(f->db, 301, &count), 0);
	assert_int_equal(count, 1);
	assert_int_equal(claim(f, f->host1, NULL, 302), id);
}

static void retries_back_off_then_give_up(void **state)
{
	fixture *f = *state;
	int64_t id = add(f, "run", "r", f->host1, 0, 0);
	int64_t now = 1000;
	kreg_work w;
	int gave_up, attempt;

	for (attempt = 1; attempt <= 3; attempt++) {
		assert_int_equal(claim(f, f->host1, NULL, now), id);
		assert_int_equal(kreg_db_work_retry(f->db, id, "me", attempt, "host hung", now, 2, 3,
						    &gave_up), 0);
		if (attempt < 3) {
			assert_int_equal(gave_up, 0);
			/* 2 s, then 4 s: not before */
			assert_int_equal(claim(f, f->host1, NULL, now + (2 << (attempt - 1)) - 1), 0);
			now += 2 << (attempt - 1);
		}
	}
	assert_int_equal(gave_up, 1);
	assert_int_equal(kreg_db_work_get(f->db, &w, id), 0);
	assert_string_equal(w.state, "failed");
	assert_string_equal(w.error, "host hung");
	kreg_work_release(&w);
	assert_int_equal(claim(f, f->host1, NULL, now + 10000), 0);
}

static void release_does_not_count(void **state)
{
	fixture *f = *state;
	int64_t id = add(f, "run", "r", f->host1, 0, 0);
	kreg_work w;

	assert_int_equal(claim(f, f->host1, NULL, 100), id);
	assert_int_equal(kreg_db_work_release(f->db, id, "me"), 0);
	assert_int_equal(kreg_db_work_get(f->db, &w, id), 0);
	assert_string_equal(w.state, "queued");
	assert_int_equal(w.attempts, 0);
	kreg_work_release(&w);
}

static void groups_and_pending(void **state)
{
	fixture *f = *state;
	kreg_work_new w = { .kind = KREG_WORK_RUN, .commit_id = 0, .job_id = 0, .host_id = f->host1 };
	int total, open, queued, running;
	int64_t job_id, commit_id = 0;
	char key[32];

	assert_int_equal(kreg_db_job_id(f->db, &job_id, "a", "t", "", "a\n"), 0);
	w.job_id = job_id;
	/* no commit rows needed for a group of commit 0: use NULL-free ids */
	(void)commit_id;
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof(key), "run:%d", i);
		w.key = key;
		w.seq = i;
		assert_int_equal(kreg_db_work_add(f->db, NULL, NULL, &w), 0);
	}
	assert_int_equal(kreg_db_work_pending(f->db, &queued, &running), 0);
	assert_int_equal(queued, 3);
	assert_int_equal(running, 0);
	assert_true(claim(f, f->host1, NULL, 100) > 0);
	assert_int_equal(kreg_db_work_pending(f->db, &queued, &running), 0);
	assert_int_equal(queued, 2);
	assert_int_equal(running, 1);
	(void)total;
	(void)open;
}

static void hosts_go_down_and_are_probed(void **state)
{
	fixture *f = *state;
	int down, ok;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(kreg_db_host_health(f->db, f->host1, 1, 3, 100, 60, &down), 0);
		assert_int_equal(down, 0);
	}
	assert_int_equal(kreg_db_host_claimable(f->db, &ok, f->host1, 100, 60), 0);
	assert_int_equal(ok, 1);
	assert_int_equal(kreg_db_host_health(f->db, f->host1, 1, 3, 100, 60, &down), 0);
	assert_int_equal(down, 1);
	assert_int_equal(kreg_db_host_claimable(f->db, &ok, f->host1, 159, 60), 0);
	assert_int_equal(ok, 0);
	/* probed once at 160, then not again until 220 */
	assert_int_equal(kreg_db_host_claimable(f->db, &ok, f->host1, 160, 60), 0);
	assert_int_equal(ok, 1);
	assert_int_equal(kreg_db_host_claimable(f->db, &ok, f->host1, 161, 60), 0);
	assert_int_equal(ok, 0);
	/* a good result brings it back */
	assert_int_equal(kreg_db_host_health(f->db, f->host1, 0, 3, 170, 60, NULL), 0);
	assert_int_equal(kreg_db_host_claimable(f->db, &ok, f->host1, 171, 60), 0);
	assert_int_equal(ok, 1);
}

static int h3_gone(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "h3") != 0;
}

/* An infrastructure failure on h1: the item goes to the least busy other
 * host of the backend that has the job planned and is up, as its next run. */
/* The state and error of the item of key. */
static void state_of(fixture *f, const char *key, const char *state, const char *error)
{
	kreg_work_new n = { .kind = KREG_WORK_BUILD, .key = key };
	kreg_work w;
	int64_t id;

	assert_int_equal(kreg_db_work_add(f->db, &id, NULL, &n), 0);
	assert_int_equal(kreg_db_work_get(f->db, &w, id), 0);
	assert_string_equal(w.state, state);
	if (error)
		assert_string_equal(w.error, error);
	else
		assert_null(w.error);
	kreg_work_release(&w);
}

/* A bisection's builds ahead: what it wants is queued (the one needed now
 * raised to its priority), what it wanted before and no longer is dropped
 * unbuilt, wanted again it is queued again; a running one is left alone. */
static void builds_ahead_follow_the_bisection(void **state)
{
	fixture *f = *state;
	kreg_commit_row c = { .sha = "1111111111111111111111111111111111111111",
			      .tree = "2222222222222222222222222222222222222222" };
	kreg_db_bisection b = { 0 };
	kreg_work_new w[3];
	const char *why = KREG_WORK_NOT_NEEDED;
	int dropped = -1;

	assert_int_equal(kreg_db_repo_id(f->db, &b.repo_id, "src", "/src"), 0);
	c.repo_id = b.repo_id;
	assert_int_equal(kreg_db_commit_put(f->db, &c.id, &c), 0);
	assert_int_equal(kreg_db_job_id(f->db, &b.job_id, "a", "t", "", "a\n"), 0);
	assert_int_equal(kreg_db_metric_id(f->db, &b.metric_id, "fio.read_iops"), 0);
	b.host_id = f->host1;
	b.good_commit_id = b.bad_commit_id = c.id;
	assert_int_equal(kreg_db_bisection_create(f->db, &b.id, &b), 0);
	for (int i = 0; i < 3; i++)
		w[i] = (kreg_work_new){ .kind = KREG_WORK_BUILD, .commit_id = c.id,
					.bisection_id = b.id, .priority = KREG_PRIO_AHEAD };
	w[0].key = "b:mid-good";
	w[1].key = "b:mid-bad";
	assert_int_equal(kreg_db_work_builds_ahead(f->db, &dropped, b.id, w, 2), 0);
	assert_int_equal(dropped, 0);
	/* it went the bad way: that one now, the next two ahead */
	w[0].key = "b:mid-bad";
	w[0].priority = KREG_PRIO_BISECT;
	w[1].key = "b:next-good";
	w[2].key = "b:next-bad";
	assert_int_equal(kreg_db_work_builds_ahead(f->db, &dropped, b.id, w, 3), 0);
	assert_int_equal(dropped, 1);
	state_of(f, "b:mid-good", "done", why);
	state_of(f, "b:mid-bad", "queued", NULL);
	assert_int_equal(claim(f, 0, "build", 100), 2);	/* the one needed now first */
	/* wanted again: queued again; the running one is not touched */
	w[0].key = "b:mid-good";
	w[0].priority = KREG_PRIO_AHEAD;
	assert_int_equal(kreg_db_work_builds_ahead(f->db, &dropped, b.id, w, 1), 0);
	assert_int_equal(dropped, 2);
	state_of(f, "b:mid-good", "queued", NULL);
	state_of(f, "b:mid-bad", "running", NULL);
	state_of(f, "b:next-good", "done", why);
	/* over: nothing wanted, nothing queued */
	assert_int_equal(kreg_db_work_builds_ahead(f->db, &dropped, b.id, NULL, 0), 0);
	assert_int_equal(dropped, 1);
	state_of(f, "b:mid-good", "done", why);
}

static void moves_to_another_host_of_the_backend(void **state)
{
	fixture *f = *state;
	kreg_commit_row c = { .sha = "1111111111111111111111111111111111111111",
			      .tree = "2222222222222222222222222222222222222222" };
	int64_t repo_id, job_id, h3, other, id;
	int seqs[] = { 0, 1, 0, 1, 2 }, added;
	int64_t hosts[5];
	char *name = NULL;
	kreg_work w;

	assert_int_equal(kreg_db_host_id(f->db, &h3, "h3", "sim", 1, 0), 0);
	hosts[0] = hosts[1] = f->host1;
	hosts[2] = hosts[3] = hosts[4] = h3;
	assert_int_equal(kreg_db_repo_id(f->db, &repo_id, "src", "/src"), 0);
	c.repo_id = repo_id;
	assert_int_equal(kreg_db_commit_put(f->db, &c.id, &c), 0);
	assert_int_equal(kreg_db_job_id(f->db, &job_id, "a", "t", "", "a\n"), 0);
	for (int i = 0; i < 5; i++) {
		char *k = kreg_work_key_run(c.id, job_id, hosts[i], seqs[i]);
		kreg_work_new n = { .kind = KREG_WORK_RUN, .key = k, .commit_id = c.id,
				    .job_id = job_id, .host_id = hosts[i], .seq = seqs[i] };

		assert_int_equal(kreg_db_work_add(f->db, NULL, &added, &n), 0);
		free(k);
	}
	id = claim(f, f->host1, NULL, 100);
	assert_true(id > 0);
	/* h2 has no run of the job: only h3 is a candidate */
	assert_int_equal(kreg_db_work_other_host(f->db, &other, &name, id, NULL, NULL), 0);
	assert_int_equal(other, h3);
	assert_string_equal(name, "h3");
	free(name);
	/* not configured any more: none */
	assert_int_equal(kreg_db_work_other_host(f->db, &other, NULL, id, h3_gone, NULL), 0);
	assert_int_equal(other, 0);
	assert_int_equal(kreg_db_host_health(f->db, h3, 1, 1, 100, 60, NULL), 0);
	assert_int_equal(kreg_db_work_other_host(f->db, &other, NULL, id, NULL, NULL), 0);
	assert_int_equal(other, 0);	/* h3 is down */
	assert_int_equal(kreg_db_host_health(f->db, h3, 0, 1, 100, 60, NULL), 0);

	assert_int_equal(kreg_db_work_move(f->db, id, "me", 1, "hung", h3, 100), 0);
	assert_int_equal(kreg_db_work_get(f->db, &w, id), 0);
	assert_string_equal(w.state, "queued");
	assert_int_equal(w.host_id, h3);
	assert_int_equal(w.seq, 3);	/* after h3's 0, 1, 2 */
	{
		/* the SQL's key is the one kreg_work_key_run makes */
		char *k = kreg_work_key_run(c.id, job_id, h3, 3);

		assert_string_equal(w.key, k);
		free(k);
	}
	assert_int_equal(w.attempts, 1);
	assert_int_equal(w.not_before, 100);	/* at once: no backoff */
	kreg_work_release(&w);
	/* no longer held: refused */
	assert_int_equal(kreg_db_work_move(f->db, id, "me", 1, "hung", h3, 100), KREG_ENOTFOUND);
	kreg_db_commit_release(&c);
}

static void claim_stays_fast_shaped(void **state)
{
	/* 20,000 queued on one host, most of them in backoff: the claim takes
	 * the runnable one (the index walks; no timing asserted here, the
	 * bench measures it). */
	fixture *f = *state;
	char key[32];
	int64_t last = 0;

	assert_int_equal(kreg_db_begin(f->db), 0);
	for (int i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "run:%d", i);
		last = add(f, "run", key, f->host1, 0, 0);
	}
	assert_int_equal(kreg_db_commit(f->db), 0);
	assert_true(last > 0);
	for (int i = 0; i < 100; i++)
		assert_true(claim(f, f->host1, NULL, 100) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(same_key_is_one_item, setup, teardown),
		cmocka_unit_test_setup_teardown(priority_then_age_per_lane, setup, teardown),
		cmocka_unit_test_setup_teardown(waits_for_its_build, setup, teardown),
		cmocka_unit_test_setup_teardown(worker_proves_its_hold, setup, teardown),
		cmocka_unit_test_setup_teardown(leases_expire_and_renew, setup, teardown),
		cmocka_unit_test_setup_teardown(retries_back_off_then_give_up, setup, teardown),
		cmocka_unit_test_setup_teardown(release_does_not_count, setup, teardown),
		cmocka_unit_test_setup_teardown(groups_and_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(hosts_go_down_and_are_probed, setup, teardown),
		cmocka_unit_test_setup_teardown(builds_ahead_follow_the_bisection, setup, teardown),
		cmocka_unit_test_setup_teardown(moves_to_another_host_of_the_backend, setup, teardown),
		cmocka_unit_test_setup_teardown(claim_stays_fast_shaped, setup, teardown),
	};

	return cmocka_run_group_tests_name("work", tests, NULL, NULL);
}
