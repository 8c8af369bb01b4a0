/* The sim backend: builds nothing, boots nothing; each run draws the
 * configured metrics from a seeded model of the commit (hosts/host_sim.h).
 *
 * A commit's effects are those of every ancestor-or-self that carries one:
 * named in the host's sim_effects (by sha or unique prefix) or by a trailer
 * in its message ("Sim-Effect: fio.read_iops -20%"), unless an ancestor
 * reverts it ("This reverts commit <sha>."). So an effect persists in every
 * descendant, through merges, and a revert takes it away.
 *
 * Besides the drawn failure rates, a commit's own "Sim-Build: fails" or
 * "Sim-Boot: fails" trailer makes it fail to build or boot, for tests that
 * need a given commit broken. */
#include "hosts/host_backend.h"
#include "hosts/host_sim.h"
#include "kernel/repo.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHA_HEX (KREG_REPO_SHA_SIZE - 1)

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t seed_of(uint64_t seed, const char *sha, const char *what, const char *atom,
			unsigned run_index)
{
	uint64_t h = kreg_hash64(sha ? sha : "", sha ? strlen(sha) : 0, seed);

	h = kreg_hash64(what, strlen(what), h);
	if (atom)
		h = kreg_hash64(atom, strlen(atom), h);
	h = kreg_hash64(&run_index, sizeof(run_index), h);
	splitmix(&h);
	return h;
}

static double unit(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) * 0x1.0p-53;
}

double kreg_sim_uniform(uint64_t seed, const char *sha, const char *what, const char *atom,
			unsigned run_index)
{
	uint64_t s = seed_of(seed, sha, what, atom, run_index);

	return unit(&s);
}

int kreg_sim_build_fails(const kreg_host_cfg *hc, const char *sha)
{
	return hc->build_fail_rate > 0 &&
	       kreg_sim_uniform(hc->seed, sha, "build", NULL, 0) < hc->build_fail_rate;
}

int kreg_sim_boot_fails(const kreg_host_cfg *hc, const char *sha)
{
	return hc->boot_fail_rate > 0 &&
	       kreg_sim_uniform(hc->seed, sha, "boot", NULL, 0) < hc->boot_fail_rate;
}

int kreg_sim_infra_fails(const kreg_host_cfg *hc, const char *sha, const char *atom,
			 unsigned run_index)
{
	return hc->infra_fail_rate > 0 &&
	       kreg_sim_uniform(hc->seed, sha, "infra", atom, run_index) < hc->infra_fail_rate;
}

double kreg_sim_draw(const kreg_sim_metric_cfg *m, double factor, uint64_t seed,
		     const char *sha, const char *atom, unsigned run_index)
{
	uint64_t s = seed_of(seed, sha, m->metric, atom, run_index);
	double u1 = unit(&s), u2 = unit(&s), z, v;
	double scale = m->outlier_scale > 0 ? m->outlier_scale : 0.3;

	if (u1 < 1e-300)
		u1 = 1e-300;
	z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
	if (m->distribution && !strcmp(m->distribution, "lognormal"))
		v = m->base * factor * exp(m->noise * z - m->noise * m->noise / 2);
	else
		v = m->base * factor * (1 + m->noise * z);
	if (m->outlier_rate > 0 && unit(&s) < m->outlier_rate)
		v *= unit(&s) < 0.5 ? 1 - scale : 1 + scale;
	if (m->noise_floor > 0) {
		/* drawn last, so the other draws stay as they were; a measured
		 * rate is never below 0, so the floor's tail is cut at 1% of it */
		double w1 = unit(&s), w2 = unit(&s);

		if (w1 < 1e-300)
			w1 = 1e-300;
		v += m->noise_floor * sqrt(-2 * log(w1)) * cos(2 * M_PI * w2);
		if (v < 0.01 * m->noise_floor)
			v = 0.01 * m->noise_floor;
	}
	return v;
}

int kreg_sim_parse_effect(char **metric, double *change, const char *value)
{
	const char *p = value, *start;
	char *end;
	double pct;

	*metric = NULL;
	while (isspace((unsigned char)*p))
		p++;
	start = p;
	while (*p && !isspace((unsigned char)*p))
		p++;
	if (p == start)
		goto bad;
	while (isspace((unsigned char)*p))
		p++;
	if (*p != '+' && *p != '-')
		goto bad;
	pct = strtod(p, &end);
	if (end == p || *end != '%' || !isfinite(pct) || pct <= -100)
		goto bad;
	for (end++; *end; end++)
		if (!isspace((unsigned char)*end))
			goto bad;
	*metric = kreg_strndup(start, (size_t)(p - start));
	/* strip the spaces between metric and change */
	for (size_t n = strlen(*metric); n && isspace((unsigned char)(*metric)[n - 1]); n--)
		(*metric)[n - 1] = '\0';
	*change = pct / 100;
	return 0;
bad:
	kreg_error_set("malformed Sim-Effect '%s' (want: METRIC +N%% or -N%%)", value);
	return KREG_EINVAL;
}

