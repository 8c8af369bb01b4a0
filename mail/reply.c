/* A reply read from the mailbox (reply.h). */
#include "mail/reply.h"

#include "lib/buf.h"
#include "lib/mem.h"
#include "mail/header.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
	char *name, *value;
} hdr;

typedef struct {
	hdr *v;
	size_t n, cap;
} hdrs;

static void hdrs_release(hdrs *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].name);
		free(h->v[i].value);
	}
	free(h->v);
}

/* The header block up to the first empty line: unfolded, one a field;
 * *body where the body starts. */
static void parse_headers(hdrs *h, const char *p, const char *end, const char **body)
{
	kreg_buf line = KREG_BUF_INIT;

	memset(h, 0, sizeof(*h));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		size_t len = (size_t)(e - p);

		if (len && p[len - 1] == '\r')
			len--;
		if (!len) {
			p = nl ? nl + 1 : end;
			break;
		}
		if ((*p == ' ' || *p == '\t') && h->n) {
			char *v = kreg_asprintf("%s %.*s", h->v[h->n - 1].value, (int)len, p);

			free(h->v[h->n - 1].value);
			h->v[h->n - 1].value = v;
		} else {
			const char *colon = memchr(p, ':', len);

			if (colon && colon > p) {
				const char *v = colon + 1;

				while (v < p + len && (*v == ' ' || *v == '\t'))
					v++;
				KREG_ARRAY_GROW(h->v, h->n + 1, h->cap);
				h->v[h->n].name = kreg_strndup(p, (size_t)(colon - p));
				h->v[h->n].value = kreg_strndup(v, (size_t)(p + len - v));
				h->n++;
			}
		}
		p = nl ? nl + 1 : end;
	}
	*body = p;
	kreg_buf_release(&line);
}

static const char *get(const hdrs *h, const char *name)
{
	for (size_t i = 0; i < h->n; i++)
		if (!strcasecmp(h->v[i].name, name))
			return h->v[i].value;
	return NULL;
}

/* Text made printable for a log line or a reply: controls become '?',
 * at most max bytes. */
static char *printable(const char *s, size_t len, size_t max)
{
	kreg_buf b = KREG_BUF_INIT;

	for (size_t i = 0; i < len && i < max; i++)
		kreg_buf_putc(&b, (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i]);
	return b.ptr ? kreg_buf_detach(&b) : kreg_strdup("");
}

int kreg_mail_msgid_ok(const char *id)
{
	size_t len = id ? strlen(id) : 0;

	if (len < 3 || len > 250 || id[0] != '<' || id[len - 1] != '>')
		return 0;
	for (size_t i = 1; i + 1 < len; i++)
		if (id[i] <= 0x20 || id[i] >= 0x7f || id[i] == '<' || id[i] == '>')
			return 0;
	return 1;
}

/* Every <...> of value that is a Message-ID, in order. */
static void msgids(char ***v, size_t *n, const char *value)
{
	size_t cap = *n;

	for (const char *p = value; p && (p = strchr(p, '<'));) {
		const char *e = strchr(p, '>');
		char *id;

		if (!e)
			break;
		id = kreg_strndup(p, (size_t)(e - p + 1));
		if (kreg_mail_msgid_ok(id)) {
			KREG_ARRAY_GROW(*v, *n + 1, cap);
			(*v)[(*n)++] = id;
		} else {
			free(id);
		}
		p = e + 1;
	}
}

/* The address of a From field: inside its last <...>, else the field. */
static char *address_of(const char *value)
{
	const char *lt = strrchr(value, '<'), *s = value, *e;
	char *a;

	if (lt) {
		s = lt + 1;
		e = strchr(s, '>');
		if (!e)
			return NULL;
	} else {
		while (*s == ' ')
			s++;
		e = s + strcspn(s, " \t(");
	}
	a = kreg_strndup(s, (size_t)(e - s));
	for (char *p = a; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (!kreg_mail_address_ok(a)) {
		free(a);
		return NULL;
	}
	return a;
}

/* Why no answer goes back to this message; NULL: a person's. */
static char *robot(const hdrs *h, const char *from, const char *own)
{
	const char *v;

	if (from && own && !strcasecmp(from, own))
		return kreg_strdup("kreg's own address in From");
	if (get(h, "X-Kreg-Regression") || get(h, "X-Kreg-Reply"))
		return kreg_strdup("a header kreg sets on its mail (X-Kreg-*)");
	if ((v = get(h, "Auto-Submitted")) && strncasecmp(v, "no", 2)) {
		char *t = printable(v, strlen(v), 60), *why = kreg_asprintf("Auto-Submitted: %s", t);

		free(t);
		return why;
	}
	if (get(h, "X-Autoreply") || get(h, "X-Autorespond"))
		return kreg_strdup("an auto-reply (X-Autoreply)");
	if ((v = get(h, "Precedence")) && (!strncasecmp(v, "bulk", 4) || !strncasecmp(v, "junk", 4) ||
					   !strncasecmp(v, "auto_reply", 10)))
		return kreg_strdup("Precedence: bulk, junk or auto_reply");
	if ((v = get(h, "Return-Path")) && !strcmp(v, "<>"))
		return kreg_strdup("a bounce (Return-Path: <>)");
	return NULL;
}

static int unhex(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

static void decode_qp(kreg_buf *out, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] != '=') {
			kreg_buf_putc(out, p[i]);
		} else if (i + 1 < len && (p[i + 1] == '\n' || p[i + 1] == '\r')) {
			/* a soft line break */
			i += p[i + 1] == '\r' && i + 2 < len && p[i + 2] == '\n' ? 2 : 1;
		} else if (i + 2 < len && unhex((unsigned char)p[i + 1]) >= 0 &&
			   unhex((unsigned char)p[i + 2]) >= 0) {
			kreg_buf_putc(out, (char)(unhex((unsigned char)p[i + 1]) * 16 +
						  unhex((unsigned char)p[i + 2])));
			i += 2;
		} else {
			kreg_buf_putc(out, '=');
		}
	}
}

