/* kreg.yaml -> the options of stats/ and bisect/. */
#include "usecase/judge_opts.h"

#include "lib/mem.h"

#include <stdlib.h>
#include <string.h>

static kreg_direction direction_of(kreg_cfg_direction d)
{
	return d == KREG_CFG_DIR_HIGHER ? KREG_DIR_HIGHER :
	       d == KREG_CFG_DIR_LOWER ? KREG_DIR_LOWER : KREG_DIR_UNKNOWN;
}

void kreg_judge_stats_opts(kreg_stats_opts *out, const kreg_config *cfg)
{
	kreg_stats_rule *rules = NULL;

	memset(out, 0, sizeof(*out));
	if (!cfg)
		return;
	out->min_runs = cfg->detect.min_runs;
	out->max_runs = cfg->detect.max_runs;
	out->threshold = cfg->detect.threshold;
	out->alpha = cfg->detect.alpha;
	if (cfg->detect.nmetrics) {
		rules = kreg_calloc(cfg->detect.nmetrics, sizeof(*rules));
		for (size_t i = 0; i < cfg->detect.nmetrics; i++) {
			const kreg_metric_rule *r = &cfg->detect.metrics[i];

			rules[i].pattern = r->pattern;
			rules[i].direction = direction_of(r->direction);
			rules[i].floor = r->floor;
		}
	}
	out->rules = rules;
	out->nrules = cfg->detect.nmetrics;
}

void kreg_judge_stats_opts_release(kreg_stats_opts *o)
{
	free((void *)o->rules);
	o->rules = NULL;
	o->nrules = 0;
}

void kreg_judge_bisect_params(kreg_bisect_params *p, const kreg_config *cfg, const char *metric)
{
	kreg_stats_opts so;

	kreg_bisect_params_default(p);
	if (!cfg)
		return;
	if (cfg->bisect.runs_per_step > 0)
		p->runs_per_step = (unsigned)cfg->bisect.runs_per_step;
	if (cfg->bisect.max_runs_per_step > 0)
		p->max_runs = (unsigned)cfg->bisect.max_runs_per_step;
	if (p->max_runs < p->runs_per_step)
		p->max_runs = p->runs_per_step;
	if (cfg->bisect.max_builds > 0)
		p->max_builds = (unsigned)cfg->bisect.max_builds;
	p->verify_revert = cfg->bisect.verify_revert;
	if (cfg->detect.alpha > 0)
		p->alpha = cfg->detect.alpha;
	kreg_judge_stats_opts(&so, cfg);
	p->direction = kreg_stats_direction(&so, metric);
	/* The regression was called at the detection floor; the ends must show
	 * at least half of it again to be worth bisecting. */
	p->floor = kreg_stats_floor(&so, metric) / 2;
	kreg_judge_stats_opts_release(&so);
}

void kreg_judge_detect_opts(kreg_stats_detect_opts *out, const kreg_config *cfg, size_t since)
{
	*out = (kreg_stats_detect_opts){ .since = since };
	if (!cfg)
		return;
	out->window = cfg->detect.window > 0 ? (size_t)cfg->detect.window : 0;
	out->lookback = cfg->detect.lookback > 0 ? (size_t)cfg->detect.lookback : 0;
	out->alpha = cfg->detect.confirm;
	out->suggest = cfg->detect.suggest;
	out->step_runs = cfg->detect.step_runs;
	out->baseline_runs = cfg->detect.baseline_runs;
}
