/* Run plans for fio, dbench and fxmark atoms: the argv and files LKP's
 * setup and run scripts would make, without a shell. */
#include "jobs/plan.h"

#include "jobs/monitors.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where Debian's dbench keeps its load files (client.txt), here and in
 * kreg's guest image. */
#define KREG_DBENCH_LOADDIR "/usr/share/dbench"

static void plan_arg(kreg_plan *p, const char *s)
{
	p->argv = kreg_reallocarray(p->argv, p->argc + 2, sizeof(*p->argv));
	p->argv[p->argc++] = kreg_strdup(s);
	p->argv[p->argc] = NULL;
}

static void plan_argf(kreg_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void plan_argf(kreg_plan *p, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	plan_arg(p, kreg_buf_cstr(&b));
	kreg_buf_release(&b);
}

static void plan_file(kreg_plan *p, const char *name, kreg_buf *content, int executable)
{
	p->files = kreg_reallocarray(p->files, p->nfiles + 1, sizeof(*p->files));
	p->files[p->nfiles].name = kreg_strdup(name);
	p->files[p->nfiles].len = content->len;
	p->files[p->nfiles].content = kreg_buf_detach(content);
	if (!p->files[p->nfiles].content)
		p->files[p->nfiles].content = kreg_strdup("");
	p->files[p->nfiles].executable = executable;
	p->nfiles++;
}

void kreg_plan_release(kreg_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].name);
		free(p->files[i].content);
	}
	free(p->files);
	free(p->program);
	free(p->stdout_name);
	free(p->parser);
	free(p->parse_name);
	free(p->target);
	free(p->monitors);
	free(p->ksyms);
	memset(p, 0, sizeof(*p));
}

/* A value going into an fio job file: one line of plain characters, so a
 * job file cannot smuggle in options (exec_prerun= runs a shell). */
static int fio_safe(const kreg_atom *a, const char *key, const char *v)
{
	if (!*v)
		goto bad;
	for (const unsigned char *c = (const unsigned char *)v; *c; c++)
		if (!isalnum(*c) && !strchr("_.,:%+-/", *c))
			goto bad;
	return 0;
bad:
	kreg_error_set("%s: %s '%s': only letters, digits and _.,:%%+-/ may go into an fio job",
		       a->name, key, v);
	return KREG_EINVAL;
}

/* fio's own I/O engines that work on the host's target. Not a path or
 * external:LIB (fio would load and run that library), not exec (runs a
 * program), not the network engines. */
static const char *const fio_engines[] = {
	"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "null", "posixaio",
	"libaio", "io_uring", "splice", "falloc", "ftruncate", "filecreate",
	"filestat", "filedelete", "sg", "dev-dax", "libpmem", "pmemblk", NULL
};

static int word_in(const char *v, size_t len, const char *const *words)
{
	for (const char *const *w = words; *w; w++)
		if (strlen(*w) == len && !strncmp(*w, v, len))
			return 1;
	return 0;
}

/* One size: digits (a decimal point allowed), then k/m/g/t/p, i, b. */
static const char *scan_size(const char *s)
{
	const char *d = s;

	while (isdigit((unsigned char)*s) || (*s == '.' && s > d))
		s++;
	if (s == d)
		return NULL;
	if (*s && strchr("kKmMgGtTpP", *s)) {
		s++;
		if (*s == 'i' || *s == 'I')
			s++;
	}
	if (*s == 'b' || *s == 'B')
		s++;
	return s;
}

/* Sizes joined by '-' (a range), ',' (read,write) or ':' (bssplit-like). */
static int is_sizes(const char *v, int percent)
{
	const char *s = v;

	for (;;) {
		if (!(s = scan_size(s)))
			return 0;
		if (percent && *s == '%')
			s++;
		if (!*s)
			return 1;
		if (!strchr("-,:", *s))
			return 0;
		s++;
	}
}

static int is_uint(const char *v)
{
	if (!*v)
		return 0;
	for (; *v; v++)
		if (!isdigit((unsigned char)*v))
			return 0;
	return 1;
}

