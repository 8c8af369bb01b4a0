/* bisect/: the graph of a range, verdicts, the state machine, reverts; and
 * the sim backend it is measured on. Repositories are real (libgit2, in a
 * scratch directory). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bisect/bisect.h"
#include "bisect/graph.h"
#include "bisect/verdict.h"
#include "hosts/host.h"
#include "hosts/host_sim.h"
#include "kernel/repo.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char scratch[] = "/tmp/kreg-test-bisect.XXXXXX";
static int64_t when = 1700000000;

/* A commit whose tree holds one file "f" with content, on parents. */
/* The test's libgit2 ids and bisect/'s. */
static git_oid to_git(const kreg_bisect_oid *id)
{
	git_oid g;

	memset(&g, 0, sizeof(g));
	memcpy(g.id, id->id, sizeof(id->id));
	return g;
}

static kreg_bisect_oid from_git(const git_oid *g)
{
	kreg_bisect_oid id;

	memcpy(id.id, g->id, sizeof(id.id));
	return id;
}

static kreg_bisect_oid commit_file(git_repository *repo, const char *content, const char *msg,
				   const kreg_bisect_oid *p1, const kreg_bisect_oid *p2)
{
	git_treebuilder *tb;
	git_oid blob, tree_id, id, g1, g2;
	git_tree *tree;
	git_signature *sig;
	git_commit *pc[2] = { NULL, NULL };
	const git_commit *parents[2];
	size_t np = 0;

	assert_int_equal(git_blob_create_from_buffer(&blob, repo, content, strlen(content)), 0);
	assert_int_equal(git_treebuilder_new(&tb, repo, NULL), 0);
	assert_int_equal(git_treebuilder_insert(NULL, tb, "f", &blob, GIT_FILEMODE_BLOB), 0);
	assert_int_equal(git_treebuilder_write(&tree_id, tb), 0);
	git_treebuilder_free(tb);
	assert_int_equal(git_tree_lookup(&tree, repo, &tree_id), 0);
	assert_int_equal(git_signature_new(&sig, "T", "t@example.org", when++, 0), 0);
	if (p1) {
		g1 = to_git(p1);
		assert_int_equal(git_commit_lookup(&pc[0], repo, &g1), 0);
		parents[np++] = pc[0];
	}
	if (p2) {
		g2 = to_git(p2);
		assert_int_equal(git_commit_lookup(&pc[1], repo, &g2), 0);
		parents[np++] = pc[1];
	}
	assert_int_equal(git_commit_create(&id, repo, NULL, sig, sig, NULL, msg, tree, np, parents), 0);
	git_commit_free(pc[0]);
	git_commit_free(pc[1]);
	git_signature_free(sig);
	git_tree_free(tree);
	return from_git(&id);
}

static git_repository *new_repo(const char *name)
{
	git_repository *repo;
	char *path = kreg_asprintf("%s/%s", scratch, name);

	assert_int_equal(git_repository_init(&repo, path, 0), 0);
	free(path);
	return repo;
}

/* root - c1 - ... - c(n) linear; ids[0] is root. */
static void linear(git_repository *repo, kreg_bisect_oid *ids, int n)
{
	char msg[64], content[64];

	ids[0] = commit_file(repo, "0\n", "root\n", NULL, NULL);
	for (int i = 1; i <= n; i++) {
		snprintf(msg, sizeof(msg), "commit %d\n", i);
		snprintf(content, sizeof(content), "%d\n", i);
		ids[i] = commit_file(repo, content, msg, &ids[i - 1], NULL);
	}
}

