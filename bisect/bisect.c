/* The bisection state machine (see bisect.h). */
#include "bisect/bisect.h"
#include "bisect/verdict.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_names[] = {
	"good", "bad", "step", "verify-culprit", "verify-parent", "revert",
};
static const char *const verdict_names[] = { "pending", "good", "bad", "skip", "unknown" };
static const char *const outcome_names[] = { "found", "inconclusive", "not_reproduced", "failed" };

const char *kreg_bisect_role_name(kreg_bisect_role r)
{
	return (unsigned)r < 6 ? role_names[r] : "step";
}

int kreg_bisect_role_parse(kreg_bisect_role *out, const char *name)
{
	for (unsigned i = 0; i < 6; i++)
		if (!strcmp(role_names[i], name)) {
			*out = (kreg_bisect_role)i;
			return 0;
		}
	kreg_error_set("unknown bisect step role '%s'", name);
	return KREG_EINVAL;
}

const char *kreg_bisect_verdict_name(kreg_bisect_verdict v)
{
	return (unsigned)v < 5 ? verdict_names[v] : "unknown";
}

const char *kreg_bisect_outcome_name(kreg_bisect_outcome o)
{
	return (unsigned)o < 4 ? outcome_names[o] : "failed";
}

void kreg_bisect_params_default(kreg_bisect_params *p)
{
	memset(p, 0, sizeof(*p));
	p->runs_per_step = 3;
	p->max_runs = 12;
	p->batch = 2;
	p->max_builds = 30;
	p->direction = KREG_DIR_UNKNOWN;
	p->floor = 0.02;
	p->alpha = 0.01;
	p->search_error = 0.01;
	p->verify_error = 1e-4;
	p->min_confidence = 0.999;
}

/* One commit as the machine sees it. */
typedef struct {
	kreg_bisect_oid id;
	const kreg_bisect_commit *c;	/* NULL: never run */
	long gi;			/* index in the range, -1 outside */
	size_t first;			/* first event naming it (ends first) */
	double *v;			/* its values on the machine's scale */
	double *kept;			/* screened values (machine's scale) */
	double ref_good, ref_bad;	/* the references of its verdict */
	size_t nkept;
	kreg_bisect_verdict verdict;
	double llr;
	int is_revert;
	int is_end;
} node;

typedef struct {
	const kreg_bisect_graph *g;
	const kreg_bisect_state *st;
	const kreg_bisect_params *p;
	node *nodes;
	size_t n, alloc;
	node *good, *bad;
	kreg_bisect_noise noise;
	int log_scale;			/* values are judged as their logarithms */
	kreg_bisect_ends ends;
	double a_search, a_verify;
	kreg_bisect_mark *marks;
} machine;

static node *find_node(machine *m, const kreg_bisect_oid *id)
{
	for (size_t i = 0; i < m->n; i++)
		if (kreg_bisect_oid_equal(&m->nodes[i].id, id))
			return &m->nodes[i];
	return NULL;
}

static node *add_node(machine *m, const kreg_bisect_oid *id, size_t first)
{
	node *x = find_node(m, id);

	if (x)
		return x;
	KREG_ARRAY_GROW(m->nodes, m->n + 1, m->alloc);
	x = &m->nodes[m->n++];
	memset(x, 0, sizeof(*x));
	x->id = *id;
	x->first = first;
	x->gi = kreg_bisect_graph_index(m->g, id);
	return x;
}

static int cmp_first(const void *a, const void *b)
{
	const node *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

static size_t nvalues(const node *x)
{
	return x->c ? x->c->nvalues : 0;
}

static unsigned nruns(const node *x)
{
	return x->c ? x->c->runs : 0;
}

/* Does not build or boot: no verdict will ever come. */
static int untestable(const node *x)
{
	const kreg_bisect_commit *c = x->c;

	if (!c)
		return 0;
	if (c->build_failed)
		return 1;
	return c->kernel_failed >= 2 && c->kernel_failed >= c->nvalues;
}

static void machine_free(machine *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->nodes[i].kept);
		free(m->nodes[i].v);
	}
	free(m->nodes);
	free(m->marks);
}

static void refs_add(kreg_bisect_ref *r, const node *x)
{
	double sum = r->mean * (double)r->n;

	for (size_t i = 0; i < x->nkept; i++)
		sum += x->kept[i];
	r->n += x->nkept;
	r->mean = r->n ? sum / (double)r->n : 0;
}

/* The references of the two sides leaving one node out (NULL: none). */
static void refs_without(const machine *m, kreg_bisect_ref *good, kreg_bisect_ref *bad,
			 const node *skip, int pooled)
{
	memset(good, 0, sizeof(*good));
	memset(bad, 0, sizeof(*bad));
	for (size_t i = 0; i < m->n; i++) {
		const node *x = &m->nodes[i];

		if (x == skip || x->is_revert)
			continue;
		if (x == m->good || (pooled && x->verdict == KREG_BISECT_GOOD))
			refs_add(good, x);
		else if (x == m->bad || (pooled && x->verdict == KREG_BISECT_BAD))
			refs_add(bad, x);
	}
}