/* NAME or NAME:PARAMS (digits, '.', ',', ':', '%', '/'), NAME from words. */
static int is_named(const char *v, const char *const *words)
{
	const char *c = strchr(v, ':');
	size_t len = c ? (size_t)(c - v) : strlen(v);

	if (!word_in(v, len, words))
		return 0;
	if (!c)
		return 1;
	if (!c[1])
		return 0;
	for (c++; *c; c++)
		if (!isdigit((unsigned char)*c) && !strchr(".,:%/", *c))
			return 0;
	return 1;
}

/* What each fio option kreg writes from a job's value accepts. */
enum fio_kind { FIO_ENGINE, FIO_SIZES, FIO_SIZE_PCT, FIO_UINT, FIO_TIME, FIO_NAMED };

static const char *const fio_rw[] = {
	"read", "write", "trim", "randread", "randwrite", "randtrim", "rw", "readwrite",
	"randrw", "trimwrite", "randtrimwrite", NULL
};
static const char *const fio_service[] = {
	"random", "roundrobin", "sequential", "zipf", "pareto", "normal", "gauss", NULL
};
static const char *const fio_distribution[] = {
	"random", "zipf", "pareto", "normal", "gauss", "zoned", "zoned_abs", NULL
};
static const char *const fio_fallocate[] = {
	"none", "native", "posix", "keep", "truncate", "0", "1", NULL
};
static const char *const fio_generator[] = { "tausworthe", "lfsr", "tausworthe64", NULL };

static const struct fio_option {
	const char *key;
	enum fio_kind kind;
	const char *const *words;
	const char *says;
} fio_options[] = {
	{ "ioengine", FIO_ENGINE, fio_engines, "one of fio's I/O engines" },
	{ "bs", FIO_SIZES, NULL, "a size (4k, 1m, 4k-16k)" },
	{ "filesize", FIO_SIZES, NULL, "a size" },
	{ "io_size", FIO_SIZES, NULL, "a size" },
	{ "offset_increment", FIO_SIZE_PCT, NULL, "a size or a percentage" },
	{ "iodepth", FIO_UINT, NULL, "a whole number" },
	{ "nr_files", FIO_UINT, NULL, "a whole number" },
	{ "invalidate", FIO_UINT, NULL, "0 or 1" },
	{ "cpuload", FIO_UINT, NULL, "a whole number" },
	{ "rwmixread", FIO_UINT, NULL, "a percentage (a whole number)" },
	{ "ramp_time", FIO_TIME, NULL, "a time (30, 30s, 1m)" },
	{ "rw", FIO_NAMED, fio_rw, "an I/O pattern (read, randwrite, rw:8, ...)" },
	{ "file_service_type", FIO_NAMED, fio_service, "a service type (roundrobin, ...)" },
	{ "random_distribution", FIO_NAMED, fio_distribution, "a distribution (random, zipf:1.2, ...)" },
	{ "fallocate", FIO_NAMED, fio_fallocate, "none, native, posix, keep or truncate" },
	{ "random_generator", FIO_NAMED, fio_generator, "tausworthe, lfsr or tausworthe64" },
};

static int fio_value_ok(const struct fio_option *o, const char *v)
{
	switch (o->kind) {
	case FIO_ENGINE:
		return word_in(v, strlen(v), o->words);
	case FIO_SIZES:
		return is_sizes(v, 0);
	case FIO_SIZE_PCT:
		return is_sizes(v, 1);
	case FIO_UINT:
		return is_uint(v) && strlen(v) <= 9;
	case FIO_TIME: {
		const char *s = v;

		while (isdigit((unsigned char)*s))
			s++;
		return s > v && s - v <= 9 && (!*s || !strcmp(s, "s") || !strcmp(s, "m") ||
					       !strcmp(s, "h") || !strcmp(s, "ms") || !strcmp(s, "us"));
	}
	case FIO_NAMED:
		return is_named(v, o->words);
	}
	return 0;
}

/* A job's value for an fio option: plain characters, and what the option
 * accepts, so that no value names a library, a program or a file of the
 * job's choosing (the only paths in the job file are the host's target). */
