/* lib/: buffers, checked parsing, running children with timeouts.
 *
 * Its children have half a second to start before their timeout: make
 * check runs it by itself (tests/run-suite.sh), not beside another test.
 * suite: alone
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/esc.h"
#include "lib/git.h"
#include "lib/mem.h"
#include "lib/owner.h"
#include "lib/spawn.h"
#include "lib/sample.h"
#include "lib/util.h"

#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void buf_grows_and_formats(void **state)
{
	kreg_buf b = KREG_BUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(kreg_buf_cstr(&b), "");
	for (int i = 0; i < 1000; i++)
		kreg_buf_printf(&b, "%d,", i);
	assert_int_equal(b.len, strlen(b.ptr));
	assert_true(kreg_str_endswith(b.ptr, "998,999,"));
	kreg_buf_truncate(&b, 2);
	assert_string_equal(b.ptr, "0,");
	kreg_buf_puts(&b, "  \n");
	kreg_buf_rtrim(&b);
	assert_string_equal(b.ptr, "0,");
	s = kreg_buf_detach(&b);
	assert_string_equal(s, "0,");
	assert_null(b.ptr);
	free(s);
	kreg_buf_release(&b);
}

/* The one UTF-8 decoder: a code point and its length, or length 0. */
static void utf8_decode(void **state)
{
	static const struct {
		const char *s;
		unsigned cp;
		size_t len;
	} cases[] = {
		{ "a", 'a', 1 }, { "\xc3\xa9", 0xe9, 2 }, { "\xe2\x80\xae", 0x202e, 3 },
		{ "\xf0\x9f\x98\x80", 0x1f600, 4 }, { "\xef\xbf\xbe", 0xfffe, 3 },
		{ "\xff", 0, 0 }, { "\x80", 0, 0 }, { "\xc0\xaf", 0, 0 },	/* overlong */
		{ "\xe0\x80\xaf", 0, 0 }, { "\xed\xa0\x80", 0, 0 },	/* surrogate */
		{ "\xf4\x90\x80\x80", 0, 0 }, { "\xe2\x80", 0, 0 },	/* cut short */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = 9;
		unsigned cp = kreg_utf8_decode(cases[i].s, &len);

		assert_int_equal(len, cases[i].len);
		if (len)
			assert_int_equal(cp, cases[i].cp);
	}
}

/* Control characters from elsewhere print escaped; text and UTF-8 stay. */
static void esc_control_characters(void **state)
{
	static const char in[] = "a\033]2;t\a\rb\tc\nd\x01\x7f\xc2\x9b" "2J\xc3\xa9\xc2";
	kreg_buf b = KREG_BUF_INIT;
	char *e;

	(void)state;
	e = kreg_esc(in);
	assert_string_equal(e, "a\\e]2;t\\a\\rb\\tc\\nd\\x01\\x7f\\u009b2J\xc3\xa9\xc2");
	free(e);
	kreg_buf_put_esc(&b, in, sizeof(in) - 1, KREG_ESC_LINES);
	assert_string_equal(b.ptr, "a\\e]2;t\\a\\rb\tc\nd\\x01\\x7f\\u009b2J\xc3\xa9\xc2");
	kreg_buf_release(&b);
	kreg_buf_put_esc(&b, "a\0b", 3, 0);
	assert_string_equal(b.ptr, "a\\x00b");
	kreg_buf_release(&b);
	/* bidirectional formatting: RLO, PDF, LRI..PDI, LRM, RLM, ALM, LS;
	 * the characters beside them (U+2027, U+202F, U+2065, U+206A) kept */
	e = kreg_esc("x\xe2\x80\xae" "evil\xe2\x80\xac\xe2\x81\xa6\xe2\x81\xa9"
		     "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c\xe2\x80\xa8"
		     "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xe2\x80");
	assert_string_equal(e, "x\\u202eevil\\u202c\\u2066\\u2069\\u200e\\u200f\\u061c\\u2028"
			       "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xa5\xe2\x81\xaa\xe2\x80");
	free(e);
}

/* Samples through their hash index: set replaces, get finds, after a
 * sort and a clear too; 100,000 of them. */