static void graph_linear_halves(void **state)
{
	git_repository *repo = new_repo("lin");
	kreg_bisect_oid ids[17];
	kreg_bisect_graph *g;
	kreg_bisect_search s;
	kreg_bisect_mark marks[16] = { 0 };

	(void)state;
	linear(repo, ids, 16);
	assert_int_equal(kreg_bisect_graph_new(&g, repo, &ids[0], &ids[16]), 0);
	assert_int_equal(kreg_bisect_graph_size(g), 16);
	assert_int_equal(kreg_bisect_graph_index(g, &ids[0]), -1);	/* good is outside */
	assert_int_equal(kreg_bisect_graph_index(g, &ids[16]), 15);	/* bad is last */
	assert_true(kreg_bisect_graph_reaches(g, 15, 0));
	assert_false(kreg_bisect_graph_reaches(g, 0, 15));

	marks[15] = KREG_BISECT_MARK_BAD;
	kreg_bisect_graph_search(&s, g, marks);
	assert_int_equal(s.ncandidates, 16);
	assert_int_equal(s.bad, 15);
	assert_int_equal(s.next_weight, 8);	/* the halving commit */
	kreg_bisect_search_release(&s);

	/* c8 good, c12 bad: candidates c9..c12, next halves them */
	marks[7] = KREG_BISECT_MARK_GOOD;
	marks[11] = KREG_BISECT_MARK_BAD;
	kreg_bisect_graph_search(&s, g, marks);
	assert_int_equal(s.ncandidates, 4);
	assert_int_equal(s.bad, 11);
	assert_int_equal(s.next_weight, 2);
	kreg_bisect_search_release(&s);

	/* c9, c10, c11 skipped: nothing testable, four candidates remain */
	marks[8] = marks[9] = marks[10] = KREG_BISECT_MARK_SKIP;
	kreg_bisect_graph_search(&s, g, marks);
	assert_int_equal(s.ncandidates, 4);
	assert_int_equal(s.next, -1);
	assert_int_equal(s.testable, 0);
	kreg_bisect_search_release(&s);

	kreg_bisect_graph_free(g);
	/* good must be an ancestor of bad */
	assert_int_equal(kreg_bisect_graph_new(&g, repo, &ids[5], &ids[2]), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "is not an ancestor of bad"));
	assert_int_equal(kreg_bisect_graph_new(&g, repo, &ids[5], &ids[5]), KREG_EINVAL);
	git_repository_free(repo);
}

static void graph_merges(void **state)
{
	git_repository *repo = new_repo("merge");
	kreg_bisect_oid root, m1, t1, t2, t3, merge, m2;
	kreg_bisect_graph *g;
	kreg_bisect_mark marks[8] = { 0 };
	kreg_bisect_search s;
	long im1, it2, imerge;

	(void)state;
	root = commit_file(repo, "r\n", "root\n", NULL, NULL);
	m1 = commit_file(repo, "m1\n", "main 1\n", &root, NULL);
	t1 = commit_file(repo, "t1\n", "topic 1\n", &root, NULL);
	t2 = commit_file(repo, "t2\n", "topic 2\n", &t1, NULL);
	t3 = commit_file(repo, "t3\n", "topic 3\n", &t2, NULL);
	merge = commit_file(repo, "m\n", "Merge topic\n", &m1, &t3);
	m2 = commit_file(repo, "m2\n", "main 2\n", &merge, NULL);
	assert_int_equal(kreg_bisect_graph_new(&g, repo, &root, &m2), 0);
	assert_int_equal(kreg_bisect_graph_size(g), 6);
	im1 = kreg_bisect_graph_index(g, &m1);
	it2 = kreg_bisect_graph_index(g, &t2);
	imerge = kreg_bisect_graph_index(g, &merge);
	assert_int_equal(kreg_bisect_graph_nparents(g, (size_t)imerge), 2);
	assert_false(kreg_bisect_graph_reaches(g, (size_t)im1, (size_t)it2));
	assert_true(kreg_bisect_graph_reaches(g, (size_t)imerge, (size_t)it2));

	/* merge bad, t3 good (so t1, t2 good too): m1 and the merge remain */
	marks[5] = KREG_BISECT_MARK_BAD;
	marks[imerge] = KREG_BISECT_MARK_BAD;
	marks[kreg_bisect_graph_index(g, &t3)] = KREG_BISECT_MARK_GOOD;
	kreg_bisect_graph_search(&s, g, marks);
	assert_int_equal(s.ncandidates, 2);
	assert_int_equal(s.bad, imerge);
	assert_int_equal(s.next, im1);
	kreg_bisect_search_release(&s);
	kreg_bisect_graph_free(g);
	git_repository_free(repo);
}