static int fio_check(const kreg_atom *a, const char *key, const char *v)
{
	if (fio_safe(a, key, v) < 0)
		return KREG_EINVAL;
	for (size_t i = 0; i < sizeof(fio_options) / sizeof(fio_options[0]); i++) {
		const struct fio_option *o = &fio_options[i];

		if (strcmp(o->key, key))
			continue;
		if (fio_value_ok(o, v))
			return 0;
		kreg_error_set("%s: fio-setup-basic.%s '%s' is not %s", a->name, key, v, o->says);
		return KREG_EINVAL;
	}
	kreg_error_set("%s: fio option '%s' has no check (kreg's bug)", a->name, key);
	return KREG_EINVAL;
}

static int target_kind(const kreg_plan_opts *o, int *is_dir)
{
	struct stat st;

	if (!o->target || !*o->target) {
		kreg_error_set("the host names no target (a directory or a file the tests may "
			       "write): set 'target:' for the host in kreg.yaml");
		return KREG_EINVAL;
	}
	if (o->target[0] != '/') {
		kreg_error_set("target '%s' must be an absolute path", o->target);
		return KREG_EINVAL;
	}
	for (const unsigned char *c = (const unsigned char *)o->target; *c; c++)
		if (*c < 0x20 || *c == 0x7f || *c == ':') {
			kreg_error_set("target '%s': control characters and ':' are not allowed",
				       o->target);
			return KREG_EINVAL;
		}
	if (o->target_is_dir >= 0) {
		*is_dir = o->target_is_dir;
		return 0;
	}
	if (stat(o->target, &st) < 0) {
		kreg_error_errno("target '%s'", o->target);
		return KREG_ENOTFOUND;
	}
	*is_dir = S_ISDIR(st.st_mode);
	return 0;
}

#define FIO "fio-setup-basic"

/* A [global] line from an option with LKP's default. */
static int fio_opt(kreg_buf *b, const kreg_atom *a, const char *key, const char *dflt)
{
	const char *v = kreg_atom_param(a, FIO, key);

	if (!v)
		v = dflt;
	if (!v)
		return 0;
	if (fio_check(a, key, v) < 0)
		return KREG_EINVAL;
	kreg_buf_printf(b, "%s=%s\n", key, v);
	return 0;
}

static int fio_flag(kreg_buf *b, const kreg_atom *a, const char *key)
{
	int on;

	if (kreg_atom_param_bool(&on, a, FIO, key, 0) < 0)
		return KREG_EINVAL;
	if (on)
		kreg_buf_printf(b, "%s\n", key);
	return 0;
}

/* fio.task's [global] section, as fio-setup-basic writes it. */
static int fio_global(kreg_buf *b, const kreg_atom *a, uint64_t size, int direct, int buffered,
		      int allrandrepeat, int time_based, double runtime)
{
	int pre_read;

	kreg_buf_puts(b, "[global]\n");
	if (fio_opt(b, a, "bs", "4k") < 0 || fio_opt(b, a, "ioengine", "sync") < 0 ||
	    fio_opt(b, a, "iodepth", "32") < 0)
		return KREG_EINVAL;
	kreg_buf_printf(b, "size=%llu\n", (unsigned long long)size);
	kreg_buf_printf(b, "direct=%d\n", direct);
	kreg_buf_printf(b, "runtime=%.0f\n", ceil(runtime));
	if (fio_opt(b, a, "file_service_type", "roundrobin") < 0 ||
	    fio_opt(b, a, "random_distribution", "random") < 0)
		return KREG_EINVAL;
	kreg_buf_puts(b, "group_reporting\n");
	if (kreg_atom_param_bool(&pre_read, a, FIO, "pre_read", 0) < 0)
		return KREG_EINVAL;
	kreg_buf_printf(b, "pre_read=%d\n", pre_read);
	if (kreg_atom_param(a, FIO, "offset_increment")) {
		if (fio_opt(b, a, "offset_increment", NULL) < 0)
			return KREG_EINVAL;
	} else {
		char sz[32];

		snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
		if (fio_opt(b, a, "nr_files", "1") < 0 || fio_opt(b, a, "filesize", sz) < 0 ||
		    fio_opt(b, a, "invalidate", "1") < 0 ||
		    fio_opt(b, a, "fallocate", "posix") < 0 || fio_opt(b, a, "io_size", sz) < 0)
			return KREG_EINVAL;
	}
	if (time_based)
		kreg_buf_puts(b, "time_based\n");
	if (kreg_atom_param(a, FIO, "cpuload") && fio_opt(b, a, "cpuload", NULL) < 0)
		return KREG_EINVAL;
	if (fio_flag(b, a, "refill_buffers") < 0)
		return KREG_EINVAL;
	kreg_buf_printf(b, "buffered=%d\n", buffered);
	if (fio_flag(b, a, "norandommap") < 0)
		return KREG_EINVAL;
	if (kreg_atom_param(a, FIO, "random_generator") &&
	    fio_opt(b, a, "random_generator", NULL) < 0)
		return KREG_EINVAL;
	kreg_buf_printf(b, "allrandrepeat=%d\n", allrandrepeat);
	if (fio_flag(b, a, "exitall") < 0)
		return KREG_EINVAL;
	if (kreg_atom_param(a, FIO, "ramp_time") && fio_opt(b, a, "ramp_time", NULL) < 0)
		return KREG_EINVAL;
	if (fio_flag(b, a, "stonewall") < 0)
		return KREG_EINVAL;
	return 0;
}

