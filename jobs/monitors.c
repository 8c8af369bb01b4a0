/* Monitors: the snapshot snippet and its parser (jobs/monitors.h). The
 * names are LKP's (intel/lkp-tests monitors/ and stats/): proc-vmstat.*,
 * vmstat.{system,cpu,procs,memory,io,swap}.*, mpstat.cpu.all.*%,
 * iostat.<dev>.*, interrupts.*, softirqs.*, meminfo.*; schedstat.cpu.* is
 * /proc/schedstat's per-CPU fields summed (docs/jobs.md). */
#include "jobs/monitors.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char script[] =
	"# kreg monitors (written by kreg for each run): a snapshot of the\n"
	"# kernel's counters appended to FILE: sh kreg-monitors.sh MARK FILE\n"
	"# perf-stat when " KREG_PERF_STAT_FILE " is here (its interval in ms, its events):\n"
	"# perf stat from after the begin snapshot to before the end one\n"
	"P=" KREG_PERF_STAT_FILE "\n"
	"# perf (perf_<version> where /usr/bin/perf is a wrapper), not yet ended\n"
	"perf_is() { [ -n \"$1\" ] &&\n"
	"\tcase \"$(cat /proc/$1/comm 2>/dev/null)\" in perf*) ;; *) false ;; esac &&\n"
	"\t[ \"$(sed 's/.*) \\(.\\).*/\\1/' /proc/$1/stat 2>/dev/null)\" != Z ]; }\n"
	"# perf-profile when " KREG_PERF_PROFILE_FILE " is here (its frequency): perf\n"
	"# record over the same span, its report after the end snapshot\n"
	"R=" KREG_PERF_PROFILE_FILE "\n"
	"# perf_stop FILE TENTHS: SIGINT to FILE.pid's perf, SIGKILL after TENTHS\n"
	"perf_stop() {\n"
	"\tp=$(cat $1.pid 2>/dev/null)\n"
	"\tperf_is \"$p\" && kill -INT \"$p\"\n"
	"\ti=0\n"
	"\twhile perf_is \"$p\" && [ $i -lt $2 ]; do sleep 0.1 2>/dev/null || sleep 1; i=$((i + 1)); done\n"
	"\tperf_is \"$p\" && kill -KILL \"$p\"\n"
	"}\n"
	"if [ \"$1\" = end ]; then\n"
	"\t[ -f $P ] && perf_stop $P 100\n"
	"\t[ -f $R ] && perf_stop $R 600\n"
	"fi\n"
	"[ \"$1\" = begin ] && : > \"$2\"\n"
	"{\n"
	"\techo \"KREG-MONITOR $1 $(cut -d' ' -f1 /proc/uptime)\"\n"
	"\tfor f in vmstat diskstats interrupts softirqs meminfo stat schedstat; do\n"
	"\t\t[ -r /proc/$f ] || continue\n"
	"\t\techo \"KREG-PROC $f\"\n"
	"\t\t# a qemu guest's programs disk (its /init's KREG_PROGS_DEV) is not the job's\n"
	"\t\tif [ $f = diskstats ] && [ -n \"$KREG_PROGS_DEV\" ]; then\n"
	"\t\t\tgrep -v \" $KREG_PROGS_DEV \" /proc/$f\n"
	"\t\telse\n"
	"\t\t\tcat /proc/$f\n"
	"\t\tfi\n"
	"\tdone\n"
	"} >> \"$2\" 2>/dev/null\n"
	"if [ -f $R ] && [ \"$1\" = begin ]; then\n"
	"\trm -f $R.data $R.out $R.pid\n"
	"\tks=--kallsyms=" KREG_PERF_PROFILE_MAP "\n"
	"\t[ -f " KREG_PERF_PROFILE_MAP " ] || ks=\n"
	"\tif ! command -v perf > /dev/null 2>&1; then\n"
	"\t\techo \"no perf on this machine (PATH=$PATH)\" > $R.err\n"
	"\telif [ -z \"$ks\" ] && [ -z \"$(head -c 1 /proc/kallsyms 2>/dev/null)\" ]; then\n"
	"\t\techo \"no symbols of this kernel (no /proc/kallsyms, no System.map)\" > $R.err\n"
	"\telse\n"
	"\t\techo \"$ks\" > $R.ks\n"
	"\t\tread -r hz < $R\n"
	"\t\tperf record -a -g -e cpu-clock -F \"$hz\" -B -N -q -o $R.data < /dev/null > $R.err 2>&1 &\n"
	"\t\techo $! > $R.pid\n"
	"\tfi\n"
	"fi\n"
	"if ! [ -f $P ]; then\n"
	"\t:\n"
	"elif [ \"$1\" = begin ]; then\n"
	"\trm -f $P.out $P.pid\n"
	"\tif command -v perf > /dev/null 2>&1; then\n"
	"\t\t{ read -r ms; read -r ev; read -r n; } < $P\n"
	"\t\tperf stat -a -I \"$ms\" --interval-count \"$n\" -x, -e \"$ev\" -o $P.out \\\n"
	"\t\t\t< /dev/null > $P.err 2>&1 &\n"
	"\t\techo $! > $P.pid\n"
	"\telse\n"
	"\t\techo \"no perf on this machine (PATH=$PATH)\" > $P.err\n"
	"\tfi\n"
	"elif grep -q '^ *[0-9][0-9.]*,[0-9]' $P.out 2>/dev/null; then\n"
	"\t{ echo " KREG_PERF_STAT_MARK "; cat $P.out; } >> \"$2\"\n"
	"else\n"
	"\techo \"" KREG_PERF_STAT_MARK " failed: $(tail -n 3 $P.err 2>/dev/null | tr '\\n' ' ')\" >> \"$2\"\n"
	"fi\n"
	"[ -f $R ] && [ \"$1\" = end ] || exit 0\n"
	"# the self and children table, then the call chains (root first)\n"
	"if [ -s $R.data ]; then\n"
	"\tks=$(cat $R.ks)\n"
	"\t{\n"
	"\t\tperf report -i $R.data $ks --children --sort dso,sym --stdio -g none\n"
	"\t\tperf report -i $R.data $ks --no-children --sort sym --stdio \\\n"
	"\t\t\t-g folded,0,caller,function,percent\n"
	"\t} > $R.out 2>> $R.err < /dev/null\n"
	"fi\n"
	"if grep -q '^# Samples: ' $R.out 2>/dev/null; then\n"
	"\t{ echo " KREG_PERF_PROFILE_MARK "; cat $R.out; } >> \"$2\"\n"
	"else\n"
	"\techo \"" KREG_PERF_PROFILE_MARK " failed: $(tail -n 3 $R.err 2>/dev/null | tr '\\n' ' ')\" >> \"$2\"\n"
	"fi\n"
	"rm -f $R.data $R.out\n"
	"exit 0\n";

