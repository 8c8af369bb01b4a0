/* Splitting a job into atomic jobs and naming them, as LKP's lib/job.rb
 * (each_jobs, each_job, path_params) and sbin/split-job do.
 *
 * LKP learns which keys expand from its programs/ folder: a key expands
 * when it names a program the job uses, or an option one of those
 * programs declares (a `# - name` line in its script), or is one of
 * EXPAND_DIMS. kreg carries that knowledge in the table below. */
#include "jobs/job_internal.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *name;
	const char *const *options;
} program;

static const char *const opt_none[] = { NULL };
/* bin/run-test: read for every job as program 'wrapper' */
static const char *const opt_wrapper[] = { "nr_instances", "cpu_node_bind", "mem_node_bind", NULL };
static const char *const opt_fio_setup_basic[] = {
	"runtime", "rw", "bs", "ioengine", "iodepth", "direct", "offset_increment",
	"test_size", "nr_task", "fallocate", "time_based", "raw_disk", "invalidate",
	"nr_files", "filesize", "io_size", "file_service_type", "random_distribution",
	"numa_mem_policy", "numa_cpu_nodes", "pre_read", "rwmixread", "refill_buffers",
	"cpuload", "cpus_allowed_policy", "cpus_allowed", "donorname", "testfile",
	"buffered", "norandommap", "random_generator", "allrandrepeat", "group_reporting",
	"exitall", "ramp_time", "stonewall",
	/* io_uring's modes (LKP's programs/fio/meta.yaml) */
	"hipri", "sqthread_poll", "sqthread_poll_cpu", "fixedbufs", "registerfiles", NULL
};
static const char *const opt_fio[] = { "iodepth_by_instance", NULL };
static const char *const opt_fs[] = { "fs", "format", "mkfs", "mount", "mount_option",
				      "nr_tmpfs", NULL };
static const char *const opt_disk[] = { "nr_ssd", "nr_hdd", "nr_brd", "nr_srd", "nr_pmem",
					"wait_disks_timeout", NULL };
static const char *const opt_dbench[] = { "nr_threads", NULL };
static const char *const opt_fxmark[] = { "media", "fstype", "directio", "test", "duration",
					  "thread_nr", "blksize", "blkcount", NULL };
/* LKP's spec/fixtures/split-job test program */
static const char *const opt_split_job[] = { "group", "test", NULL };
static const char *const opt_iosched[] = { "iosched", NULL };
/* LKP's setup/cgroup2 */
static const char *const opt_cgroup2[] = { "cg_count", "cg_bind", "cpuset.cpus", "cpuset.mems",
					   "memory.high", "memory.low", "memory.max",
					   "memory.swap.max", "io.max", "io.weight", "rdma.max",
					   "pids.max", NULL };
/* LKP's setup/nvdimm */
static const char *const opt_nvdimm[] = { "mode", "nr_dev", "nr_part", "part_type", "ns_id",
					  "ns_mode", NULL };
/* LKP's programs/debug-setup/setup */
static const char *const opt_debug_setup[] = { "param_a", "param_b", "param_c", "param_d", NULL };
static const char *const opt_thp[] = { "thp_enabled", "thp_defrag", NULL };

static const program programs[] = {
	{ "fio-setup-basic", opt_fio_setup_basic },
	{ "fio", opt_fio },
	{ "fs", opt_fs },
	{ "fs1", opt_fs },
	{ "fs2", opt_fs },
	{ "disk", opt_disk },
	{ "dbench", opt_dbench },
	{ "fxmark", opt_fxmark },
	{ "split-job", opt_split_job },
	{ "cpufreq_governor", opt_none },
	{ "iosched", opt_iosched },
	{ "transparent_hugepage", opt_thp },
	{ "swap", opt_none },
	{ "block_queue", opt_none },
	{ "md", opt_none },
	{ "cgroup2", opt_cgroup2 },
	{ "nvdimm", opt_nvdimm },
	{ "ndctl", opt_none },
	{ "debug-setup", opt_debug_setup },
};

/* Top-level keys LKP reads that are no program and no program's option:
 * they never name an atom. (need_kconfig is kreg's too: jobs/needs.c.) */
