/* kreg.yaml's detect: and bisect: sections as the options of stats/ and
 * bisect/, which know no configuration file: the one adapter, used by every
 * command, the worker and the daemon. */
#ifndef KREG_USECASE_JUDGE_OPTS_H
#define KREG_USECASE_JUDGE_OPTS_H

#include "bisect/bisect.h"
#include "config/config.h"
#include "stats/detect.h"
#include "stats/stats.h"

/* stats/' options from cfg's detect: section (cfg may be NULL: the
 * defaults). The rules array is allocated and points into cfg's strings:
 * keep cfg alive, and free with kreg_judge_stats_opts_release. */
void kreg_judge_stats_opts(kreg_stats_opts *out, const kreg_config *cfg);
void kreg_judge_stats_opts_release(kreg_stats_opts *o);

/* The detector's options from cfg's detect: section (window, lookback,
 * confirm, suggest, step_runs, baseline_runs), its level starting at
 * commit since: what the daemon's detection and `kreg changes` judge by. */
void kreg_judge_detect_opts(kreg_stats_detect_opts *out, const kreg_config *cfg, size_t since);

/* A bisection's parameters for metric from cfg's bisect: and detect:
 * sections (cfg may be NULL: kreg_bisect_params_default). */
void kreg_judge_bisect_params(kreg_bisect_params *out, const kreg_config *cfg, const char *metric);

#endif