/* The job file programs/fio-setup-basic/setup writes (fio.task), for one
 * storage: the host's target. */
static int plan_fio(kreg_plan *p, const kreg_atom *a, const kreg_plan_opts *o)
{
	kreg_buf b = KREG_BUF_INIT;
	uint64_t test_size, size;
	long long nr_task;
	double runtime;
	int direct, buffered, allrandrepeat, is_dir, testfile, time_based;
	const char *rw, *v;
	int error = KREG_EINVAL;

	if ((error = target_kind(o, &is_dir)) < 0)
		return error;
	error = KREG_EINVAL;
	if (!kreg_atom_param(a, FIO, "test_size")) {
		kreg_error_set("%s: test_size must be specified for fio (as in LKP)", a->name);
		goto done;
	}
	if (kreg_atom_param_size(&test_size, a, FIO, "test_size", 0) < 0 ||
	    kreg_atom_param_count(&nr_task, a, FIO, "nr_task", 1, o->cpus) < 0 ||
	    kreg_atom_param_seconds(&runtime, a, FIO, "runtime", 300) < 0 ||
	    kreg_atom_param_bool(&direct, a, FIO, "direct", 0) < 0 ||
	    kreg_atom_param_bool(&buffered, a, FIO, "buffered", !direct) < 0 ||
	    kreg_atom_param_bool(&allrandrepeat, a, FIO, "allrandrepeat", 0) < 0 ||
	    kreg_atom_param_bool(&testfile, a, FIO, "testfile", 0) < 0 ||
	    kreg_atom_param_bool(&time_based, a, FIO, "time_based", 0) < 0)
		goto done;
	if (nr_task > 4096) {
		kreg_error_set("%s: nr_task %lld is too many", a->name, nr_task);
		goto done;
	}
	size = test_size / (uint64_t)nr_task;
	if (size < 4096) {
		kreg_error_set("%s: test_size %llu over %lld tasks leaves under 4k each", a->name,
			       (unsigned long long)test_size, nr_task);
		goto done;
	}
	if (runtime < 1 || runtime > 1e6) {
		kreg_error_set("%s: runtime %g s is out of range", a->name, runtime);
		goto done;
	}

	if (fio_global(&b, a, size, direct, buffered, allrandrepeat, time_based, runtime) < 0)
		goto done;
	kreg_buf_puts(&b, "\n[task_0]\n");
	rw = kreg_atom_param(a, FIO, "rw");
	if (!rw)
		rw = "write";
	if (fio_check(a, "rw", rw) < 0)
		goto done;
	kreg_buf_printf(&b, "rw=%s\n", rw);
	if (is_dir) {
		kreg_buf_printf(&b, "directory=%s\n", o->target);
		if (testfile)
			kreg_buf_puts(&b, "filename=fio_testfile\n");
	} else {
		kreg_buf_printf(&b, "filename=%s\n", o->target);
	}
	kreg_buf_printf(&b, "numjobs=%lld\n", nr_task);
	if ((v = kreg_atom_param(a, FIO, "rwmixread"))) {
		if (fio_check(a, "rwmixread", v) < 0)
			goto done;
		kreg_buf_printf(&b, "rwmixread=%s\n", v);
	}

	p->program = kreg_strdup("fio");
	plan_file(p, "job.fio", &b, 0);
	plan_arg(p, "fio");
	plan_arg(p, "--output-format=json");
	plan_arg(p, "--output=fio.json");
	plan_arg(p, "job.fio");
	p->stdout_name = kreg_strdup("fio.log");
	p->parser = kreg_strdup("fio");
	p->parse_name = kreg_strdup("fio.json");
	/* laying out the file is not in runtime: allow for it */
	p->seconds = runtime + 10 + (double)test_size / (50.0 * 1024 * 1024);
	error = 0;
done:
	kreg_buf_release(&b);
	return error;
}

