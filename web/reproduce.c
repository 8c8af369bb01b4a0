/* A regression's materials to reproduce it without kreg
 * (report/reproduce.h) beside its page, in reproduce-<key>/, and the
 * page's section that links them. */
#include "web/page_internal.h"

#include "lib/buf.h"
#include "lib/mem.h"
#include "report/reproduce.h"

#include <stdlib.h>

int web_write_reproduce(web_site *s, const kreg_report_regression *r)
{
	kreg_report_bundle bundle;
	char *dir = kreg_report_bundle_dir(r);
	int error = 0;

	kreg_report_bundle_make(&bundle, r, s->cfg);
	for (size_t i = 0; i < bundle.nfiles && !error; i++) {
		const kreg_report_file *f = &bundle.files[i];
		/* a view of the file's content: the writer only reads it */
		kreg_buf view = { f->content, f->len, f->len + 1 };
		char *name = kreg_asprintf("%s/%s", dir, f->name);

		error = web_writer_put(s->w, name, &view);
		free(name);
	}
	kreg_report_bundle_release(&bundle);
	free(dir);
	return error;
}

static void file_link(kreg_buf *b, const char *dir, const char *name, const char *what)
{
	kreg_buf_printf(b, "<li><a href=\"%s/%s\">%s</a>: %s</li>\n", dir, name, name, what);
}

void web_reproduce_section(kreg_buf *b, const kreg_report_regression *r)
{
	char *dir = kreg_report_bundle_dir(r);
	kreg_buf steps = KREG_BUF_INIT;

	kreg_buf_puts(b, "<p>The materials to reproduce it without kreg:</p>\n<ul class=\"materials\">\n");
	file_link(b, dir, "job.yaml", "the job");
	if (r->kernel_config)
		file_link(b, dir, "config", "the kernel&#8217;s .config");
	file_link(b, dir, "reproduce.sh", "the test as kreg runs it, <code>sh reproduce.sh TARGET</code>");
	file_link(b, dir, "README", "these steps");
	kreg_buf_puts(b, "</ul>\n<pre class=\"cmd\">");
	kreg_report_bundle_steps(&steps, r, NULL);
	web_esc(b, kreg_buf_cstr(&steps), 0);
	kreg_buf_puts(b, "</pre>\n");
	kreg_buf_release(&steps);
	free(dir);
}
