/* kreg mail: the regression e-mail. send: queue and send (mail/outbox.h);
 * list, show: the outbox; who: the people and lists the tree's MAINTAINERS
 * names for a commit or files (get_maintainer.pl --no-git). */
#include "cmd/cmd.h"

#include "db/outbox.h"
#include "kernel/repo.h"
#include "lib/util.h"
#include "db/replies.h"
#include "mail/outbox.h"
#include "mail/poll.h"
#include <time.h>
#include "lib/err.h"
#include "lib/mem.h"
#include "mail/maintainers.h"
#include "mail/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg mail send [--retry] [--dry-run]\n"
	"       kreg mail list\n"
	"       kreg mail show ID\n"
	"       kreg mail who [--git-dir DIR] [--rev REV] [--roles] [FILE...]\n"
	"       kreg mail poll\n"
	"       kreg mail replies\n"
	"\n"
	"  send   write the report of every regression with a culprit (once), its\n"
	"         follow-ups (and with mail.confirmed the mail of a confirmed one\n"
	"         not bisected yet), then send what is due over mail.smtp_url; --retry: do\n"
	"         not wait for the backoff and try given-up messages again;\n"
	"         --dry-run (or mail.dry_run): only write the .eml files\n"
	"  list   the outbox: id, state, attempts, key, subject\n"
	"  show   one message as it is (or was) sent, with its state and last error\n"
	"  who    the maintainers, reviewers and lists that REV's MAINTAINERS file\n"
	"         names for FILEs or directories of REV's tree (their K: keywords\n"
	"         over a file's contents; default: REV's patch), the way\n"
	"         scripts/get_maintainer.pl --no-git does; DIR defaults to '.',\n"
	"         REV to HEAD; --roles adds why each is named\n"
	"  poll   read the replies in mail.imap's mailbox once (what the daemon does\n"
	"         every mail.imap.poll): do their #kreg commands, queue the answers,\n"
	"         send them (docs/mail.md)\n"
	"  replies  every message read from the mailbox: UID, what was done, the\n"
	"         regression, the sender, why\n";