static const char *const plain_keys[] = {
	"suite", "testcase", "category", "job_origin", "testbox", "tbox_group", "arch",
	"including", "need_memory", "need_cpu", "need_kconfig", "need_kernel_version",
	"need_modules", "timeout", "monitor_delay", "force_reboot", "kernel_cmdline",
	"save_on_exit", "comment", "boot_params", NULL
};

/* LKP's monitors kreg runs (jobs/monitors.h): a key, with options under it
 * (`perf-stat: {interval_ms: 500}`), that never names an atom (LKP's
 * each_param skips the options of its monitors). */
static const char *const monitor_keys[] = { "perf-stat", "perf-profile", NULL };

static int is_monitor(const char *key)
{
	for (const char *const *k = monitor_keys; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	return 0;
}

static const char *const expand_dims[] = {
	"kconfig", "commit", "rootfs", "ltp_commit", "nvml_commit", "blktests_commit",
	"qemu_commit", "perf_test_commit", "linux_commit", NULL
};

static const program *find_program(const char *name)
{
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++)
		if (!strcmp(programs[i].name, name))
			return &programs[i];
	return NULL;
}

/* A set of names (small: a sorted-free linear list is enough). */
typedef struct {
	const char **names;
	size_t count, alloc;
} name_set;

static int set_has(const name_set *s, const char *name)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->names[i], name))
			return 1;
	return 0;
}

static void set_add(name_set *s, const char *name)
{
	if (set_has(s, name))
		return;
	KREG_ARRAY_GROW(s->names, s->count + 1, s->alloc);
	s->names[s->count++] = name;
}

static void set_add_options(name_set *s, const program *p)
{
	for (const char *const *o = p->options; *o; o++)
		set_add(s, *o);
}

/* init_program_options: the programs the job names, at any level, and the
 * options they declare. */
static void find_programs(const kreg_jnode *n, name_set *progs, name_set *opts)
{
	if (!n || n->kind != KJ_MAP)
		return;
	for (size_t i = 0; i < n->npairs; i++) {
		const program *p = find_program(n->pairs[i].key);

		if (p) {
			set_add(progs, p->name);
			set_add_options(opts, p);
		} else if (!strcmp(n->pairs[i].key, "boot_params") && n->pairs[i].val &&
			   n->pairs[i].val->kind == KJ_MAP) {
			/* the kernel's boot parameters (bp1_memmap: 104G!8G, ...):
			 * each is a parameter of the atom, in its name, and a list
			 * of them splits */
			const kreg_jnode *bp = n->pairs[i].val;

			for (size_t j = 0; j < bp->npairs; j++)
				set_add(opts, bp->pairs[j].key);
		}
		find_programs(n->pairs[i].val, progs, opts);
	}
}

static int is_expand_dim(const char *key)
{
	for (const char *const *d = expand_dims; *d; d++)
		if (!strcmp(*d, key))
			return 1;
	return kreg_str_endswith(key, "_commit") && strlen(key) > 7;
}

typedef struct {
	const kreg_job *job;
	const char *origin;
	const char *name;	/* the job's name: the atoms' prefix */
	name_set dims;		/* keys whose lists expand */
	kreg_atoms *out;
	size_t made;
	size_t bytes;		/* of the atoms' YAML so far */
	int error;
} splitter;

#define MAX_ATOMS 100000
#define MAX_ATOM_BYTES (256u << 20)

/* The first expandable key holding a list, depth first in file order, as
 * LKP's expand_each_in finds it. */
static kreg_jpair *first_list(kreg_jnode *n, const name_set *dims)
{
	if (n->kind != KJ_MAP)
		return NULL;
	for (size_t i = 0; i < n->npairs; i++) {
		kreg_jpair *p = &n->pairs[i];
		kreg_jpair *q;

		if (set_has(dims, p->key) && p->val && p->val->kind == KJ_SEQ)
			return p;
		if (p->val && p->val->kind == KJ_MAP && (q = first_list(p->val, dims)))
			return q;
	}
	return NULL;
}

/* each_param: every value under a program or option key, not a mapping. */
typedef struct {
	const char *key;
	const kreg_jnode *val;
	size_t order;
} param;

typedef struct {
	param *items;
	size_t count, alloc;
} params;