static kreg_bisect_verdict classify(const machine *m, const node *x)
{
	if (nvalues(x) >= m->p->runs_per_step && x->llr >= m->a_search)
		return KREG_BISECT_BAD;
	if (nvalues(x) >= m->p->runs_per_step && x->llr <= -m->a_search)
		return KREG_BISECT_GOOD;
	if (nruns(x) >= m->p->max_runs)
		return KREG_BISECT_UNKNOWN;
	return KREG_BISECT_PENDING;
}

/* Build the nodes, screen samples, estimate the noise, and classify every
 * commit in the order it was first tried, each against the references the
 * earlier ones built (the ends first): deterministic and never circular. */
static void machine_load(machine *m, const kreg_bisect_graph *g, const kreg_bisect_state *st)
{
	kreg_bisect_values *sets;
	kreg_bisect_ref rg = { 0, 0 }, rb = { 0, 0 };
	size_t nsets = 0;
	double *llr2;

	memset(m, 0, sizeof(*m));
	m->g = g;
	m->st = st;
	m->p = &st->params;
	add_node(m, &st->good, 0)->is_end = 1;
	add_node(m, &st->bad, 1)->is_end = 1;
	for (size_t i = 0; i < st->nevents; i++) {
		const kreg_bisect_event *e = &st->events[i];
		node *x;

		if (kreg_bisect_oid_is_zero(&e->id))
			continue;
		x = add_node(m, &e->id, i + 2);
		if (e->role == KREG_BISECT_ROLE_REVERT)
			x->is_revert = 1;
	}
	for (size_t i = 0; i < st->ncommits; i++)
		add_node(m, &st->commits[i].id, st->nevents + 2 + i)->c = &st->commits[i];
	qsort(m->nodes, m->n, sizeof(*m->nodes), cmp_first);
	m->good = find_node(m, &st->good);
	m->bad = find_node(m, &st->bad);

	/* The scale: performance metrics are positive and their noise grows
	 * with their level (a run is a few percent off, whatever the level).
	 * On an absolute scale one pooled noise figure is the quiet side's
	 * when an effect is large (at -96% the bad side's spread is 1/25th of
	 * the good side's), and the good side's own runs look like outliers.
	 * On the log scale the noise is relative, the same on both sides. */
	m->log_scale = !m->p->absolute_scale;
	for (size_t i = 0; i < m->n && m->log_scale; i++)
		for (size_t k = 0; k < nvalues(&m->nodes[i]); k++)
			if (!(m->nodes[i].c->values[k] > 0)) {
				m->log_scale = 0;
				break;
			}
	sets = kreg_calloc(m->n, sizeof(*sets));
	for (size_t i = 0; i < m->n; i++) {
		node *x = &m->nodes[i];

		if (!nvalues(x))
			continue;
		x->v = kreg_malloc(x->c->nvalues * sizeof(double));
		for (size_t k = 0; k < x->c->nvalues; k++)
			x->v[k] = m->log_scale ? log(x->c->values[k]) : x->c->values[k];
		sets[nsets].v = x->v;
		sets[nsets++].n = x->c->nvalues;
	}
	kreg_bisect_noise_estimate(&m->noise, sets, nsets, m->p->pooled_screen);
	free(sets);
	for (size_t i = 0; i < m->n; i++) {
		node *x = &m->nodes[i];

		if (!nvalues(x))
			continue;
		x->kept = kreg_malloc(x->c->nvalues * sizeof(double));
		x->nkept = kreg_bisect_screen(x->kept, x->v, x->c->nvalues, m->noise.scale,
					      m->p->pooled_screen);
	}
	m->a_search = -log(m->p->search_error);
	m->a_verify = -log(m->p->verify_error);

	refs_add(&rg, m->good);
	refs_add(&rb, m->bad);
	for (size_t i = 0; i < m->n; i++) {
		node *x = &m->nodes[i];

		if (x->is_end)
			continue;
		if (untestable(x)) {
			x->verdict = KREG_BISECT_SKIP;
			continue;
		}
		x->llr = kreg_bisect_llr(x->kept, x->nkept, &rg, &rb, &m->noise);
		x->ref_good = rg.mean;
		x->ref_bad = rb.mean;
		if (x->is_revert)
			continue;	/* judged at verification, never a reference */
		x->verdict = classify(m, x);
		if (x->verdict == KREG_BISECT_GOOD)
			refs_add(&rg, x);
		else if (x->verdict == KREG_BISECT_BAD)
			refs_add(&rb, x);
	}
	m->good->verdict = KREG_BISECT_GOOD;
	m->bad->verdict = KREG_BISECT_BAD;

	/* Second pass: each commit again, against every other classified one
	 * (its own samples left out), so early steps gain from later ones. */
	llr2 = kreg_calloc(m->n, sizeof(*llr2));
	for (size_t i = 0; i < m->n; i++) {
		node *x = &m->nodes[i];

		llr2[i] = x->llr;
		if (x->is_end || x->verdict == KREG_BISECT_SKIP || !x->nkept)
			continue;
		refs_without(m, &rg, &rb, x, 1);
		if (!rg.n || !rb.n)
			continue;
		llr2[i] = kreg_bisect_llr(x->kept, x->nkept, &rg, &rb, &m->noise);
		x->ref_good = rg.mean;
		x->ref_bad = rb.mean;
	}
	for (size_t i = 0; i < m->n; i++) {
		node *x = &m->nodes[i];

		if (x->is_end || x->verdict == KREG_BISECT_SKIP)
			continue;
		x->llr = llr2[i];
		if (x->is_revert)
			continue;
		x->verdict = classify(m, x);
	}
	free(llr2);
}