/* programs/dbench: dbench $nr_threads, here in the target directory for
 * runtime seconds (dbench's own default is 600). */
static int plan_dbench(kreg_plan *p, const kreg_atom *a, const kreg_plan_opts *o)
{
	long long clients;
	double secs;
	int is_dir, error;

	if ((error = target_kind(o, &is_dir)) < 0)
		return error;
	if (!is_dir) {
		kreg_error_set("%s: dbench needs a directory as target, and '%s' is not one",
			       a->name, o->target);
		return KREG_EINVAL;
	}
	if (kreg_atom_param_count(&clients, a, "dbench", "nr_threads", o->cpus > 0 ? o->cpus : 1,
				  o->cpus) < 0 ||
	    kreg_atom_param_seconds(&secs, a, "dbench", "runtime", 600) < 0)
		return KREG_EINVAL;
	if (clients > 1024) {
		kreg_error_set("%s: nr_threads %lld is too many for dbench", a->name, clients);
		return KREG_EINVAL;
	}
	if (secs < 1 || secs > 1e6) {
		kreg_error_set("%s: runtime %g s is out of range", a->name, secs);
		return KREG_EINVAL;
	}
	p->program = kreg_strdup("dbench");
	plan_arg(p, "dbench");
	plan_arg(p, "-D");
	plan_arg(p, o->target);
	plan_arg(p, "-t");
	plan_argf(p, "%.0f", ceil(secs));
	plan_argf(p, "%lld", clients);
	p->stdout_name = kreg_strdup("dbench.log");
	p->parser = kreg_strdup("dbench");
	p->parse_name = kreg_strdup("dbench.log");
	/* dbench warms up for up to a fifth of the time, then cleans up */
	p->seconds = secs * 1.2 + 30;
	return 0;
}

/* A driver for fxmark's bin/run-fxmark.py: what LKP's programs/fxmark/run
 * does by editing the script with sed, done by setting the Runner's fields
 * from argv. fxmark makes a file system on the media it is given: the
 * target must be a device or image file the configuration names. */