static void collect_params(const kreg_jnode *n, const name_set *opts, params *ps)
{
	if (!n || n->kind != KJ_MAP)
		return;
	for (size_t i = 0; i < n->npairs; i++) {
		const kreg_jpair *p = &n->pairs[i];

		if ((set_has(opts, p->key) || find_program(p->key)) &&
		    !(p->val && p->val->kind == KJ_MAP)) {
			KREG_ARRAY_GROW(ps->items, ps->count + 1, ps->alloc);
			ps->items[ps->count].key = p->key;
			ps->items[ps->count].val = p->val;
			ps->items[ps->count].order = ps->count;
			ps->count++;
		}
		collect_params(p->val, opts, ps);
	}
}

static int cmp_param(const void *a, const void *b)
{
	const param *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Ruby's to_s of a value, for the path: scalars as they are, lists as
 * Ruby prints them. */
static void value_text(kreg_buf *b, const kreg_jnode *n)
{
	const char *t;

	if (!n || n->kind == KJ_NULL) {
		kreg_buf_puts(b, "");
		return;
	}
	if (n->kind == KJ_SCALAR) {
		kreg_jval v = kreg_jnode_value(n, &t);

		kreg_buf_puts(b, v == KJ_VAL_TEXT ? t : v == KJ_VAL_FALSE ? "false" : "");
		return;
	}
	if (n->kind == KJ_SEQ) {
		kreg_buf_putc(b, '[');
		for (size_t i = 0; i < n->count; i++) {
			if (i)
				kreg_buf_puts(b, ", ");
			if (n->items[i]->kind == KJ_SCALAR) {
				kreg_buf_putc(b, '"');
				value_text(b, n->items[i]);
				kreg_buf_putc(b, '"');
			} else {
				value_text(b, n->items[i]);
			}
		}
		kreg_buf_putc(b, ']');
		return;
	}
	kreg_buf_puts(b, "{...}");
}

/* The first 31 characters (UTF-8 aware, as Ruby's [0..30]). */
static void put_first_chars(kreg_buf *b, const char *s, size_t nchars)
{
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		if ((*p & 0xc0) != 0x80) {
			if (n == nchars)
				break;
			n++;
		}
		kreg_buf_putc(b, (char)*p++);
	}
}

/* tr('^-a-zA-Z0-9+=:.%', '_'), one '_' per character. */
static void path_safe(kreg_buf *out, const char *s)
{
	for (const unsigned char *p = s ? (const unsigned char *)s : (const unsigned char *)"";
	     *p; p++) {
		if (isalnum(*p) || strchr("-+=:.%", *p))
			kreg_buf_putc(out, (char)*p);
		else if ((*p & 0xc0) != 0x80)
			kreg_buf_putc(out, '_');
	}
}

/* The options that name an atom, sorted by key (LKP's order): those with
 * a value that is text, each as (key, value text), for the atom's name
 * and the 0-day mail's `parameters:`. */
static size_t params_of(const kreg_jnode *job, char ***keys, char ***values)
{
	name_set progs = { 0 }, opts = { 0 };
	params ps = { 0 };
	size_t n = 0;

	find_programs(job, &progs, &opts);
	set_add_options(&opts, &(program){ "wrapper", opt_wrapper });
	set_add(&opts, "cluster");
	collect_params(job, &opts, &ps);
	if (ps.count > 1)
		qsort(ps.items, ps.count, sizeof(*ps.items), cmp_param);
	*keys = kreg_calloc(ps.count + 1, sizeof(**keys));
	*values = kreg_calloc(ps.count + 1, sizeof(**values));
	for (size_t i = 0; i < ps.count; i++) {
		kreg_buf v = KREG_BUF_INIT;
		const char *t;
		kreg_jval kind = ps.items[i].val && ps.items[i].val->kind == KJ_SCALAR ?
				 kreg_jnode_value(ps.items[i].val, &t) :
				 (ps.items[i].val && ps.items[i].val->kind != KJ_NULL ?
				  KJ_VAL_TEXT : KJ_VAL_NIL);

		if (kind != KJ_VAL_TEXT)
			continue;
		value_text(&v, ps.items[i].val);
		(*keys)[n] = kreg_strdup(ps.items[i].key);
		(*values)[n++] = kreg_strdup(kreg_buf_cstr(&v));
		kreg_buf_release(&v);
	}
	free(ps.items);
	free(progs.names);
	free(opts.names);
	return n;
}

