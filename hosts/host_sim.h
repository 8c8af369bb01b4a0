/* The sim backend's model, shared with the bisect benchmark so that its
 * in-process trials draw exactly what `kreg` would on a sim host.
 *
 * Every draw is a function of (seed, commit sha, what, atom, run index):
 * the same configuration gives the same samples, run after run. */
#ifndef KREG_HOST_SIM_H
#define KREG_HOST_SIM_H

#include "config/config.h"

#include <stdint.h>

/* A uniform in [0, 1) from the inputs of a draw. */
double kreg_sim_uniform(uint64_t seed, const char *sha, const char *what, const char *atom,
			unsigned run_index);
/* Deterministic per commit: the same sha always fails, or never. */
int kreg_sim_build_fails(const kreg_host_cfg *hc, const char *sha);
int kreg_sim_boot_fails(const kreg_host_cfg *hc, const char *sha);
/* Per run. */
int kreg_sim_infra_fails(const kreg_host_cfg *hc, const char *sha, const char *atom,
			 unsigned run_index);
/* One value of metric m at a commit whose effects multiply its base by
 * factor: noise (normal or lognormal, relative stddev) and outliers. */
double kreg_sim_draw(const kreg_sim_metric_cfg *m, double factor, uint64_t seed,
		     const char *sha, const char *atom, unsigned run_index);

/* Parse one "Sim-Effect: fio.read_iops -20%" trailer line (without the
 * key): *metric is the caller's. KREG_EINVAL when malformed. */
int kreg_sim_parse_effect(char **metric, double *change, const char *value);

#endif