const char *kreg_monitors_script(void)
{
	return script;
}

int kreg_monitors_wanted(const kreg_atom *atom)
{
	int on;

	if (kreg_atom_param_bool(&on, atom, NULL, "monitors", 1) < 0)
		return KREG_EINVAL;
	return on;
}

/* A perf monitor's key (`key:`, `key: false`, `key: {opt: N}`): 1 when
 * on, with *v its option (def when not given, within lo..hi). */
static int perf_monitor(const kreg_atom *atom, const char *key, const char *opt, long long def,
			long long lo, long long hi, long long *v)
{
	const char *s;
	int on = 1;

	*v = def;
	if (!kreg_atom_has_program(atom, key))
		return 0;
	if ((on = kreg_monitors_wanted(atom)) <= 0)
		return on;
	if ((s = kreg_atom_param(atom, NULL, key)) && *s && kreg_job_parse_bool(&on, s, key) < 0)
		return KREG_EINVAL;
	if (on && kreg_atom_param_count(v, atom, key, opt, def, 1) < 0)
		return KREG_EINVAL;
	if (on && (*v < lo || *v > hi)) {
		kreg_error_set("%s: %s's %s %lld is out of %lld..%lld", atom->name, key, opt, *v, lo,
			       hi);
		return KREG_EINVAL;
	}
	return on;
}