static void verdict_statistics(void **state)
{
	const double good[] = { 1000, 1010, 990, 1005, 995 };
	const double bad[] = { 900, 905, 895, 910, 890 };
	const double mid[] = { 950, 948, 953 };
	const double out[] = { 1000, 1003, 1400 };
	kreg_bisect_values sets[] = { { good, 5 }, { bad, 5 } };
	kreg_bisect_noise noise;
	kreg_bisect_ref rg = { 1001, 5 }, rb = { 900, 5 };
	kreg_bisect_ends ends;
	double kept[3];

	(void)state;
	kreg_bisect_noise_estimate(&noise, sets, 2, 0);
	assert_true(noise.scale > 5 && noise.scale < 12);
	assert_int_equal((int)noise.df, 8);
	assert_int_equal(kreg_bisect_screen(kept, out, 3, noise.scale, 0), 2);
	/* a commit far noisier than the pooled scale (a -96% drop down to a
	 * device's noise floor, on the log scale) keeps its runs: before,
	 * all 6 were screened out and the step stayed pending with mean 0 */
	{
		const double floor_side[] = { log(186.1), log(465.0), log(588.5),
					      log(71.3), log(630.7), log(474.9) };
		double kept6[6];

		assert_true(kreg_bisect_screen(kept6, floor_side, 6, 0.045, 0) >= 5);
		/* the pooled scale alone (before) keeps only 2 of them */
		assert_int_equal(kreg_bisect_screen(kept6, floor_side, 6, 0.045, 1), 2);
		/* one wild run among steady ones still goes */
		assert_int_equal(kreg_bisect_screen(kept6, (const double[]){ 10, 10.1, 9.9, 10.05, 9.95, 30 },
						    6, 0.1, 0), 5);
	}
	assert_true(kreg_bisect_llr(bad, 5, &rg, &rb, &noise) > 9);
	assert_true(kreg_bisect_llr(good, 5, &rg, &rb, &noise) < -9);
	assert_true(fabs(kreg_bisect_llr(mid, 3, &rg, &rb, &noise)) < 1);

	assert_int_equal(kreg_bisect_ends_test(&ends, good, 5, bad, 5, KREG_DIR_HIGHER, 0.02, 0.01), 0);
	assert_true(ends.reproduced);
	assert_true(ends.change < -0.09 && ends.change > -0.11);
	/* the same numbers are an improvement for a latency */
	assert_int_equal(kreg_bisect_ends_test(&ends, good, 5, bad, 5, KREG_DIR_LOWER, 0.02, 0.01), 0);
	assert_false(ends.reproduced);
	assert_true(ends.wrong_way);
	/* too small a change is not a regression, however significant */
	assert_int_equal(kreg_bisect_ends_test(&ends, good, 5, good, 5, KREG_DIR_UNKNOWN, 0.02, 0.01), 0);
	assert_false(ends.reproduced);
	assert_int_equal(kreg_bisect_ends_test(&ends, good, 1, bad, 5, KREG_DIR_HIGHER, 0.02, 0.01),
			 KREG_EINVAL);
}

/* An in-memory bisection on the sim model (as bench_bisect does). */
typedef struct {
	kreg_bisect_commit c[64];
	double v[64][64];
	size_t n;
	kreg_bisect_event e[256];
	size_t ne;
} mem_rows;

typedef struct {
	const kreg_bisect_graph *g;
	long culprit;
	kreg_host_cfg hc;
	kreg_sim_metric_cfg m;
	double effect;
} mem_world;