static const char fxmark_driver[] =
	"# Written by kreg: run one fxmark configuration, what LKP's\n"
	"# programs/fxmark/run does by editing bin/run-fxmark.py with sed.\n"
	"import importlib.util, os, sys\n"
	"fx, media, fstype, test, ncore, dio, duration, device = sys.argv[1:9]\n"
	"bindir = os.path.join(fx, 'bin')\n"
	"sys.path.insert(0, bindir)\n"
	"spec = importlib.util.spec_from_file_location('run_fxmark', os.path.join(bindir, 'run-fxmark.py'))\n"
	"m = importlib.util.module_from_spec(spec)\n"
	"spec.loader.exec_module(m)\n"
	"m.Runner.HDDDEV = m.Runner.SSDDEV = m.Runner.NVMEDEV = device\n"
	"# LKP's fxmark (rli9/fxmark) filters on (media, fs, test, ncore, dio);\n"
	"# sslab-gatech/fxmark on (media, fs, dio, test, ncore), with 'buffered'.\n"
	"dios = [dio] + (['buffered'] if dio == 'bufferedio' else [])\n"
	"for d in dios:\n"
	"    for f in ((media, fstype, test, ncore, d), (media, fstype, d, test, ncore)):\n"
	"        r = m.Runner(m.Runner.CORE_COARSE_GRAIN, m.PerfMon.LEVEL_LOW, f)\n"
	"        if any(True for _ in r.gen_config()):\n"
	"            r.DURATION = int(duration)\n"
	"            r.run()\n"
	"            sys.exit(0)\n"
	"print('kreg: this fxmark has no configuration %s:%s:%s:%s:%s' % (media, fstype, test, ncore, dio))\n"
	"sys.exit(2)\n";

/* fxmark's dbench tests without a checkout: dbench as fxmark's
 * bin/run-dbench.py runs it (`dbench NCORE -t DURATION -c <load>.txt -D
 * <root>`), its Throughput (MB/s) reported as fxmark reports it, one line
 * under "# ncpu secs works works/sec": NCORE DURATION 0 THROUGHPUT. The
 * script is kreg's own text; the atom's values reach it only as arguments,
 * checked to be plain names and numbers. */
static const char fxmark_dbench_script[] =
	"# Written by kreg: fxmark's dbench test without an fxmark checkout.\n"
	"# dbench runs as fxmark's bin/run-dbench.py runs it; fxmark.log gets\n"
	"# fxmark's section for it (LKP's fxmark parser reads it).\n"
	"# Arguments: SECTION NCORE DURATION LOADFILE DIRECTORY\n"
	"sec=$1 ncore=$2 secs=$3 load=$4 dir=$5\n"
	"[ -r \"$load\" ] || { echo \"kreg: no dbench load file $load\"; exit 2; }\n"
	"[ -d \"$dir\" ] || { echo \"kreg: no directory $dir\"; exit 2; }\n"
	"dbench \"$ncore\" -t \"$secs\" -c \"$load\" -D \"$dir\" > dbench.out 2>&1\n"
	"rc=$?\n"
	"cat dbench.out\n"
	"[ $rc -eq 0 ] || { echo \"kreg: dbench exited with status $rc\"; exit $rc; }\n"
	"tp=$(sed -n 's/^ *Throughput \\([0-9][0-9.]*\\) MB\\/sec.*/\\1/p' dbench.out | tail -n 1)\n"
	"[ -n \"$tp\" ] || { echo \"kreg: no Throughput line in dbench's output\"; exit 1; }\n"
	"{\n"
	"\techo \"## $sec\"\n"
	"\techo \"# ncpu secs works works/sec\"\n"
	"\techo\n"
	"\techo \"$ncore $secs 0 $tp\"\n"
	"} > fxmark.log\n";

