/* The materials to reproduce a regression without kreg (see reproduce.h):
 * reproduce.sh is made from the atom's run plan (jobs/plan.h), planned
 * with a mark where the target goes, each mark then the script's
 * "$target". */
#include "report/reproduce.h"

#include "hosts/host.h"
#include "jobs/job.h"
#include "jobs/needs.h"
#include "jobs/plan.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the plan is made with in place of the target and the fxmark
 * checkout, and what the script says there instead. */
#define TARGET_MARK "/kreg-reproduce-target"
#define FXMARK_MARK "/kreg-reproduce-fxmark"

static const struct mark {
	const char *mark, *shell;
} marks[] = {
	{ TARGET_MARK, "\"$target\"" },
	{ FXMARK_MARK, "\"$fxmark\"" },
};

/* ---- shell words ---- */

/* s[0..len) single-quoted: nothing in it is read by the shell. */
static void sq(kreg_buf *b, const char *s, size_t len)
{
	kreg_buf_putc(b, '\'');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\'')
			kreg_buf_puts(b, "'\\''");
		else
			kreg_buf_putc(b, s[i]);
	}
	kreg_buf_putc(b, '\'');
}

static void sq_str(kreg_buf *b, const char *s)
{
	sq(b, s ? s : "", s ? strlen(s) : 0);
}

/* One shell word: s quoted, its marks the script's variables. */
static void word(kreg_buf *b, const char *s, size_t len)
{
	size_t start = b->len;

	while (len) {
		const struct mark *hit = NULL;
		size_t at = len;

		for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
			size_t ml = strlen(marks[m].mark);

			for (size_t i = 0; i + ml <= len && i < at; i++)
				if (!memcmp(s + i, marks[m].mark, ml)) {
					at = i;
					hit = &marks[m];
					break;
				}
		}
		if (at)
			sq(b, s, at);
		if (!hit)
			break;
		kreg_buf_puts(b, hit->shell);
		s += at + strlen(hit->mark);
		len -= at + strlen(hit->mark);
	}
	if (b->len == start)
		kreg_buf_puts(b, "''");
}

static int has_mark(const kreg_plan *p, const char *mark)
{
	for (size_t i = 0; i < p->argc; i++)
		if (strstr(p->argv[i], mark))
			return 1;
	for (size_t i = 0; i < p->nfiles; i++)
		if (memmem(p->files[i].content, p->files[i].len, mark, strlen(mark)))
			return 1;
	return 0;
}

/* A comment line: printable, one line. */
static void comment(kreg_buf *b, const char *label, const char *s)
{
	char *p = kreg_report_printable(s ? s : "", 300);

	kreg_buf_printf(b, "# %s%s\n", label, p);
	free(p);
}

/* `die '<why>'`: the text printable (no control characters reach the
 * terminal) and quoted, the marks the script's variables. */
static void die_line(kreg_buf *b, const char *indent, const char *why)
{
	char *p = kreg_report_printable(why, 2000);

	kreg_buf_printf(b, "%sdie ", indent);
	word(b, p, strlen(p));
	kreg_buf_putc(b, '\n');
	free(p);
}

/* ---- the plan as shell ---- */

/* The lines that lay out the run directory and set the program's argv
 * ("set -- fio ..."), for a target that is a directory or not; a die line
 * when kreg cannot plan the atom so. */