static void params_free(char **keys, char **values, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(keys[i]);
		free(values[i]);
	}
	free(keys);
	free(values);
}

static char *path_params_of(const kreg_jnode *job)
{
	char **keys, **values;
	size_t n = params_of(job, &keys, &values);
	kreg_buf raw = KREG_BUF_INIT, out = KREG_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		put_first_chars(&raw, values[i], 31);
		kreg_buf_putc(&raw, '-');
	}
	if (!raw.len) {
		kreg_buf_puts(&out, "defaults");
	} else {
		kreg_buf_truncate(&raw, raw.len - 1);
		path_safe(&out, raw.ptr);
	}
	kreg_buf_release(&raw);
	params_free(keys, values, n);
	return kreg_buf_detach(&out);
}

size_t kreg_atom_params(const kreg_atom *atom, char ***keys, char ***values)
{
	return params_of(atom->root, keys, values);
}

void kreg_atom_params_release(char **keys, char **values, size_t n)
{
	params_free(keys, values, n);
}

static const char *top_text(const kreg_jnode *job, const char *key)
{
	const char *t = NULL;
	const kreg_jnode *n = kreg_jnode_get(job, key);

	if (n && n->kind == KJ_SCALAR && kreg_jnode_value(n, &t) == KJ_VAL_TEXT)
		return t;
	return NULL;
}

/* Keys that say where an atom came from or runs, not what it is. */
static const char *const placement_keys[] = { "job_origin", "testbox", "tbox_group", NULL };

static kreg_atom *atom_make(const kreg_jnode *job, const char *job_name, const char *origin)
{
	kreg_atom *a = kreg_calloc(1, sizeof(*a));
	kreg_jnode *canon = kreg_jnode_dup(job);
	kreg_buf b = KREG_BUF_INIT;
	const char *t;
	static const char *const commit_dims[] = {
		"commit", "ltp_commit", "nvml_commit", "blktests_commit", "qemu_commit",
		"perf_test_commit", "linux_commit", NULL
	};

	a->root = kreg_jnode_dup(job);
	a->job = kreg_strdup(job_name);
	a->origin = kreg_strdup(origin);
	a->path_params = path_params_of(job);
	kreg_buf_printf(&b, "%s-%s", job_name, a->path_params);
	/* unlike LKP, made path-safe: the name becomes a file name */
	for (const char *const *d = commit_dims; *d; d++)
		if ((t = top_text(job, *d))) {
			kreg_buf_putc(&b, '-');
			path_safe(&b, t);
		}
	if ((t = top_text(job, "rootfs"))) {
		/* rootfs_filename: the last run of [a-zA-Z0-9._-] */
		const char *e = t + strlen(t), *s = e;

		while (s > t && (isalnum((unsigned char)s[-1]) || strchr("._-", s[-1])))
			s--;
		kreg_buf_putc(&b, '-');
		kreg_buf_put(&b, s, (size_t)(e - s));
	}
	a->name = kreg_buf_detach(&b);
	if ((t = top_text(job, "testcase")) || (t = top_text(job, "suite")))
		a->testcase = kreg_strdup(t);
	else
		a->testcase = kreg_strdup(job_name);
	for (const char *const *k = placement_keys; *k; k++)
		kreg_jnode_del(canon, *k);
	kreg_jnode_emit(&b, canon);
	a->yaml = kreg_buf_detach(&b);
	if (!a->yaml)
		a->yaml = kreg_strdup("");
	kreg_jnode_free(canon);
	return a;
}