int kreg_monitors_perf_profile(const kreg_atom *atom, long long *freq)
{
	return perf_monitor(atom, "perf-profile", "freq", 800, 1, 10000, freq);
}

int kreg_monitors_perf_stat(const kreg_atom *atom, long long *interval_ms)
{
	return perf_monitor(atom, "perf-stat", "interval_ms", 1000, 10, 3600000, interval_ms);
}

/* ---- one snapshot as a table ---- */

enum { VMSTAT, DISKSTATS, INTERRUPTS, SOFTIRQS, MEMINFO, STAT, SCHEDSTAT, NPROC };

static const char *const proc_names[NPROC] = {
	"vmstat", "diskstats", "interrupts", "softirqs", "meminfo", "stat", "schedstat",
};

typedef struct {
	double uptime;
	kreg_samples t[NPROC];	/* each file as (key, value) */
	int have;
} snapshot;

/* The next whitespace-separated word of *p (NUL-terminated in place). */
static char *word(char **p)
{
	char *s = *p, *w;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return *p = s, NULL;
	w = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return w;
}

static int number(double *v, const char *w)
{
	char *end;

	if (!w || !*w)
		return 0;
	*v = strtod(w, &end);
	return *end == '\0' && isfinite(*v);
}

/* "pgfault 123", "MemFree:  1234 kB" */
static void key_value(kreg_samples *t, char *line)
{
	char *k = word(&line), *v = word(&line);
	double x;
	size_t n;

	if (!k || !number(&x, v))
		return;
	n = strlen(k);
	if (n && k[n - 1] == ':')
		k[n - 1] = '\0';
	kreg_samples_set(t, k, x);
}

/* /proc/interrupts and /proc/softirqs: the header counts the CPUs; a row's
 * counts are summed, its name is LKP's: "LOC:Local_timer_interrupts" (the
 * words joined by '_'), "24:PCI-MSI.2097152-edge.virtio0-config" (an IRQ
 * number's fields joined by '.'), "RCU". */
static void irq_row(kreg_samples *t, char *line, size_t ncpus, int softirq)
{
	char *name = word(&line), *w;
	kreg_buf key = KREG_BUF_INIT;
	double sum = 0, x;
	size_t i = 0, n;
	int numeric;

	if (!name || !(n = strlen(name)) || name[n - 1] != ':')
		return;
	name[n - 1] = '\0';
	numeric = isdigit((unsigned char)name[0]);
	for (; i < ncpus; i++) {
		char *end;

		while (*line == ' ' || *line == '\t')
			line++;
		if (!isdigit((unsigned char)*line))
			break;
		x = strtod(line, &end);
		if (*end && *end != ' ' && *end != '\t')
			break;
		sum += x;
		line = end;
	}
	if (i == 0)
		return;
	kreg_buf_puts(&key, name);
	if (!softirq) {
		int first = 1;

		while ((w = word(&line))) {
			kreg_buf_printf(&key, "%s%s", first ? ":" : numeric ? "." : "_", w);
			first = 0;
		}
	}
	kreg_samples_set(t, kreg_buf_cstr(&key), sum);
	kreg_buf_release(&key);
}

/* /proc/diskstats: "major minor name f1 f2 ..." as "name:k" for field k (1..). */
static void disk_row(kreg_samples *t, char *line)
{
	char *w, *dev;
	double x;
	char key[128];

	if (!word(&line) || !word(&line) || !(dev = word(&line)))
		return;
	for (int k = 1; (w = word(&line)); k++) {
		if (!number(&x, w))
			return;
		snprintf(key, sizeof(key), "%s:%d", dev, k);
		kreg_samples_set(t, key, x);
	}
}