/* Evidence for a verification: against the ends alone. Commits classified
 * on the way are chosen by their own samples (a commit that looked bad
 * enough was called bad), so pooled references lean towards each other;
 * the ends were chosen by the request, not by their samples. */
static double llr_loo(const machine *m, const node *x)
{
	kreg_bisect_ref rg, rb;

	refs_without(m, &rg, &rb, x, 0);
	if (!rg.n || !rb.n)
		return x->llr;
	return kreg_bisect_llr(x->kept, x->nkept, &rg, &rb, &m->noise);
}

static unsigned more_runs(const machine *m, const node *x, unsigned budget);

static void ask(kreg_bisect_action *out, kreg_bisect_role role, const node *x, unsigned runs)
{
	static const char *const why[] = {
		[KREG_BISECT_ROLE_GOOD] = "the good end",
		[KREG_BISECT_ROLE_BAD] = "the bad end",
		[KREG_BISECT_ROLE_STEP] = "search",
		[KREG_BISECT_ROLE_VERIFY_CULPRIT] = "verify: the culprit, against the ends alone",
		[KREG_BISECT_ROLE_VERIFY_PARENT] = "verify: a parent of the culprit, against the ends alone",
		[KREG_BISECT_ROLE_REVERT] = "verify: the culprit reverted on bad",
	};

	out->done = 0;
	out->role = role;
	out->commit = x->id;
	/* a verification may need no runs: its row, judged with the runs
	 * stored, is the check */
	out->runs = runs || role == KREG_BISECT_ROLE_VERIFY_CULPRIT ||
		    role == KREG_BISECT_ROLE_VERIFY_PARENT ? runs : 1;
	out->why = why[role];
	if (role == KREG_BISECT_ROLE_STEP && nvalues(x))
		out->why = "search: not yet sure, more runs";
}

/* The ends are everyone's reference: they may run more than one commit. */
static unsigned end_budget(const machine *m, int verifying)
{
	return (verifying ? 3 : 2) * m->p->max_runs;
}

/* x is unsure: more runs there, unless a side's reference has fewer samples
 * than x already has; then that side's end gains more from a run. */
static void ask_more(machine *m, kreg_bisect_action *out, kreg_bisect_role role, const node *x,
		     unsigned budget, int verifying)
{
	kreg_bisect_ref rg, rb;
	node *end;

	refs_without(m, &rg, &rb, x, !verifying);
	if (nvalues(x) >= m->p->runs_per_step && (rg.n < x->nkept || rb.n < x->nkept)) {
		end = rg.n <= rb.n ? m->good : m->bad;
		if (end != x && nruns(end) < end_budget(m, verifying)) {
			ask(out, end == m->good ? KREG_BISECT_ROLE_GOOD : KREG_BISECT_ROLE_BAD, end,
			    m->p->batch);
			out->why = "a reference: this end has fewer samples than the commit judged";
			return;
		}
	}
	ask(out, role, x, more_runs(m, x, budget));
	if (verifying)
		out->why = role == KREG_BISECT_ROLE_VERIFY_CULPRIT ? "verify: the culprit, not yet sure" :
			   "verify: a parent of the culprit, not yet sure";
}

/* Runs to ask at x: up to runs_per_step first, then a batch, within the
 * budget (failed runs count against it too). */
static unsigned more_runs(const machine *m, const node *x, unsigned budget)
{
	unsigned have = (unsigned)nvalues(x), tried = nruns(x), want;

	want = have < m->p->runs_per_step ? m->p->runs_per_step - have : m->p->batch;
	if (tried + want > budget + 2)
		want = budget + 2 > tried ? budget + 2 - tried : 1;
	return want ? want : 1;
}