static void samples_indexed(void **state)
{
	kreg_samples s = KREG_SAMPLES_INIT;
	char name[32];

	(void)state;
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "m.%d", i);
		kreg_samples_set(&s, name, i);
	}
	kreg_samples_set(&s, "m.7", -7);
	assert_int_equal(s.count, 100000);
	assert_true(*kreg_samples_get(&s, "m.7") == -7);
	assert_true(*kreg_samples_get(&s, "m.99999") == 99999);
	assert_null(kreg_samples_get(&s, "m.100000"));
	kreg_samples_sort(&s);
	assert_string_equal(s.items[0].metric, "m.0");
	assert_true(*kreg_samples_get(&s, "m.42") == 42);
	kreg_samples_set(&s, "m.42", 1);
	kreg_samples_set(&s, "new", 2);
	assert_int_equal(s.count, 100001);
	assert_true(*kreg_samples_get(&s, "m.42") == 1 && *kreg_samples_get(&s, "new") == 2);
	kreg_samples_clear(&s);
	assert_null(kreg_samples_get(&s, "m.42"));
	kreg_samples_set(&s, "m.42", 3);
	assert_true(*kreg_samples_get(&s, "m.42") == 3);
	kreg_samples_release(&s);
}

static void parse_numbers_reject_junk(void **state)
{
	long long v;
	double d;

	(void)state;
	assert_int_equal(kreg_parse_ll(&v, "42", "x"), 0);
	assert_int_equal(v, 42);
	assert_true(kreg_parse_ll(&v, "42abc", "runs") < 0);
	assert_non_null(strstr(kreg_error_last(), "runs: '42abc'"));
	assert_true(kreg_parse_ll(&v, "", "x") < 0);
	assert_true(kreg_parse_ll(&v, "99999999999999999999", "x") < 0);
	assert_int_equal(kreg_parse_double(&d, "-0.5", "x"), 0);
	assert_true(d == -0.5);
	assert_true(kreg_parse_double(&d, "nan", "x") < 0);
}

static void parse_sizes_and_durations(void **state)
{
	uint64_t sz;
	double sec;

	(void)state;
	assert_int_equal(kreg_parse_size(&sz, "4k", "bs"), 0);
	assert_int_equal(sz, 4096);
	assert_int_equal(kreg_parse_size(&sz, "1M", "bs"), 0);
	assert_int_equal(sz, 1048576);
	assert_int_equal(kreg_parse_size(&sz, "176G", "size"), 0);
	assert_int_equal(sz, 176ULL << 30);
	assert_int_equal(kreg_parse_size(&sz, "512", "size"), 0);
	assert_int_equal(sz, 512);
	assert_true(kreg_parse_size(&sz, "4q", "bs") < 0);
	assert_true(kreg_parse_size(&sz, "-1k", "bs") < 0);
	assert_int_equal(kreg_parse_duration(&sec, "300s", "runtime"), 0);
	assert_true(sec == 300);
	assert_int_equal(kreg_parse_duration(&sec, "5m", "runtime"), 0);
	assert_true(sec == 300);
	assert_int_equal(kreg_parse_duration(&sec, "90", "runtime"), 0);
	assert_true(sec == 90);
	assert_true(kreg_parse_duration(&sec, "5 minutes", "runtime") < 0);
}

static void distance_suggests(void **state)
{
	(void)state;
	assert_int_equal(kreg_str_distance("databse", "database"), 1);
	assert_int_equal(kreg_str_distance("", "abc"), 3);
	assert_int_equal(kreg_str_distance("hosts", "hosts"), 0);
}

static void run_captures_output_and_status(void **state)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	kreg_spawn_opts o = { .argv = argv };
	kreg_spawn_result r;
	char *output;

	(void)state;
	assert_int_equal(kreg_spawn_capture(&r, &output, &o), 0);
	assert_true(r.exited);
	assert_int_equal(r.status, 3);
	assert_string_equal(output, "out\nerr\n");
	free(output);
}

static void run_nicer_child(void **state)
{
	/* coreutils' nice with no operand prints its own niceness */
	const char *argv[] = { "nice", NULL };
	kreg_spawn_opts o = { .argv = argv, .nice = 7 };
	kreg_spawn_result r;
	char *output;
	int want;

	(void)state;
	errno = 0;
	want = getpriority(PRIO_PROCESS, 0) + 7;
	if (want > 19)
		want = 19;
	assert_int_equal(kreg_spawn_capture(&r, &output, &o), 0);
	assert_true(r.exited);
	assert_int_equal(atoi(output), want);
	free(output);
}