static void each_job(splitter *sp, kreg_jnode *job)
{
	kreg_jpair *p;

	if (sp->error)
		return;
	p = first_list(job, &sp->dims);
	if (!p) {
		if (++sp->made > MAX_ATOMS) {
			sp->error = KREG_EINVAL;
			kreg_error_set("%s: splits into more than %d atoms", sp->job->path, MAX_ATOMS);
			return;
		}
		KREG_ARRAY_GROW(sp->out->items, sp->out->count + 1, sp->out->alloc);
		sp->out->items[sp->out->count] = atom_make(job, sp->name, sp->origin);
		sp->bytes += strlen(sp->out->items[sp->out->count++]->yaml);
		if (sp->bytes > MAX_ATOM_BYTES) {
			sp->error = KREG_EINVAL;
			kreg_error_set("%s: its %zu atoms already take more than %u MiB", sp->job->path,
				       sp->made, MAX_ATOM_BYTES >> 20);
		}
		return;
	}
	{
		kreg_jnode *list = p->val;

		if (!list->count) {
			kreg_error_set("%s:%d:%d: '%s' is an empty list: nothing to run",
				       list->file, p->line, p->col, p->key);
			sp->error = KREG_EINVAL;
			return;
		}
		for (size_t i = 0; i < list->count && !sp->error; i++) {
			/* p may move as the tree changes below: find it again by value */
			p->val = list->items[i];
			each_job(sp, job);
		}
		p->val = list;
	}
}

/* A list under a program kreg has no table for (will-it-scale: {test:
 * [...]}): LKP splits it when the program declares the key as an option,
 * and kreg cannot know whether it does. Rather than make one atom where
 * LKP makes many, say so. (A list under a program kreg knows that does
 * not declare its key stays a list, as in LKP.) */
static int check_unsplit(const kreg_jnode *n, const name_set *dims, const char *parent,
			 const char *path)
{
	if (!n || n->kind != KJ_MAP)
		return 0;
	for (size_t i = 0; i < n->npairs; i++) {
		const kreg_jpair *p = &n->pairs[i];
		const char *file = p->val && p->val->file ? p->val->file : path;

		if (p->val && p->val->kind == KJ_SEQ && !set_has(dims, p->key) && parent &&
		    !find_program(parent) && strcmp(parent, "boot_params")) {
			kreg_error_set("%s:%d:%d: '%s' under '%s' is a list, and kreg knows no "
				       "program '%s' (LKP splits such a list when the program "
				       "declares '%s' as an option): give one value per job, "
				       "or split it with LKP's split-job",
				       file, p->line, p->col, p->key, parent, parent, p->key);
			return KREG_EINVAL;
		}
		if (p->val && p->val->kind == KJ_MAP) {
			int error = check_unsplit(p->val, dims, p->key, path);

			if (error < 0)
				return error;
		}
	}
	return 0;
}

/* nil or false: LKP leaves it out of the name */
static int names_nothing(const kreg_jnode *n)
{
	const char *t;

	return !n || n->kind == KJ_NULL ||
	       (n->kind == KJ_SCALAR && kreg_jnode_value(n, &t) != KJ_VAL_TEXT);
}

static int known_key(const char *key, const name_set *dims)
{
	if (is_monitor(key))
		return 1;
	for (const char *const *k = plain_keys; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	if (set_has(dims, key) || find_program(key) || is_expand_dim(key))
		return 1;
	/* an option of any program kreg knows, whether the job runs it or not */
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++)
		for (const char *const *o = programs[i].options; *o; o++)
			if (!strcmp(*o, key))
				return 1;
	return 0;
}

/* A value kreg cannot place: LKP names an atom by every value under a
 * program or an option a program declares, and kreg knows that only for
 * the programs of its table. A value under a program kreg has no table for
 * (nvdimm: {mode: fsdax}), or at the top level under a key it does not
 * know (debug-setup: tune), may name the atom in LKP: refuse it, naming
 * it, rather than name the atom otherwise. A key without a value, or
 * false, names nothing (LKP leaves nil and false out) and passes. */
