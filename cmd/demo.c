/* kreg demo: kreg's main job on its built-in default, end to end.
 *
 * It lays out a self-contained lab under <data dir>/demo (a kreg.yaml, a
 * kernel-like git tree made with libgit2) and then runs kreg's own commands
 * on it, printing each command before its output, so every step can be
 * repeated by hand:
 *
 *   1. real fio and dbench runs on this machine (the local host), stored in
 *      SQLite with their LKP metric names;
 *   2. the case kreg exists for, "block: reduce kblockd_mod_delayed_work_on()
 *      CPU consumption" costing fxmark dbench_client on f2fs 66% of its
 *      works/sec: the bisection finds it among the tree's commits on a sim
 *      host (samples drawn from a seeded model, labelled as such; no kernel
 *      is built) and verifies it;
 *   3. the revert is measured and the 0-day comparison table printed,
 *      good / culprit / fix, the table the fix was checked against;
 *   4. `kreg mail send` writes the 0-day e-mail of the bisected regression,
 *      dry run (mail.dry_run: only the outbox's .eml, nothing is sent), to
 *      the culprit's author and who the tree's MAINTAINERS names for the
 *      file it changes. */
#include "cmd/cmd.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/git.h"
#include "lib/mem.h"
#include "lib/run.h"
#include "lib/shared.h"
#include "lib/util.h"

#include <dirent.h>
#include <getopt.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: kreg demo [--dir DIR]\n"
	"       kreg demo --sim [--dir DIR] [--no-local]\n"
	"\n"
	"Run kreg's main job on its built-in default, on real kernels: an upstream\n"
	"repository of Debian's linux-source 6.1 gets a series of 20 commits, one\n"
	"of them a block-layer regression and one that does not build; kreg daemon,\n"
	"watching it, builds and boots the kernels in qemu, runs fio, detects the\n"
	"regression, bisects it, writes the pages and mails the 0-day report to an\n"
	"SMTP server on loopback. About 10 minutes on an idle 2-core machine.\n"
	"\n"
	"With --sim: the quick version (30 s), on a sim host: real fio and dbench\n"
	"runs on this machine, then the fxmark dbench regression of \"block: reduce\n"
	"kblockd_mod_delayed_work_on() CPU consumption\" bisected on a sim host\n"
	"and checked against its fix with the 0-day comparison table, and its\n"
	"0-day e-mail written (dry run: a .eml in the lab's outbox, nothing sent).\n"
	"\n"
	"  --dir DIR    where the demo lab goes (default: $KREG_DATA_DIR/kernel-demo,\n"
	"               with --sim $KREG_DATA_DIR/demo; KREG_DATA_DIR defaults to\n"
	"               ./kreg-data); a previous demo there is replaced, but the\n"
	"               kernel demo keeps its repository and built kernels\n"
	"  --sim        the quick version on a sim host\n"
	"  --no-local   with --sim: skip the real fio and dbench runs\n";

#define METRIC "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec"
#define MARKER ".kreg-demo"

/* The demo tree: invented block-layer history around the real culprit's
 * subject. CULPRIT is the index of the regressing commit. */