/* /proc/stat: "cpu  u n s i ..." as cpu:k; "ctxt N" and the like. */
static void stat_row(kreg_samples *t, char *line)
{
	char *k = word(&line), *w;
	double x;
	char key[64];

	if (!k || (!strncmp(k, "cpu", 3) && k[3]))
		return;		/* per-CPU lines: the total is enough */
	if (!strcmp(k, "cpu")) {
		for (int i = 1; (w = word(&line)); i++)
			if (number(&x, w)) {
				snprintf(key, sizeof(key), "cpu:%d", i);
				kreg_samples_set(t, key, x);
			}
		return;
	}
	if ((w = word(&line)) && number(&x, w))
		kreg_samples_set(t, k, x);	/* intr: its first number, the total */
}

/* /proc/schedstat (version 15 and later): cpuN's fields summed as cpu:k. */
static void sched_row(kreg_samples *t, char *line)
{
	char *k = word(&line), *w;
	double x;
	char key[32];

	if (!k || strncmp(k, "cpu", 3) || !isdigit((unsigned char)k[3]))
		return;
	for (int i = 1; (w = word(&line)); i++)
		if (number(&x, w)) {
			const double *old;

			snprintf(key, sizeof(key), "cpu:%d", i);
			old = kreg_samples_get(t, key);
			kreg_samples_set(t, key, (old ? *old : 0) + x);
		}
}

static void table_row(kreg_samples *t, int file, char *line, size_t *ncpus, int first)
{
	if ((file == INTERRUPTS || file == SOFTIRQS) && first) {
		char *p = line, *w;

		*ncpus = 0;
		while ((w = word(&p)))
			*ncpus += !strncmp(w, "CPU", 3);
		return;
	}
	switch (file) {
	case VMSTAT:
	case MEMINFO:
		key_value(t, line);
		break;
	case INTERRUPTS:
	case SOFTIRQS:
		irq_row(t, line, *ncpus, file == SOFTIRQS);
		break;
	case DISKSTATS:
		disk_row(t, line);
		break;
	case STAT:
		stat_row(t, line);
		break;
	case SCHEDSTAT:
		sched_row(t, line);
		break;
	}
}

static int proc_index(const char *name)
{
	for (int i = 0; i < NPROC; i++)
		if (!strcmp(name, proc_names[i]))
			return i;
	return -1;
}

/* Split text into its snapshots; <0 when it is not begin and end. */
static int read_snapshots(snapshot s[2], char *text, const char *name)
{
	int n = -1, file = -1, first = 0;
	size_t lineno = 0, ncpus = 0;
	char *p = text;

	while (*p) {
		char *line = p, *e = strchr(p, '\n');

		if (e)
			*e = '\0';
		p = e ? e + 1 : p + strlen(p);
		lineno++;
		if (!strncmp(line, "KREG-MONITOR ", 13)) {
			char *q = line + 13, *mark = word(&q), *up = word(&q);

			if (++n >= 2 || !mark || strcmp(mark, n ? "end" : "begin") ||
			    !number(&s[n].uptime, up)) {
				kreg_error_set("%s:%zu: expected the %s snapshot's line "
					       "'KREG-MONITOR %s <uptime>'", name, lineno,
					       n >= 1 ? "end" : "begin", n >= 1 ? "end" : "begin");
				return KREG_EINVAL;
			}
			s[n].have = 1;
			file = -1;
		} else if (!strncmp(line, "KREG-PROC ", 10)) {
			if (n < 0) {
				kreg_error_set("%s:%zu: a /proc file before the first snapshot", name,
					       lineno);
				return KREG_EINVAL;
			}
			file = proc_index(line + 10);
			first = 1;
		} else if (file >= 0) {
			table_row(&s[n].t[file], file, line, &ncpus, first);
			first = 0;
		}
	}
	if (n != 1) {
		kreg_error_set("%s: %s", name, n < 0 ? "no monitor snapshot" :
			       "only the snapshot before the job (it did not end)");
		return KREG_EINVAL;
	}
	return 0;
}

/* ---- the samples ---- */

typedef struct {
	const snapshot *s;	/* begin, end */
	double secs;		/* between them */
	kreg_samples *out;
} run;

