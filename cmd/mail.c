/* kreg mail: the regression e-mail. who: the people and lists the tree's
 * MAINTAINERS names for a commit (get_maintainer.pl --no-git). */
#include "cmd.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "mail/maintainers.h"
#include "mail/tree.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg mail who [--git-dir DIR] [--rev REV] [--roles] [FILE...]\n"
	"\n"
	"  who    the maintainers, reviewers and lists that REV's MAINTAINERS file\n"
	"         names for FILEs (default: the files REV changes), the way\n"
	"         scripts/get_maintainer.pl --no-git does; DIR defaults to '.',\n"
	"         REV to HEAD; --roles adds why each is named\n";

static void put_clean(const char *s)
{
	for (; s && *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static int mail_who(int argc, char **argv)
{
	const char *dir = ".", *rev = "HEAD";
	int roles = 0, error, rc = KREG_EXIT_FAIL;
	git_repository *repo = NULL;
	git_object *obj = NULL;
	kreg_maintainers *m = NULL;
	kreg_maint_result r = { 0 };
	char **files = NULL;
	size_t nfiles = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--git-dir") && i + 1 < argc)
			dir = argv[++i];
		else if (!strcmp(argv[i], "--rev") && i + 1 < argc)
			rev = argv[++i];
		else if (!strcmp(argv[i], "--roles"))
			roles = 1;
		else if (!strcmp(argv[i], "--"))
			{ i++; break; }
		else if (argv[i][0] == '-')
			return kreg_cmd_usage(usage, "unknown option '%s'", argv[i]);
		else
			break;
	}
	git_libgit2_init();
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		kreg_cmd_error("%s: not a git repository", dir);
		goto done;
	}
	if (git_revparse_single(&obj, repo, rev) < 0) {
		kreg_cmd_error("%s: no such revision in %s", rev, dir);
		goto done;
	}
	git_oid oid = *git_object_id(obj);
	git_object *peeled = NULL;
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) == 0) {
		oid = *git_object_id(peeled);
		git_object_free(peeled);
	}
	if ((error = kreg_mail_tree_maintainers(&m, repo, &oid)) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (i < argc) {
		files = kreg_calloc((size_t)(argc - i), sizeof(*files));
		for (; i < argc; i++)
			files[nfiles++] = kreg_strdup(argv[i]);
	} else if (kreg_mail_commit_files(&files, &nfiles, repo, &oid) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (kreg_maintainers_match(m, (const char *const *)files, nfiles, &r) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	for (size_t k = 0; k < r.count; k++) {
		put_clean(r.items[k].formatted);
		if (roles) {
			fputs(" (", stdout);
			put_clean(r.items[k].role);
			putchar(')');
		}
		putchar('\n');
	}
	rc = KREG_EXIT_OK;
done:
	kreg_maint_result_free(&r);
	kreg_mail_files_free(files, nfiles);
	kreg_maintainers_free(m);
	git_object_free(obj);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return rc;
}

int cmd_mail(int argc, char **argv)
{
	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2)
		return kreg_cmd_usage(usage, "which mail command?");
	if (!strcmp(argv[1], "who"))
		return mail_who(argc - 1, argv + 1);
	return kreg_cmd_usage(usage, "unknown mail command '%s'", argv[1]);
}
