/* web/: escaping of untrusted strings, the writer (atomic, only when
 * changed, pages skipped by the hash of their inputs, stale pages pruned),
 * and a long history's trend (downsampled, the step marked). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "db/commits.h"
#include "db/db.h"
#include "db/results.h"
#include "lib/buf.h"
#include "lib/mem.h"
#include "lib/sample.h"
#include "lib/util.h"
#include "web/web.h"
#include "web/web_internal.h"

#include <dirent.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void escaping(void **state)
{
	kreg_buf b = KREG_BUF_INIT;

	(void)state;
	web_esc(&b, "<script>alert(\"x\")</script> & 'q'", 0);
	assert_string_equal(kreg_buf_cstr(&b),
			    "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;");
	kreg_buf_clear(&b);
	/* bytes that are not UTF-8, an overlong form, a surrogate, controls
	 * and a non-character become U+FFFD; valid UTF-8 stays */
	web_esc(&b, "a\xff\xc0\xafz\xed\xa0\x80\x01\x1b[31m\x7f\xef\xbf\xbe\xc3\xa9\t\n", 0);
	assert_string_equal(kreg_buf_cstr(&b), "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "[31m\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\t\n");
	kreg_buf_clear(&b);
	web_esc_line(&b, "one\ntwo\tthree", 0);
	assert_string_equal(kreg_buf_cstr(&b), "one two three");
	kreg_buf_clear(&b);
	web_esc(&b, "abcdef", 3);
	assert_string_equal(kreg_buf_cstr(&b), "abc\xe2\x80\xa6");
	kreg_buf_clear(&b);
	web_esc(&b, NULL, 0);
	assert_string_equal(kreg_buf_cstr(&b), "");
	kreg_buf_release(&b);
}

static ino_t inode(const char *dir, const char *name)
{
	char *p = kreg_path_join(dir, name);
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	free(p);
	return st.st_ino;
}

static void writer(void **state)
{
	char dir[] = "/tmp/kreg-test-web-XXXXXX";
	kreg_buf a = KREG_BUF_INIT, other = KREG_BUF_INIT;
	web_writer *w;
	size_t pages, written, removed;
	uint64_t bytes, biggest;
	const char *big;
	char *keep, *stale;
	ino_t ino;

	(void)state;
	assert_non_null(mkdtemp(dir));
	keep = kreg_path_join(dir, "notes.txt");
	stale = kreg_path_join(dir, "commit-0000.html");
	assert_int_equal(kreg_write_file_atomic(keep, "mine", 4), 0);
	assert_int_equal(kreg_write_file_atomic(stale, "old", 3), 0);
	kreg_buf_puts(&a, "<p>a</p>");
	kreg_buf_puts(&other, "<p>other</p>");

	w = web_writer_new(dir, 0);
	assert_int_equal(web_writer_fresh(w, "trend-1.html", 42), 0);
	assert_int_equal(web_writer_put_hashed(w, "trend-1.html", &a, 42), 0);
	assert_int_equal(web_writer_put(w, "index.html", &other), 0);
	assert_int_equal(web_writer_prune(w, &removed), 0);
	assert_int_equal(removed, 1);		/* the stale page, not notes.txt */
	assert_int_equal(web_writer_save(w), 0);
	web_writer_stats(w, &pages, &written, &bytes, &biggest, &big);
	assert_int_equal(pages, 2);
	assert_int_equal(written, 2);
	assert_string_equal(big, "index.html");
	web_writer_free(w);
	assert_true(kreg_path_exists(keep));
	assert_false(kreg_path_exists(stale));
	ino = inode(dir, "index.html");

	/* the same inputs: not made again; the same content: not written */
	w = web_writer_new(dir, 0);
	assert_int_equal(web_writer_fresh(w, "trend-1.html", 42), 1);
	assert_int_equal(web_writer_fresh(w, "trend-1.html", 43), 0);
	assert_int_equal(web_writer_put(w, "index.html", &other), 0);
	assert_int_equal(web_writer_save(w), 0);
	web_writer_stats(w, &pages, &written, &bytes, &biggest, &big);
	assert_int_equal(written, 0);
	web_writer_free(w);
	assert_int_equal(inode(dir, "index.html"), ino);

	/* new content: a new file renamed over the old */
	w = web_writer_new(dir, 0);
	assert_int_equal(web_writer_put(w, "index.html", &a), 0);
	web_writer_free(w);
	assert_true(inode(dir, "index.html") != ino);

	/* a page the manifest names that is gone is made again */
	{
		char *trend = kreg_path_join(dir, "trend-1.html");

		assert_int_equal(unlink(trend), 0);
		free(trend);
	}
	w = web_writer_new(dir, 0);
	assert_int_equal(web_writer_fresh(w, "trend-1.html", 42), 0);
	web_writer_free(w);

	/* force: nothing is fresh */
	w = web_writer_new(dir, 1);
	assert_int_equal(web_writer_fresh(w, "trend-1.html", 42), 0);
	web_writer_free(w);

	kreg_buf_release(&a);
	kreg_buf_release(&other);
	free(keep);
	free(stale);
	kreg_rm_rf(dir);
}

/* Occurrences of needle in hay. */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* 900 commits on one branch, 2 runs each, a -30% step at commit 800: the
 * trend a lab's people open shows at most 400 points (the newest 100
 * commits a point each, older ones in buckets of 3, the title saying so),
 * marks the step as a change point, and stays far below 300 KB. */