/* Effects of one commit, cached. */
typedef struct {
	char sha[KREG_REPO_SHA_SIZE];
	char *repo_path;
	double *factor;		/* [nsim_metrics] */
} sim_effects;

typedef struct {
	kreg_repo *git;
	char *git_path;
	sim_effects *cache;
	size_t ncache, alloc;
} sim_state;

static int sim_open(kreg_host *h)
{
	if (!h->hc->nsim_metrics) {
		kreg_error_set("host '%s': a sim host needs sim_metrics to draw from", h->hc->name);
		return KREG_EINVAL;
	}
	h->priv = kreg_calloc(1, sizeof(sim_state));
	return 0;
}

static void sim_close(kreg_host *h)
{
	sim_state *s = h->priv;

	if (!s)
		return;
	for (size_t i = 0; i < s->ncache; i++) {
		free(s->cache[i].repo_path);
		free(s->cache[i].factor);
	}
	free(s->cache);
	kreg_repo_close(s->git);
	free(s->git_path);
	free(s);
	h->priv = NULL;
}

/* The repository's error (kernel/repo.h's message) as the host's. */
static int repo_fail(const kreg_host *h, const char *what)
{
	kreg_error_set("host '%s' (sim): %s: %s", h->hc->name, what, kreg_error_last());
	return KREG_ERROR;
}

static int prefix_matches(const char *prefix, const char *sha)
{
	size_t n = strlen(prefix);

	return n >= 4 && n <= SHA_HEX && !strncasecmp(prefix, sha, n);
}

typedef struct {
	char sha[KREG_REPO_SHA_SIZE];
	size_t metric;		/* index in sim_metrics */
	double change;
} effect;

static int open_repo(kreg_host *h, sim_state *s, const char *repo_path)
{
	if (s->git && !strcmp(s->git_path, repo_path))
		return 0;
	kreg_repo_close(s->git);
	s->git = NULL;
	free(s->git_path);
	s->git_path = kreg_strdup(repo_path);
	if (kreg_repo_open_path(&s->git, repo_path, 0) < 0)
		return repo_fail(h, "cannot open the repository");
	return 0;
}

/* A "Sim-Build: fails" or "Sim-Boot: fails" trailer of the commit itself
 * (not inherited): 1 when it says fails, 0 when absent or "ok". */
static int trailer_fails(kreg_host *h, const kreg_host_commit *c, const char *key, int *out)
{
	sim_state *s = h->priv;
	kreg_repo_commit commit;
	const char *line;
	size_t klen = strlen(key);
	int error;

	*out = 0;
	if ((error = open_repo(h, s, c->repo_path)) < 0)
		return error;
	if (kreg_repo_commit_read(s->git, &commit, c->sha) < 0)
		return repo_fail(h, "cannot read the commit");
	for (line = commit.message; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t len = strcspn(line, "\n");
		char *v;

		if (len <= klen || strncasecmp(line, key, klen))
			continue;
		v = kreg_strndup(line + klen, len - klen);
		for (char *e = v + strlen(v); e > v && isspace((unsigned char)e[-1]); e--)
			e[-1] = '\0';
		if (!strcmp(v + strspn(v, " \t"), "fails")) {
			*out = 1;
		} else if (strcmp(v + strspn(v, " \t"), "ok")) {
			kreg_error_set("host '%s' (sim): commit %.12s: %s '%s' (want: fails or ok)",
				       h->hc->name, c->sha, key, v + strspn(v, " \t"));
			free(v);
			kreg_repo_commit_release(&commit);
			return KREG_EINVAL;
		}
		free(v);
	}
	kreg_repo_commit_release(&commit);
	return 0;
}