static void mem_execute(const mem_world *w, mem_rows *r, const kreg_bisect_action *a)
{
	kreg_bisect_commit *c = NULL;
	char sha[GIT_OID_HEXSZ + 1];
	long gi = kreg_bisect_graph_index(w->g, &a->commit);
	double factor = gi >= 0 && kreg_bisect_graph_reaches(w->g, (size_t)gi, (size_t)w->culprit) ?
			1 - w->effect : 1;
	size_t ci;

	kreg_bisect_oid_hex(sha, sizeof(sha), &a->commit);
	for (ci = 0; ci < r->n; ci++)
		if (kreg_bisect_oid_equal(&r->c[ci].id, &a->commit))
			break;
	if (ci == r->n) {
		assert_true(r->n < 64);
		memset(&r->c[ci], 0, sizeof(r->c[ci]));
		r->c[ci].id = a->commit;
		r->c[ci].build_failed = kreg_sim_build_fails(&w->hc, sha);
		r->c[ci].values = r->v[ci];
		r->n++;
	}
	c = &r->c[ci];
	assert_true(r->ne < 256);
	if (!r->ne || r->e[r->ne - 1].role != a->role || !kreg_bisect_oid_equal(&r->e[r->ne - 1].id, &a->commit)) {
		memset(&r->e[r->ne], 0, sizeof(r->e[0]));
		r->e[r->ne].role = a->role;
		r->e[r->ne++].id = a->commit;
	}
	if (c->build_failed)
		return;
	for (unsigned k = 0; k < a->runs && c->nvalues < 64; k++) {
		r->v[ci][c->nvalues++] = kreg_sim_draw(&w->m, factor, w->hc.seed, sha, "atom", c->runs++);
		r->e[r->ne - 1].runs++;
	}
}

/* Run to the end, or stop after max_actions (0: no limit). */
static void mem_bisect(kreg_bisect_action *a, const mem_world *w, mem_rows *r,
		       const kreg_bisect_oid *good, const kreg_bisect_oid *bad, int max_actions)
{
	kreg_bisect_state st;

	memset(&st, 0, sizeof(st));
	st.good = *good;
	st.bad = *bad;
	kreg_bisect_params_default(&st.params);
	st.params.direction = KREG_DIR_HIGHER;
	for (int i = 0; i < 2000; i++) {
		kreg_bisect_action again;

		st.commits = r->c;
		st.ncommits = r->n;
		st.events = r->e;
		st.nevents = r->ne;
		assert_int_equal(kreg_bisect_next(a, w->g, &st), 0);
		/* a pure function: the same rows, the same answer */
		assert_int_equal(kreg_bisect_next(&again, w->g, &st), 0);
		assert_int_equal(again.done, a->done);
		assert_true(kreg_bisect_oid_equal(&again.commit, &a->commit));
		assert_int_equal(again.runs, a->runs);
		kreg_bisect_action_release(&again);
		if (a->done || (max_actions && i >= max_actions))
			return;
		mem_execute(w, r, a);
		kreg_bisect_action_release(a);
	}
	fail_msg("the bisection did not end");
}

static void mem_world_init(mem_world *w, const kreg_bisect_graph *g, long culprit, double effect,
			   uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	w->g = g;
	w->culprit = culprit;
	w->effect = effect;
	w->m.metric = "fio.read_iops";
	w->m.base = 1000;
	w->m.noise = 0.05;
	w->m.outlier_rate = 0.01;
	w->hc.name = "sim";
	w->hc.seed = seed;
}

static void machine_finds_culprit(void **state)
{
	git_repository *repo = new_repo("machine");
	kreg_bisect_oid ids[41];
	kreg_bisect_graph *g;
	kreg_bisect_action a;
	mem_world w;
	int found = 0;

	(void)state;
	linear(repo, ids, 40);
	assert_int_equal(kreg_bisect_graph_new(&g, repo, &ids[0], &ids[40]), 0);
	for (uint64_t seed = 1; seed <= 10; seed++) {
		mem_rows *r = kreg_calloc(1, sizeof(*r));
		long culprit = (long)(seed * 7 % 40);

		mem_world_init(&w, g, culprit, 0.10, seed);
		mem_bisect(&a, &w, r, &ids[0], &ids[40], 0);
		assert_int_equal(a.outcome, KREG_BISECT_FOUND);
		assert_true(kreg_bisect_oid_equal(&a.culprit, kreg_bisect_graph_oid(g, (size_t)culprit)));
		assert_true(a.confidence >= 0.999);
		found++;
		kreg_bisect_action_release(&a);
		free(r);
	}
	assert_int_equal(found, 10);

	/* No effect at all: not reproduced, never a guess. */
	{
		mem_rows *r = kreg_calloc(1, sizeof(*r));

		mem_world_init(&w, g, 20, 0, 99);
		mem_bisect(&a, &w, r, &ids[0], &ids[40], 0);
		assert_int_equal(a.outcome, KREG_BISECT_NOT_REPRODUCED);
		assert_non_null(strstr(a.message, "not reproduced"));
		kreg_bisect_action_release(&a);
		free(r);
	}
	/* An improvement is not a regression either. */
	{
		mem_rows *r = kreg_calloc(1, sizeof(*r));

		mem_world_init(&w, g, 20, -0.2, 7);
		mem_bisect(&a, &w, r, &ids[0], &ids[40], 0);
		assert_int_equal(a.outcome, KREG_BISECT_NOT_REPRODUCED);
		assert_non_null(strstr(a.message, "better"));
		kreg_bisect_action_release(&a);
		free(r);
	}
	kreg_bisect_graph_free(g);
	git_repository_free(repo);
}