static void put_clean(const char *s)
{
	for (; s && *s; s++)
		putchar((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

/* Lines made printable, their line ends kept. */
static void put_clean_lines(const char *s)
{
	for (; s && *s; s++)
		putchar(*s == '\n' ? '\n' : (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static int mail_who(int argc, char **argv)
{
	const char *dir = ".", *rev = "HEAD";
	int roles = 0, error, rc = KREG_EXIT_FAIL;
	kreg_repo *repo = NULL;
	char sha[KREG_REPO_SHA_SIZE];
	kreg_maintainers *m = NULL;
	kreg_maint_result r = { 0 };
	kreg_mail_paths paths = { 0 };
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
	if (kreg_repo_open_path(&repo, dir, 1) < 0) {
		kreg_cmd_error("%s: not a git repository", dir);
		goto done;
	}
	if ((error = kreg_repo_resolve(repo, sha, rev)) == KREG_ENOTFOUND) {
		kreg_cmd_error("%s: no such revision in %s", rev, dir);
		goto done;
	} else if (error < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if ((error = kreg_mail_tree_maintainers(&m, repo, sha)) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (i < argc)
		error = kreg_mail_tree_paths(&paths, repo, sha, (const char *const *)argv + i,
					     (size_t)(argc - i));
	else
		error = kreg_mail_commit_paths(&paths, repo, sha);
	if (error < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (kreg_maintainers_match_texts(m, &r, (const char *const *)paths.files, paths.nfiles,
					 paths.texts, paths.ntexts) < 0) {
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
	kreg_maint_result_release(&r);
	kreg_mail_paths_release(&paths);
	kreg_maintainers_free(m);
	kreg_repo_close(repo);
	return rc;
}

static int open_all(kreg_config **cfg, kreg_db **db, unsigned flags)
{
	if (kreg_cmd_load_config(cfg) < 0)
		return KREG_ERROR;
	if (kreg_cmd_open_db(db, *cfg, flags) < 0) {
		kreg_config_free(*cfg);
		*cfg = NULL;
		return KREG_ERROR;
	}
	return 0;
}

static int mail_send(int argc, char **argv)
{
	kreg_mail_opts opts = { 0 };
	kreg_mail_stats st;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	int rc = KREG_EXIT_FAIL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--retry"))
			opts.retry = 1;
		else if (!strcmp(argv[i], "--dry-run"))
			opts.dry_run = 1;
		else
			return kreg_cmd_usage(usage, "unknown option '%s'", argv[i]);
	}
	if (open_all(&cfg, &db, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_mail_send(db, cfg, &opts, &st) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	printf("mail: %d queued, %d written (dry run), %d sent, %d waiting, %d given up\n",
	       st.queued, st.written, st.sent, st.waiting, st.given_up);
	rc = KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return rc;
}

static int mail_poll(int argc, char **argv)
{
	kreg_mail_poll_stats ps;
	kreg_mail_opts opts = { 0 };
	kreg_mail_stats st;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	int rc = KREG_EXIT_FAIL, failed;

	if (argc > 1)
		return kreg_cmd_usage(usage, "poll: unknown argument '%s'", argv[1]);
	if (open_all(&cfg, &db, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
		return KREG_EXIT_FAIL;
	/* what was read before a failure is kept, and its answers go */
	if ((failed = kreg_mail_poll(db, cfg, &ps) < 0))
		kreg_cmd_error(NULL);
	printf("imap: %d read, %d done, %d refused, %d ignored, %d answers\n", ps.read, ps.done,
	       ps.refused, ps.ignored, ps.answers);
	if (ps.answers) {
		if (kreg_mail_send(db, cfg, &opts, &st) < 0) {
			kreg_cmd_error(NULL);
			goto done;
		}
		printf("mail: %d queued, %d written (dry run), %d sent, %d waiting, %d given up\n",
		       st.queued, st.written, st.sent, st.waiting, st.given_up);
	}
	rc = failed ? KREG_EXIT_FAIL : KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return rc;
}

static int mail_replies(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	char *text = NULL;
	int rc = KREG_EXIT_FAIL;

	if (argc > 1)
		return kreg_cmd_usage(usage, "replies: unknown argument '%s'", argv[1]);
	if (open_all(&cfg, &db, KREG_DB_READONLY) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_db_replies_text(db, &text) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	put_clean_lines(text);
	rc = KREG_EXIT_OK;
done:
	free(text);
	kreg_db_close(db);
	kreg_config_free(cfg);
	return rc;
}

static void put_time(int64_t t)
{
	char s[32];
	time_t tt = (time_t)t;
	struct tm tm;

	if (!t) {
		fputs("-", stdout);
		return;
	}
	gmtime_r(&tt, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%SZ", &tm);
	fputs(s, stdout);
}

static int mail_list(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	kreg_db_outbox *v = NULL;
	size_t n = 0;
	int rc = KREG_EXIT_FAIL;

	(void)argv;
	if (argc > 1)
		return kreg_cmd_usage(usage, "mail list takes no arguments");
	if (open_all(&cfg, &db, KREG_DB_READONLY) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_db_outbox_list(db, &v, &n) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	printf("%-4s %-8s %-8s %-20s %-21s %s\n", "id", "state", "attempts", "key", "sent", "subject");
	for (size_t i = 0; i < n; i++) {
		printf("%-4lld %-8s %-8d %-20s ", (long long)v[i].id, v[i].state, v[i].attempts,
		       v[i].mail_key);
		put_time(v[i].sent);
		fputs(v[i].sent ? "  " : "                     ", stdout);
		put_clean(v[i].subject);
		putchar('\n');
		if (v[i].last_error && strcmp(v[i].state, "sent")) {
			fputs("     last error: ", stdout);
			put_clean(v[i].last_error);
			putchar('\n');
		}
	}
	rc = KREG_EXIT_OK;
done:
	kreg_db_outbox_list_free(v, n);
	kreg_db_close(db);
	kreg_config_free(cfg);
	return rc;
}

/* The message as stored: CRLF shown as lines, other control bytes as '?'. */
static void put_message(const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\r' && s[1] == '\n')
			continue;
		putchar(*s == '\n' || *s == '\t' ? *s :
			(unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
	}
}

static int mail_show(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	kreg_db_outbox m = { 0 };
	long long id;
	int rc = KREG_EXIT_FAIL;

	if (argc != 2)
		return kreg_cmd_usage(usage, "mail show needs one message id");
	if (kreg_parse_ll(&id, argv[1], "message id") < 0 || id <= 0)
		return kreg_cmd_usage(usage, "'%s' is not a message id", argv[1]);
	if (open_all(&cfg, &db, KREG_DB_READONLY) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_db_outbox_get(db, &m, id) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	printf("# mail %lld: %s, %d attempts (%d refused), key %s", id, m.state, m.attempts,
	       m.refusals, m.mail_key);
	if (m.sent) {
		fputs(", sent ", stdout);
		put_time(m.sent);
	}
	putchar('\n');
	if (m.last_error) {
		fputs("# last error: ", stdout);
		put_clean(m.last_error);
		putchar('\n');
	}
	if (!strcmp(m.state, "queued") && m.next_attempt) {
		fputs("# next attempt: ", stdout);
		put_time(m.next_attempt);
		putchar('\n');
	}
	if (m.eml) {
		fputs("# copy: ", stdout);
		put_clean(m.eml);
		putchar('\n');
	} else {
		puts("# copy: missing (it could not be written; kreg mail send writes it when there is room)");
	}
	put_message(m.message);
	rc = KREG_EXIT_OK;
done:
	kreg_db_outbox_release(&m);
	kreg_db_close(db);
	kreg_config_free(cfg);
	return rc;
}

int cmd_mail(int argc, char **argv)
{
	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2)
		return kreg_cmd_usage(usage, "which mail command?");
	if (!strcmp(argv[1], "send"))
		return mail_send(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return mail_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return mail_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "who"))
		return mail_who(argc - 1, argv + 1);
	if (!strcmp(argv[1], "poll"))
		return mail_poll(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replies"))
		return mail_replies(argc - 1, argv + 1);
	return kreg_cmd_usage(usage, "unknown mail command '%s'", argv[1]);
}
