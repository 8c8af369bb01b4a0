/* The range of a bisection as bitsets. git's bisect.c counts, for each
 * candidate, the candidates it reaches (weight) and takes the one nearest
 * to half; we keep, for each commit of the range, the set of its ancestors in
 * the range, so that weights under any marking are popcounts of ANDs. */
#include "bisect/graph.h"

#include "lib/err.h"
#include "lib/git.h"
#include "lib/mem.h"

#include <git2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kreg_bisect_graph {
	size_t n;		/* commits in the range */
	size_t words;		/* 64-bit words per bitset */
	kreg_bisect_oid *ids;	/* [n], topological order, parents first */
	size_t *parent_start;	/* [n + 1]: parents of i are parents[start[i] .. start[i+1]) */
	kreg_bisect_oid *parents;
	uint64_t *reach;	/* [n * words]: ancestors-or-self of i in the range */
	long *slots;		/* open addressing: oid -> index, -1 empty */
	size_t nslots;		/* a power of two */
};

_Static_assert(sizeof(((kreg_bisect_oid *)0)->id) == GIT_OID_RAWSZ,
	       "a bisect id holds libgit2's raw id");

/* libgit2's id of ours and back: the only place they meet. */
static void to_git(git_oid *out, const kreg_bisect_oid *id)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->id, id->id, sizeof(id->id));
}

static void from_git(kreg_bisect_oid *out, const git_oid *id)
{
	memcpy(out->id, id->id, sizeof(out->id));
}

int kreg_bisect_oid_parse(kreg_bisect_oid *out, const char *hex)
{
	git_oid g;

	if (git_oid_fromstr(&g, hex) < 0)
		return KREG_EINVAL;
	from_git(out, &g);
	return 0;
}

void kreg_bisect_oid_hex(char *buf, size_t size, const kreg_bisect_oid *id)
{
	git_oid g;

	to_git(&g, id);
	git_oid_tostr(buf, size, &g);
}

int kreg_bisect_oid_equal(const kreg_bisect_oid *a, const kreg_bisect_oid *b)
{
	return !memcmp(a->id, b->id, sizeof(a->id));
}

int kreg_bisect_oid_is_zero(const kreg_bisect_oid *id)
{
	static const kreg_bisect_oid zero;

	return kreg_bisect_oid_equal(id, &zero);
}

static size_t oid_hash(const kreg_bisect_oid *id)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	return h;
}

static long lookup(const kreg_bisect_graph *g, const kreg_bisect_oid *id)
{
	size_t mask = g->nslots - 1;

	for (size_t s = oid_hash(id) & mask;; s = (s + 1) & mask) {
		long i = g->slots[s];

		if (i < 0)
			return -1;
		if (kreg_bisect_oid_equal(&g->ids[i], id))
			return i;
	}
}

static void insert(kreg_bisect_graph *g, size_t i)
{
	size_t mask = g->nslots - 1, s = oid_hash(&g->ids[i]) & mask;

	while (g->slots[s] >= 0)
		s = (s + 1) & mask;
	g->slots[s] = (long)i;
}

static uint64_t *row(const kreg_bisect_graph *g, size_t i)
{
	return g->reach + i * g->words;
}

int kreg_bisect_graph_new(kreg_bisect_graph **out, struct git_repository *repo,
			  const kreg_bisect_oid *good_id, const kreg_bisect_oid *bad_id)
{
	kreg_bisect_graph *g = kreg_calloc(1, sizeof(*g));
	git_revwalk *walk = NULL;
	size_t alloc = 0, salloc = 0, palloc = 0, np = 0;
	char gs[GIT_OID_HEXSZ + 1], bs[GIT_OID_HEXSZ + 1];
	git_oid id, good_oid, bad_oid, *good = &good_oid, *bad = &bad_oid;
	int error = KREG_ERROR, rc;

	*out = NULL;
	to_git(good, good_id);
	to_git(bad, bad_id);
	git_oid_tostr(gs, sizeof(gs), good);
	git_oid_tostr(bs, sizeof(bs), bad);
	if (git_oid_equal(good, bad)) {
		kreg_error_set("good and bad are the same commit %s", gs);
		error = KREG_EINVAL;
		goto done;
	}
	rc = git_graph_descendant_of(repo, bad, good);
	if (rc < 0) {
		kreg_git_error("cannot compare good and bad");
		goto done;
	}
	if (rc == 0) {
		kreg_error_set("good %.12s is not an ancestor of bad %.12s", gs, bs);
		error = KREG_EINVAL;
		goto done;
	}
	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_push(walk, bad) < 0 || git_revwalk_hide(walk, good) < 0) {
		kreg_git_error("cannot walk the range");
		goto done;
	}
	while ((rc = git_revwalk_next(&id, walk)) == 0) {
		git_commit *c;
		unsigned k;

		if (g->n >= KREG_BISECT_GRAPH_MAX) {
			kreg_error_set("the range %.12s..%.12s has more than %d commits: "
				       "give a closer good commit", gs, bs, KREG_BISECT_GRAPH_MAX);
			error = KREG_EINVAL;
			goto done;
		}
		if (git_commit_lookup(&c, repo, &id) < 0) {
			kreg_git_error("cannot read a commit of the range");
			goto done;
		}
		KREG_ARRAY_GROW(g->ids, g->n + 1, alloc);
		KREG_ARRAY_GROW(g->parent_start, g->n + 2, salloc);
		from_git(&g->ids[g->n], &id);
		g->parent_start[g->n] = np;
		for (k = 0; k < git_commit_parentcount(c); k++) {
			KREG_ARRAY_GROW(g->parents, np + 1, palloc);
			from_git(&g->parents[np++], git_commit_parent_id(c, k));
		}
		git_commit_free(c);
		g->n++;
	}
	if (rc != GIT_ITEROVER) {
		kreg_git_error("cannot walk the range");
		goto done;
	}
	KREG_ARRAY_GROW(g->parent_start, g->n + 1, salloc);
	g->parent_start[g->n] = np;
	if (g->n == 0 || !kreg_bisect_oid_equal(&g->ids[g->n - 1], bad_id)) {
		kreg_error_set("the range %.12s..%.12s is not ordered with bad last", gs, bs);
		goto done;
	}

	for (g->nslots = 16; g->nslots < 2 * g->n; g->nslots *= 2)
		;
	g->slots = kreg_malloc(g->nslots * sizeof(long));
	memset(g->slots, 0xff, g->nslots * sizeof(long));
	for (size_t i = 0; i < g->n; i++)
		insert(g, i);

	g->words = (g->n + 63) / 64;
	g->reach = kreg_calloc(g->n * g->words, sizeof(uint64_t));
	for (size_t i = 0; i < g->n; i++) {
		uint64_t *r = row(g, i);

		r[i / 64] |= 1ULL << (i % 64);
		for (size_t p = g->parent_start[i]; p < g->parent_start[i + 1]; p++) {
			long pi = lookup(g, &g->parents[p]);
			const uint64_t *pr;

			if (pi < 0)
				continue;
			pr = row(g, (size_t)pi);
			for (size_t w = 0; w <= (size_t)pi / 64; w++)
				r[w] |= pr[w];
		}
	}
	*out = g;
	g = NULL;
	error = 0;