static void done(kreg_bisect_action *out, kreg_bisect_outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void done(kreg_bisect_action *out, kreg_bisect_outcome o, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	out->done = 1;
	out->outcome = o;
	free(out->message);
	out->message = kreg_buf_detach(&b);
}

static void short_id(char *buf, const kreg_bisect_oid *id)
{
	kreg_bisect_oid_hex(buf, 13, id);
}

/* The ends: each run enough, and the regression seen between them. Returns 1
 * when out holds the answer. */
static int check_ends(machine *m, kreg_bisect_action *out)
{
	const kreg_bisect_params *p = m->p;
	node *ends[2] = { m->good, m->bad };
	size_t ng = nvalues(m->good), nb = nvalues(m->bad);

	for (int i = 0; i < 2; i++) {
		node *x = ends[i];
		char s[16];

		short_id(s, &x->id);
		if (untestable(x)) {
			done(out, KREG_BISECT_FAILED, "the %s end %s %s", i ? "bad" : "good", s,
			     x->c->build_failed ? "does not build" :
			     "fails every run (the kernel or the job: see its runs)");
			return 1;
		}
		if (nvalues(x) < p->runs_per_step) {
			ask(out, i ? KREG_BISECT_ROLE_BAD : KREG_BISECT_ROLE_GOOD, x, more_runs(m, x, end_budget(m, 0)));
			return 1;
		}
	}
	if (kreg_bisect_ends_test(&m->ends, m->good->c->values, ng, m->bad->c->values, nb,
				  p->direction, p->floor, p->alpha) < 0) {
		done(out, KREG_BISECT_FAILED, "%s", kreg_error_last());
		return 1;
	}
	if (m->ends.reproduced)
		return 0;
	if (m->ends.wrong_way) {
		done(out, KREG_BISECT_NOT_REPRODUCED,
		     "not reproduced: the bad end is better than the good end (%+.1f%%, p=%.2g)",
		     100 * m->ends.change, m->ends.p);
		return 1;
	}
	if (nruns(m->good) < end_budget(m, 0) || nruns(m->bad) < end_budget(m, 0)) {
		node *x = nruns(m->good) <= nruns(m->bad) ? m->good : m->bad;

		if (nruns(x) >= end_budget(m, 0))
			x = x == m->good ? m->bad : m->good;
		ask(out, x == m->good ? KREG_BISECT_ROLE_GOOD : KREG_BISECT_ROLE_BAD, x, p->batch);
		out->why = "the ends: the regression not shown yet, more runs";
		return 1;
	}
	done(out, KREG_BISECT_NOT_REPRODUCED,
	     "not reproduced: %zu runs at good and %zu at bad differ by %+.1f%% (p=%.2g; "
	     "needs p < %g and at least %.1f%%)", ng, nb, 100 * m->ends.change, m->ends.p,
	     p->alpha, 100 * p->floor);
	return 1;
}

/* Has the bisection checked id in role yet (a row, whatever its runs)? */
static int role_seen(const kreg_bisect_state *st, kreg_bisect_role role, const kreg_bisect_oid *id)
{
	for (size_t i = 0; i < st->nevents; i++)
		if (st->events[i].role == role && kreg_bisect_oid_equal(&st->events[i].id, id))
			return 1;
	return 0;
}

/* The runs a verification asks of x at first: what it lacks of
 * runs_per_step; the runs stored there (the search's, the detector's)
 * count (x NULL: none the bisection knows of; the driver counts them). */
static unsigned verify_runs(const machine *m, const node *x)
{
	size_t have = x ? nvalues(x) : 0;

	return have >= m->p->runs_per_step ? 0 : m->p->runs_per_step - (unsigned)have;
}

static size_t builds(const machine *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++)
		if (m->nodes[i].c && (m->nodes[i].c->runs || m->nodes[i].c->build_failed))
			n++;
	return n;
}

static double sigmoid(double x)
{
	return 1 / (1 + exp(-x));
}

/* The candidates, and the extra commits (weakly verified parents) not
 * already among them. */
static void set_candidates(kreg_bisect_action *out, const kreg_bisect_graph *g,
			   const kreg_bisect_search *s, const kreg_bisect_oid *extra, size_t nextra)
{
	out->candidates = kreg_calloc(s->ncandidates + nextra + 1, sizeof(kreg_bisect_oid));
	out->ncandidates = 0;
	for (size_t i = 0; i < nextra; i++) {
		long gi = kreg_bisect_graph_index(g, &extra[i]);
		int dup = 0;

		for (size_t k = 0; k < s->ncandidates && gi >= 0 && !dup; k++)
			dup = s->candidates[k] == (size_t)gi;
		if (!dup)
			out->candidates[out->ncandidates++] = extra[i];
	}
	for (size_t i = 0; i < s->ncandidates; i++)
		out->candidates[out->ncandidates++] = *kreg_bisect_graph_oid(g, s->candidates[i]);
}