/* The kernels built ahead: while a step's commit runs, its two possible
 * successors (the next step if it is good, if it is bad) are named, and
 * the step the search then takes is one of them; while the ends run, the
 * first step. */
static void machine_names_next_steps(void **state)
{
	git_repository *repo = new_repo("ahead");
	kreg_bisect_oid ids[41], ahead[2], prev = { { 0 } }, pahead[2];
	kreg_bisect_graph *g;
	kreg_bisect_action a;
	kreg_bisect_state st;
	mem_world w;
	mem_rows *r = kreg_calloc(1, sizeof(*r));
	size_t n, pn = 0;
	int steps = 0, guessed = 0, first = 1;

	(void)state;
	linear(repo, ids, 40);
	assert_int_equal(kreg_bisect_graph_new(&g, repo, &ids[0], &ids[40]), 0);
	mem_world_init(&w, g, 27, 0.3, 4);
	memset(&st, 0, sizeof(st));
	st.good = ids[0];
	st.bad = ids[40];
	kreg_bisect_params_default(&st.params);
	st.params.direction = KREG_DIR_HIGHER;
	for (int i = 0; i < 200; i++) {
		st.commits = r->c;
		st.ncommits = r->n;
		st.events = r->e;
		st.nevents = r->ne;
		assert_int_equal(kreg_bisect_next(&a, g, &st), 0);
		if (a.done)
			break;
		if (a.role == KREG_BISECT_ROLE_STEP && !kreg_bisect_oid_equal(&a.commit, &prev)) {
			steps++;
			for (size_t k = 0; k < pn; k++)
				guessed += kreg_bisect_oid_equal(&pahead[k], &a.commit);
			prev = a.commit;
		}
		assert_int_equal(kreg_bisect_ahead(ahead, &n, g, &st, &a.commit), 0);
		if (a.role == KREG_BISECT_ROLE_GOOD || a.role == KREG_BISECT_ROLE_BAD) {
			/* the ends: the first step, whatever they show */
			assert_int_equal(n, 1);
			assert_true(kreg_bisect_oid_equal(&ahead[0], &ids[20]));
		} else if (a.role == KREG_BISECT_ROLE_STEP) {
			assert_true(n >= 1 && n <= 2);
		}
		if (a.role == KREG_BISECT_ROLE_STEP || first) {
			memcpy(pahead, ahead, sizeof(ahead));
			pn = n;
		}
		first = first && a.role != KREG_BISECT_ROLE_STEP;
		mem_execute(&w, r, &a);
		kreg_bisect_action_release(&a);
	}
	assert_int_equal(a.outcome, KREG_BISECT_FOUND);
	assert_true(kreg_bisect_oid_equal(&a.culprit, kreg_bisect_graph_oid(g, 27)));
	assert_true(steps >= 4);
	assert_int_equal(guessed, steps);
	kreg_bisect_action_release(&a);
	free(r);
	kreg_bisect_graph_free(g);
	git_repository_free(repo);
}