static void long_history_trend(void **state)
{
	char dir[] = "/tmp/kreg-test-web-trend-XXXXXX";
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	kreg_web_opts opts = { 0 };
	kreg_web_stats st;
	kreg_buf page = KREG_BUF_INIT;
	int64_t repo, job, host;
	char prev[41] = "", sha12[13];
	char *yaml, *path, *site, *trend = NULL;
	DIR *d;
	struct dirent *e;
	uint64_t x = 88172645463325252ULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	yaml = kreg_asprintf("data_dir: %s\nrepos:\n  - name: linux\n    url: /nonexistent\n"
			     "    branches: [master]\n", dir);
	assert_int_equal(kreg_config_load_string(&cfg, "t.yaml", yaml, strlen(yaml), NULL), 0);
	path = kreg_path_join(dir, "kreg.db");
	site = kreg_path_join(dir, "site");
	assert_int_equal(kreg_db_open(&db, path, KREG_DB_CREATE | KREG_DB_MIGRATE), 0);
	assert_int_equal(kreg_db_repo_id(db, &repo, "linux", "/nonexistent"), 0);
	assert_int_equal(kreg_db_job_id(db, &job, "fio-t", "fio", "t", "fio: {}\n"), 0);
	assert_int_equal(kreg_db_host_id(db, &host, "simhost", "sim", 4, 1 << 30), 0);
	assert_int_equal(kreg_db_begin(db), 0);
	for (size_t n = 0; n < 900; n++) {
		kreg_commit_row c = { 0 };
		char subject[64], parents[41];
		int64_t id;

		c.repo_id = repo;
		snprintf(c.sha, sizeof(c.sha), "%040zx", n + 1);
		snprintf(parents, sizeof(parents), "%s", prev);
		snprintf(subject, sizeof(subject), "mm: change number %zu", n);
		c.parents = parents;
		c.subject = subject;
		c.author_name = "Author";
		c.author_email = "a@example.org";
		c.author_time = c.committer_time = 1600000000 + (int64_t)n * 60;
		assert_int_equal(kreg_db_commit_put(db, &id, &c), 0);
		memcpy(prev, c.sha, sizeof(prev));
		for (int r = 0; r < 2; r++) {
			kreg_db_run_key key = { .job_id = job, .host_id = host, .commit_id = id,
						.kernel = "sim" };
			kreg_samples s = KREG_SAMPLES_INIT;
			int64_t run;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			kreg_samples_set(&s, "fio.read_iops", (n >= 800 ? 7000 : 10000) *
					 (1 + 0.01 * ((double)(x % 2001) / 1000 - 1)));
			assert_int_equal(kreg_db_run_start(db, &run, &key), 0);
			assert_int_equal(kreg_db_run_finish(db, run, "ok", NULL, &s), 0);
			kreg_samples_release(&s);
		}
	}
	assert_int_equal(kreg_db_branch_set_head(db, repo, "master", prev), 0);
	assert_int_equal(kreg_db_commit(db), 0);

	opts.output = site;
	opts.quiet = 1;
	assert_int_equal(kreg_web_generate(db, cfg, &opts, &st), 0);
	assert_int_equal(st.commits, 900);
	assert_true(st.biggest < 300 * 1024);
	assert_non_null(d = opendir(site));
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "trend-", 6)) {
			free(trend);
			trend = kreg_path_join(site, e->d_name);
		}
	closedir(d);
	assert_non_null(trend);
	assert_int_equal(kreg_buf_read_file(&page, trend), 0);
	assert_int_equal(count_of(kreg_buf_cstr(&page), "<g class=\"pt"), 100 + 267);
	assert_true(strstr(kreg_buf_cstr(&page), "<title>3 commits to ") != NULL);
	snprintf(sha12, sizeof(sha12), "%.12s", prev);
	{
		char *newest = kreg_asprintf("<title>%s mm: change number 899: ", sha12);

		assert_true(strstr(kreg_buf_cstr(&page), newest) != NULL);
		free(newest);
	}
	/* the step: a change point marker and its row, about -30% */
	assert_true(count_of(kreg_buf_cstr(&page), "<g class=\"cp\"><title>change point at ") >= 1);
	assert_true(strstr(kreg_buf_cstr(&page), ": -3") != NULL ||
		    strstr(kreg_buf_cstr(&page), ": -2") != NULL);
	assert_true(strstr(kreg_buf_cstr(&page), "shown as 367 points") != NULL);

	kreg_buf_release(&page);
	free(trend);
	kreg_db_close(db);
	kreg_config_free(cfg);
	kreg_rm_rf(dir);
	free(yaml);
	free(path);
	free(site);
}