/* Walk every ancestor-or-self of sha; collect effects and reverts. */
static int compute_effects(kreg_host *h, sim_state *s, const char *repo_path, const char *sha,
			   double *factor)
{
	const kreg_host_cfg *hc = h->hc;
	kreg_repo_walk *walk = NULL;
	effect *effects = NULL;
	char (*reverted)[KREG_REPO_SHA_SIZE] = NULL;
	size_t neff = 0, ealloc = 0, nrev = 0, ralloc = 0;
	char hex[KREG_REPO_SHA_SIZE];
	int rc, error = KREG_ERROR;

	for (size_t m = 0; m < hc->nsim_metrics; m++)
		factor[m] = 1;
	if ((error = open_repo(h, s, repo_path)) < 0)
		return error;
	error = KREG_ERROR;
	if (strlen(sha) != SHA_HEX || strspn(sha, "0123456789abcdefABCDEF") != SHA_HEX) {
		kreg_error_set("host '%s' (sim): '%s' is not a full commit id", hc->name, sha);
		return KREG_EINVAL;
	}
	if (kreg_repo_walk_new(&walk, s->git, sha, NULL, 0) < 0) {
		repo_fail(h, "cannot walk the commit's history");
		goto done;
	}
	while ((rc = kreg_repo_walk_next(walk, hex)) == 1) {
		kreg_repo_commit c;
		const char *msg, *line;

		for (size_t i = 0; i < hc->nsim_effects; i++) {
			const kreg_sim_effect_cfg *e = &hc->sim_effects[i];

			if (!e->commit || !prefix_matches(e->commit, hex))
				continue;
			for (size_t m = 0; m < hc->nsim_metrics; m++)
				if (!strcmp(hc->sim_metrics[m].metric, e->metric)) {
					KREG_ARRAY_GROW(effects, neff + 1, ealloc);
					memcpy(effects[neff].sha, hex, sizeof(hex));
					effects[neff].metric = m;
					effects[neff++].change = e->change;
				}
		}
		if (kreg_repo_commit_read(s->git, &c, hex) < 0) {
			repo_fail(h, "cannot read a commit");
			goto done;
		}
		msg = c.message;
		for (line = msg; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			size_t len = strcspn(line, "\n");
			char *l = kreg_strndup(line, len);

			if (!strncasecmp(l, "Sim-Effect:", 11)) {
				char *metric;
				double change;

				if (kreg_sim_parse_effect(&metric, &change, l + 11) < 0) {
					kreg_error_set("host '%s' (sim): commit %.12s: %s", hc->name, hex,
						       kreg_error_last());
					free(l);
					kreg_repo_commit_release(&c);
					error = KREG_EINVAL;
					goto done;
				}
				for (size_t m = 0; m < hc->nsim_metrics; m++)
					if (!strcmp(hc->sim_metrics[m].metric, metric)) {
						KREG_ARRAY_GROW(effects, neff + 1, ealloc);
						memcpy(effects[neff].sha, hex, sizeof(hex));
						effects[neff].metric = m;
						effects[neff++].change = change;
					}
				free(metric);
			} else if (!strncmp(l, "This reverts commit ", 20) && len >= 20 + SHA_HEX) {
				KREG_ARRAY_GROW(reverted, nrev + 1, ralloc);
				memcpy(reverted[nrev], l + 20, SHA_HEX);
				reverted[nrev++][SHA_HEX] = '\0';
			}
			free(l);
		}
		kreg_repo_commit_release(&c);
	}
	if (rc < 0) {
		repo_fail(h, "cannot walk the commit's history");
		goto done;
	}
	for (size_t i = 0; i < neff; i++) {
		int gone = 0;

		for (size_t r = 0; r < nrev && !gone; r++)
			gone = !strcasecmp(reverted[r], effects[i].sha);
		if (!gone)
			factor[effects[i].metric] *= 1 + effects[i].change;
	}
	error = 0;
done:
	free(effects);
	free(reverted);
	kreg_repo_walk_free(walk);
	return error;
}

static int effects_of(kreg_host *h, const double **factor, const kreg_host_commit *c)
{
	sim_state *s = h->priv;
	sim_effects *e;
	int error;

	for (size_t i = 0; i < s->ncache; i++)
		if (!strcmp(s->cache[i].sha, c->sha) && !strcmp(s->cache[i].repo_path, c->repo_path)) {
			*factor = s->cache[i].factor;
			return 0;
		}
	KREG_ARRAY_GROW(s->cache, s->ncache + 1, s->alloc);
	e = &s->cache[s->ncache];
	memset(e, 0, sizeof(*e));
	e->factor = kreg_calloc(h->hc->nsim_metrics, sizeof(double));
	if ((error = compute_effects(h, s, c->repo_path, c->sha, e->factor)) < 0) {
		free(e->factor);
		return error;
	}
	snprintf(e->sha, sizeof(e->sha), "%s", c->sha);
	e->repo_path = kreg_strdup(c->repo_path);
	s->ncache++;
	*factor = e->factor;
	return 0;
}