static void decode_b64(kreg_buf *out, const char *p, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < len && p[i] != '='; i++) {
		const char *c = p[i] ? strchr(abc, p[i]) : NULL;

		if (!c)
			continue;
		acc = (acc << 6) | (unsigned)(c - abc);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			kreg_buf_putc(out, (char)((acc >> bits) & 0xff));
		}
	}
}

/* The part's text by its Content-Transfer-Encoding; 0, or -1 (*why). */
static int part_text(kreg_buf *out, const hdrs *h, const char *p, const char *end, char **why)
{
	const char *cte = get(h, "Content-Transfer-Encoding");

	if (!cte || !strncasecmp(cte, "7bit", 4) || !strncasecmp(cte, "8bit", 4) ||
	    !strncasecmp(cte, "binary", 6))
		kreg_buf_put(out, p, (size_t)(end - p));
	else if (!strncasecmp(cte, "quoted-printable", 16))
		decode_qp(out, p, (size_t)(end - p));
	else if (!strncasecmp(cte, "base64", 6))
		decode_b64(out, p, (size_t)(end - p));
	else {
		char *t = printable(cte, strlen(cte), 40);

		*why = kreg_asprintf("a Content-Transfer-Encoding kreg does not read (%s)", t);
		free(t);
		return -1;
	}
	return 0;
}

static int is_text_plain(const char *ct)
{
	return !ct || !strncasecmp(ct, "text/plain", 10);
}

/* The boundary parameter of a multipart Content-Type; NULL when none. */
static char *boundary_of(const char *ct)
{
	const char *b = ct ? strcasestr(ct, "boundary=") : NULL;
	size_t len;

	if (!b)
		return NULL;
	b += 9;
	if (*b == '"') {
		b++;
		len = strcspn(b, "\"");
	} else {
		len = strcspn(b, "; \t");
	}
	return len && len < 200 ? kreg_asprintf("\n--%.*s", (int)len, b) : NULL;
}

/* The message's text: the body when it is text/plain, else the first
 * text/plain part of a multipart one (one level). */
static int body_text(kreg_buf *out, const hdrs *h, const char *body, const char *end, char **why)
{
	const char *ct = get(h, "Content-Type");
	char *bound;
	const char *p;
	int error = -1;

	if (is_text_plain(ct))
		return part_text(out, h, body, end, why);
	if (body >= end) {
		*why = kreg_strdup("no text/plain part to read commands from");
		return -1;
	}
	if (strncasecmp(ct, "multipart/", 10) || !(bound = boundary_of(ct))) {
		*why = kreg_strdup("no text/plain part to read commands from");
		return -1;
	}
	/* the parts start after "\n--boundary"; the body's first line may be one */
	for (p = body - 1; p && p < end; ) {
		const char *start = memmem(p, (size_t)(end - p), bound, strlen(bound));
		const char *next, *pb;
		hdrs ph;

		if (!start)
			break;
		start += strlen(bound);
		if (start + 2 <= end && start[0] == '-' && start[1] == '-')
			break;
		start = memchr(start, '\n', (size_t)(end - start));
		if (!start)
			break;
		start++;
		next = memmem(start, (size_t)(end - start), bound, strlen(bound));
		parse_headers(&ph, start, next ? next : end, &pb);
		if (is_text_plain(get(&ph, "Content-Type"))) {
			error = part_text(out, &ph, pb, next ? next + 1 : end, why);
			hdrs_release(&ph);
			free(bound);
			return error;
		}
		hdrs_release(&ph);
		p = next;
	}
	free(bound);
	*why = kreg_strdup("no text/plain part to read commands from");
	return error;
}

static char *trim(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return kreg_strndup(s, len);
}