/* The parents of the candidates that are not candidates: the good side of
 * the answer's boundary (for a found culprit, its parents). */
static size_t boundary(const machine *m, const kreg_bisect_search *s, kreg_bisect_oid **out)
{
	kreg_bisect_oid *v = NULL;
	size_t n = 0, alloc = 0;

	for (size_t k = 0; k < s->ncandidates; k++) {
		size_t c = s->candidates[k];

		for (size_t i = 0; i < kreg_bisect_graph_nparents(m->g, c); i++) {
			const kreg_bisect_oid *pid = kreg_bisect_graph_parent(m->g, c, i);
			long pi = kreg_bisect_graph_index(m->g, pid);
			int dup = 0;

			for (size_t j = 0; j < s->ncandidates && pi >= 0 && !dup; j++)
				dup = s->candidates[j] == (size_t)pi;
			for (size_t j = 0; j < n && !dup; j++)
				dup = kreg_bisect_oid_equal(&v[j], pid);
			if (dup)
				continue;
			KREG_ARRAY_GROW(v, n + 1, alloc);
			v[n++] = *pid;
		}
	}
	*out = v;
	return n;
}

/* The revert of a found culprit on bad, when configured: it must bring
 * the good side back. Returns 1 when out asks for runs (or for the revert
 * to be made), 0 when done (*conf and msg updated). */
static int verify_revert(machine *m, kreg_bisect_action *out, node *culprit, double *conf,
			 kreg_buf *msg, unsigned budget)
{
	const kreg_bisect_params *p = m->p;
	const kreg_bisect_state *st = m->st;
	double llr;

	for (size_t i = 0; i < st->nevents; i++) {
		const kreg_bisect_event *e = &st->events[i];
		node *r;

		/* A revert of another culprit (the search moved on) does not count. */
		if (e->role != KREG_BISECT_ROLE_REVERT ||
		    !kreg_bisect_oid_equal(&e->reverts, &culprit->id))
			continue;
		if (e->failed) {
			kreg_buf_puts(msg, "; the culprit does not revert cleanly on bad");
			return 0;
		}
		r = find_node(m, &e->id);
		if (!r)
			continue;
		if (untestable(r)) {
			kreg_buf_puts(msg, "; the revert does not build or boot");
			return 0;
		}
		llr = llr_loo(m, r);
		if (nvalues(r) < p->runs_per_step ||
		    (llr > -m->a_verify && llr < m->a_verify && nruns(r) < budget)) {
			ask(out, KREG_BISECT_ROLE_REVERT, r, more_runs(m, r, budget));
			return 1;
		}
		*conf *= sigmoid(-llr);
		if (llr <= -m->a_search)
			kreg_buf_puts(msg, "; reverting it on bad restores the good side");
		else
			kreg_buf_puts(msg, "; reverting it on bad does NOT restore the good side");
		return 0;
	}
	ask(out, KREG_BISECT_ROLE_REVERT, culprit, p->runs_per_step);
	out->make_revert = 1;
	return 1;
}

/* The answer's boundary again, with leave-one-out references and the
 * stricter threshold: the lowest bad commit (the culprit) must be clearly
 * bad and every parent on the good side clearly good, each checked in its
 * verify role with the runs stored there (what lacks of runs_per_step run)
 * and more while unsure; then, for a found culprit, the revert when
 * configured. Returns 1 when out asks for runs; 0 when verification is
 * complete (*conf and msg set). */
