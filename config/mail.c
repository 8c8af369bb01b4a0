/* kreg.yaml's mail: its schema table (mail.imap's inside it) and the
 * checks across its keys; the walker reads it (config.c, schema.c). */
#include "config/config.h"
#include "config/schema_internal.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#define O(type, member) offsetof(type, member)
#define C(type, member) .cnt = offsetof(type, member)

static void mail_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);
static void imap_check(loader *ld, void *rec, const yaml_node_t *map, const char *path);

static const field imap_fields[] = {
	{ .key = "url", .type = T_STR, .off = O(kreg_imap_cfg, url) },
	{ .key = "user", .type = T_STR, .off = O(kreg_imap_cfg, user) },
	{ .key = "password_file", .type = T_PATH, .off = O(kreg_imap_cfg, password_file) },
	{ .key = "password", .type = T_FORBIDDEN,
	  .def = "the password never goes in the configuration: put it in a file "
		 "readable only by kreg and name that file in password_file" },
	{ .key = "mailbox", .type = T_STR, .off = O(kreg_imap_cfg, mailbox), .def = "INBOX" },
	{ .key = "poll", .type = T_DURATION, .off = O(kreg_imap_cfg, poll), .def = "300", .min = 1, .max = 86400 },
	{ .key = "max_size", .type = T_SIZE, .off = O(kreg_imap_cfg, max_size), .def = "1M" },
};
SCHEMA(imap_schema, kreg_imap_cfg, imap_fields, imap_check);

static const field mail_fields[] = {
	{ .key = "smtp_url", .type = T_STR, .off = O(kreg_mail_cfg, smtp_url) },
	{ .key = "from", .type = T_STR, .off = O(kreg_mail_cfg, from), .def = "kreg <kreg@localhost>" },
	{ .key = "to", .type = T_STRLIST, .off = O(kreg_mail_cfg, to), C(kreg_mail_cfg, nto) },
	{ .key = "cc", .type = T_STRLIST, .off = O(kreg_mail_cfg, cc), C(kreg_mail_cfg, ncc) },
	{ .key = "to_author", .type = T_BOOL, .off = O(kreg_mail_cfg, to_author), .def = "true" },
	{ .key = "cc_committer", .type = T_BOOL, .off = O(kreg_mail_cfg, cc_committer), .def = "true" },
	{ .key = "dry_run", .type = T_BOOL, .off = O(kreg_mail_cfg, dry_run), .def = "false" },
	{ .key = "outbox", .type = T_PATH, .off = O(kreg_mail_cfg, outbox) },
	{ .key = "username", .type = T_STR, .off = O(kreg_mail_cfg, username) },
	{ .key = "password_file", .type = T_PATH, .off = O(kreg_mail_cfg, password_file) },
	{ .key = "password", .type = T_FORBIDDEN,
	  .def = "the password never goes in the configuration: put it in a file "
		 "readable only by kreg and name that file in password_file" },
	{ .key = "tls", .type = T_BOOL, .off = O(kreg_mail_cfg, tls), .def = "false" },
	{ .key = "ca_file", .type = T_PATH, .off = O(kreg_mail_cfg, ca_file) },
	{ .key = "override_to", .type = T_STR, .off = O(kreg_mail_cfg, override_to) },
	{ .key = "reported_by", .type = T_STR, .off = O(kreg_mail_cfg, reported_by) },
	{ .key = "maintainers", .type = T_BOOL, .off = O(kreg_mail_cfg, maintainers), .def = "true" },
	{ .key = "confirmed", .type = T_BOOL, .off = O(kreg_mail_cfg, confirmed), .def = "false" },
	{ .key = "attempts", .type = T_INT, .off = O(kreg_mail_cfg, attempts), .def = "5", .min = 1, .max = 1000 },
	{ .key = "backoff", .type = T_DURATION, .off = O(kreg_mail_cfg, backoff), .def = "60", .min = 0, .max = HUGE_VAL },
	{ .key = "timeout", .type = T_DURATION, .off = O(kreg_mail_cfg, timeout), .def = "60", .min = 1, .max = 86400 },
	{ .key = "admins", .type = T_STRLIST, .off = O(kreg_mail_cfg, admins), C(kreg_mail_cfg, nadmins) },
	{ .key = "imap", .type = T_STRUCT, .off = O(kreg_mail_cfg, imap), .sub = &imap_schema },
};
const schema kreg_config_mail_schema = { "kreg_mail_cfg", sizeof(kreg_mail_cfg), mail_fields,
					  ARRAY_SIZE(mail_fields), mail_check };

static void mail_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_mail_cfg *m = rec;
	const yaml_node_t *v;
	struct stat st;

	if (m->smtp_url && *m->smtp_url && strncmp(m->smtp_url, "smtp://", 7) &&
	    strncmp(m->smtp_url, "smtps://", 8)) {
		v = schema_map_get(ld, map, "smtp_url");
		schema_problem(ld, v ? v : map, "%s.smtp_url: expected smtp://HOST[:PORT] or smtps://HOST[:PORT]", path);
	}
	/* A secret others can read is not a secret. */
	if (m->password_file && stat(m->password_file, &st) == 0 && (st.st_mode & S_IROTH)) {
		v = schema_map_get(ld, map, "password_file");
		schema_problem(ld, v ? v : map, "%s.password_file: '%s' is readable by everyone (chmod o-r)",
			path, m->password_file);
	}
	if (m->password_file && !m->username) {
		v = schema_map_get(ld, map, "password_file");
		schema_problem(ld, v ? v : map, "%s.password_file: given without a username", path);
	}
}

static void imap_check(loader *ld, void *rec, const yaml_node_t *map, const char *path)
{
	kreg_imap_cfg *m = rec;
	const yaml_node_t *v;
	struct stat st;

	if (m->url && *m->url && strncmp(m->url, "imap://", 7) && strncmp(m->url, "imaps://", 8)) {
		v = schema_map_get(ld, map, "url");
		schema_problem(ld, v ? v : map, "%s.url: expected imap://HOST[:PORT] or imaps://HOST[:PORT]", path);
	}
	if (m->url && *m->url && strchr(m->url + 8, '/') && strchr(m->url + 8, '/')[1]) {
		v = schema_map_get(ld, map, "url");
		schema_problem(ld, v ? v : map, "%s.url: name the server only; the mailbox is %s.mailbox",
			path, path);
	}
	if (m->password_file && stat(m->password_file, &st) == 0 && (st.st_mode & S_IROTH)) {
		v = schema_map_get(ld, map, "password_file");
		schema_problem(ld, v ? v : map, "%s.password_file: '%s' is readable by everyone (chmod o-r)",
			path, m->password_file);
	}
	if (m->url && *m->url && (!m->user || !m->password_file)) {
		v = schema_map_get(ld, map, m->user ? "user" : "url");
		schema_problem(ld, v ? v : map, "%s: give user and password_file with url", path);
	}
	if (m->mailbox && (!*m->mailbox || strpbrk(m->mailbox, "\"\\\r\n"))) {
		v = schema_map_get(ld, map, "mailbox");
		schema_problem(ld, v ? v : map, "%s.mailbox: '%s' is not a mailbox name kreg takes", path,
			m->mailbox);
	}
}
