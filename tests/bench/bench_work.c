/* bench_work: claiming from the work queue with 100,000 items queued
 * (20 hosts, most items waiting), on a real SQLite file: the daemon's
 * claim, the worker's proof that it holds the item, and its end.
 *
 * Each figure is given as wall time and as this process's CPU time: on a
 * shared machine the CPU time is the one to compare.
 *
 *   KREG_BENCH_QUEUED=N   items queued (default 100000)
 *   KREG_BENCH_CLAIMS=N   claims timed (default 2000) */
#include "db/db.h"
#include "db/results.h"
#include "db/work.h"
#include "lib/mem.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOSTS 20

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 10) : dflt;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	long queued = env_long("KREG_BENCH_QUEUED", 100000);
	long claims = env_long("KREG_BENCH_CLAIMS", 2000);
	char dir[] = "/tmp/kreg-bench-work-XXXXXX", key[64];
	int64_t host[HOSTS];
	kreg_db *db = NULL;
	char *path;
	double t0, t1, t2, c0, c1, c2;
	long done = 0;

	if (!mkdtemp(dir))
		return 1;
	path = kreg_path_join(dir, "kreg.db");
	if (kreg_db_open(&db, path, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return 1;
	for (int h = 0; h < HOSTS; h++) {
		snprintf(key, sizeof(key), "sim%02d", h);
		if (kreg_db_host_id(db, &host[h], key, "sim", 1, 0) < 0)
			return 1;
	}
	t0 = kreg_now_mono();
	c0 = cpu_now();
	kreg_db_begin(db);
	for (long i = 0; i < queued; i++) {
		kreg_work_new w = { .kind = (i / HOSTS) % 10 == 9 ? KREG_WORK_DETECT : KREG_WORK_RUN, .key = key,
				    .host_id = host[i % HOSTS], .seq = (int)(i / HOSTS),
				    .priority = i % 50 == 0 ? KREG_PRIO_CONFIRM : KREG_PRIO_HEAD };

		snprintf(key, sizeof(key), "run:%ld", i);
		if (kreg_db_work_add(db, NULL, NULL, &w) < 0) {
			fprintf(stderr, "%s\n", "queue failed");
			return 1;
		}
	}
	kreg_db_commit(db);
	t1 = kreg_now_mono();
	c1 = cpu_now();
	printf("queued %ld items on %d hosts: %.2f s wall, %.2f s CPU (%.1f us CPU an item)\n",
	       queued, HOSTS, t1 - t0, c1 - c0, (c1 - c0) * 1e6 / (double)queued);
	for (long c = 0; c < claims; c++) {
		kreg_work w;
		int found, held;

		if (kreg_db_work_claim(db, &w, &found, host[c % HOSTS],
				       KREG_WORK_KIND(KREG_WORK_RUN) | KREG_WORK_KIND(KREG_WORK_BISECT),
				       "bench", 1000, 120) < 0)
			return 1;
		if (!found)
			break;
		if (kreg_db_work_held(db, &held, w.id, "bench", w.attempts) < 0 || !held ||
		    kreg_db_work_finish(db, w.id, "bench", w.attempts, "done", NULL) < 0)
			return 1;
		kreg_work_release(&w);
		done++;
	}
	t2 = kreg_now_mono();
	c2 = cpu_now();
	printf("claim + hold check + finish with %ld queued: %ld items in %.3f s wall, %.3f s CPU: "
	       "%.0f us CPU an item (%.0f claims/s of CPU)\n", queued, done, t2 - t1, c2 - c1,
	       (c2 - c1) * 1e6 / (double)done, (double)done / (c2 - c1));
	t1 = kreg_now_mono();
	c1 = cpu_now();
	for (long c = 0; c < claims; c++) {
		kreg_work w;
		int found;

		/* the lanes of idle kinds: nothing runnable of theirs */
		if (kreg_db_work_claim(db, &w, &found, 0, KREG_WORK_KIND(KREG_WORK_BUILD), "bench",
				       1000, 120) < 0)
			return 1;
		kreg_work_release(&w);
	}
	t2 = kreg_now_mono();
	c2 = cpu_now();
	printf("an empty lane's claim with %ld queued: %.0f us wall, %.0f us CPU\n", queued,
	       (t2 - t1) * 1e6 / (double)claims, (c2 - c1) * 1e6 / (double)claims);
	kreg_db_close(db);
	if (getenv("KREG_BENCH_KEEP"))
		printf("kept: %s\n", path);
	else
		kreg_rm_rf(dir);
	free(path);
	return 0;
}