static int plan_fxmark_dbench(kreg_plan *p, const kreg_atom *a, const kreg_plan_opts *o,
			      const char *const v[5], double secs)
{
	const char *workload = v[2] + strlen("dbench_");
	char *load = kreg_asprintf("%s/%s.txt", KREG_DBENCH_LOADDIR, workload);
	long long ncore;
	int is_dir, error = KREG_EINVAL;
	kreg_buf script = KREG_BUF_INIT;

	if (access(load, R_OK) < 0) {
		kreg_error_set("%s: fxmark's %s runs dbench with its %s.txt load file, which is "
			       "not on this machine (%s); Debian's dbench ships client.txt",
			       a->name, v[2], workload, load);
		goto done;
	}
	if (kreg_job_parse_count(&ncore, v[3], o->cpus, "fxmark thread_nr") < 0)
		goto done;
	if (ncore < 1 || ncore > 1024) {
		kreg_error_set("%s: fxmark thread_nr %lld is out of range (1-1024)", a->name, ncore);
		goto done;
	}
	if (strcmp(v[4], "bufferedio") && strcmp(v[4], "directio")) {
		kreg_error_set("%s: fxmark directio '%s': bufferedio or directio", a->name, v[4]);
		goto done;
	}
	if (secs < 1 || secs > 1e6) {
		kreg_error_set("%s: duration %g s is out of range", a->name, secs);
		goto done;
	}
	if ((error = target_kind(o, &is_dir)) < 0)
		goto done;
	if (!is_dir) {
		kreg_error_set("%s: fxmark's %s runs dbench in a directory on the file system under "
			       "test, and the host's target '%s' is not one", a->name, v[2], o->target);
		error = KREG_EINVAL;
		goto done;
	}
	p->program = kreg_strdup("fxmark");
	kreg_buf_puts(&script, fxmark_dbench_script);
	plan_file(p, "kreg-fxmark-dbench.sh", &script, 0);
	plan_arg(p, "sh");
	plan_arg(p, "kreg-fxmark-dbench.sh");
	/* fxmark's section: media:fs:test:ncore:iomode (LKP's fxmark order) */
	plan_argf(p, "%s:%s:%s:%lld:%s", v[0], v[1], v[2], ncore, v[4]);
	plan_argf(p, "%lld", ncore);
	plan_argf(p, "%.0f", ceil(secs));
	plan_arg(p, load);
	plan_arg(p, o->target);
	p->stdout_name = kreg_strdup("fxmark-dbench.log");
	p->parser = kreg_strdup("fxmark");
	p->parse_name = kreg_strdup("fxmark.log");
	p->seconds = secs * 1.2 + 30;
	error = 0;
done:
	kreg_buf_release(&script);
	free(load);
	return error;
}

static int plan_fxmark(kreg_plan *p, const kreg_atom *a, const kreg_plan_opts *o)
{
	static const char *const keys[] = { "media", "fstype", "test", "thread_nr", "directio" };
	static const char *const dflt[] = { "ssd", "ext4", NULL, "*", "bufferedio" };
	const char *v[5];
	double secs;
	int is_dir, error;
	kreg_buf drv = KREG_BUF_INIT;

	for (size_t i = 0; i < 5; i++) {
		v[i] = kreg_atom_param(a, "fxmark", keys[i]);
		if (!v[i])
			v[i] = dflt[i];
		if (!v[i]) {
			kreg_error_set("%s: fxmark needs '%s'", a->name, keys[i]);
			return KREG_EINVAL;
		}
		for (const unsigned char *c = (const unsigned char *)v[i]; *c; c++)
			if (!isalnum(*c) && !strchr("_-*%", *c)) {
				kreg_error_set("%s: fxmark %s '%s' is not a plain name", a->name,
					       keys[i], v[i]);
				return KREG_EINVAL;
			}
	}
	if (kreg_atom_param_seconds(&secs, a, "fxmark", "duration", 30) < 0)
		return KREG_EINVAL;
	if (!o->fxmark || !*o->fxmark) {
		/* Without a checkout, kreg runs the tests that wrap dbench
		 * itself; fxmark's own micro-benchmarks need fxmark. */
		if (!strncmp(v[2], "dbench_", 7) && v[2][7])
			return plan_fxmark_dbench(p, a, o, v, secs);
		kreg_error_set("%s: fxmark's %s runs from an fxmark checkout (bin/run-fxmark.py), "
			       "and none is configured: set 'fxmark: /path/to/fxmark' in kreg.yaml "
			       "(without one kreg runs fxmark's dbench tests only: dbench_client)",
			       a->name, v[2]);
		return KREG_EINVAL;
	}
	if (strcmp(v[0], "mem")) {
		if ((error = target_kind(o, &is_dir)) < 0)
			return error;
		if (is_dir) {
			kreg_error_set("%s: fxmark makes a file system on its media: the host's "
				       "target must be a device or image file, not the directory '%s'",
				       a->name, o->target);
			return KREG_EINVAL;
		}
	}
	p->program = kreg_strdup("fxmark");
	kreg_buf_puts(&drv, fxmark_driver);
	plan_file(p, "kreg-fxmark.py", &drv, 0);
	plan_arg(p, "python3");
	plan_arg(p, "kreg-fxmark.py");
	plan_arg(p, o->fxmark);
	for (size_t i = 0; i < 5; i++)
		plan_arg(p, v[i]);
	plan_argf(p, "%.0f", ceil(secs));
	plan_arg(p, o->target ? o->target : "none");
	p->stdout_name = kreg_strdup("fxmark.log");
	p->parser = kreg_strdup("fxmark");
	p->parse_name = kreg_strdup("fxmark.log");
	p->seconds = secs * 2 + 120;
	return 0;
}