static const struct {
	const char *name, *email, *subject;
} history[] = {
	{ "Demo Maintainer", "maint@example.org", "Linux 6.1" },
	{ "Ada Block", "ada@example.org", "blk-mq: remove a redundant check in blk_mq_run_hw_queue()" },
	{ "Ben Queue", "ben@example.org", "block: move the elevator exit into disk release" },
	{ "Cai Sched", "cai@example.org", "bfq: fix a waker detection corner case" },
	{ "Dee Zoned", "dee@example.org", "block: zoned: simplify blk_revalidate_disk_zones()" },
	{ "Eli Nvme", "eli@example.org", "blk-mq: pass the queue to blk_mq_tag_busy() directly" },
	{ "Fay Iocost", "fay@example.org", "blk-iocost: avoid a 64-bit division in the hot path" },
	{ "Gus Throttle", "gus@example.org", "blk-throttle: correct the limit check for small bios" },
	{ "Hal Integrity", "hal@example.org", "block: drop the unused bio_integrity_trim() argument" },
	{ "Ivy Merge", "ivy@example.org", "block: tidy up bio merging helpers" },
	{ "Jon Flush", "jon@example.org", "blk-flush: document the flush state machine" },
	{ "Kim Wbt", "kim@example.org", "blk-wbt: only enable writeback throttling for rotational disks" },
	{ "Lou Stat", "lou@example.org", "block: make part_stat_read_all() static" },
	{ "Bart Demo", "bart@example.org", "block: reduce kblockd_mod_delayed_work_on() CPU consumption" },
	{ "Max Sysfs", "max@example.org", "block: add a sysfs attribute for the queue's dma alignment" },
	{ "Nia Plug", "nia@example.org", "block: use a bool for the plug's multiple_queues" },
	{ "Oz Ioprio", "oz@example.org", "block: ioprio: use the task's class when none is set" },
	{ "Pia Kyber", "pia@example.org", "kyber: trace the domain's depth on every update" },
	{ "Quin Rq", "quin@example.org", "blk-mq: inline blk_mq_rq_ctx_init() into its only caller" },
	{ "Ray Crypto", "ray@example.org", "blk-crypto: check the key's data unit size once" },
	{ "Sol Mq", "sol@example.org", "blk-mq: fix the comment of blk_mq_delay_run_hw_queue()" },
};
#define CULPRIT 13
#define NHISTORY (sizeof(history) / sizeof(history[0]))

typedef struct {
	char sha[NHISTORY + 1][GIT_OID_HEXSZ + 1];	/* + the fix */
	const char *self;				/* this kreg */
} demo;

/* The tree's MAINTAINERS, in Linux's format: block/ has its people, as
 * get_maintainer.pl would name them. Invented addresses only: the demo's
 * mail must never reach a real list. */
static const char maintainers_text[] =
	"List of maintainers of the kreg demo tree (the format of Linux's MAINTAINERS)\n"
	"===============================================================================\n"
	"\n"
	"BLOCK LAYER\n"
	"M:\tJen Block <jen.block@example.org>\n"
	"R:\tRob Review <rob.review@example.org>\n"
	"L:\tlinux-block@lists.example.org\n"
	"S:\tMaintained\n"
	"F:\tblock/\n"
	"\n"
	"THE REST\n"
	"M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
	"L:\tlinux-kernel@lists.example.org\n"
	"S:\tBuried alive in reporters\n"
	"F:\t*\n"
	"F:\t*/\n";