done:
	git_revwalk_free(walk);
	kreg_bisect_graph_free(g);
	return error;
}

void kreg_bisect_graph_free(kreg_bisect_graph *g)
{
	if (!g)
		return;
	free(g->ids);
	free(g->parent_start);
	free(g->parents);
	free(g->reach);
	free(g->slots);
	free(g);
}

size_t kreg_bisect_graph_size(const kreg_bisect_graph *g)
{
	return g->n;
}

long kreg_bisect_graph_index(const kreg_bisect_graph *g, const kreg_bisect_oid *id)
{
	return lookup(g, id);
}

const kreg_bisect_oid *kreg_bisect_graph_oid(const kreg_bisect_graph *g, size_t i)
{
	return &g->ids[i];
}

int kreg_bisect_graph_reaches(const kreg_bisect_graph *g, size_t b, size_t a)
{
	return (row(g, b)[a / 64] >> (a % 64)) & 1;
}

size_t kreg_bisect_graph_nparents(const kreg_bisect_graph *g, size_t i)
{
	return g->parent_start[i + 1] - g->parent_start[i];
}

const kreg_bisect_oid *kreg_bisect_graph_parent(const kreg_bisect_graph *g, size_t i, size_t n)
{
	return &g->parents[g->parent_start[i] + n];
}

void kreg_bisect_graph_search(kreg_bisect_search *out, const kreg_bisect_graph *g,
			      const kreg_bisect_mark *marks)
{
	uint64_t *cand = kreg_malloc(g->words * sizeof(uint64_t));
	size_t total = 0, best_score = 0;
	int any_bad = 0;

	memset(out, 0, sizeof(*out));
	out->bad = out->next = -1;
	memset(cand, 0xff, g->words * sizeof(uint64_t));
	if (g->n % 64)
		cand[g->words - 1] = (1ULL << (g->n % 64)) - 1;
	for (size_t i = 0; i < g->n; i++) {
		const uint64_t *r = row(g, i);

		if (marks[i] == KREG_BISECT_MARK_BAD) {
			any_bad = 1;
			for (size_t w = 0; w < g->words; w++)
				cand[w] &= r[w];
		}
	}
	for (size_t i = 0; i < g->n; i++) {
		const uint64_t *r = row(g, i);

		if (marks[i] == KREG_BISECT_MARK_GOOD)
			for (size_t w = 0; w <= i / 64; w++)
				cand[w] &= ~r[w];
	}
	if (!any_bad)
		memset(cand, 0, g->words * sizeof(uint64_t));
	for (size_t w = 0; w < g->words; w++)
		total += (size_t)__builtin_popcountll(cand[w]);
	out->candidates = kreg_malloc((total ? total : 1) * sizeof(size_t));
	for (size_t i = 0; i < g->n; i++) {
		const uint64_t *r;
		size_t weight = 0, score;

		if (!((cand[i / 64] >> (i % 64)) & 1))
			continue;
		out->candidates[out->ncandidates++] = i;
		if (marks[i] == KREG_BISECT_MARK_BAD) {
			if (out->bad < 0)
				out->bad = (long)i;
			continue;
		}
		if (marks[i] != KREG_BISECT_MARK_NONE)
			continue;
		out->testable++;
		r = row(g, i);
		for (size_t w = 0; w <= i / 64; w++)
			weight += (size_t)__builtin_popcountll(r[w] & cand[w]);
		score = weight < total - weight ? weight : total - weight;
		if (out->next < 0 || score > best_score) {
			out->next = (long)i;
			out->next_weight = weight;
			best_score = score;
		}
	}
	free(cand);
}

void kreg_bisect_search_release(kreg_bisect_search *s)
{
	free(s->candidates);
	memset(s, 0, sizeof(*s));
}