static int check_unplaced(const kreg_jnode *n, const name_set *dims, const char *parent,
			  const char *path)
{
	if (!n || n->kind != KJ_MAP)
		return 0;
	for (size_t i = 0; i < n->npairs; i++) {
		const kreg_jpair *p = &n->pairs[i];
		const char *file = p->val && p->val->file ? p->val->file : path;
		int error;

		if (names_nothing(p->val))
			continue;
		if (parent && !find_program(parent) && strcmp(parent, "boot_params")) {
			kreg_error_set("%s:%d:%d: '%s' under '%s': kreg knows no program '%s', "
				       "so not whether LKP names the atom by '%s' (it does when "
				       "the program declares it as an option)",
				       file, p->line, p->col, p->key, parent, parent, p->key);
			return KREG_EINVAL;
		}
		if (!parent && !known_key(p->key, dims) && p->val->kind != KJ_MAP) {
			kreg_error_set("%s:%d:%d: '%s' is no program or option kreg knows, so not "
				       "whether LKP names the atom by it (it does when '%s' is a "
				       "program or an option its programs declare)",
				       file, p->line, p->col, p->key, p->key);
			return KREG_EINVAL;
		}
		if (p->val->kind == KJ_MAP && !(!parent && is_monitor(p->key)) &&
		    (error = check_unplaced(p->val, dims, p->key, path)) < 0)
			return error;
		/* the mappings of a list that expands: an atom has each under
		 * the list's key once split (ioengine: [{format: n}] gives
		 * ioengine: {format: n}), and what split writes must load
		 * back (fuzz_job); a list that stays a list stays one */
		for (size_t k = 0; p->val->kind == KJ_SEQ && set_has(dims, p->key) &&
				   k < p->val->count; k++)
			if ((error = check_unplaced(p->val->items[k]->kind == KJ_MAP ?
						    p->val->items[k] : NULL, dims, p->key,
						    path)) < 0)
				return error;
	}
	return 0;
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

int kreg_job_split(kreg_atoms *out, const kreg_job *job)
{
	splitter sp = { 0 };
	name_set progs = { 0 };
	char *name_buf = NULL;
	size_t start = out->count;
	const char *origin;

	sp.job = job;
	sp.out = out;
	origin = top_text(job->docs[0], "job_origin");
	sp.origin = origin ? origin : job->path;
	/* a file naming the job it came from (an atom split wrote) keeps that
	 * job's name, so an atom is named the same wherever it is copied */
	sp.name = job->name;
	if (origin && has_control(origin)) {
		const kreg_jnode *o = kreg_jnode_get(job->docs[0], "job_origin");

		kreg_error_set("%s:%d:%d: job_origin has a control character: it names a file",
			       o->file ? o->file : job->path, o->line, o->col);
		return KREG_EINVAL;
	}
	if (has_control(sp.name)) {
		kreg_error_set("%s: the job's file name has a control character", job->path);
		return KREG_EINVAL;
	}
	if (origin) {
		const char *b = strrchr(origin, '/');
		size_t len;

		b = b ? b + 1 : origin;
		len = strlen(b);
		if (len > 5 && !strcmp(b + len - 5, ".yaml"))
			len -= 5;
		sp.name = name_buf = kreg_strndup(b, len);
	}
	for (size_t d = 0; d < job->ndocs && !sp.error; d++) {
		kreg_jnode *merged = kreg_jnode_dup(job->docs[0]);

		/* document d updates document 0 at the top level */
		if (d) {
			const kreg_jnode *doc = job->docs[d];

			for (size_t i = 0; i < doc->npairs; i++)
				kreg_jnode_set(merged, doc->pairs[i].key,
					       kreg_jnode_dup(doc->pairs[i].val),
					       doc->pairs[i].line, doc->pairs[i].col);
		}
		progs.count = 0;
		sp.dims.count = 0;
		find_programs(merged, &progs, &sp.dims);
		for (size_t i = 0; i < progs.count; i++)
			set_add(&sp.dims, progs.names[i]);
		set_add_options(&sp.dims, &(program){ "wrapper", opt_wrapper });
		set_add(&sp.dims, "cluster");
		for (const char *const *e = expand_dims; *e; e++)
			set_add(&sp.dims, *e);
		/* *_commit keys anywhere in the job expand too */
		for (size_t i = 0; i < merged->npairs; i++)
			if (is_expand_dim(merged->pairs[i].key))
				set_add(&sp.dims, merged->pairs[i].key);
		if ((sp.error = check_unsplit(merged, &sp.dims, NULL, job->path)) == 0 &&
		    (sp.error = check_unplaced(merged, &sp.dims, NULL, job->path)) == 0)
			each_job(&sp, merged);
		kreg_jnode_free(merged);
	}
	free(progs.names);
	free(sp.dims.names);
	free(name_buf);
	if (sp.error) {
		for (size_t i = start; i < out->count; i++)
			kreg_atom_free(out->items[i]);
		out->count = start;
		return sp.error;
	}
	return 0;
}

void kreg_atom_free(kreg_atom *a)
{
	if (!a)
		return;
	free(a->name);
	free(a->job);
	free(a->testcase);
	free(a->path_params);
	free(a->yaml);
	free(a->origin);
	kreg_jnode_free(a->root);
	free(a);
}

void kreg_atoms_release(kreg_atoms *atoms)
{
	for (size_t i = 0; i < atoms->count; i++)
		kreg_atom_free(atoms->items[i]);
	free(atoms->items);
	memset(atoms, 0, sizeof(*atoms));
}

static int one_atom(kreg_atom **out, kreg_job *job)
{
	kreg_atoms atoms = KREG_ATOMS_INIT;
	int error;

	*out = NULL;
	if ((error = kreg_job_split(&atoms, job)) < 0)
		return error;
	if (atoms.count != 1) {
		kreg_error_set("%s: not an atomic job: it splits into %zu atoms "
			       "(run `kreg job split` first)", job->path, atoms.count);
		kreg_atoms_release(&atoms);
		return KREG_EINVAL;
	}
	*out = atoms.items[0];
	atoms.count = 0;
	kreg_atoms_release(&atoms);
	return 0;
}

int kreg_atom_load(kreg_atom **out, const char *path, char *const *search, size_t nsearch)
{
	kreg_job *job;
	int error;

	*out = NULL;
	if ((error = kreg_job_load(&job, path, search, nsearch)) < 0)
		return error;
	error = one_atom(out, job);
	kreg_job_free(job);
	return error;
}

int kreg_atom_load_string(kreg_atom **out, const char *name, const char *yaml, size_t len)
{
	kreg_job *job;
	int error;

	*out = NULL;
	if ((error = kreg_job_load_string(&job, name, NULL, yaml, len, NULL, 0)) < 0)
		return error;
	error = one_atom(out, job);
	kreg_job_free(job);
	return error;
}

char *kreg_atom_file_yaml(const kreg_atom *a, const char *host)
{
	kreg_buf b = KREG_BUF_INIT;
	kreg_jnode *origin = kreg_jnode_scalar(a->origin);
	kreg_jnode *m = kreg_jnode_new(KJ_MAP, NULL, 0, 0);

	origin->quoted = 1;
	kreg_buf_printf(&b, "# %s: an atom of %s (kreg job split)\n", a->name, a->origin);
	kreg_buf_puts(&b, a->yaml);
	kreg_jnode_set(m, "job_origin", origin, 0, 0);
	if (host) {
		kreg_jnode *h = kreg_jnode_scalar(host);

		h->quoted = 1;
		kreg_jnode_set(m, "testbox", h, 0, 0);
	}
	kreg_jnode_emit(&b, m);
	kreg_jnode_free(m);
	return kreg_buf_detach(&b);
}

/* Parameters */

static const kreg_jnode *find_map(const kreg_jnode *n, const char *key)
{
	if (!n || n->kind != KJ_MAP)
		return NULL;
	for (size_t i = 0; i < n->npairs; i++) {
		const kreg_jnode *v = n->pairs[i].val;
		const kreg_jnode *f;

		if (!strcmp(n->pairs[i].key, key) && v && v->kind == KJ_MAP)
			return v;
		if ((f = find_map(v, key)))
			return f;
	}
	return NULL;
}

static int has_key(const kreg_jnode *n, const char *key)
{
	if (!n || n->kind != KJ_MAP)
		return 0;
	for (size_t i = 0; i < n->npairs; i++)
		if (!strcmp(n->pairs[i].key, key) || has_key(n->pairs[i].val, key))
			return 1;
	return 0;
}

int kreg_atom_has_program(const kreg_atom *a, const char *prog)
{
	return has_key(a->root, prog);
}

static const kreg_jnode *param_node(const kreg_atom *a, const char *prog, const char *key)
{
	const kreg_jnode *m = prog ? find_map(a->root, prog) : NULL;
	const kreg_jnode *v = m ? kreg_jnode_get(m, key) : NULL;

	if (!v)
		v = kreg_jnode_get(a->root, key);
	return v;
}

const char *kreg_atom_param(const kreg_atom *a, const char *prog, const char *key)
{
	const kreg_jnode *v = param_node(a, prog, key);
	const char *t;

	if (!v || v->kind != KJ_SCALAR)
		return NULL;
	switch (kreg_jnode_value(v, &t)) {
	case KJ_VAL_NIL: return NULL;
	case KJ_VAL_FALSE: return "false";
	case KJ_VAL_TEXT: return t;
	}
	return NULL;
}

int kreg_job_parse_count(long long *out, const char *s, int cpus, const char *what)
{
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*s))
		goto bad;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || v > 1e9)
		goto bad;
	if (!strcmp(end, "%")) {
		/* params/nr_threads: (N * nr_cpu / 100).to_i, and at least one */
		long long n = (long long)(v * (cpus > 0 ? cpus : 1) / 100);

		*out = n < 1 ? 1 : n;
		return 0;
	}
	if (strchr(s, '.'))
		goto bad;
	/* "8t", "2x": the number, as params/nr_threads' /(\d+)[a-z]+$/ */
	for (const char *p = end; *p; p++)
		if (!islower((unsigned char)*p))
			goto bad;
	if (v < 1)
		goto bad;
	*out = (long long)v;
	return 0;