static void run_passes_argv_without_a_shell(void **state)
{
	/* A hostile string reaches the child as one argument, unexpanded. */
	const char *argv[] = { "printf", "%s", "$(touch /tmp/kreg-pwned); `id`", NULL };
	kreg_spawn_opts o = { .argv = argv };
	kreg_spawn_result r;
	char *output;

	(void)state;
	assert_int_equal(kreg_spawn_capture(&r, &output, &o), 0);
	assert_string_equal(output, "$(touch /tmp/kreg-pwned); `id`");
	assert_false(kreg_path_exists("/tmp/kreg-pwned"));
	free(output);
}

static void run_missing_program_is_an_error(void **state)
{
	const char *argv[] = { "kreg-no-such-program", NULL };
	kreg_spawn_opts o = { .argv = argv };
	kreg_spawn_result r;

	(void)state;
	assert_int_equal(kreg_spawn(&r, &o), KREG_ENOTFOUND);
	assert_non_null(strstr(kreg_error_last(), "kreg-no-such-program"));
}

static void run_timeout_kills_the_whole_group(void **state)
{
	char pidfile[] = "/tmp/kreg-test-run-XXXXXX";
	char script[256];
	const char *argv[] = { "sh", "-c", script, NULL };
	kreg_spawn_opts o = { .argv = argv, .timeout = 0.5, .kill_grace = 0.2 };
	kreg_spawn_result r;
	kreg_buf b = KREG_BUF_INIT;
	long long grandchild;
	int fd = mkstemp(pidfile);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* The grandchild ignores SIGTERM: only the group SIGKILL ends it. */
	snprintf(script, sizeof(script),
		 "sh -c 'trap \"\" TERM; sleep 60' & echo $! > %s; wait", pidfile);
	assert_int_equal(kreg_spawn(&r, &o), 0);
	assert_true(r.timed_out);
	assert_false(r.exited);
	assert_int_equal(kreg_buf_read_file(&b, pidfile), 0);
	kreg_buf_rtrim(&b);
	assert_int_equal(kreg_parse_ll(&grandchild, b.ptr, "pid"), 0);
	/* Give the kernel a moment to deliver; then the pid must be gone. */
	for (int i = 0; i < 100 && kill((pid_t)grandchild, 0) == 0; i++)
		usleep(20000);
	assert_int_equal(kill((pid_t)grandchild, 0), -1);
	kreg_buf_release(&b);
	unlink(pidfile);
}

static void mkdir_p_and_atomic_write(void **state)
{
	char dir[] = "/tmp/kreg-test-dir-XXXXXX";
	char *sub, *file;
	kreg_buf b = KREG_BUF_INIT;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sub = kreg_path_join(dir, "a/b/c");
	assert_int_equal(kreg_mkdir_p(sub, 0755), 0);
	assert_int_equal(kreg_mkdir_p(sub, 0755), 0);
	file = kreg_path_join(sub, "f");
	assert_int_equal(kreg_write_file_atomic(file, "hello", 5), 0);
	assert_int_equal(kreg_buf_read_file(&b, file), 0);
	assert_string_equal(b.ptr, "hello");
	/* a file in the way of a directory is named in the error */
	assert_true(kreg_mkdir_p(file, 0755) < 0);
	assert_non_null(strstr(kreg_error_last(), "/a/b/c/f"));
	assert_int_equal(kreg_rm_rf(dir), 0);
	assert_false(kreg_path_exists(dir));
	kreg_buf_release(&b);
	free(sub);
	free(file);
}

/* issue 13 item 7: a symlink planted where the temporary file would go is
 * not followed: its target is left as it was. */
static void atomic_write_does_not_follow_planted_symlinks(void **state)
{
	char dir[] = "/tmp/kreg-test-sym-XXXXXX";
	char *victim, *file, *planted;
	kreg_buf b = KREG_BUF_INIT;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	victim = kreg_path_join(dir, "victim");
	file = kreg_path_join(dir, "out");
	planted = kreg_asprintf("%s.tmp.%ld", file, (long)getpid());
	assert_int_equal(kreg_write_file_atomic(victim, "precious", 8), 0);
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(kreg_write_file_atomic(file, "hello", 5), 0);
	assert_int_equal(kreg_buf_read_file(&b, victim), 0);
	assert_string_equal(b.ptr, "precious");
	kreg_buf_release(&b);
	assert_int_equal(kreg_buf_read_file(&b, file), 0);
	assert_string_equal(b.ptr, "hello");
	/* readable as before (mkstemp alone makes 0600) */
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 0444, 0444);
	kreg_buf_release(&b);
	assert_int_equal(kreg_rm_rf(dir), 0);
	free(victim);
	free(file);
	free(planted);
}