static int verify(machine *m, kreg_bisect_action *out, const kreg_bisect_search *srch,
		  node *culprit, int found, double *conf, kreg_buf *msg, kreg_bisect_oid **weak,
		  size_t *nweak)
{
	const kreg_bisect_params *p = m->p;
	const kreg_bisect_state *st = m->st;
	unsigned budget = 3 * p->max_runs;
	kreg_bisect_oid *parents = NULL;
	size_t np = boundary(m, srch, &parents);
	int asked = 1;
	double llr;
	char s[16];

	*conf = 1;
	/* Each checked in its role once, with the runs stored there and only
	 * what is missing of runs_per_step run; then more while unsure. */
	if (!role_seen(st, KREG_BISECT_ROLE_VERIFY_CULPRIT, &culprit->id)) {
		ask(out, KREG_BISECT_ROLE_VERIFY_CULPRIT, culprit, verify_runs(m, culprit));
		goto out;
	}
	for (size_t i = 0; i < np; i++) {
		node *x = find_node(m, &parents[i]);

		if (x && untestable(x))
			continue;
		if (!role_seen(st, KREG_BISECT_ROLE_VERIFY_PARENT, &parents[i])) {
			node tmp = { .id = parents[i] };

			ask(out, KREG_BISECT_ROLE_VERIFY_PARENT, x ? x : &tmp, verify_runs(m, x));
			goto out;
		}
	}
	llr = llr_loo(m, culprit);
	if (culprit == m->bad) {
		kreg_bisect_ref rg, rb;

		/* Bad by the request, checked by the ends test; with no other
		 * bad commit to compare it to, that is all. */
		refs_without(m, &rg, &rb, culprit, 0);
		if (!rb.n)
			llr = m->a_verify;
	}
	if (llr < m->a_verify && nruns(culprit) < budget) {
		ask_more(m, out, KREG_BISECT_ROLE_VERIFY_CULPRIT, culprit, budget, 1);
		goto out;
	}
	*conf *= sigmoid(llr);
	short_id(s, &culprit->id);
	if (llr < m->a_verify && sigmoid(llr) < p->min_confidence) {
		kreg_buf_printf(msg, "; %s is only weakly bad (%.1f nats)", s, llr);
		*weak = kreg_reallocarray(*weak, *nweak + 1, sizeof(kreg_bisect_oid));
		(*weak)[(*nweak)++] = culprit->id;
	}
	for (size_t i = 0; i < np; i++) {
		node *x = find_node(m, &parents[i]);

		short_id(s, &parents[i]);
		if (!x || untestable(x)) {
			kreg_buf_printf(msg, "; parent %s could not be tested", s);
			continue;
		}
		if (x == m->good) {
			kreg_bisect_ref rg, rb;

			/* Good by the request, checked by the ends test; with no
			 * other good commit to compare it to, that is all. */
			refs_without(m, &rg, &rb, x, 0);
			if (!rg.n)
				continue;
		}
		llr = llr_loo(m, x);
		if (llr > -m->a_verify && nruns(x) < budget) {
			ask_more(m, out, KREG_BISECT_ROLE_VERIFY_PARENT, x, budget, 1);
			goto out;
		}
		*conf *= sigmoid(-llr);
		if (llr > -m->a_verify && sigmoid(-llr) < p->min_confidence) {
			kreg_buf_printf(msg, "; parent %s is only weakly good (%.1f nats)", s, -llr);
			*weak = kreg_reallocarray(*weak, *nweak + 1, sizeof(kreg_bisect_oid));
			(*weak)[(*nweak)++] = x->id;
		}
	}
	asked = found && p->verify_revert ? verify_revert(m, out, culprit, conf, msg, budget) : 0;
out:
	free(parents);
	return asked;
}

/* The host failed every run at some commit: nothing to learn. Returns 1
 * when out holds the answer. */
static int host_failed(const machine *m, kreg_bisect_action *out)
{
	for (size_t i = 0; i < m->n; i++) {
		const node *x = &m->nodes[i];
		char sid[16];

		if (x->c && x->c->infra_failed >= m->p->max_runs && !x->c->nvalues) {
			short_id(sid, &x->id);
			done(out, KREG_BISECT_FAILED, "the host failed %u runs at %s",
			     x->c->infra_failed, sid);
			return 1;
		}
	}
	return 0;
}

/* The graph's marks from the verdicts. */
static void set_marks(machine *m, size_t N)
{
	m->marks = kreg_calloc(N, sizeof(*m->marks));
	for (size_t i = 0; i < m->n; i++) {
		node *x = &m->nodes[i];

		if (x->gi < 0 || x->is_revert)
			continue;
		switch (x->verdict) {
		case KREG_BISECT_GOOD: m->marks[x->gi] = KREG_BISECT_MARK_GOOD; break;
		case KREG_BISECT_BAD: m->marks[x->gi] = KREG_BISECT_MARK_BAD; break;
		case KREG_BISECT_SKIP:
		case KREG_BISECT_UNKNOWN: m->marks[x->gi] = KREG_BISECT_MARK_SKIP; break;
		default: break;
		}
	}
	m->marks[N - 1] = KREG_BISECT_MARK_BAD;
}

/* A bad commit that is an ancestor of a good one cannot be, with one
 * change that persists: the weaker verdict gets more runs, or is dropped
 * once its budget is spent. Returns 1 when out asks for runs. */
static int resolve_conflicts(machine *m, kreg_bisect_action *out)
{
	const kreg_bisect_params *p = m->p;
	int changed;

	do {
		changed = 0;
		for (size_t i = 0; i < m->n && !changed; i++) {
			node *b = &m->nodes[i];

			if (b->gi < 0 || m->marks[b->gi] != KREG_BISECT_MARK_BAD || b == m->bad)
				continue;
			for (size_t j = 0; j < m->n && !changed; j++) {
				node *gd = &m->nodes[j], *weaker;

				if (gd->gi < 0 || m->marks[gd->gi] != KREG_BISECT_MARK_GOOD ||
				    !kreg_bisect_graph_reaches(m->g, (size_t)gd->gi, (size_t)b->gi))
					continue;
				weaker = fabs(b->llr) <= fabs(gd->llr) ? b : gd;
				if (nruns(weaker) < p->max_runs) {
					ask(out, KREG_BISECT_ROLE_STEP, weaker, more_runs(m, weaker, p->max_runs));
					out->why = "search: a bad commit is an ancestor of a good one";
					return 1;
				}
				m->marks[weaker->gi] = KREG_BISECT_MARK_SKIP;
				changed = 1;
			}
		}
	} while (changed);
	return 0;
}