bad:
	kreg_error_set("%s: '%s' is not a count (like 4, 8t or 50%%)", what, s ? s : "");
	return KREG_EINVAL;
}

int kreg_job_parse_bool(int *out, const char *s, const char *what)
{
	static const char *const yes[] = { "1", "y", "Y", "yes", "Yes", "YES", "true", "True",
					   "TRUE", "on", "On", "ON", NULL };
	static const char *const no[] = { "0", "n", "N", "no", "No", "NO", "false", "False",
					  "FALSE", "off", "Off", "OFF", NULL };

	for (const char *const *w = yes; s && *w; w++)
		if (!strcmp(s, *w)) {
			*out = 1;
			return 0;
		}
	for (const char *const *w = no; s && *w; w++)
		if (!strcmp(s, *w)) {
			*out = 0;
			return 0;
		}
	kreg_error_set("%s: '%s' is not a yes/no value (1/0, y/n, yes/no, true/false)", what,
		       s ? s : "");
	return KREG_EINVAL;
}

/* "FILE:LINE:COL: program.key" of a parameter, for its errors. */
static char *what_of(const kreg_atom *a, const char *prog, const char *key)
{
	const kreg_jnode *v = param_node(a, prog, key);
	const char *file = v && v->file && *v->file ? v->file : a->name;

	if (v && v->line > 0)
		return kreg_asprintf("%s:%d:%d: %s", file, v->line, v->col, key);
	return kreg_asprintf("%s: %s", file, key);
}