static int get2(const run *r, int file, const char *key, double *b, double *e)
{
	const double *x = kreg_samples_get(&r->s[0].t[file], key);
	const double *y = kreg_samples_get(&r->s[1].t[file], key);

	if (!x || !y)
		return 0;
	*b = *x;
	*e = *y;
	return 1;
}

static double delta(const run *r, int file, const char *key)
{
	double b, e;

	return get2(r, file, key, &b, &e) && e > b ? e - b : 0;
}

static double mean(const run *r, int file, const char *key)
{
	double b, e;

	return get2(r, file, key, &b, &e) ? (b + e) / 2 : 0;
}

static double round2(double x)
{
	return round(x * 100) / 100;
}

static void put(const run *r, const char *prefix, const char *key, double v)
{
	char *name;

	/* counters near DBL_MAX overflow a difference or a sum: never stored */
	if (!isfinite(v))
		return;
	name = kreg_asprintf("%s%s", prefix, key);

	kreg_samples_set(r->out, name, v);
	free(name);
}

/* Every key of a table, as its change (counters) or its mean (levels). */
static void table_out(const run *r, int file, const char *prefix, int (*level)(const char *))
{
	const kreg_samples *t = &r->s[1].t[file];

	for (size_t i = 0; i < t->count; i++) {
		const char *k = t->items[i].metric;
		double b, e;

		if (!get2(r, file, k, &b, &e))
			continue;
		put(r, prefix, k, level && level(k) ? (b + e) / 2 : e > b ? e - b : 0);
	}
}

static int vmstat_level(const char *key)
{
	return !strncmp(key, "nr_", 3);
}

static int always_level(const char *key)
{
	(void)key;
	return 1;
}

/* /proc/stat's cpu line: user nice system idle iowait irq softirq steal
 * guest guest_nice (guest time is counted in user too). */
static void cpu_out(const run *r)
{
	double d[11] = { 0 }, total = 0;
	char key[16];
	static const char *const mp[] = { "usr%", "nice%", "sys%", "idle%", "iowait%", "irq%",
					  "soft%", "steal%", "guest%", "gnice%" };

	for (int i = 1; i <= 10; i++) {
		snprintf(key, sizeof(key), "cpu:%d", i);
		d[i] = delta(r, STAT, key);
		if (i <= 8)
			total += d[i];
	}
	if (total <= 0)
		return;
	put(r, "vmstat.cpu.", "us", round2(100 * (d[1] + d[2]) / total));
	put(r, "vmstat.cpu.", "sy", round2(100 * (d[3] + d[6] + d[7]) / total));
	put(r, "vmstat.cpu.", "id", round2(100 * d[4] / total));
	put(r, "vmstat.cpu.", "wa", round2(100 * d[5] / total));
	put(r, "vmstat.cpu.", "st", round2(100 * d[8] / total));
	d[1] -= d[9];
	d[2] -= d[10];
	for (int i = 1; i <= 10; i++)
		put(r, "mpstat.cpu.all.", mp[i - 1], round2(100 * (d[i] > 0 ? d[i] : 0) / total));
}

static void vmstat_out(const run *r)
{
	double b, e, b2, e2;

	put(r, "vmstat.procs.", "r", mean(r, STAT, "procs_running"));
	put(r, "vmstat.procs.", "b", mean(r, STAT, "procs_blocked"));
	if (get2(r, MEMINFO, "SwapTotal", &b, &e) && get2(r, MEMINFO, "SwapFree", &b2, &e2))
		put(r, "vmstat.memory.", "swpd", (b - b2 + e - e2) / 2);
	put(r, "vmstat.memory.", "free", mean(r, MEMINFO, "MemFree"));
	put(r, "vmstat.memory.", "buff", mean(r, MEMINFO, "Buffers"));
	put(r, "vmstat.memory.", "cache", mean(r, MEMINFO, "Cached") + mean(r, MEMINFO, "SReclaimable"));
	/* pages of 4 KiB swapped, KiB paged: per second, as vmstat prints them */
	put(r, "vmstat.swap.", "si", round2(delta(r, VMSTAT, "pswpin") * 4 / r->secs));
	put(r, "vmstat.swap.", "so", round2(delta(r, VMSTAT, "pswpout") * 4 / r->secs));
	put(r, "vmstat.io.", "bi", round2(delta(r, VMSTAT, "pgpgin") / r->secs));
	put(r, "vmstat.io.", "bo", round2(delta(r, VMSTAT, "pgpgout") / r->secs));
	put(r, "vmstat.system.", "in", round2(delta(r, STAT, "intr") / r->secs));
	put(r, "vmstat.system.", "cs", round2(delta(r, STAT, "ctxt") / r->secs));
	cpu_out(r);
}