/* A candidate being tested and not yet judged gets its runs first. Returns
 * 1 when out asks for them. */
static int unjudged_candidate(machine *m, kreg_bisect_action *out, const kreg_bisect_search *s)
{
	for (size_t i = m->n; i-- > 0;) {
		node *x = &m->nodes[i];

		if (x->gi < 0 || x->is_revert || m->marks[x->gi] != KREG_BISECT_MARK_NONE ||
		    (!nruns(x) && !nvalues(x)))
			continue;
		for (size_t k = 0; k < s->ncandidates; k++)
			if (s->candidates[k] == (size_t)x->gi) {
				ask_more(m, out, KREG_BISECT_ROLE_STEP, x, m->p->max_runs, 0);
				return 1;
			}
	}
	return 0;
}

/* One candidate left: verify it and name it, or say what it is between. */
static void conclude_one(machine *m, kreg_bisect_action *out, const kreg_bisect_search *s,
			 kreg_buf *msg, kreg_bisect_oid **weak, size_t *nweak)
{
	const kreg_bisect_params *p = m->p;
	node *culprit = find_node(m, kreg_bisect_graph_oid(m->g, (size_t)s->bad));
	double conf;
	char sid[16];

	if (verify(m, out, s, culprit, 1, &conf, msg, weak, nweak))
		return;
	short_id(sid, &culprit->id);
	out->confidence = conf;
	if (*nweak || conf < p->min_confidence) {
		/* Not verified: say which commits it is between, not a name. */
		set_candidates(out, m->g, s, *weak, *nweak);
		done(out, KREG_BISECT_INCONCLUSIVE, "inconclusive: %s looks like the first bad "
		     "commit but did not verify (confidence %.4f)%s", sid, conf, kreg_buf_cstr(msg));
		return;
	}
	done(out, KREG_BISECT_FOUND, "found: %s is the first bad commit (confidence %.4f)%s",
	     sid, conf, kreg_buf_cstr(msg));
	out->culprit = culprit->id;
}

/* Several candidates and a next commit to test, within the build budget. */
static void next_step(machine *m, kreg_bisect_action *out, const kreg_bisect_search *s)
{
	const kreg_bisect_params *p = m->p;
	node tmp = { .id = *kreg_bisect_graph_oid(m->g, (size_t)s->next) };
	node *x = find_node(m, &tmp.id);

	if (builds(m) >= p->max_builds) {
		set_candidates(out, m->g, s, NULL, 0);
		done(out, KREG_BISECT_INCONCLUSIVE,
		     "inconclusive: the build budget (%u) is spent; the first bad commit is one "
		     "of %zu candidates", p->max_builds, s->ncandidates);
		return;
	}
	ask(out, KREG_BISECT_ROLE_STEP, x ? x : &tmp, x ? more_runs(m, x, p->max_runs) :
	    p->runs_per_step);
}

/* Only untested candidates are left. Those that ran out of runs without a
 * verdict get a second budget before we give up on them; then the lowest
 * bad commit's boundary is verified and the candidates listed. */
static void conclude_untested(machine *m, kreg_bisect_action *out, const kreg_bisect_search *s,
			      kreg_buf *msg, kreg_bisect_oid **weak, size_t *nweak)
{
	const kreg_bisect_params *p = m->p;
	node *lowest;
	double conf;

	for (size_t k = 0; k < s->ncandidates; k++) {
		node *x = find_node(m, kreg_bisect_graph_oid(m->g, s->candidates[k]));

		if (x && x->verdict == KREG_BISECT_UNKNOWN && nruns(x) < 2 * p->max_runs) {
			ask_more(m, out, KREG_BISECT_ROLE_STEP, x, 2 * p->max_runs, 0);
			if (out->role == KREG_BISECT_ROLE_STEP)
				out->why = "search: a second budget, it blocks the answer";
			return;
		}
	}
	lowest = find_node(m, kreg_bisect_graph_oid(m->g, (size_t)s->bad));
	if (verify(m, out, s, lowest, 0, &conf, msg, weak, nweak))
		return;
	set_candidates(out, m->g, s, *weak, *nweak);
	out->confidence = conf;
	done(out, KREG_BISECT_INCONCLUSIVE,
	     "inconclusive: the first bad commit is one of %zu commits (the others could not "
	     "be tested; confidence %.4f)%s", s->ncandidates, conf, kreg_buf_cstr(msg));
}