static int sim_prepare(kreg_host *h, kreg_host_kernel *out, const kreg_host_commit *c)
{
	int fails = 0, error;

	out->cached = 1;
	out->seconds = 0;
	if (c->repo_path && (error = trailer_fails(h, c, "Sim-Build:", &fails)) < 0)
		return error;
	if (fails) {
		out->status = KREG_PREPARE_BUILD_FAILED;
		out->error = kreg_asprintf("sim: %.12s carries Sim-Build: fails", c->sha);
		return 0;
	}
	if (kreg_sim_build_fails(h->hc, c->sha)) {
		out->status = KREG_PREPARE_BUILD_FAILED;
		out->error = kreg_asprintf("sim: build failure drawn for %.12s (build_fail_rate %g)",
					   c->sha, h->hc->build_fail_rate);
		return 0;
	}
	out->status = KREG_PREPARE_OK;
	return 0;
}

/* A run takes no time; tests that must interrupt one (kill -9 mid-way)
 * give it some with KREG_SIM_RUN_DELAY_MS. */
static void sim_delay(void)
{
	const char *v = getenv("KREG_SIM_RUN_DELAY_MS");
	long long ms;
	struct timespec ts;

	if (!v || kreg_parse_ll(&ms, v, "KREG_SIM_RUN_DELAY_MS") < 0 || ms <= 0 || ms > 60000)
		return;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	nanosleep(&ts, NULL);
}

static int sim_run(kreg_host *h, kreg_host_result *out, const kreg_host_request *req)
{
	const kreg_host_cfg *hc = h->hc;
	const char *sha = req->commit ? req->commit->sha : "running-kernel";
	const char *atom = req->atom_name ? req->atom_name : "";
	const double *factor = NULL;
	kreg_buf raw = KREG_BUF_INIT;
	char *path;
	int error, boot_fails = 0;

	out->kernel = kreg_strdup("sim");
	if (req->commit && (error = effects_of(h, &factor, req->commit)) < 0)
		return error;
	if (req->commit && req->commit->repo_path &&
	    (error = trailer_fails(h, req->commit, "Sim-Boot:", &boot_fails)) < 0)
		return error;
	kreg_buf_printf(&raw, "sim host '%s': commit %s, atom %s, run %u (no kernel, no job: "
			"values drawn from the model)\n", hc->name, sha, atom, req->run_index);
	if (kreg_sim_infra_fails(hc, sha, atom, req->run_index)) {
		out->status = KREG_RUN_INFRA_FAILED;
		out->error = kreg_strdup("sim: infrastructure failure drawn");
	} else if (req->commit && (kreg_sim_boot_fails(hc, sha) || boot_fails)) {
		out->status = KREG_RUN_KERNEL_FAILED;
		out->error = kreg_strdup("sim: the kernel does not boot (drawn)");
	} else {
		out->status = KREG_RUN_OK;
		for (size_t m = 0; m < hc->nsim_metrics; m++) {
			const kreg_sim_metric_cfg *mc = &hc->sim_metrics[m];
			double v = kreg_sim_draw(mc, factor ? factor[m] : 1, hc->seed, sha, atom,
						 req->run_index);

			kreg_samples_set(&out->samples, mc->metric, v);
			kreg_buf_printf(&raw, "%s %.6g\n", mc->metric, v);
		}
	}
	if (out->error)
		kreg_buf_printf(&raw, "%s\n", out->error);
	sim_delay();
	if (req->out_dir) {
		path = kreg_path_join(req->out_dir, "sim.txt");
		error = kreg_write_file_atomic(path, raw.ptr, raw.len);
		free(path);
		if (error < 0) {
			kreg_buf_release(&raw);
			return error;
		}
	}
	kreg_buf_release(&raw);
	return 0;
}

/* A sim host draws only the metrics it is configured with. */
static int sim_check_metric(const kreg_host *h, const char *metric)
{
	const kreg_host_cfg *hc = h->hc;
	kreg_buf names = KREG_BUF_INIT;

	for (size_t i = 0; i < hc->nsim_metrics; i++)
		if (!strcmp(hc->sim_metrics[i].metric, metric))
			return 0;
	for (size_t i = 0; i < hc->nsim_metrics; i++)
		kreg_buf_printf(&names, "%s%s", i ? ", " : "", hc->sim_metrics[i].metric);
	kreg_error_set("host '%s' (sim) draws no metric '%s' (it draws: %s)", hc->name, metric,
		       kreg_buf_cstr(&names));
	kreg_buf_release(&names);
	return KREG_EINVAL;
}

const struct kreg_host_ops kreg_host_sim_ops = {
	.name = "sim",
	.needs_kernel = 0,
	.kernel_if_configured = 1,
	.simulated = 1,
	.check_metric = sim_check_metric,
	.open = sim_open,
	.close = sim_close,
	.prepare = sim_prepare,
	.run = sim_run,
};