int kreg_atom_param_count(long long *out, const kreg_atom *a, const char *prog,
			  const char *key, long long dflt, int cpus)
{
	const char *s = kreg_atom_param(a, prog, key);
	char *what;
	int error;

	*out = dflt;
	if (!s)
		return 0;
	what = what_of(a, prog, key);
	error = kreg_job_parse_count(out, s, cpus, what);
	free(what);
	return error;
}

int kreg_atom_param_seconds(double *out, const kreg_atom *a, const char *prog,
			    const char *key, double dflt)
{
	const char *s = kreg_atom_param(a, prog, key);
	char *what;
	int error;

	*out = dflt;
	if (!s)
		return 0;
	what = what_of(a, prog, key);
	error = kreg_parse_duration(out, s, what);
	free(what);
	return error;
}

int kreg_atom_param_size(uint64_t *out, const kreg_atom *a, const char *prog,
			 const char *key, uint64_t dflt)
{
	const char *s = kreg_atom_param(a, prog, key);
	char *what;
	int error;

	*out = dflt;
	if (!s)
		return 0;
	what = what_of(a, prog, key);
	error = kreg_parse_size(out, s, what);
	free(what);
	return error;
}

int kreg_atom_param_bool(int *out, const kreg_atom *a, const char *prog,
			 const char *key, int dflt)
{
	const char *s = kreg_atom_param(a, prog, key);
	char *what;
	int error;

	*out = dflt;
	if (!s)
		return 0;
	what = what_of(a, prog, key);
	error = kreg_job_parse_bool(out, s, what);
	free(what);
	return error;
}