static void plan_lines(kreg_buf *b, const kreg_atom *atom, const kreg_report_regression *r,
		       const kreg_config *cfg, int is_dir)
{
	kreg_plan_opts po = { TARGET_MARK, is_dir, r->cpus > 0 ? r->cpus : 1,
			      cfg && cfg->fxmark && *cfg->fxmark ? FXMARK_MARK : NULL };
	kreg_plan p;

	if (kreg_job_plan(&p, atom, &po) < 0) {
		die_line(b, "\t", kreg_error_last());
		kreg_error_clear();
		return;
	}
	if (has_mark(&p, FXMARK_MARK))
		kreg_buf_puts(b, "\tfxmark=${FXMARK:-}\n\t[ -n \"$fxmark\" ] || die 'set FXMARK to an fxmark checkout "
				 "(bin/run-fxmark.py), as kreg'\\''s fxmark: is'\n");
	for (size_t i = 0; i < p.nfiles; i++) {
		kreg_buf_puts(b, "\tprintf '%s' ");
		word(b, p.files[i].content, p.files[i].len);
		kreg_buf_puts(b, " > ");
		sq_str(b, p.files[i].name);
		kreg_buf_putc(b, '\n');
		if (p.files[i].executable) {
			kreg_buf_puts(b, "\tchmod +x ");
			sq_str(b, p.files[i].name);
			kreg_buf_putc(b, '\n');
		}
	}
	kreg_buf_puts(b, "\tset --");
	for (size_t i = 0; i < p.argc; i++) {
		kreg_buf_putc(b, ' ');
		word(b, p.argv[i], strlen(p.argv[i]));
	}
	kreg_buf_puts(b, "\n\toutput=");
	sq_str(b, p.stdout_name);
	kreg_buf_puts(b, " parsed=");
	sq_str(b, p.parse_name);
	kreg_buf_puts(b, " parser=");
	sq_str(b, p.parser);
	kreg_buf_putc(b, '\n');
	kreg_plan_release(&p);
}

/* The run directory's files and argv: one way for a directory target, one
 * for a file or device (fio's filename=), or one for both when they are
 * the same. */
static void plan_block(kreg_buf *b, const kreg_report_regression *r, const kreg_config *cfg)
{
	kreg_atom *atom = NULL;
	kreg_buf dir = KREG_BUF_INIT, file = KREG_BUF_INIT;
	const char *fs;

	if (!r->job_yaml || kreg_atom_load_string(&atom, r->job ? r->job : "atom", r->job_yaml,
						  strlen(r->job_yaml)) < 0) {
		die_line(b, "", r->job_yaml ? kreg_error_last() : "kreg holds no YAML of the job");
		kreg_error_clear();
		return;
	}
	fs = kreg_atom_fs(atom);
	if (fs && kreg_fs_check(fs) == 0)
		kreg_buf_printf(b, "echo 'kreg ran it on a test disk formatted %s: TARGET should be on one'\n", fs);
	kreg_error_clear();
	plan_lines(&dir, atom, r, cfg, 1);
	plan_lines(&file, atom, r, cfg, 0);
	if (!strcmp(kreg_buf_cstr(&dir), kreg_buf_cstr(&file))) {
		kreg_buf_puts(b, "{\n");
		kreg_buf_put(b, dir.ptr, dir.len);
		kreg_buf_puts(b, "}\n");
	} else {
		kreg_buf_puts(b, "if [ -d \"$target\" ]; then\n");
		kreg_buf_put(b, dir.ptr, dir.len);
		kreg_buf_puts(b, "else\n");
		kreg_buf_put(b, file.ptr, file.len);
		kreg_buf_puts(b, "fi\n");
	}
	kreg_buf_release(&dir);
	kreg_buf_release(&file);
	kreg_atom_free(atom);
}

/* ---- reproduce.sh ---- */

/* The kernel's version from its .config's head ("# Linux/x86 6.8.0-rc1
 * Kernel Configuration"); NULL when it says none. */
static char *config_version(const char *config)
{
	const char *p = config ? strstr(config, "\n# Linux/") : NULL, *v, *e;

	if (!p)
		return NULL;
	if (!(v = strchr(p + 1, ' ')) || !(v = strchr(v + 1, ' ')))
		return NULL;
	v++;
	for (e = v; isalnum((unsigned char)*e) || strchr("._+-", *e); e++)
		;
	return e > v && *e == ' ' ? kreg_strndup(v, (size_t)(e - v)) : NULL;
}