static void machine_skips_and_resumes(void **state)
{
	git_repository *repo = new_repo("skips");
	kreg_bisect_oid ids[41];
	kreg_bisect_graph *g;
	kreg_bisect_action a, b;
	mem_world w;
	mem_rows *r = kreg_calloc(1, sizeof(*r)), *r2;
	int listed = 0;

	(void)state;
	linear(repo, ids, 40);
	assert_int_equal(kreg_bisect_graph_new(&g, repo, &ids[0], &ids[40]), 0);
	/* Half the commits do not build: the answer may be a list, and then
	 * the culprit is in it. */
	mem_world_init(&w, g, 25, 0.3, 5);
	w.hc.build_fail_rate = 0.5;
	for (;; w.hc.seed++) {
		char gs[41], bs[41], cs[41];

		kreg_bisect_oid_hex(gs, sizeof(gs), &ids[0]);
		kreg_bisect_oid_hex(bs, sizeof(bs), &ids[40]);
		kreg_bisect_oid_hex(cs, sizeof(cs), &ids[25]);
		/* ends that build, and a culprit's parent that does not */
		if (!kreg_sim_build_fails(&w.hc, gs) && !kreg_sim_build_fails(&w.hc, bs) &&
		    kreg_sim_build_fails(&w.hc, cs))
			break;
	}
	mem_bisect(&a, &w, r, &ids[0], &ids[40], 0);
	assert_int_equal(a.outcome, KREG_BISECT_INCONCLUSIVE);
	{
		assert_true(a.ncandidates >= 2);
		for (size_t i = 0; i < a.ncandidates; i++)
			listed |= kreg_bisect_oid_equal(&a.candidates[i], &ids[26]);
		assert_true(listed);
		assert_non_null(strstr(a.message, "one of"));
	}
	kreg_bisect_action_release(&a);
	free(r);

	/* Stopped after 6 actions and resumed from the same rows: the same
	 * end, and the runs already done are not done again. */
	mem_world_init(&w, g, 11, 0.10, 3);
	r = kreg_calloc(1, sizeof(*r));
	r2 = kreg_calloc(1, sizeof(*r2));
	mem_bisect(&a, &w, r, &ids[0], &ids[40], 0);
	mem_bisect(&b, &w, r2, &ids[0], &ids[40], 6);
	kreg_bisect_action_release(&b);
	{
		unsigned before = 0, after = 0, whole = 0;

		for (size_t i = 0; i < r2->n; i++)
			before += r2->c[i].runs;
		mem_bisect(&b, &w, r2, &ids[0], &ids[40], 0);
		for (size_t i = 0; i < r2->n; i++)
			after += r2->c[i].runs;
		for (size_t i = 0; i < r->n; i++)
			whole += r->c[i].runs;
		assert_true(before > 0);
		assert_int_equal(after, whole);
	}
	assert_int_equal(a.outcome, b.outcome);
	assert_true(kreg_bisect_oid_equal(&a.culprit, &b.culprit));
	kreg_bisect_action_release(&a);
	kreg_bisect_action_release(&b);
	free(r);
	free(r2);
	kreg_bisect_graph_free(g);
	git_repository_free(repo);
}

/* kernel/repo.h's revert, on the ids of these tests. */
static int make_revert(kreg_bisect_oid *out, git_repository *repo, const kreg_bisect_oid *culprit,
		       const kreg_bisect_oid *onto)
{
	char c[KREG_REPO_SHA_SIZE], o[KREG_REPO_SHA_SIZE], made[KREG_REPO_SHA_SIZE];
	kreg_repo *r;
	int rc;

	kreg_bisect_oid_hex(c, sizeof(c), culprit);
	kreg_bisect_oid_hex(o, sizeof(o), onto);
	assert_int_equal(kreg_repo_open_path(&r, git_repository_path(repo), 0), 0);
	rc = kreg_repo_revert(r, made, c, o);
	if (rc == 0)
		assert_int_equal(kreg_bisect_oid_parse(out, made), 0);
	kreg_repo_close(r);
	return rc;
}

