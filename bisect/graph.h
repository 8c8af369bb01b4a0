/* The commit graph of a bisection, as git bisect sees it: the range is every
 * ancestor-or-self of bad that is not an ancestor-or-self of good, loaded
 * once with libgit2 and kept as reachability bitsets, so that each question
 * ("which commits are still candidates, which one halves them best") costs
 * a few passes over words, not a walk of the repository. */
#ifndef KREG_BISECT_GRAPH_H
#define KREG_BISECT_GRAPH_H

#include <stddef.h>

typedef struct kreg_bisect_graph kreg_bisect_graph;

/* libgit2's repository handle (kernel/repo.h's kreg_repo_git): only
 * graph.c includes libgit2. */
struct git_repository;

/* A commit id as bisect/ and its driver hold it: git's 20 raw bytes
 * (SHA-1), never libgit2's git_oid, so that only graph.c includes
 * libgit2. Zeroed: no commit. */
typedef struct {
	unsigned char id[20];
} kreg_bisect_oid;

/* From 40 hex digits (<0 otherwise, no message set), to hex (size bytes
 * at most, cut as git_oid_tostr does), compared, the zero id. */
int kreg_bisect_oid_parse(kreg_bisect_oid *out, const char *hex);
void kreg_bisect_oid_hex(char *buf, size_t size, const kreg_bisect_oid *id);
int kreg_bisect_oid_equal(const kreg_bisect_oid *a, const kreg_bisect_oid *b);
int kreg_bisect_oid_is_zero(const kreg_bisect_oid *id);

/* The largest range loaded: the bitsets take N * N / 8 bytes. */
#define KREG_BISECT_GRAPH_MAX 32768

/* Load the range good..bad of repo. good must be an ancestor of bad
 * (KREG_EINVAL otherwise, naming both). */
int kreg_bisect_graph_new(kreg_bisect_graph **out, struct git_repository *repo,
			  const kreg_bisect_oid *good, const kreg_bisect_oid *bad);
void kreg_bisect_graph_free(kreg_bisect_graph *g);

/* Commits in the range; index size-1 is the bad end. Indexes are in
 * topological order: parents before children. */
size_t kreg_bisect_graph_size(const kreg_bisect_graph *g);
/* The index of id, or -1 when it is not in the range. */
long kreg_bisect_graph_index(const kreg_bisect_graph *g, const kreg_bisect_oid *id);
const kreg_bisect_oid *kreg_bisect_graph_oid(const kreg_bisect_graph *g, size_t i);
/* 1 when a is an ancestor-or-self of b (both indexes in the range). */
int kreg_bisect_graph_reaches(const kreg_bisect_graph *g, size_t b, size_t a);
/* Parents of commit i, in or out of the range (libgit2 order, first parent
 * first). */
size_t kreg_bisect_graph_nparents(const kreg_bisect_graph *g, size_t i);
const kreg_bisect_oid *kreg_bisect_graph_parent(const kreg_bisect_graph *g, size_t i, size_t n);

/* What is known of a commit of the range. */
typedef enum {
	KREG_BISECT_MARK_NONE = 0,	/* not tested (or still being tested) */
	KREG_BISECT_MARK_GOOD,
	KREG_BISECT_MARK_BAD,
	KREG_BISECT_MARK_SKIP,		/* cannot be tested: build, boot, or no verdict */
} kreg_bisect_mark;

typedef struct {
	size_t *candidates;	/* could be the first bad commit: topological order */
	size_t ncandidates;
	long bad;		/* the lowest bad commit (a candidate), -1 when none */
	long next;		/* the testable candidate that halves best, -1 when none */
	size_t next_weight;	/* candidates it reaches, itself included */
	size_t testable;	/* candidates neither bad nor skipped */
} kreg_bisect_search;

/* From marks[size]: candidates = commits reached by every bad commit and by
 * no good one (the bad end must be marked bad); next = the testable candidate
 * whose ancestors among the candidates come nearest to half of them, as
 * git's find_bisection does. */
void kreg_bisect_graph_search(kreg_bisect_search *out, const kreg_bisect_graph *g,
			      const kreg_bisect_mark *marks);
void kreg_bisect_search_release(kreg_bisect_search *s);

#endif
