/* The site: the model read once (web/model.c), which pages it has, then
 * each page (one file a page), through the atomic, incremental writer. */
#include "web/web.h"
#include "web/page_internal.h"

#include "lib/buf.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "usecase/judge_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

char *kreg_web_output(const kreg_config *cfg, const char *output)
{
	if (output)
		return kreg_strdup(output);
	return kreg_config_site_dir(cfg);
}

static double seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* For the progress lines: the time since t0 and the CPU time since c0. */
#define SINCE(t0, c0) seconds(CLOCK_MONOTONIC) - (t0), seconds(CLOCK_PROCESS_CPUTIME_ID) - (c0)

int kreg_web_generate(kreg_db *db, const kreg_config *cfg, const kreg_web_opts *opts,
		      kreg_web_stats *stats)
{
	web_site s = { 0 };
	kreg_buf css = KREG_BUF_INIT;
	char *dir = kreg_web_output(cfg, opts ? opts->output : NULL), *cache = NULL;
	kreg_web_stats st = { 0 };
	double t0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
	const char *biggest_name;
	int quiet = opts && opts->quiet;
	int error;

	s.db = db;
	s.cfg = cfg;
	kreg_judge_stats_opts(&s.so, cfg);
	s.title = cfg->web.title && *cfg->web.title ? cfg->web.title : "kreg";
	s.force = opts && opts->force;
	cache = kreg_path_join(dir, WEB_SAMPLE_CACHE);
	s.cache = cache;
	if ((error = kreg_mkdir_p(dir, 0755)) < 0)
		goto done;
	if (!quiet)
		fprintf(stderr, "report: reading the database\n");
	if ((error = web_site_load(&s)) < 0)
		goto done;
	if (!quiet)
		fprintf(stderr, "report: samples: %zu from the cache, %zu read from the database "
			"(%zu chunks of commits with new or changed runs) (%.2f s, cpu %.2f s)\n", s.sst.cached,
			s.sst.read, s.sst.chunks_read, SINCE(t0, c0));
	web_site_plan(&s);
	s.commit_seed = web_hdetect(web_hbegin(&s, "commit"), &cfg->detect);
	if (!quiet)
		fprintf(stderr, "report: %zu regressions, %zu commits, %zu jobs x hosts, %zu branches "
			"(%.2f s, cpu %.2f s); writing %zu pages to %s\n", s.nregs, s.ncommits, s.npairs, s.nlines,
			SINCE(t0, c0), s.npages, dir);
	s.w = web_writer_new(dir, opts && opts->force);
	kreg_buf_puts(&css, kreg_web_css);
	if ((error = web_writer_put(s.w, "style.css", &css)) < 0 || (error = web_write_index(&s)) < 0 ||
	    (error = web_write_json(&s)) < 0)
		goto done;
	for (size_t i = 0; i < s.nregs; i++)
		if ((error = web_write_regression(&s, s.regs[i])) < 0 ||
		    (error = web_write_reproduce(&s, s.regs[i])) < 0)
			goto done;
	st.regressions = s.nregs;
	for (size_t i = 0; i < s.nhosts; i++)
		if ((error = web_write_host(&s, &s.hosts[i])) < 0)
			goto done;
	st.hosts = s.nhosts;
	if (!quiet)
		fprintf(stderr, "report: index, %zu regressions and %zu hosts written (%.2f s, cpu %.2f s)\n",
			s.nregs, s.nhosts, SINCE(t0, c0));
	if ((error = web_write_trends(&s, &st.trends)) < 0)
		goto done;
	if (!quiet)
		fprintf(stderr, "report: %zu trends written (%.2f s, cpu %.2f s)\n", st.trends, SINCE(t0, c0));
	for (size_t i = 0; i < s.ncommits; i++) {
		if (!s.commits[i].tested)
			continue;
		if ((error = web_write_commit(&s, &s.commits[i])) < 0)
			goto done;
		st.commits++;
	}
	if ((error = web_writer_prune(s.w, &st.removed)) < 0 || (error = web_writer_save(s.w)) < 0)
		goto done;
	web_writer_stats(s.w, &st.pages, &st.written, &st.bytes, &st.biggest, &biggest_name);
	snprintf(st.biggest_name, sizeof(st.biggest_name), "%s", biggest_name);
	if (!quiet)
		fprintf(stderr, "report: %zu files, %zu written, %zu unchanged, %zu removed; %.1f MB, "
			"biggest %s (%.0f KB); %.2f s, cpu %.2f s\n", st.pages, st.written, st.pages - st.written,
			st.removed, (double)st.bytes / 1e6, st.biggest_name,
			(double)st.biggest / 1024, SINCE(t0, c0));
	if (stats)
		*stats = st;
done:
	web_writer_free(s.w);
	web_site_free(&s);
	kreg_judge_stats_opts_release(&s.so);
	kreg_buf_release(&css);
	free(cache);
	free(dir);
	return error;
}