static void script_head(kreg_buf *b, const kreg_report_regression *r)
{
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : &r->bad;
	char key[40];
	kreg_buf fig = KREG_BUF_INIT;

	kreg_report_regression_key(r, key, sizeof(key));
	kreg_report_figure(&fig, r);
	kreg_buf_printf(b, "#!/bin/sh\n"
			"# Reproduce kreg's regression %s without kreg: the test as kreg ran it,\n"
			"# on a machine booted into the kernel under test.\n#\n"
			"#   sh reproduce.sh TARGET [RUN_DIR]\n#\n"
			"# TARGET   where the test writes: a directory on the file system under test\n"
			"#          (fio: also a file, or a block device it overwrites)\n"
			"# RUN_DIR  where the job's files and its output go (default: ./reproduce-run)\n#\n",
			key);
	comment(b, "metric:  ", r->metric);
	comment(b, "change:  ", kreg_buf_cstr(&fig));
	{
		char *subject = kreg_report_printable(c->subject, 200);

		kreg_buf_printf(b, "# %-8s %s %s\n", r->culprit.id ? "culprit:" : "bad:", c->sha, subject);
		free(subject);
	}
	if (r->culprit.id && r->culprit.parent)
		comment(b, "parent:  ", r->culprit.parent);
	else if (!r->culprit.id && r->base.id)
		comment(b, "good:    ", r->base.sha);
	comment(b, "job:     ", r->job);
	comment(b, "host:    ", r->host);
	if (kreg_host_backend_simulated(r->backend))
		kreg_buf_puts(b, "# (a sim host: kreg's samples of it are simulated, not measured)\n");
	if (r->cpus > 0)
		kreg_buf_printf(b, "# planned for the test machine's %d CPUs\n", r->cpus);
	kreg_buf_printf(b, "# Written by kreg (`kreg reproduce %s` writes it again).\n\n", key);
	kreg_buf_release(&fig);
}

static const char script_args[] =
	"set -u\n"
	"die() { printf 'reproduce.sh: %s\\n' \"$*\" >&2; exit 2; }\n"
	"warn() { printf 'reproduce.sh: warning: %s\\n' \"$*\" >&2; }\n\n"
	"if [ $# -lt 1 ] || [ -z \"$1\" ]; then\n"
	"\tdie 'usage: sh reproduce.sh TARGET [RUN_DIR]'\n"
	"fi\n"
	"target=$1\n"
	"run=${2:-reproduce-run}\n"
	"case $target in\n"
	"/*) ;;\n"
	"*) die \"TARGET must be an absolute path, not $target\" ;;\n"
	"esac\n"
	"case $target in\n"
	"*:* | *'\n'*) die 'TARGET may hold no colon (fio reads a list of files) and no line feed' ;;\n"
	"esac\n"
	"[ -e \"$target\" ] || die \"TARGET $target does not exist\"\n\n";

/* Which kernel runs here: a kernel built in a git tree with
 * CONFIG_LOCALVERSION_AUTO=y says its commit in uname -r (-g<sha12>). */
static void script_kernel(kreg_buf *b, const kreg_report_regression *r, const char *config)
{
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : &r->bad;
	const char *other = r->culprit.id ? r->culprit.parent : r->base.id ? r->base.sha : NULL;
	char *version = config_version(config);

	kreg_buf_printf(b, "tested=%.12s other=%.12s\n", c->sha, other ? other : "none");
	kreg_buf_puts(b, "version=");
	sq_str(b, version);
	kreg_buf_printf(b, "\nrelease=$(uname -r)\n"
			"case $release in\n"
			"*\"g$tested\"*) echo \"kernel: $release, the %s $tested\" ;;\n"
			"*\"g$other\"*) echo \"kernel: $release, the %s $other\" ;;\n"
			"*)\n"
			"\twarn \"the running kernel ($release) does not say it is the %s $tested \\\n"
			"or the %s $other (a kernel built in a git tree with CONFIG_LOCALVERSION_AUTO=y \\\n"
			"has -g<commit> in uname -r): the figures will be this kernel's\"\n"
			"\tcase $release in\n"
			"\t\"$version\"*) ;;\n"
			"\t*) [ -z \"$version\" ] || warn \"kreg tested a $version kernel\" ;;\n"
			"\tesac ;;\n"
			"esac\n\n",
			r->culprit.id ? "culprit" : "bad commit", r->culprit.id ? "culprit's parent" :
			"last good commit", r->culprit.id ? "culprit" : "bad commit", r->culprit.id ?
			"culprit's parent" : "last good commit");
	free(version);
}