static void revert_is_deterministic(void **state)
{
	git_repository *repo = new_repo("revert");
	kreg_bisect_oid base, a, b, c, r1, r2, x, parent;
	git_oid g;
	git_commit *rc;

	(void)state;
	base = commit_file(repo, "1\n2\n3\n", "base\n", NULL, NULL);
	a = commit_file(repo, "1\nA\n3\n", "change two\n", &base, NULL);
	b = commit_file(repo, "1\nA\n3\n4\n", "add four\n", &a, NULL);
	assert_int_equal(make_revert(&r1, repo, &a, &b), 0);
	assert_int_equal(make_revert(&r2, repo, &a, &b), 0);
	assert_true(kreg_bisect_oid_equal(&r1, &r2));
	g = to_git(&r1);
	assert_int_equal(git_commit_lookup(&rc, repo, &g), 0);
	parent = from_git(git_commit_parent_id(rc, 0));
	assert_true(kreg_bisect_oid_equal(&parent, &b));
	assert_non_null(strstr(git_commit_message(rc), "This reverts commit "));
	git_commit_free(rc);
	/* A later change to the same line: the revert does not apply. */
	c = commit_file(repo, "1\nB\n3\n4\n", "change two again\n", &b, NULL);
	assert_int_equal(make_revert(&x, repo, &a, &c), 1);
	git_repository_free(repo);
}

static void sim_model(void **state)
{
	kreg_sim_metric_cfg m = { .metric = "fio.read_iops", .base = 1000, .noise = 0.05 };
	kreg_host_cfg hc = { .name = "sim", .seed = 42, .build_fail_rate = 0.3 };
	char *metric;
	double change, sum = 0;
	int fails = 0;

	(void)state;
	assert_int_equal(kreg_sim_parse_effect(&metric, &change, " fio.read_iops -20%"), 0);
	assert_string_equal(metric, "fio.read_iops");
	assert_true(fabs(change + 0.2) < 1e-12);
	free(metric);
	assert_int_equal(kreg_sim_parse_effect(&metric, &change, "fio.read_iops +5.5%  "), 0);
	assert_true(fabs(change - 0.055) < 1e-12);
	free(metric);
	assert_int_equal(kreg_sim_parse_effect(&metric, &change, "fio.read_iops 20%"), KREG_EINVAL);
	assert_int_equal(kreg_sim_parse_effect(&metric, &change, "fio.read_iops -20"), KREG_EINVAL);
	assert_int_equal(kreg_sim_parse_effect(&metric, &change, "-20%"), KREG_EINVAL);
	assert_non_null(strstr(kreg_error_last(), "malformed Sim-Effect"));

	/* same inputs, same value; another run, another value */
	assert_true(kreg_sim_draw(&m, 1, 42, "abc", "atom", 3) == kreg_sim_draw(&m, 1, 42, "abc", "atom", 3));
	assert_true(kreg_sim_draw(&m, 1, 42, "abc", "atom", 3) != kreg_sim_draw(&m, 1, 42, "abc", "atom", 4));
	for (unsigned i = 0; i < 2000; i++)
		sum += kreg_sim_draw(&m, 0.9, 42, "abc", "atom", i);
	assert_true(fabs(sum / 2000 - 900) < 5);
	/* a noise floor: at 4% of the level (a -96% effect) the spread is the
	 * floor's, not 4% of the level's; no value below 0 */
	{
		kreg_sim_metric_cfg f = m;
		double s1 = 0, s2 = 0, lo = INFINITY;

		f.noise_floor = 10;
		for (unsigned i = 0; i < 2000; i++) {
			double v = kreg_sim_draw(&f, 0.04, 42, "abc", "atom", i);

			s1 += v;
			s2 += v * v;
			lo = v < lo ? v : lo;
		}
		assert_true(fabs(s1 / 2000 - 40) < 1.5);
		assert_true(fabs(sqrt(s2 / 2000 - (s1 / 2000) * (s1 / 2000)) - 10) < 1);
		assert_true(lo > 0);
		/* without a floor, the draws are as they were */
		f.noise_floor = 0;
		assert_true(kreg_sim_draw(&f, 1, 42, "abc", "atom", 3) == kreg_sim_draw(&m, 1, 42, "abc", "atom", 3));
	}
	for (int i = 0; i < 1000; i++) {
		char sha[16];

		snprintf(sha, sizeof(sha), "%d", i);
		fails += kreg_sim_build_fails(&hc, sha);
		assert_int_equal(kreg_sim_build_fails(&hc, sha), kreg_sim_build_fails(&hc, sha));
	}
	assert_true(fails > 240 && fails < 360);
}

/* The sim host through the host interface, on a repository with a trailer
 * effect, a merge and a revert. */
