/* Recipients of a regression's mail (see recipients.h). */
#include "mail/recipients.h"

#include "kernel/repo.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "mail/header.h"
#include "mail/maintainers.h"
#include "mail/tree.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void add(kreg_mail_rcpts *v, const char *name, const char *address, int cc,
		const char *why)
{
	if (!address || !*address)
		return;
	if (!kreg_mail_address_ok(address)) {
		char *shown = kreg_report_printable(address, 80);
		log_warn("mail: '%s' (%s) is not an address kreg sends to; left out", shown, why);
		free(shown);
		return;
	}
	for (size_t i = 0; i < v->count; i++)
		if (strcasecmp(v->items[i].address, address) == 0) {
			if (!cc)
				v->items[i].cc = 0;	/* To wins over Cc */
			return;
		}
	KREG_ARRAY_GROW(v->items, v->count + 1, v->alloc);
	v->items[v->count++] = (kreg_mail_rcpt){ kreg_strdup(name ? name : ""), kreg_strdup(address), cc,
						 kreg_strdup(why) };
}

/* "Name <addr>" or "addr" from the configuration. */
static void add_text(kreg_mail_rcpts *v, const char *text, int cc, const char *why)
{
	char *name, *address;

	if (kreg_maint_parse_email(text, &name, &address) < 0) {
		char *shown = kreg_report_printable(text, 80);
		log_warn("mail: %s: '%s' holds no e-mail address; left out", why, shown);
		free(shown);
		return;
	}
	add(v, name, address, cc, why);
	free(name);
	free(address);
}

/* The repo's mirror under data_dir, or NULL (said once in the log). */
static kreg_repo *open_mirror(const kreg_config *cfg, const kreg_report_regression *r)
{
	kreg_repo *repo = NULL;

	if (kreg_repo_open_mirror(&repo, cfg, r->repo) < 0) {
		log_warn("mail: %s: MAINTAINERS and .mailmap not read", kreg_error_last());
		repo = NULL;
	}
	return repo;
}

/* The .mailmap of the culprit's tree (git's rules, as `git log
 * --use-mailmap`), or NULL when it has none. */
static kreg_repo_mailmap *tree_mailmap(kreg_repo *repo, const char *sha)
{
	kreg_repo_mailmap *mm = NULL;

	if (kreg_repo_mailmap_read(&mm, repo, sha) < 0) {
		log_warn("mail: %s; not used", kreg_error_last());
		mm = NULL;
	}
	return mm;
}

/* A person of the culprit, as the tree's .mailmap names them. */
static void add_person(kreg_mail_rcpts *v, const kreg_repo_mailmap *mm, const char *name,
		       const char *email, int cc, const char *why)
{
	const char *rn = NULL, *re = NULL;

	kreg_repo_mailmap_resolve(mm, &rn, &re, name, email);
	add(v, rn, re, cc, why);
}

static void add_maintainers(kreg_mail_rcpts *v, kreg_repo *repo,
			    const kreg_report_regression *r)
{
	kreg_maintainers *m = NULL;
	kreg_maint_result res = { 0 };
	kreg_mail_paths paths = { 0 };

	if (kreg_mail_tree_maintainers(&m, repo, r->culprit.sha) < 0) {
		log_info("mail: %s", kreg_error_last());
		goto done;
	}
	if (kreg_mail_commit_paths(&paths, repo, r->culprit.sha) < 0 ||
	    kreg_maintainers_match_texts(m, &res, (const char *const *)paths.files, paths.nfiles,
					 paths.texts, paths.ntexts) < 0) {
		log_warn("mail: %s", kreg_error_last());
		goto done;
	}
	for (size_t i = 0; i < res.count; i++)
		add(v, res.items[i].name, res.items[i].address, 1, res.items[i].role);
done:
	kreg_maint_result_release(&res);
	kreg_mail_paths_release(&paths);
	kreg_maintainers_free(m);
}

int kreg_mail_recipients(kreg_mail_rcpts *out, const kreg_config *cfg,
			 const kreg_report_regression *r)
{
	const kreg_mail_cfg *mc = &cfg->mail;
	const kreg_report_commit *c = r->culprit.id ? &r->culprit : NULL;
	kreg_repo *repo = NULL;
	kreg_repo_mailmap *mm = NULL;

	memset(out, 0, sizeof(*out));
	if (c && (mc->to_author || mc->cc_committer || mc->maintainers) &&
	    (repo = open_mirror(cfg, r)) != NULL)
		mm = tree_mailmap(repo, c->sha);
	if (c && mc->to_author)
		add_person(out, mm, c->author_name, c->author_email, 0, "author");
	for (size_t i = 0; i < mc->nto; i++)
		add_text(out, mc->to[i], 0, "mail.to");
	if (c && mc->cc_committer)
		add_person(out, mm, c->committer_name, c->committer_email, 1, "committer");
	if (c && mc->maintainers && repo)
		add_maintainers(out, repo, r);
	kreg_repo_mailmap_free(mm);
	kreg_repo_close(repo);
	for (size_t i = 0; i < cfg->nrepos; i++)
		if (!strcmp(cfg->repos[i].name, r->repo))
			for (size_t k = 0; k < cfg->repos[i].nmaintainers; k++)
				add_text(out, cfg->repos[i].maintainers[k], 1, "repos.maintainers");
	for (size_t i = 0; i < mc->ncc; i++)
		add_text(out, mc->cc[i], 1, "mail.cc");
	/* nobody in To: the first one copied is */
	int to = 0;
	for (size_t i = 0; i < out->count; i++)
		to |= !out->items[i].cc;
	if (!to && out->count)
		out->items[0].cc = 0;
	return 0;
}

void kreg_mail_rcpts_release(kreg_mail_rcpts *v)
{
	for (size_t i = 0; i < v->count; i++) {
		free(v->items[i].name);
		free(v->items[i].address);
		free(v->items[i].why);
	}
	free(v->items);
	memset(v, 0, sizeof(*v));
}