static const char script_run[] =
	"command -v \"$1\" >/dev/null 2>&1 || die \"$1 is not installed (or not in PATH)\"\n"
	"printf 'running in %s:' \"$(pwd)\"\n"
	"printf ' %s' \"$@\"\n"
	"echo\n"
	"rm -f .status\n"
	"{ \"$@\"; echo $? > .status; } 2>&1 | tee \"$output\"\n"
	"status=$(cat .status 2>/dev/null || echo 1)\n"
	"if [ \"$parsed\" != \"$output\" ] && [ -f \"$parsed\" ]; then\n"
	"\tprintf '==> %s <==\\n' \"$parsed\"\n"
	"\tcat \"$parsed\"\n"
	"fi\n"
	"[ \"$status\" = 0 ] || warn \"$1 exited with status $status\"\n"
	"echo \"reproduce.sh: the output is in $(pwd)/$parsed (kreg job parse $parser $parsed reads \\\n"
	"it as kreg does)\"\n"
	"exit \"$status\"\n";

static char *script(const kreg_report_regression *r, const kreg_config *cfg, const char *config)
{
	kreg_buf b = KREG_BUF_INIT;

	script_head(&b, r);
	kreg_buf_puts(&b, script_args);
	script_kernel(&b, r, config);
	kreg_buf_puts(&b, "mkdir -p -- \"$run\" || die \"cannot make the run directory $run\"\n"
			  "cd -- \"$run\" || die \"cannot go into $run\"\n");
	plan_block(&b, r, cfg);
	kreg_buf_puts(&b, script_run);
	return kreg_buf_detach(&b);
}

/* ---- the steps ---- */

static void kconfig_words(kreg_buf *b, const kreg_report_regression *r)
{
	const char *base = r->kconfig_base ? strrchr(r->kconfig_base, '/') : NULL;
	char *p;

	p = kreg_report_printable(r->kconfig ? r->kconfig : "the repo's default", 100);
	kreg_buf_puts(b, p);
	free(p);
	if (!r->kconfig_base)
		return;
	p = kreg_report_printable(base && base[1] ? base + 1 : r->kconfig_base, 100);
	kreg_buf_printf(b, " (%s", p);
	free(p);
	for (size_t i = 0; i < r->nkconfig_fragments; i++) {
		const char *f = strrchr(r->kconfig_fragments[i], '/');

		p = kreg_report_printable(f && f[1] ? f + 1 : r->kconfig_fragments[i], 100);
		kreg_buf_printf(b, " + %s", p);
		free(p);
	}
	kreg_buf_putc(b, ')');
}

void kreg_report_bundle_steps(kreg_buf *out, const kreg_report_regression *r, const char *where)
{
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : &r->bad;
	const char *other = r->culprit.id ? r->culprit.parent : r->base.id ? r->base.sha : NULL;
	char *p;

	if (where) {
		p = kreg_report_printable(where, 500);
		kreg_buf_printf(out, "The %smaterials to reproduce are available at:\n%s\n"
				"(job.yaml: the job; %sreproduce.sh: the test as kreg runs it)\n\n",
				r->kernel_config ? "kernel config and " : "", p,
				r->kernel_config ? "config: the kernel's .config; " : "");
		free(p);
	}
	kreg_buf_puts(out, "To reproduce:\n\n");
	if (r->public_url) {
		p = kreg_report_printable(r->public_url, 300);
		kreg_buf_printf(out, "        git clone %s linux && cd linux\n", p);
		free(p);
	} else {
		p = kreg_report_printable(r->repo, 100);
		kreg_buf_printf(out, "        # in a clone of the repo %s:\n", p);
		free(p);
	}
	kreg_buf_printf(out, "        git checkout %s   # the %s\n", c->sha,
			r->culprit.id ? "culprit" : "bad commit");
	if (r->kernel_config) {
		kreg_buf_puts(out, "        cp /path/to/materials/config .config && make olddefconfig\n");
	} else {
		kreg_buf_puts(out, "        # kernel config: ");
		kconfig_words(out, r);
		kreg_buf_puts(out, kreg_host_backend_simulated(r->backend) ?
			      "; no kernel was built (sim host)\n" :
			      "; kreg kept no .config of this build\n");
	}
	kreg_buf_puts(out, "        make -j\"$(nproc)\"     # then install this kernel on the test machine and boot it\n"
			   "        # there, as root: TARGET a directory on the file system under test\n"
			   "        sh reproduce.sh /mnt/test\n");
	if (other)
		kreg_buf_printf(out, "        # then the same with the %s, %s, to compare\n",
				r->culprit.id ? "culprit's parent" : "last good commit", other);
}