/* A partition of another device of the table (vda1 of vda, nvme0n1p1). */
static int is_partition(const kreg_samples *t, const char *dev)
{
	size_t n = strlen(dev), k = n;
	char key[160];

	while (k && isdigit((unsigned char)dev[k - 1]))
		k--;
	if (k == n || k == 0)
		return 0;
	if (dev[k - 1] == 'p' && k > 1 && isdigit((unsigned char)dev[k - 2])) {
		snprintf(key, sizeof(key), "%.*s:1", (int)(k - 1), dev);
		if (kreg_samples_get(t, key))
			return 1;
	}
	snprintf(key, sizeof(key), "%.*s:1", (int)k, dev);
	return kreg_samples_get(t, key) != NULL;
}

static double ratio(double a, double b)
{
	return b > 0 ? round2(a / b) : 0;
}

/* iostat -x's columns from /proc/diskstats, per device that did I/O. */
static void iostat_out(const run *r)
{
	const kreg_samples *t = &r->s[1].t[DISKSTATS];
	double ms = r->secs * 1000, d[12];
	char key[160], prefix[160];

	for (size_t i = 0; i < t->count; i++) {
		const char *k = t->items[i].metric, *colon = strrchr(k, ':');
		int len = (int)(colon - k);

		if (strcmp(colon, ":1") || is_partition(t, (snprintf(key, sizeof(key), "%.*s", len, k), key)))
			continue;
		for (int f = 1; f <= 11; f++) {
			snprintf(key, sizeof(key), "%.*s:%d", len, k, f);
			d[f] = delta(r, DISKSTATS, key);
		}
		if (d[1] + d[5] == 0)
			continue;	/* no I/O during the run (ram0, loop0, an idle disk) */
		snprintf(prefix, sizeof(prefix), "iostat.%.*s.", len, k);
		put(r, prefix, "rrqm/s", round2(d[2] / r->secs));
		put(r, prefix, "wrqm/s", round2(d[6] / r->secs));
		put(r, prefix, "r/s", round2(d[1] / r->secs));
		put(r, prefix, "w/s", round2(d[5] / r->secs));
		put(r, prefix, "rkB/s", round2(d[3] / 2 / r->secs));
		put(r, prefix, "wkB/s", round2(d[7] / 2 / r->secs));
		put(r, prefix, "avgrq-sz", ratio(d[3] + d[7], d[1] + d[5]));
		put(r, prefix, "avgqu-sz", round2(d[11] / ms));
		put(r, prefix, "await", ratio(d[4] + d[8], d[1] + d[5]));
		put(r, prefix, "r_await", ratio(d[4], d[1]));
		put(r, prefix, "w_await", ratio(d[8], d[5]));
		put(r, prefix, "util", round2(fmin(100, 100 * d[10] / ms)));
	}
}

/* /proc/schedstat's per-CPU fields (version 15 on), summed over the CPUs. */
static void schedstat_out(const run *r)
{
	static const char *const f[] = { "yld_count", NULL, "sched_count", "sched_goidle",
					 "ttwu_count", "ttwu_local", "rq_cpu_time", "run_delay",
					 "pcount" };
	char key[16];

	for (int i = 1; i <= 9; i++) {
		double b, e;

		snprintf(key, sizeof(key), "cpu:%d", i);
		if (f[i - 1] && get2(r, SCHEDSTAT, key, &b, &e))
			put(r, "schedstat.cpu.", f[i - 1], e > b ? e - b : 0);
	}
}