int kreg_job_plan(kreg_plan *out, const kreg_atom *a, const kreg_plan_opts *o)
{
	long long interval_ms, freq;
	int error;

	memset(out, 0, sizeof(*out));
	if (kreg_atom_has_program(a, "fio") || kreg_atom_has_program(a, FIO))
		error = plan_fio(out, a, o);
	else if (kreg_atom_has_program(a, "dbench"))
		error = plan_dbench(out, a, o);
	else if (kreg_atom_has_program(a, "fxmark"))
		error = plan_fxmark(out, a, o);
	else {
		kreg_error_set("%s: names no program kreg runs (fio, dbench, fxmark)", a->name);
		error = KREG_EINVAL;
	}
	if (error < 0) {
		kreg_plan_release(out);
		return error;
	}
	out->target = o->target ? kreg_strdup(o->target) : NULL;
	if ((error = kreg_monitors_wanted(a)) < 0) {
		kreg_plan_release(out);
		return error;
	}
	out->monitors = error ? kreg_strdup(KREG_MONITORS_OUTPUT) : NULL;
	if ((error = kreg_monitors_perf_stat(a, &interval_ms)) < 0) {
		kreg_plan_release(out);
		return error;
	}
	if (error) {
		kreg_buf b = KREG_BUF_INIT;

		/* perf ends by itself an hour after the job should have
		 * (--interval-count), should the end snapshot never come */
		kreg_buf_printf(&b, "%lld\n%s\n%lld\n", interval_ms, KREG_PERF_STAT_EVENTS,
				(long long)((out->seconds + 3600) * 1000 / (double)interval_ms) + 1);
		plan_file(out, KREG_PERF_STAT_FILE, &b, 0);
		out->perf_stat = 1;
	}
	if ((error = kreg_monitors_perf_profile(a, &freq)) < 0) {
		kreg_plan_release(out);
		return error;
	}
	if (error) {
		kreg_buf b = KREG_BUF_INIT;

		kreg_buf_printf(&b, "%lld\n", freq);
		plan_file(out, KREG_PERF_PROFILE_FILE, &b, 0);
		out->perf_profile = 1;
	}
	return 0;
}

char *kreg_plan_describe(const kreg_plan *p)
{
	kreg_buf b = KREG_BUF_INIT;

	kreg_buf_printf(&b, "program: %s\n", p->program);
	kreg_buf_puts(&b, "argv:");
	for (size_t i = 0; i < p->argc; i++)
		kreg_buf_printf(&b, " %s", p->argv[i]);
	kreg_buf_putc(&b, '\n');
	kreg_buf_printf(&b, "target: %s\n", p->target ? p->target : "(none)");
	kreg_buf_printf(&b, "output: %s\n", p->stdout_name);
	kreg_buf_printf(&b, "parse: %s %s\n", p->parser, p->parse_name);
	kreg_buf_printf(&b, "seconds: %.0f\n", p->seconds);
	kreg_buf_printf(&b, "monitors: %s%s%s\n", p->monitors ? p->monitors : "off",
			p->perf_stat ? ", perf-stat" : "", p->perf_profile ? ", perf-profile" : "");
	for (size_t i = 0; i < p->nfiles; i++) {
		kreg_buf_printf(&b, "--- %s\n", p->files[i].name);
		kreg_buf_put(&b, p->files[i].content, p->files[i].len);
		if (p->files[i].len && p->files[i].content[p->files[i].len - 1] != '\n')
			kreg_buf_putc(&b, '\n');
	}
	return kreg_buf_detach(&b);
}
