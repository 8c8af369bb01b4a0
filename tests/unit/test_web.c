/* web/: escaping of untrusted strings, and the writer (atomic, only when
 * changed, pages skipped by the hash of their inputs, stale pages pruned). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/buf.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "web/web_internal.h"

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
	kreg_buf_free(&b);
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

	kreg_buf_free(&a);
	kreg_buf_free(&other);
	free(keep);
	free(stale);
	kreg_rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escaping),
		cmocka_unit_test(writer),
	};

	return cmocka_run_group_tests_name("web", tests, NULL, NULL);
}