/* Where the section of a perf monitor starts in data (its mark's line,
 * "\n" MARK followed by a line feed or " failed:"), or NULL. */
static const char *perf_section(const char *data, size_t len, const char *mark)
{
	size_t n = strlen(mark);

	for (const char *p = data, *end = data + len; p < end;) {
		const char *at = memmem(p, (size_t)(end - p), mark, n);

		if (!at)
			return NULL;
		if ((at == data || at[-1] == '\n') && (size_t)(end - at) > n &&
		    (at[n] == '\n' || at[n] == ' '))
			return at;
		p = at + 1;
	}
	return NULL;
}

int kreg_monitors_perf_failed(char **why, const char *mark, const char *data, size_t len)
{
	const char *p = perf_section(data, len, mark), *end = data + len, *nl;
	size_t n = strlen(mark);

	*why = NULL;
	if (!p || (size_t)(end - p) < n + 8 || memcmp(p + n, " failed:", 8))
		return 0;
	p += n + 8;
	while (p < end && *p == ' ')
		p++;
	nl = memchr(p, '\n', (size_t)(end - p));
	*why = kreg_strndup(p, (size_t)((nl ? nl : end) - p));
	if (!**why) {
		free(*why);
		*why = kreg_strdup("perf printed nothing");
	}
	return 1;
}

int kreg_parse_monitors(kreg_samples *out, const char *data, size_t len, const char *name)
{
	return kreg_parse_monitors_ksyms(out, data, len, name, NULL);
}

int kreg_parse_monitors_ksyms(kreg_samples *out, const char *data, size_t len, const char *name,
			      const kreg_ksyms *ks)
{
	snapshot s[2];
	/* perf-profile's report comes last, perf-stat's counts before it */
	const char *prof = perf_section(data, len, KREG_PERF_PROFILE_MARK), *perf;
	size_t prlen = prof ? len - (size_t)(prof - data) : 0, plen;
	char *text;
	int error;

	if (prof)
		len = (size_t)(prof - data);
	perf = perf_section(data, len, KREG_PERF_STAT_MARK);
	plen = perf ? len - (size_t)(perf - data) : 0;
	if (perf)
		len = (size_t)(perf - data);
	text = kreg_malloc(len + 1);
	memcpy(text, data, len);
	text[len] = '\0';
	memset(s, 0, sizeof(s));
	if ((error = read_snapshots(s, text, name)) == 0) {
		run r = { s, s[1].uptime - s[0].uptime, out };

		/* /proc/uptime counts hundredths: a run shorter is one */
		if (r.secs < 0.01)
			r.secs = 0.01;
		vmstat_out(&r);
		iostat_out(&r);
		table_out(&r, VMSTAT, "proc-vmstat.", vmstat_level);
		table_out(&r, MEMINFO, "meminfo.", always_level);
		table_out(&r, INTERRUPTS, "interrupts.", NULL);
		table_out(&r, SOFTIRQS, "softirqs.", NULL);
		schedstat_out(&r);
		/* perf's counts, when it ran; a run shorter than its interval
		 * has none, and keeps the rest */
		if (plen > sizeof(KREG_PERF_STAT_MARK) &&
		    !memcmp(perf, KREG_PERF_STAT_MARK "\n", sizeof(KREG_PERF_STAT_MARK)) &&
		    kreg_parse_perf_stat(out, perf, plen, name) < 0)
			kreg_error_clear();
		/* the profile's shares, when perf recorded and reported */
		if (prlen > sizeof(KREG_PERF_PROFILE_MARK) &&
		    !memcmp(prof, KREG_PERF_PROFILE_MARK "\n", sizeof(KREG_PERF_PROFILE_MARK)) &&
		    kreg_parse_perf_profile(out, prof, prlen, name, ks) < 0)
			kreg_error_clear();
	}
	for (int i = 0; i < 2; i++)
		for (int f = 0; f < NPROC; f++)
			kreg_samples_release(&s[i].t[f]);
	free(text);
	return error;
}