/* One "#kreg" line (after "#kreg"): its command and argument. */
static void parse_command(kreg_cmd *c, const char *rest)
{
	size_t wlen = strcspn(rest += strspn(rest, " \t"), ": \t");
	char *word = kreg_strndup(rest, wlen);
	const char *a = rest + wlen;
	char *arg;
	size_t alen;

	for (char *p = word; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	while (*a == ' ' || *a == '\t')
		a++;
	if (*a == ':')
		a++;
	arg = trim(a, strlen(a));
	alen = strlen(arg);
	c->kind = KREG_CMD_UNKNOWN;
	if (!alen && (!strcmp(word, "invalid") || !strcmp(word, "noise") || !strcmp(word, "reopen") ||
		      !strcmp(word, "retest"))) {
		c->kind = word[0] == 'i' ? KREG_CMD_INVALID : word[0] == 'n' ? KREG_CMD_NOISE :
			  word[2] == 'o' ? KREG_CMD_REOPEN : KREG_CMD_RETEST;
	} else if (!strcmp(word, "dup") || !strcmp(word, "duplicate") ||
		   !strcmp(word, "duplicate-of")) {
		size_t skip = arg[0] == '#' || arg[0] == 'r' ? 1 : 0;

		if (alen > skip && alen - skip <= 18 && strspn(arg + skip, "0123456789") == alen - skip) {
			c->kind = KREG_CMD_DUP;
			c->arg = kreg_strdup(arg + skip);
		}
	} else if (!strcmp(word, "fix") || !strcmp(word, "fixed-by")) {
		if (alen >= 7 && alen <= 40 && strspn(arg, "0123456789abcdefABCDEF") == alen) {
			c->kind = KREG_CMD_FIX;
			c->arg = kreg_strdup(arg);
		}
	} else if (!strcmp(word, "test") && !alen) {
		c->kind = KREG_CMD_TEST;
	}
	if (c->arg)
		c->arg_len = strlen(c->arg);
	free(arg);
	free(word);
}

/* The commands: lines of their own starting with "#kreg" (quoted lines,
 * "> ...", are someone else's); "#kreg test:" takes the rest as its patch. */
static void parse_commands(kreg_mail_reply *out, const char *text, size_t len)
{
	size_t cap = 0;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;
		char *line;
		kreg_cmd *c;

		p = nl ? nl + 1 : end;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if ((size_t)(e - s) < 5 || strncasecmp(s, "#kreg", 5) ||
		    (e - s > 5 && !strchr(" \t:\r", s[5])))
			continue;
		line = trim(s, (size_t)(e - s));
		KREG_ARRAY_GROW(out->cmds, out->ncmds + 1, cap);
		c = &out->cmds[out->ncmds++];
		memset(c, 0, sizeof(*c));
		parse_command(c, line + 5);
		c->line = printable(line, strlen(line), 200);
		free(line);
		if (c->kind == KREG_CMD_TEST) {
			c->arg = kreg_strndup(p, (size_t)(end - p));
			c->arg_len = (size_t)(end - p);
			break;
		}
	}
}

void kreg_mail_reply_parse(kreg_mail_reply *out, const char *msg, size_t len,
			   const char *from_address)
{
	const char *end = msg + len, *body, *v;
	kreg_buf text = KREG_BUF_INIT;
	hdrs h;
	size_t nid = 0;
	char **ids = NULL;

	memset(out, 0, sizeof(*out));
	parse_headers(&h, msg, end, &body);
	if ((v = get(&h, "Message-ID")))
		msgids(&ids, &nid, v);
	if (nid)
		out->message_id = kreg_strdup(ids[0]);
	for (size_t i = 0; i < nid; i++)
		free(ids[i]);
	free(ids);
	out->from = (v = get(&h, "From")) ? address_of(v) : NULL;
	v = get(&h, "Subject");
	out->subject = v ? printable(v, strlen(v), 200) : kreg_strdup("");
	if ((v = get(&h, "In-Reply-To")))
		msgids(&out->refs, &out->nrefs, v);
	if ((v = get(&h, "References"))) {
		char **r = NULL;
		size_t nr = 0, cap = out->nrefs;

		msgids(&r, &nr, v);
		/* newest (the last) first */
		for (size_t i = nr; i-- > 0;) {
			KREG_ARRAY_GROW(out->refs, out->nrefs + 1, cap);
			out->refs[out->nrefs++] = r[i];
		}
		free(r);
	}
	out->robot = robot(&h, out->from, from_address);
	if (body_text(&text, &h, body, end, &out->why_not) == 0) {
		size_t o = 0;

		/* LF lines, as a patch is applied */
		for (size_t i = 0; i < text.len; i++)
			if (!(text.ptr[i] == '\r' && i + 1 < text.len && text.ptr[i + 1] == '\n'))
				text.ptr[o++] = text.ptr[i];
		if (text.ptr)
			kreg_buf_truncate(&text, o);
		parse_commands(out, text.ptr ? text.ptr : "", text.len);
	}
	kreg_buf_release(&text);
	hdrs_release(&h);
}

void kreg_mail_reply_release(kreg_mail_reply *r)
{
	free(r->message_id);
	free(r->from);
	free(r->subject);
	for (size_t i = 0; i < r->nrefs; i++)
		free(r->refs[i]);
	free(r->refs);
	free(r->robot);
	free(r->why_not);
	for (size_t i = 0; i < r->ncmds; i++) {
		free(r->cmds[i].line);
		free(r->cmds[i].arg);
	}
	free(r->cmds);
	memset(r, 0, sizeof(*r));
}