static void sim_host_effects(void **state)
{
	git_repository *repo = new_repo("simhost");
	kreg_bisect_oid root, fx, after, side, merge, rev;
	kreg_sim_metric_cfg metrics[] = { { .metric = "fio.read_iops", .base = 1000, .noise = 0.0 } };
	kreg_sim_effect_cfg effects[] = { { .commit = NULL, .metric = "fio.read_iops", .change = 0.5 } };
	kreg_host_cfg hcfg = { .name = "simh", .backend = KREG_BACKEND_SIM, .seed = 1,
			       .sim_metrics = metrics, .nsim_metrics = 1,
			       .sim_effects = effects, .nsim_effects = 1 };
	kreg_config cfg = { .path = "test", .hosts = &hcfg, .nhosts = 1 };
	kreg_host *h;
	char path[512], sha[41], side_sha[41];
	double v;
	struct { kreg_bisect_oid *id; double want; } cases[5];

	(void)state;
	root = commit_file(repo, "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "root\n", NULL, NULL);
	fx = commit_file(repo, "1\nX\n3\n4\n5\n6\n7\n8\n9\n",
			 "slow it down\n\nSim-Effect: fio.read_iops -20%\n", &root, NULL);
	after = commit_file(repo, "1\nX\n3\n4\n5\n6\n7\n8\nY\n", "later\n", &fx, NULL);
	side = commit_file(repo, "s\n", "side branch\n", &root, NULL);
	merge = commit_file(repo, "m\n", "Merge\n", &side, &after);
	assert_int_equal(make_revert(&rev, repo, &fx, &after), 0);
	kreg_bisect_oid_hex(side_sha, sizeof(side_sha), &side);
	effects[0].commit = side_sha;	/* +50% by configuration, by full sha */
	snprintf(path, sizeof(path), "%s/simhost", scratch);

	cases[0].id = &root, cases[0].want = 1000;
	cases[1].id = &after, cases[1].want = 800;
	cases[2].id = &side, cases[2].want = 1500;
	cases[3].id = &merge, cases[3].want = 1200;	/* both, through the merge */
	cases[4].id = &rev, cases[4].want = 1000;	/* the revert takes -20% away */
	assert_int_equal(kreg_host_open(&h, &cfg, "simh"), 0);
	for (int i = 0; i < 5; i++) {
		kreg_host_commit c = { .repo = "r", .repo_path = path, .sha = sha };
		kreg_host_request req = { .atom_name = "atom", .commit = &c, .run_index = 0 };
		kreg_host_kernel k;
		kreg_host_result res;

		kreg_bisect_oid_hex(sha, sizeof(sha), cases[i].id);
		assert_int_equal(kreg_host_prepare(h, &k, &c), 0);
		assert_int_equal(k.status, KREG_PREPARE_OK);
		assert_int_equal(kreg_host_run(h, &res, &req), 0);
		assert_int_equal(res.status, KREG_RUN_OK);
		assert_string_equal(res.kernel, "sim");
		v = *kreg_samples_get(&res.samples, "fio.read_iops");
		if (fabs(v - cases[i].want) > 1e-6)
			fail_msg("case %d: %g, want %g", i, v, cases[i].want);
		kreg_host_result_release(&res);
		kreg_host_kernel_release(&k);
	}
	kreg_host_close(h);
	/* no metrics: a clear error at open */
	hcfg.nsim_metrics = 0;
	assert_true(kreg_host_open(&h, &cfg, "simh") < 0);
	assert_non_null(strstr(kreg_error_last(), "sim_metrics"));
	git_repository_free(repo);
}

static int setup(void **state)
{
	(void)state;
	git_libgit2_init();
	return mkdtemp(scratch) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	kreg_rm_rf(scratch);
	git_libgit2_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(graph_linear_halves),
		cmocka_unit_test(graph_merges),
		cmocka_unit_test(verdict_statistics),
		cmocka_unit_test(machine_finds_culprit),
		cmocka_unit_test(machine_skips_and_resumes),
		cmocka_unit_test(machine_names_next_steps),
		cmocka_unit_test(revert_is_deterministic),
		cmocka_unit_test(sim_model),
		cmocka_unit_test(sim_host_effects),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