/* ---- the bundle ---- */

char *kreg_report_bundle_dir(const kreg_report_regression *r)
{
	char key[40];

	kreg_report_regression_key(r, key, sizeof(key));
	return kreg_asprintf("reproduce-%s", key);
}

char *kreg_report_bundle_where(const kreg_report_regression *r, const kreg_config *cfg)
{
	char *dir = kreg_report_bundle_dir(r), *site, *out = NULL;
	const char *url = cfg->web.base_url;

	if (url && *url) {
		out = kreg_asprintf("%s%s%s/", url, url[strlen(url) - 1] == '/' ? "" : "/", dir);
	} else if ((site = kreg_config_site_dir(cfg))) {
		out = kreg_asprintf("%s/%s/", site, dir);
		free(site);
	}
	free(dir);
	return out;
}

static void add_file(kreg_report_bundle *b, const char *name, char *content, size_t len, int exec)
{
	b->files = kreg_reallocarray(b->files, b->nfiles + 1, sizeof(*b->files));
	b->files[b->nfiles].name = kreg_strdup(name);
	b->files[b->nfiles].content = content;
	b->files[b->nfiles].len = len;
	b->files[b->nfiles].executable = exec;
	b->nfiles++;
}

static char *readme(const kreg_report_regression *r, int have_config)
{
	kreg_buf b = KREG_BUF_INIT, subject = KREG_BUF_INIT;
	char *p;

	kreg_report_subject(&subject, r);
	p = kreg_report_printable(kreg_buf_cstr(&subject), 500);
	kreg_buf_printf(&b, "%s\n\nThe materials to reproduce it without kreg:\n\n"
			"  job.yaml      the job (kreg's atom, LKP's format)\n", p);
	free(p);
	if (have_config) {
		kreg_buf_printf(&b, "  config        the kernel's .config (kreg's build of %.12s)\n",
				r->kernel_config_sha);
	}
	kreg_buf_puts(&b, "  reproduce.sh  the test as kreg runs it: sh reproduce.sh TARGET [RUN_DIR]\n\n");
	kreg_report_bundle_steps(&b, r, NULL);
	kreg_buf_release(&subject);
	return kreg_buf_detach(&b);
}

void kreg_report_bundle_make(kreg_report_bundle *out, const kreg_report_regression *r,
			     const kreg_config *cfg)
{
	kreg_buf config = KREG_BUF_INIT;
	int have_config = 0;
	char *text;

	memset(out, 0, sizeof(*out));
	if (r->kernel_config && kreg_buf_read_file(&config, r->kernel_config) == 0)
		have_config = 1;
	kreg_error_clear();
	text = kreg_strdup(r->job_yaml ? r->job_yaml : "");
	add_file(out, "job.yaml", text, strlen(text), 0);
	text = script(r, cfg, have_config ? kreg_buf_cstr(&config) : NULL);
	add_file(out, "reproduce.sh", text, strlen(text), 1);
	text = readme(r, have_config);
	add_file(out, "README", text, strlen(text), 0);
	if (have_config) {
		size_t len = config.len;

		add_file(out, "config", kreg_buf_detach(&config), len, 0);
	}
	kreg_buf_release(&config);
}

void kreg_report_bundle_release(kreg_report_bundle *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nfiles; i++) {
		free(b->files[i].name);
		free(b->files[i].content);
	}
	free(b->files);
	memset(b, 0, sizeof(*b));
}

int kreg_report_bundle_write(const kreg_report_bundle *b, const char *dir)
{
	int error;

	if ((error = kreg_mkdir_p(dir, 0755)) < 0)
		return error;
	for (size_t i = 0; i < b->nfiles; i++) {
		char *path = kreg_path_join(dir, b->files[i].name);

		error = kreg_write_file_atomic(path, b->files[i].content, b->files[i].len);
		if (error == 0 && b->files[i].executable && chmod(path, 0755) < 0) {
			kreg_error_errno("%s: cannot make it executable", path);
			error = KREG_ERROR;
		}
		free(path);
		if (error < 0)
			return error;
	}
	return 0;
}