/* One commit on refs/heads/master: block/blk-core.c says which revision it is. */
static int commit_one(git_repository *repo, git_oid *out, const git_oid *parent, size_t n,
		      const char *name, const char *email, const char *message)
{
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_commit *pc = NULL;
	git_tree *tree = NULL;
	git_oid blob, readme, maint, sub, root;
	kreg_buf content = KREG_BUF_INIT;
	int error = KREG_ERROR;
	static const char readme_text[] =
		"A kernel-like tree made by `kreg demo`: its commits carry real-looking\n"
		"block layer subjects; one carries a Sim-Effect trailer, read by the sim\n"
		"host's model.\n";

	kreg_buf_printf(&content, "/* blk-core.c: revision %zu */\n", n);
	if (git_blob_create_from_buffer(&blob, repo, content.ptr, content.len) < 0 ||
	    git_blob_create_from_buffer(&readme, repo, readme_text, sizeof(readme_text) - 1) < 0 ||
	    git_blob_create_from_buffer(&maint, repo, maintainers_text,
					sizeof(maintainers_text) - 1) < 0) {
		kreg_git_error("demo: cannot write a blob");
		goto done;
	}
	if (git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, "blk-core.c", &blob, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_write(&sub, tb) < 0) {
		kreg_git_error("demo: cannot write a tree");
		goto done;
	}
	git_treebuilder_free(tb);
	tb = NULL;
	if (git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, "MAINTAINERS", &maint, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_insert(NULL, tb, "README", &readme, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_insert(NULL, tb, "block", &sub, GIT_FILEMODE_TREE) < 0 ||
	    git_treebuilder_write(&root, tb) < 0 || git_tree_lookup(&tree, repo, &root) < 0) {
		kreg_git_error("demo: cannot write a tree");
		goto done;
	}
	/* Fixed dates: the same demo makes the same shas. */
	if (git_signature_new(&sig, name, email, 1669766400 + (git_time_t)n * 3600, 0) < 0) {
		kreg_git_error("demo: cannot make a signature");
		goto done;
	}
	if (parent && git_commit_lookup(&pc, repo, parent) < 0) {
		kreg_git_error("demo: cannot read the parent");
		goto done;
	}
	if (git_commit_create_v(out, repo, "refs/heads/master", sig, sig, NULL, message, tree,
				pc ? 1 : 0, pc) < 0) {
		kreg_git_error("demo: cannot write a commit");
		goto done;
	}
	error = 0;
done:
	git_commit_free(pc);
	git_signature_free(sig);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	kreg_buf_free(&content);
	return error;
}

static int make_tree(demo *d, const char *path)
{
	git_repository *repo = NULL;
	kreg_buf msg = KREG_BUF_INIT;
	git_oid oid, prev;
	int error = KREG_ERROR;

	git_libgit2_init();
	if (git_repository_init(&repo, path, 1) < 0) {
		kreg_git_error("demo: cannot create the demo tree");
		goto done;
	}
	for (size_t i = 0; i <= NHISTORY; i++) {
		const char *name = i < NHISTORY ? history[i].name : history[CULPRIT].name;
		const char *email = i < NHISTORY ? history[i].email : history[CULPRIT].email;

		kreg_buf_clear(&msg);
		if (i == CULPRIT)
			kreg_buf_puts(&msg, "block: reduce kblockd_mod_delayed_work_on() CPU consumption\n\n"
				      "Only modify the timer of a delayed work when it would fire\n"
				      "earlier than it is scheduled to.\n\n"
				      "Sim-Effect: " METRIC " -66%\n");
		else if (i == NHISTORY)	/* the fix: its revert */
			kreg_buf_printf(&msg, "Revert \"%s\"\n\nThis reverts commit %s.\n\n"
					"It costs fxmark dbench_client on f2fs 66%% of its works/sec.\n",
					history[CULPRIT].subject, d->sha[CULPRIT]);
		else
			kreg_buf_printf(&msg, "%s\n", history[i].subject);
		if (commit_one(repo, &oid, i ? &prev : NULL, i, name, email, msg.ptr) < 0)
			goto done;
		git_oid_tostr(d->sha[i], sizeof(d->sha[i]), &oid);
		prev = oid;
	}
	error = 0;
done:
	kreg_buf_free(&msg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return error;
}

static int write_config(const char *path)
{
	static const char yaml[] =
		"# Written by `kreg demo`: the demo lab's configuration.\n"
		"data_dir: data\n"
		"log_level: warn\n"
		"repos:\n"
		"  - name: linux\n"
		"    url: linux.git\n"
		"    branches: [master]\n"
		"hosts:\n"
		"  # this machine, for real fio and dbench runs\n"
		"  - name: local\n"
		"    backend: local\n"
		"    target: scratch\n"
		"    timeout: 2m\n"
		"  # a simulated test box: samples drawn from a seeded model; the\n"
		"  # commits' Sim-Effect trailers move them\n"
		"  - name: lkp-sim\n"
		"    backend: sim\n"
		"    seed: 20221130\n"
		"    metrics:\n"
		"      - { metric: " METRIC ", base: 573.42, noise: 2%, outlier_rate: 1% }\n"
		"bisect:\n"
		"  runs_per_step: 3\n"
		"  max_runs_per_step: 12\n"
		"# the 0-day e-mail: dry run, only written to data/outbox/*.eml\n"
		"mail:\n"
		"  dry_run: true\n"
		"  from: \"kreg robot <kreg@lab.example.org>\"\n"
		"  reported_by: \"kreg robot <kreg@lab.example.org>\"\n"
		"web:\n"
		"  base_url: https://kreg.lab.example.org/\n";

	return kreg_write_file_atomic(path, yaml, sizeof(yaml) - 1);
}

static const char fxmark_job[] =
	"# The atom of the case: fxmark dbench_client, 4 threads, f2fs, buffered I/O.\n"
	"suite: fxmark\n"
	"testcase: fxmark\n"
	"media: ssd\n"
	"fxmark:\n"
	"  test: dbench_client\n"
	"  fstype: f2fs\n"
	"  directio: bufferedio\n"
	"  thread_nr: 4\n"
	"  duration: 30s\n";

/* Print the command as a user would type it, run it with our stdout. */
static int step(const demo *d, const char *const *args, char **capture)
{
	const char *argv[32];
	kreg_run_opts o = { .argv = argv, .inherit_output = 1 };
	kreg_run_result r;
	size_t n = 0;
	char how[64];
	int error;

	argv[n++] = d->self;
	argv[n++] = "-c";
	argv[n++] = "kreg.yaml";
	fputs("\n$ kreg -c kreg.yaml", stdout);
	for (; *args && n < 31; args++) {
		argv[n++] = *args;
		printf(" %s", *args);
	}
	argv[n] = NULL;
	putchar('\n');
	fflush(stdout);
	if (capture) {
		error = kreg_run_capture(&r, capture, &o);
		if (!error)
			fputs(*capture, stdout);
	} else {
		error = kreg_run(&r, &o);
	}
	if (error < 0)
		return error;
	if (!r.exited || r.status != 0) {
		kreg_error_set("demo: `kreg %s` failed (%s)", argv[3],
			       kreg_run_describe(&r, how, sizeof(how)));
		return KREG_ERROR;
	}
	return 0;
}

/* The atom paths `kreg job split` printed, one per line. */
static char *first_line_of(const char *text)
{
	return kreg_strndup(text, strcspn(text, "\n"));
}

static int run_local(const demo *d)
{
	static const char *const jobs[] = { "fio-quick.yaml", "dbench-quick.yaml" };

	printf("\n== 1. Real runs on this machine (host 'local'): fio and dbench,\n"
	       "      parsed into LKP's metric names and stored in SQLite\n");
	for (size_t j = 0; j < 2; j++) {
		char *installed = kreg_asprintf("jobs/%s", jobs[j]);
		char *file = kreg_shared_file(installed, installed);
		char *out = NULL, *line, *save = NULL;
		int error;

		free(installed);
		if (!file)
			return KREG_ERROR;
		{
			const char *args[] = { "job", "split", file, "-o", "atoms", NULL };

			error = step(d, args, &out);
		}
		free(file);
		for (line = out ? strtok_r(out, "\n", &save) : NULL; line && !error;
		     line = strtok_r(NULL, "\n", &save)) {
			const char *args[] = { "job", "run", line, "--host", "local", "--runs", "3", NULL };

			error = step(d, args, NULL);
		}
		free(out);
		if (error < 0)
			return error;
	}
	return 0;
}

static int run_case(const demo *d)
{
	char good[13], bad[13], culprit[13], fix[13];
	char *out = NULL, *atom = NULL, *job = NULL, *slash;
	int error = KREG_ERROR;

	snprintf(good, sizeof(good), "%.12s", d->sha[0]);
	snprintf(bad, sizeof(bad), "%.12s", d->sha[NHISTORY - 1]);
	snprintf(culprit, sizeof(culprit), "%.12s", d->sha[CULPRIT]);
	snprintf(fix, sizeof(fix), "%.12s", d->sha[NHISTORY]);

	printf("\n== 2. The case kreg exists for: a %zu-commit tree (linux.git) between\n"
	       "      'Linux 6.1' (%s, good) and %s (bad), fxmark dbench_client\n"
	       "      on host 'lkp-sim' -- SIMULATED samples from a seeded model,\n"
	       "      no kernel is built.\n",
	       NHISTORY - 1, good, bad);
	if (kreg_write_file_atomic("fxmark-dbench.yaml", fxmark_job, sizeof(fxmark_job) - 1) < 0)
		return KREG_ERROR;
	{
		const char *args[] = { "job", "split", "fxmark-dbench.yaml", "-o", "atoms", NULL };

		if (step(d, args, &out) < 0)
			goto done;
	}
	atom = first_line_of(out);
	slash = strrchr(atom, '/');
	job = kreg_strdup(slash ? slash + 1 : atom);
	if (kreg_str_endswith(job, ".yaml"))
		job[strlen(job) - 5] = '\0';
	printf("\n-- the new head is measured against the last good one, as the daemon does:\n");
	{
		const char *args[] = { "job", "run", atom, "--host", "lkp-sim", "--repo", "linux",
				       "--commit", good, "--runs", "3", NULL };

		if (step(d, args, NULL) < 0)
			goto done;
	}
	{
		const char *args[] = { "job", "run", atom, "--host", "lkp-sim", "--repo", "linux",
				       "--commit", bad, "--runs", "3", NULL };

		if (step(d, args, NULL) < 0)
			goto done;
	}
	{
		const char *args[] = { "compare", "--job", job, "--host", "lkp-sim", good, bad, NULL };

		if (step(d, args, NULL) < 0)
			goto done;
	}
	printf("\n-- a regression: kreg bisects it to the first bad commit, reusing those runs:\n");
	{
		const char *args[] = { "bisect", "start", "--repo", "linux", "--good", good,
				       "--bad", bad, "--job", job, "--host", "lkp-sim",
				       "--metric", METRIC, NULL };

		if (step(d, args, NULL) < 0)
			goto done;
	}
	{
		const char *args[] = { "bisect", "log", "1", NULL };

		if (step(d, args, NULL) < 0)
			goto done;
	}
	printf("\n== 3. The fix (%s, the revert) is run, and the 0-day table compares\n"
	       "      good, culprit and fix: the table the fix is checked against\n", fix);
	{
		const char *args[] = { "job", "run", atom, "--host", "lkp-sim", "--repo", "linux",
				       "--commit", fix, "--runs", "6", NULL };

		if (step(d, args, NULL) < 0)
			goto done;
	}
	{
		const char *args[] = { "compare", "--job", job, "--host", "lkp-sim", good, culprit,
				       fix, NULL };

		if (step(d, args, NULL) < 0)
			goto done;
	}
	error = 0;
done:
	free(out);
	free(atom);
	free(job);
	return error;
}

/* The path of the first .eml in the outbox (the demo's only one), or NULL. */
static char *find_eml(const char *outbox)
{
	DIR *dir = opendir(outbox);
	struct dirent *e;
	char *path = NULL;

	if (!dir)
		return NULL;
	while (!path && (e = readdir(dir)))
		if (e->d_name[0] != '.' && kreg_str_endswith(e->d_name, ".eml"))
			path = kreg_path_join(outbox, e->d_name);
	closedir(dir);
	return path;
}

static int run_mail(const demo *d, const char *dir, char **eml)
{
	printf("\n== 4. The 0-day e-mail of the regression, to the culprit's author and\n"
	       "      who the tree's MAINTAINERS names for block/ -- a DRY RUN\n"
	       "      (mail.dry_run): written to the outbox as a .eml, nothing is sent\n");
	{
		const char *args[] = { "mail", "send", NULL };

		if (step(d, args, NULL) < 0)
			return KREG_ERROR;
	}
	{
		const char *args[] = { "mail", "list", NULL };

		if (step(d, args, NULL) < 0)
			return KREG_ERROR;
	}
	*eml = find_eml("data/outbox");
	if (!*eml) {
		kreg_error_set("demo: `kreg mail send` wrote no .eml in %s/data/outbox", dir);
		return KREG_ERROR;
	}
	printf("\n-- the message: %s/%s\n   (`kreg -c kreg.yaml mail show 1` prints it)\n", dir, *eml);
	return 0;
}

/* The demo owns its directory: replace one it made, refuse anything else. */
static int prepare_dir(const char *dir)
{
	char *marker = kreg_path_join(dir, MARKER);
	int error = KREG_ERROR;

	if (kreg_path_exists(dir)) {
		if (!kreg_path_exists(marker)) {
			kreg_error_set("demo: %s exists and was not made by kreg demo; "
				       "name another with --dir", dir);
			goto done;
		}
		if (kreg_rm_rf(dir) < 0)
			goto done;
	}
	if (kreg_mkdir_p(dir, 0755) < 0 || kreg_write_file_atomic(marker, "", 0) < 0)
		goto done;
	error = 0;
done:
	free(marker);
	return error;
}

/* The demo on real kernels: demo/kernel-demo.sh does it with kreg's own
 * commands (the daemon decides every build and run; the script only
 * watches the database). Its exit status is the demo's. */
static int kernel_demo(const char *dir)
{
	static const struct {
		const char *env, *installed, *source;
	} files[] = {
		{ "DEMO_SERIES", "demo/series.sh", "demo/series.sh" },
		{ "DEMO_SMTP", "demo/smtp-server.py", "tests/helpers/smtp-server.py" },
		{ "DEMO_JOB", "jobs/fio-blk-4k.yaml", "jobs/fio-blk-4k.yaml" },
		{ "DEMO_SCRIPT", "demo/kernel-demo.sh", "demo/kernel-demo.sh" },
	};
	char self[PATH_MAX], *abs = NULL, *script = NULL;
	kreg_run_result r;
	ssize_t n;
	int ret = KREG_EXIT_FAIL;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		kreg_cmd_error("demo: cannot find the kreg binary");
		return KREG_EXIT_FAIL;
	}
	self[n] = '\0';
	if (kreg_mkdir_p(dir, 0755) < 0 || !(abs = realpath(dir, NULL))) {
		kreg_error_errno("demo: %s", dir);
		goto fail;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *f = kreg_shared_file(files[i].installed, files[i].source);

		if (!f)
			goto fail;
		setenv(files[i].env, f, 1);
		if (i == sizeof(files) / sizeof(files[0]) - 1)
			script = f;
		else
			free(f);
	}
	setenv("KREG", self, 1);
	setenv("DEMO_DIR", abs, 1);
	unsetenv("KREG_CONFIG");
	{
		const char *argv[] = { "bash", script, NULL };
		kreg_run_opts o = { .argv = argv, .inherit_output = 1 };

		if (kreg_run(&r, &o) < 0)
			goto fail;
	}
	ret = r.exited && r.status == 0 ? KREG_EXIT_OK : KREG_EXIT_FAIL;
	goto done;
fail:
	kreg_cmd_error(NULL);
done:
	free(script);
	free(abs);
	return ret;
}

int cmd_demo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "no-local", no_argument, NULL, 'L' },
		{ "sim", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char self[PATH_MAX], cwd[PATH_MAX];
	const char *dir = NULL;
	char *owned = NULL, *eml = NULL, *abs = NULL;
	demo d;
	ssize_t n;
	int c, local = 1, sim = 0, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'L': local = 0; break;
		case 'S': sim = 1; break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "demo: unexpected argument '%s'", argv[optind]);
	if (!local && !sim)
		return kreg_cmd_usage(usage, "demo: --no-local goes with --sim");
	if (!dir) {
		const char *dd = getenv("KREG_DATA_DIR");

		dir = owned = kreg_path_join(dd ? dd : "kreg-data", sim ? "demo" : "kernel-demo");
	}
	if (!sim) {
		ret = kernel_demo(dir);
		free(owned);
		return ret;
	}
	memset(&d, 0, sizeof(d));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !getcwd(cwd, sizeof(cwd))) {
		kreg_cmd_error("demo: cannot find the kreg binary or the working directory");
		goto done;
	}
	self[n] = '\0';
	d.self = self;
	if (prepare_dir(dir) < 0)
		goto fail;
	if (chdir(dir) < 0) {
		kreg_error_errno("demo: %s", dir);
		goto fail;
	}
	abs = dir[0] == '/' ? kreg_strdup(dir) : kreg_path_join(cwd, dir);
	printf("kreg demo: a lab in %s (kreg.yaml, linux.git, data/kreg.db)\n", abs);
	if (write_config("kreg.yaml") < 0 || make_tree(&d, "linux.git") < 0 ||
	    kreg_mkdir_p("scratch", 0755) < 0)
		goto fail;
	{
		const char *args[] = { "db", "init", NULL };

		if (step(&d, args, NULL) < 0)
			goto fail;
	}
	if (local && run_local(&d) < 0)
		goto fail;
	if (run_case(&d) < 0 || run_mail(&d, abs, &eml) < 0)
		goto fail;
	printf("\nkreg demo: done. The lab stays in %s; look around with\n"
	       "  cd %s && %s -c kreg.yaml db info\n"
	       "The e-mail it wrote: %s/%s\n", dir, dir, self, abs, eml);
	ret = KREG_EXIT_OK;
	goto done;
fail:
	kreg_cmd_error(NULL);
done:
	free(eml);
	free(abs);
	free(owned);
	return ret;
}