/* Many files, one flush: none is under its name before the commit, each is
 * whole after it; a batch given up leaves nothing, not even temporaries. */
static void file_batch_names_files_only_when_written_out(void **state)
{
	char dir[] = "/tmp/kreg-test-batch-XXXXXX";
	kreg_file_batch fb = KREG_FILE_BATCH_INIT;
	kreg_buf b = KREG_BUF_INIT;
	char *p[3];
	DIR *d;
	struct dirent *de;
	int n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 3; i++) {
		char *name = kreg_asprintf("atom-%d.yaml", i);

		p[i] = kreg_path_join(dir, name);
		assert_int_equal(kreg_file_batch_write(&fb, p[i], name, strlen(name)), 0);
		assert_false(kreg_path_exists(p[i]));
		free(name);
	}
	assert_int_equal(kreg_file_batch_commit(&fb), 0);
	kreg_file_batch_release(&fb);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(kreg_buf_read_file(&b, p[i]), 0);
		assert_non_null(strstr(p[i], b.ptr));
		kreg_buf_release(&b);
		assert_int_equal(unlink(p[i]), 0);
	}
	/* given up before the commit */
	for (int i = 0; i < 3; i++)
		assert_int_equal(kreg_file_batch_write(&fb, p[i], "x", 1), 0);
	kreg_file_batch_release(&fb);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(n, 0);
	assert_int_equal(kreg_rm_rf(dir), 0);
	for (int i = 0; i < 3; i++)
		free(p[i]);
}

/* A run's owner: this process lives; a child that exited does not; nor a
 * pid whose start time is not the owner's (reused), nor an owner with no
 * boot id (a row from before owners). */
static void owners_alive_and_dead(void **state)
{
	kreg_owner me, o;
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(kreg_owner_self(&me), 0);
	assert_true(strlen(me.boot) >= 32);
	assert_int_equal(kreg_owner_alive(&me), 1);
	o = me;
	o.start++;
	assert_int_equal(kreg_owner_alive(&o), 0);
	o = me;
	o.boot[0] = 0;
	assert_int_equal(kreg_owner_alive(&o), 0);
	o = me;
	snprintf(o.boot, sizeof(o.boot), "%s", "00000000-0000-0000-0000-000000000000");
	assert_int_equal(kreg_owner_alive(&o), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	o = me;
	o.pid = pid;
	/* a zombie has ended too */
	usleep(100000);
	assert_int_equal(kreg_owner_alive(&o), 0);
	waitpid(pid, &status, 0);
	assert_int_equal(kreg_owner_alive(&o), 0);
}

/* libgit2's reason follows kreg's words, whatever libgit2 failed at. */
static void git_error_carries_libgit2s_reason(void **state)
{
	git_repository *repo = NULL;
	const char *msg;

	(void)state;
	git_libgit2_init();
	assert_true(git_repository_open(&repo, "/nonexistent/kreg-test-repo") < 0);
	assert_int_equal(kreg_git_error("repo '%s': cannot open", "linux"), KREG_ERROR);
	msg = kreg_error_last();
	assert_true(strncmp(msg, "repo 'linux': cannot open: ", 27) == 0);
	assert_non_null(strstr(msg, "/nonexistent/kreg-test-repo"));
	git_libgit2_shutdown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(buf_grows_and_formats),
		cmocka_unit_test(owners_alive_and_dead),
		cmocka_unit_test(atomic_write_does_not_follow_planted_symlinks),
		cmocka_unit_test(parse_numbers_reject_junk),
		cmocka_unit_test(parse_sizes_and_durations),
		cmocka_unit_test(distance_suggests),
		cmocka_unit_test(run_captures_output_and_status),
		cmocka_unit_test(run_passes_argv_without_a_shell),
		cmocka_unit_test(run_nicer_child),
		cmocka_unit_test(run_missing_program_is_an_error),
		cmocka_unit_test(run_timeout_kills_the_whole_group),
		cmocka_unit_test(mkdir_p_and_atomic_write),
		cmocka_unit_test(file_batch_names_files_only_when_written_out),
		cmocka_unit_test(esc_control_characters),
		cmocka_unit_test(utf8_decode),
		cmocka_unit_test(git_error_carries_libgit2s_reason),
		cmocka_unit_test(samples_indexed),
	};

	return cmocka_run_group_tests_name("lib", tests, NULL, NULL);
}