int kreg_bisect_next(kreg_bisect_action *out, const kreg_bisect_graph *g,
		     const kreg_bisect_state *st)
{
	kreg_bisect_search s = { 0 };
	kreg_buf msg = KREG_BUF_INIT;
	kreg_bisect_oid *weak = NULL;
	size_t nweak = 0;
	machine m;
	size_t N = kreg_bisect_graph_size(g);

	memset(out, 0, sizeof(*out));
	machine_load(&m, g, st);
	if (m.bad->gi != (long)N - 1) {
		done(out, KREG_BISECT_FAILED, "the graph does not end at the bad commit");
		goto out;
	}
	if (host_failed(&m, out) || check_ends(&m, out))
		goto out;
	set_marks(&m, N);
	if (resolve_conflicts(&m, out))
		goto out;
	kreg_bisect_graph_search(&s, g, m.marks);
	if (unjudged_candidate(&m, out, &s))
		goto out;
	if (s.bad < 0)
		done(out, KREG_BISECT_FAILED, "no bad commit is left among the candidates");
	else if (s.ncandidates == 1)
		conclude_one(&m, out, &s, &msg, &weak, &nweak);
	else if (s.next >= 0)
		next_step(&m, out, &s);
	else
		conclude_untested(&m, out, &s, &msg, &weak, &nweak);
out:
	free(weak);
	kreg_bisect_search_release(&s);
	kreg_buf_release(&msg);
	machine_free(&m);
	return 0;
}

int kreg_bisect_ahead(kreg_bisect_oid out[2], size_t *n, const kreg_bisect_graph *g,
		      const kreg_bisect_state *st, const kreg_bisect_oid *commit)
{
	static const kreg_bisect_mark as[2] = { KREG_BISECT_MARK_GOOD, KREG_BISECT_MARK_BAD };
	size_t N = kreg_bisect_graph_size(g);
	long gi = kreg_bisect_graph_index(g, commit);
	machine m;

	*n = 0;
	machine_load(&m, g, st);
	set_marks(&m, N);
	for (int k = 0; k < 2; k++) {
		kreg_bisect_mark was = gi >= 0 ? m.marks[gi] : KREG_BISECT_MARK_NONE;
		kreg_bisect_search s = { 0 };

		if (gi >= 0 && gi < (long)N - 1)
			m.marks[gi] = as[k];
		kreg_bisect_graph_search(&s, g, m.marks);
		if (gi >= 0)
			m.marks[gi] = was;
		if (s.next >= 0 && s.next != gi && s.ncandidates > 1 &&
		    !(*n && kreg_bisect_oid_equal(&out[0], kreg_bisect_graph_oid(g, (size_t)s.next))))
			out[(*n)++] = *kreg_bisect_graph_oid(g, (size_t)s.next);
		kreg_bisect_search_release(&s);
	}
	machine_free(&m);
	return 0;
}

void kreg_bisect_action_release(kreg_bisect_action *a)
{
	free(a->candidates);
	free(a->message);
	memset(a, 0, sizeof(*a));
}

int kreg_bisect_judge(kreg_bisect_judgement *out, const kreg_bisect_graph *g,
		      const kreg_bisect_state *st, const kreg_bisect_oid *id)
{
	machine m;
	node *x;

	memset(out, 0, sizeof(*out));
	machine_load(&m, g, st);
	x = find_node(&m, id);
	if (x) {
		out->verdict = x->verdict;
		out->llr = x->is_end ? 0 : x->llr;
		out->n = nvalues(x);
		out->kept = x->nkept;
		out->log_scale = m.log_scale;
		out->noise = m.noise.scale;
		out->ref_good = x->ref_good;
		out->ref_bad = x->ref_bad;
		if (m.log_scale) {
			double sum = 0;

			for (size_t k = 0; k < x->nkept; k++)
				sum += exp(x->kept[k]);
			out->mean = x->nkept ? sum / (double)x->nkept : 0;
			out->ref_good = x->ref_good != 0 ? exp(x->ref_good) : 0;
			out->ref_bad = x->ref_bad != 0 ? exp(x->ref_bad) : 0;
		} else {
			out->mean = x->nkept ? kreg_stats_mean(x->kept, x->nkept) : 0;
		}
		if (x->is_end && !nvalues(x))
			out->verdict = KREG_BISECT_PENDING;
		if (x->is_revert && x->verdict == KREG_BISECT_PENDING && nvalues(x) >= st->params.runs_per_step)
			out->verdict = x->llr <= -m.a_search ? KREG_BISECT_GOOD :
				       x->llr >= m.a_search ? KREG_BISECT_BAD : KREG_BISECT_PENDING;
	}
	machine_free(&m);
	return 0;
}