/* Numbers as the pages print them: plain, grouped, never an exponent. */
static void numbers(void **state)
{
	static const struct {
		double v;
		int sig;
		const char *want;
	} cases[] = {
		{ 10250.33, 6, "10,250.3" }, { 573.42, 6, "573.42" }, { 1e12, 6, "1,000,000,000,000" },
		{ -1234567.8, 6, "-1,234,568" }, { 0.000012345, 3, "0.0000123" }, { 0, 6, "0" },
		{ 7.5, 6, "7.5" }, { 999.9996, 6, "1,000" }, { -0.5, 2, "-0.5" }, { 1e20, 6,
		  "100,000,000,000,000,000,000" }, { 1.0 / 0.0, 6, "\xe2\x80\x94" },
	};
	kreg_buf b = KREG_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		kreg_buf_clear(&b);
		web_num(&b, cases[i].v, cases[i].sig);
		assert_string_equal(kreg_buf_cstr(&b), cases[i].want);
	}
	assert_string_equal(web_metric_unit("fio.read_iops"), "IOPS");
	assert_string_equal(web_metric_unit("fio.write_bw_MBps"), "MB/s");
	assert_string_equal(web_metric_unit("fio.read_clat_99%_ns"), "ns");
	assert_string_equal(web_metric_unit("fio.latency_10ms%"), "%");
	assert_string_equal(web_metric_unit("fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec"),
			    "works/s");
	assert_null(web_metric_unit("dbench.clients"));
	kreg_buf_release(&b);
}

/* The chart: the y axis titled with the metric and its unit, figures
 * with k, commit ticks with short sha and date thinned to fit, and a
 * change point at the culprit drawn over it, dashed (style.css), its
 * text on a row of its own. */
static void chart(void **state)
{
	enum { N = 60 };
	web_point pts[N];
	char shas[N][41], *culprit, *cp, *svg;
	web_marker marks[2] = {
		{ .at = 40, .kind = WEB_MARK_CP, .label = "change point at x: -20%" },
		{ .at = 40, .kind = WEB_MARK_CULPRIT, .label = "culprit x" },
	};
	kreg_buf b = KREG_BUF_INIT;
	const char *p;
	size_t ticks = 0;

	(void)state;
	memset(pts, 0, sizeof(pts));
	for (size_t i = 0; i < N; i++) {
		snprintf(shas[i], sizeof(shas[i]), "%040zx", 0xabc0000 + i);
		pts[i].mean = i < 40 ? 10250 : 8200;
		pts[i].min = pts[i].mean - 100;
		pts[i].max = pts[i].mean + 100;
		pts[i].first = pts[i].last = i;
		pts[i].nruns = 3;
		pts[i].sha = shas[i];
		pts[i].subject = "s";
		pts[i].time = 1700000000 + (int64_t)i * 86400;
	}
	web_svg_trend(&b, pts, N, marks, 2, "fio.read_iops");
	svg = kreg_strdup(kreg_buf_cstr(&b));
	assert_non_null(strstr(svg, "<text class=\"ytitle\" transform=\"translate(16 "));
	assert_non_null(strstr(svg, "rotate(-90)\">fio.read_iops (IOPS)</text>"));
	assert_non_null(strstr(svg, ">10k</text>"));
	assert_null(strstr(svg, "e+"));
	assert_null(strstr(svg, ">older<"));
	for (p = svg; (p = strstr(p, "<text class=\"xtick")); p++) {
		const char *gt = strchr(p, '>');

		assert_non_null(gt);
		/* a short sha, then the day */
		assert_memory_equal(gt + 1, "0000000", 7);
		assert_non_null(strstr(gt, "<tspan"));
		ticks++;
	}
	assert_true(ticks >= 4 && ticks <= 7);
	/* the newest commit has its tick, the day of its commit under it */
	snprintf(shas[0], sizeof(shas[0]), ">%.7s<tspan", shas[N - 1]);
	assert_non_null(strstr(svg, shas[0]));
	assert_non_null(strstr(svg, ">2024-01-12</tspan>"));
	/* the culprit first, the change point over it, both with their text */
	culprit = strstr(svg, "<g class=\"culprit\">");
	cp = strstr(svg, "<g class=\"cp\">");
	assert_non_null(culprit);
	assert_non_null(cp);
	assert_true(culprit < cp);
	assert_non_null(strstr(culprit, ">culprit</text>"));
	assert_non_null(strstr(cp, ">change point</text>"));
	assert_true(strstr(culprit, " y=\"13\">culprit</text>") != NULL);
	assert_true(strstr(cp, " y=\"29\">change point</text>") != NULL);
	assert_non_null(strstr(kreg_web_css, "svg g.cp:not(.pt) line{stroke:var(--warn);"
				  "stroke-dasharray"));
	assert_non_null(strstr(kreg_web_css, "svg g.culprit:not(.pt) line{stroke:var(--bad);"
				  "stroke-width:4"));
	free(svg);
	kreg_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escaping),
		cmocka_unit_test(writer),
		cmocka_unit_test(long_history_trend),
		cmocka_unit_test(numbers),
		cmocka_unit_test(chart),
	};

	return cmocka_run_group_tests_name("web", tests, NULL, NULL);
}
