/* Reading LKP job files: YAML (libyaml) into a value tree, with LKP's
 * includes and multi-document files. Positions are kept on every value so
 * that errors name FILE:LINE:COL. */
#include "jobs/job_internal.h"

#include "lib/err.h"
#include "lib/mem.h"
#include "lib/yaml_depth.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#define MAX_DEPTH 64		/* nesting of YAML values */
#define MAX_NODES 200000	/* values made from one file (alias bombs) */
#define MAX_INCLUDES 16		/* include nesting (loops) */
#define MAX_FILE (16u << 20)	/* a job file larger than this is a mistake */

/* The value tree */

kreg_jnode *kreg_jnode_new(kreg_jkind kind, const char *file, int line, int col)
{
	kreg_jnode *n = kreg_calloc(1, sizeof(*n));

	n->kind = kind;
	n->file = kreg_strdup(file ? file : "");
	n->line = line;
	n->col = col;
	return n;
}

kreg_jnode *kreg_jnode_scalar(const char *s)
{
	kreg_jnode *n = kreg_jnode_new(KJ_SCALAR, NULL, 0, 0);

	n->str = kreg_strdup(s);
	return n;
}

kreg_jnode *kreg_jnode_dup(const kreg_jnode *n)
{
	kreg_jnode *d;

	if (!n)
		return NULL;
	d = kreg_jnode_new(n->kind, n->file, n->line, n->col);
	d->quoted = n->quoted;
	if (n->str)
		d->str = kreg_strdup(n->str);
	for (size_t i = 0; i < n->count; i++)
		kreg_jnode_push(d, kreg_jnode_dup(n->items[i]));
	for (size_t i = 0; i < n->npairs; i++)
		kreg_jnode_set(d, n->pairs[i].key, kreg_jnode_dup(n->pairs[i].val),
			       n->pairs[i].line, n->pairs[i].col);
	return d;
}

void kreg_jnode_free(kreg_jnode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->count; i++)
		kreg_jnode_free(n->items[i]);
	for (size_t i = 0; i < n->npairs; i++) {
		free(n->pairs[i].key);
		kreg_jnode_free(n->pairs[i].val);
	}
	free(n->items);
	free(n->pairs);
	kreg_strindex_reset(&n->keys);
	free(n->str);
	free(n->file);
	free(n);
}

static const char *key_of(const void *pairs, size_t i)
{
	return ((const kreg_jpair *)pairs)[i].key;
}

static long long pair_of(const kreg_jnode *map, const char *key)
{
	/* kreg_jnode_set keeps the index whole; a map made another way is read
	 * the slow way */
	if (map->keys.nslots && map->keys.indexed == map->npairs)
		return kreg_strindex_find(&map->keys, map->pairs, key, key_of);
	for (size_t i = 0; i < map->npairs; i++)
		if (!strcmp(map->pairs[i].key, key))
			return (long long)i;
	return -1;
}

kreg_jnode *kreg_jnode_get(const kreg_jnode *map, const char *key)
{
	long long i;

	if (!map || map->kind != KJ_MAP || (i = pair_of(map, key)) < 0)
		return NULL;
	return map->pairs[i].val;
}

void kreg_jnode_set(kreg_jnode *map, const char *key, kreg_jnode *val, int line, int col)
{
	long long i;

	kreg_strindex_update(&map->keys, map->pairs, map->npairs, key_of);
	if ((i = pair_of(map, key)) >= 0) {
		kreg_jnode_free(map->pairs[i].val);
		map->pairs[i].val = val;
		return;
	}
	KREG_ARRAY_GROW(map->pairs, map->npairs + 1, map->apairs);
	map->pairs[map->npairs].key = kreg_strdup(key);
	map->pairs[map->npairs].val = val;
	map->pairs[map->npairs].line = line;
	map->pairs[map->npairs].col = col;
	map->npairs++;
	kreg_strindex_update(&map->keys, map->pairs, map->npairs, key_of);
}

void kreg_jnode_del(kreg_jnode *map, const char *key)
{
	long long i = pair_of(map, key);

	if (i < 0)
		return;
	free(map->pairs[i].key);
	kreg_jnode_free(map->pairs[i].val);
	memmove(&map->pairs[i], &map->pairs[i + 1],
		(map->npairs - (size_t)i - 1) * sizeof(*map->pairs));
	map->npairs--;
	kreg_strindex_reset(&map->keys);	/* the pairs after it moved */
}

void kreg_jnode_push(kreg_jnode *seq, kreg_jnode *val)
{
	KREG_ARRAY_GROW(seq->items, seq->count + 1, seq->alloc);
	seq->items[seq->count++] = val;
}

static int is_word(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return 1;
	return 0;
}

static const char *const null_words[] = { "", "~", "null", "Null", "NULL", NULL };
static const char *const true_words[] = { "true", "True", "TRUE", "yes", "Yes", "YES",
					  "on", "On", "ON", NULL };
static const char *const false_words[] = { "false", "False", "FALSE", "no", "No", "NO",
					   "off", "Off", "OFF", NULL };

kreg_jval kreg_jnode_value(const kreg_jnode *n, const char **text)
{
	*text = NULL;
	if (!n || n->kind == KJ_NULL)
		return KJ_VAL_NIL;
	if (n->kind != KJ_SCALAR)
		return KJ_VAL_TEXT;
	if (!n->quoted) {
		if (is_word(n->str, null_words))
			return KJ_VAL_NIL;
		if (is_word(n->str, false_words))
			return KJ_VAL_FALSE;
		if (is_word(n->str, true_words)) {
			*text = "true";
			return KJ_VAL_TEXT;
		}
	}
	*text = n->str;
	return KJ_VAL_TEXT;
}

/* Emitting YAML */

static int looks_typed(const char *s)
{
	const char *p = s;

	if (is_word(s, null_words) || is_word(s, true_words) || is_word(s, false_words))
		return 1;
	if (*p == '+' || *p == '-')
		p++;
	if (*p == '.')
		p++;
	return isdigit((unsigned char)*p) || !strcmp(s, ".inf") || !strcmp(s, ".nan");
}

static int needs_quotes(const char *s, int quoted)
{
	size_t len = strlen(s);

	if (!len)
		return 1;
	if (quoted && looks_typed(s))
		return 1;
	if (strchr("?:,[]{}#&*!|>'\"%@`", s[0]) || (s[0] == '-' && (!s[1] || s[1] == ' ')))
		return 1;
	if (isspace((unsigned char)s[0]) || isspace((unsigned char)s[len - 1]))
		return 1;
	if (strstr(s, ": ") || strstr(s, " #") || s[len - 1] == ':')
		return 1;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return 1;
	return 0;
}

static void emit_scalar(kreg_buf *out, const char *s, int quoted)
{
	int ctl = 0;

	if (!needs_quotes(s, quoted)) {
		kreg_buf_puts(out, s);
		return;
	}
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			ctl = 1;
	if (!ctl) {
		kreg_buf_putc(out, '\'');
		for (const char *c = s; *c; c++) {
			if (*c == '\'')
				kreg_buf_putc(out, '\'');
			kreg_buf_putc(out, *c);
		}
		kreg_buf_putc(out, '\'');
		return;
	}
	kreg_buf_putc(out, '"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"': kreg_buf_puts(out, "\\\""); break;
		case '\\': kreg_buf_puts(out, "\\\\"); break;
		case '\n': kreg_buf_puts(out, "\\n"); break;
		case '\t': kreg_buf_puts(out, "\\t"); break;
		default:
			if (*c < 0x20 || *c == 0x7f)
				kreg_buf_printf(out, "\\x%02x", *c);
			else
				kreg_buf_putc(out, (char)*c);
		}
	}
	kreg_buf_putc(out, '"');
}

static void emit_indent(kreg_buf *out, int indent)
{
	for (int i = 0; i < indent; i++)
		kreg_buf_putc(out, ' ');
}

static void emit_value(kreg_buf *out, const kreg_jnode *n, int indent);

/* A mapping's pairs; the first line's indentation is already written when
 * first_done is set (a mapping inside a sequence item). */
static void emit_map(kreg_buf *out, const kreg_jnode *n, int indent, int first_done)
{
	for (size_t i = 0; i < n->npairs; i++) {
		if (i || !first_done)
			emit_indent(out, indent);
		emit_scalar(out, n->pairs[i].key, 0);
		kreg_buf_putc(out, ':');
		emit_value(out, n->pairs[i].val, indent);
	}
}

static void emit_seq(kreg_buf *out, const kreg_jnode *n, int indent)
{
	for (size_t i = 0; i < n->count; i++) {
		const kreg_jnode *it = n->items[i];

		emit_indent(out, indent);
		kreg_buf_puts(out, "-");
		if (it->kind == KJ_MAP && it->npairs) {
			kreg_buf_putc(out, ' ');
			emit_map(out, it, indent + 2, 1);
		} else if (it->kind == KJ_SEQ && it->count) {
			kreg_buf_putc(out, '\n');
			emit_seq(out, it, indent + 2);
		} else {
			emit_value(out, it, indent);
		}
	}
}

/* After "key:" or "-": the rest of the line and what follows. */
static void emit_value(kreg_buf *out, const kreg_jnode *n, int indent)
{
	if (!n || n->kind == KJ_NULL) {
		kreg_buf_putc(out, '\n');
	} else if (n->kind == KJ_SCALAR) {
		kreg_buf_putc(out, ' ');
		emit_scalar(out, n->str, n->quoted);
		kreg_buf_putc(out, '\n');
	} else if (n->kind == KJ_MAP) {
		if (!n->npairs) {
			kreg_buf_puts(out, " {}\n");
			return;
		}
		kreg_buf_putc(out, '\n');
		emit_map(out, n, indent + 2, 0);
	} else {
		if (!n->count) {
			kreg_buf_puts(out, " []\n");
			return;
		}
		kreg_buf_putc(out, '\n');
		emit_seq(out, n, indent);
	}
}

void kreg_jnode_emit(kreg_buf *out, const kreg_jnode *n)
{
	if (n->kind == KJ_MAP)
		emit_map(out, n, 0, 0);
	else if (n->kind == KJ_SEQ)
		emit_seq(out, n, 0);
	else
		emit_value(out, n, 0);
}

/* Loading */

typedef struct {
	char *const *search;
	size_t nsearch;
	int depth;		/* include nesting */
	size_t nodes;		/* values made from the current file */
} load_ctx;

static int load_stream(kreg_jnode ***docs, size_t *ndocs, size_t *adocs, load_ctx *ctx,
		       const char *file, const char *dir, const char *yaml, size_t len);

static int pos_error(const char *file, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int pos_error(const char *file, int line, int col, const char *fmt, ...)
{
	kreg_buf b = KREG_BUF_INIT;
	va_list ap;

	kreg_buf_printf(&b, "%s:%d:%d: ", file, line, col);
	va_start(ap, fmt);
	kreg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kreg_error_set("%s", b.ptr);
	kreg_buf_release(&b);
	return KREG_EINVAL;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Below root (a few levels deep, in name order): the first root/.../file. */
static char *find_below(const char *root, const char *file, int depth)
{
	char **names = NULL;
	size_t n = 0, alloc = 0;
	char *found = NULL;
	struct dirent *de;
	DIR *d;

	if (depth > 6 || !(d = opendir(root)))
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		KREG_ARRAY_GROW(names, n + 1, alloc);
		names[n++] = kreg_strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && !found; i++) {
		char *sub = kreg_path_join(root, names[i]);
		struct stat st;

		if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
			char *p = kreg_path_join(sub, file);

			if (is_file(p))
				found = p;
			else {
				free(p);
				found = find_below(sub, file, depth + 1);
			}
		}
		free(sub);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return found;
}

/* LKP's search_file_in_paths: absolute; ./ and ../ relative to the
 * including file; else the including file's folder, then the search
 * path, flat, then below each of those (nearest jobs/ folder first). */
static char *find_include(const char *file, const char *dir, const load_ctx *ctx)
{
	const char *roots[64];
	size_t nroots = 0;
	char *jobs_root = NULL, *found = NULL;

	if (file[0] == '/')
		return is_file(file) ? kreg_strdup(file) : NULL;
	if (!strncmp(file, "./", 2) || !strncmp(file, "../", 3)) {
		char *p = kreg_path_join(dir, file);

		if (is_file(p))
			return p;
		free(p);
		return NULL;
	}
	roots[nroots++] = dir;
	for (size_t i = 0; i < ctx->nsearch && nroots < 60; i++)
		roots[nroots++] = ctx->search[i];
	for (size_t i = 0; i < nroots; i++) {
		char *p = kreg_path_join(roots[i], file);

		if (is_file(p))
			return p;
		free(p);
	}
	/* the nearest jobs/ folder above the including file */
	{
		const char *j = NULL;

		for (const char *p = strstr(dir, "jobs"); p; p = strstr(p + 1, "jobs"))
			if ((p == dir || p[-1] == '/') && (p[4] == '/' || !p[4]))
				j = p;
		if (j && strncmp(file, "jobs/", 5))
			jobs_root = kreg_strndup(dir, (size_t)(j - dir) + 4);
	}
	if (jobs_root)
		found = find_below(jobs_root, file, 0);
	for (size_t i = 0; i < nroots && !found; i++)
		found = find_below(roots[i], file, 0);
	free(jobs_root);
	return found;
}

static int read_whole(char **data, size_t *len, const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	struct stat st;
	int error;

	if (stat(path, &st) == 0 && st.st_size > (off_t)MAX_FILE) {
		kreg_error_set("%s: %lld bytes is too large for a job file", path,
			       (long long)st.st_size);
		return KREG_EINVAL;
	}
	if ((error = kreg_buf_read_file_max(&b, path, MAX_FILE, "a job file")) < 0) {
		kreg_buf_release(&b);
		return error;
	}
	*len = b.len;
	*data = kreg_buf_detach(&b);
	if (!*data)
		*data = kreg_strdup("");
	return 0;
}

typedef struct {
	load_ctx *ctx;
	yaml_document_t *doc;
	const char *file;
	const char *dir;
	/* further documents brought in by a top-level include */
	kreg_jnode **extra;
	size_t nextra, aextra;
} conv;

static int convert(conv *cv, yaml_node_t *yn, kreg_jnode **out, int depth, int top);

/* `<<: FILE` or `<<: {file: FILE, key: value, ...}`: the included file's
 * documents, each with the overrides set at its top level. */
static int include_file(conv *cv, kreg_jnode *map, yaml_node_t *vn, int top)
{
	const char *file_name = NULL;
	kreg_jnode *spec = NULL, *overrides = NULL;
	kreg_jnode **docs = NULL;
	size_t ndocs = 0, adocs = 0;
	char *path = NULL, *data = NULL, *incdir = NULL;
	size_t len = 0;
	int line = (int)vn->start_mark.line + 1, col = (int)vn->start_mark.column + 1;
	int error = KREG_EINVAL;

	if (vn->type == YAML_SCALAR_NODE) {
		file_name = (const char *)vn->data.scalar.value;
	} else {
		kreg_jnode *f;

		if ((error = convert(cv, vn, &spec, 1, 0)) < 0)
			goto done;
		overrides = spec;
		error = KREG_EINVAL;
		f = kreg_jnode_get(spec, "file");
		if (!f || f->kind != KJ_SCALAR || !*f->str) {
			pos_error(cv->file, line, col, "an include needs 'file: NAME'");
			goto done;
		}
		file_name = f->str;
	}
	if (cv->ctx->depth >= MAX_INCLUDES) {
		pos_error(cv->file, line, col, "includes nested more than %d deep (a loop?) at '%s'",
			  MAX_INCLUDES, file_name);
		goto done;
	}
	path = find_include(file_name, cv->dir, cv->ctx);
	if (!path) {
		pos_error(cv->file, line, col, "included job file '%s' not found (looked in %s%s)",
			  file_name, cv->dir, cv->ctx->nsearch ? " and the job path" : "");
		goto done;
	}
	if ((error = read_whole(&data, &len, path)) < 0)
		goto done;
	{
		char *tmp = kreg_strdup(path);

		incdir = kreg_strdup(dirname(tmp));
		free(tmp);
	}
	cv->ctx->depth++;
	{
		size_t saved = cv->ctx->nodes;

		cv->ctx->nodes = 0;
		error = load_stream(&docs, &ndocs, &adocs, cv->ctx, path, incdir, data, len);
		cv->ctx->nodes = saved;
	}
	cv->ctx->depth--;
	if (error < 0)
		goto done;
	error = KREG_EINVAL;
	for (size_t d = 0; d < ndocs; d++) {
		if (docs[d]->kind != KJ_MAP) {
			pos_error(path, docs[d]->line, docs[d]->col,
				  "an included job file must hold mappings");
			goto done;
		}
		for (size_t i = 0; overrides && i < overrides->npairs; i++) {
			if (!strcmp(overrides->pairs[i].key, "file") ||
			    !strcmp(overrides->pairs[i].key, "ignore"))
				continue;
			kreg_jnode_set(docs[d], overrides->pairs[i].key,
				       kreg_jnode_dup(overrides->pairs[i].val),
				       overrides->pairs[i].line, overrides->pairs[i].col);
		}
		if (overrides && (spec = kreg_jnode_get(overrides, "ignore"))) {
			if (spec->kind == KJ_SCALAR)
				kreg_jnode_del(docs[d], spec->str);
			for (size_t i = 0; spec->kind == KJ_SEQ && i < spec->count; i++)
				if (spec->items[i]->kind == KJ_SCALAR)
					kreg_jnode_del(docs[d], spec->items[i]->str);
		}
	}
	if (ndocs > 1 && !top) {
		pos_error(cv->file, line, col,
			  "'%s' has %zu documents: include it at the top level only",
			  file_name, ndocs);
		goto done;
	}
	if (ndocs) {
		for (size_t i = 0; i < docs[0]->npairs; i++) {
			kreg_jpair *p = &docs[0]->pairs[i];

			kreg_jnode_set(map, p->key, p->val, p->line, p->col);
			p->val = NULL;
		}
		for (size_t d = 1; d < ndocs; d++) {
			KREG_ARRAY_GROW(cv->extra, cv->nextra + 1, cv->aextra);
			cv->extra[cv->nextra++] = docs[d];
			docs[d] = NULL;
		}
	}
	error = 0;
done:
	for (size_t d = 0; d < ndocs; d++)
		kreg_jnode_free(docs[d]);
	free(docs);
	kreg_jnode_free(overrides);
	free(incdir);
	free(data);
	free(path);
	return error;
}

/* Standard YAML merge (`<<: *anchor`): keys not yet present are added. */
static void merge_map(kreg_jnode *map, const kreg_jnode *from)
{
	for (size_t i = 0; i < from->npairs; i++)
		if (!kreg_jnode_get(map, from->pairs[i].key))
			kreg_jnode_set(map, from->pairs[i].key, kreg_jnode_dup(from->pairs[i].val),
				       from->pairs[i].line, from->pairs[i].col);
}

static int convert_map(conv *cv, yaml_node_t *yn, kreg_jnode *map, int depth, int top)
{
	for (yaml_node_pair_t *p = yn->data.mapping.pairs.start; p < yn->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(cv->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(cv->doc, p->value);
		int line, col, error;
		const char *key;
		kreg_jnode *val = NULL;

		if (!kn || !vn)
			return pos_error(cv->file, (int)yn->start_mark.line + 1,
					 (int)yn->start_mark.column + 1, "broken mapping");
		line = (int)kn->start_mark.line + 1;
		col = (int)kn->start_mark.column + 1;
		if (kn->type != YAML_SCALAR_NODE)
			return pos_error(cv->file, line, col, "a mapping key must be a plain value");
		key = (const char *)kn->data.scalar.value;
		if (!strcmp(key, "<<") && kn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
			kreg_jnode *m = NULL;

			if (vn->type == YAML_SCALAR_NODE) {
				if ((error = include_file(cv, map, vn, top)) < 0)
					return error;
				continue;
			}
			if ((error = convert(cv, vn, &m, depth + 1, 0)) < 0)
				return error;
			if (m->kind == KJ_MAP && kreg_jnode_get(m, "file")) {
				kreg_jnode_free(m);
				if ((error = include_file(cv, map, vn, top)) < 0)
					return error;
				continue;
			}
			if (m->kind == KJ_MAP) {
				merge_map(map, m);
			} else if (m->kind == KJ_SEQ) {
				for (size_t i = 0; i < m->count; i++)
					if (m->items[i]->kind == KJ_MAP)
						merge_map(map, m->items[i]);
			} else {
				kreg_jnode_free(m);
				return pos_error(cv->file, line, col,
						 "'<<' takes a file name, {file: NAME, ...} or a mapping");
			}
			kreg_jnode_free(m);
			continue;
		}
		if ((error = convert(cv, vn, &val, depth + 1, 0)) < 0)
			return error;
		kreg_jnode_set(map, key, val, line, col);
	}
	return 0;
}

static int convert(conv *cv, yaml_node_t *yn, kreg_jnode **out, int depth, int top)
{
	int line = (int)yn->start_mark.line + 1, col = (int)yn->start_mark.column + 1;
	kreg_jnode *n;
	int error;

	*out = NULL;
	if (depth > MAX_DEPTH)
		return pos_error(cv->file, line, col, "values nested more than %d deep", MAX_DEPTH);
	if (++cv->ctx->nodes > MAX_NODES)
		return pos_error(cv->file, line, col,
				 "more than %d values (aliases expanding without end?)", MAX_NODES);
	switch (yn->type) {
	case YAML_SCALAR_NODE:
		n = kreg_jnode_new(KJ_SCALAR, cv->file, line, col);
		if (memchr(yn->data.scalar.value, 0, yn->data.scalar.length)) {
			kreg_jnode_free(n);
			return pos_error(cv->file, line, col, "a NUL byte in a value");
		}
		n->str = kreg_strndup((const char *)yn->data.scalar.value, yn->data.scalar.length);
		n->quoted = yn->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		if (!n->quoted && is_word(n->str, null_words)) {
			n->kind = KJ_NULL;
			free(n->str);
			n->str = NULL;
		}
		break;
	case YAML_SEQUENCE_NODE:
		n = kreg_jnode_new(KJ_SEQ, cv->file, line, col);
		for (yaml_node_item_t *it = yn->data.sequence.items.start;
		     it < yn->data.sequence.items.top; it++) {
			yaml_node_t *in = yaml_document_get_node(cv->doc, *it);
			kreg_jnode *c;

			if (!in) {
				kreg_jnode_free(n);
				return pos_error(cv->file, line, col, "broken sequence");
			}
			if ((error = convert(cv, in, &c, depth + 1, 0)) < 0) {
				kreg_jnode_free(n);
				return error;
			}
			kreg_jnode_push(n, c);
		}
		break;
	case YAML_MAPPING_NODE:
		n = kreg_jnode_new(KJ_MAP, cv->file, line, col);
		if ((error = convert_map(cv, yn, n, depth, top)) < 0) {
			kreg_jnode_free(n);
			return error;
		}
		break;
	default:
		return pos_error(cv->file, line, col, "an empty YAML node");
	}
	*out = n;
	return 0;
}

/* 1-based line and column of at in text. */
static void text_pos(const char *text, const char *at, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (const char *p = text; p < at; p++) {
		if (*p == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

static int load_stream(kreg_jnode ***docs, size_t *ndocs, size_t *adocs, load_ctx *ctx,
		       const char *file, const char *dir, const char *yaml, size_t len)
{
	yaml_parser_t parser;
	const char *at;
	int line, col, error = 0;

	if ((at = memchr(yaml, 0, len))) {
		text_pos(yaml, at, &line, &col);
		return pos_error(file, line, col, "a NUL byte: not a text file");
	}
	/* LKP runs a job file through Ruby's ERB before YAML (lib/erb.rb): a
	 * "<%" there is code kreg does not run. Refused by name, not left to
	 * fail later as a YAML error or stay in a value as text. */
	if ((at = memmem(yaml, len, "<%", 2))) {
		text_pos(yaml, at, &line, &col);
		return pos_error(file, line, col, "an ERB template ('<%%'): kreg does not run the "
				 "Ruby in LKP job files; give the values it would make instead");
	}
	/* before loading: libyaml's time grows with the square of the depth
	 * (a document's own mapping is level 0 in convert(), 1 here) */
	if (kreg_yaml_too_deep(yaml, len, MAX_DEPTH + 1, &line, &col))
		return pos_error(file, line, col, "values nested more than %d deep", MAX_DEPTH);
	if (!yaml_parser_initialize(&parser))
		kreg_die("out of memory (yaml parser)");
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
	for (;;) {
		yaml_document_t doc;
		yaml_node_t *root;
		conv cv = { ctx, &doc, file, dir, NULL, 0, 0 };
		kreg_jnode *n = NULL;

		if (!yaml_parser_load(&parser, &doc)) {
			error = pos_error(file, (int)parser.problem_mark.line + 1,
					  (int)parser.problem_mark.column + 1, "%s%s%s",
					  parser.problem ? parser.problem : "YAML error",
					  parser.context ? " " : "",
					  parser.context ? parser.context : "");
			break;
		}
		root = yaml_document_get_root_node(&doc);
		if (!root) {
			yaml_document_delete(&doc);
			break;
		}
		error = convert(&cv, root, &n, 0, 1);
		yaml_document_delete(&doc);
		if (error < 0) {
			for (size_t i = 0; i < cv.nextra; i++)
				kreg_jnode_free(cv.extra[i]);
			free(cv.extra);
			break;
		}
		/* an empty document (a lone "---") adds nothing */
		if (n->kind == KJ_NULL) {
			kreg_jnode_free(n);
		} else {
			KREG_ARRAY_GROW(*docs, *ndocs + 1, *adocs);
			(*docs)[(*ndocs)++] = n;
		}
		for (size_t i = 0; i < cv.nextra; i++) {
			KREG_ARRAY_GROW(*docs, *ndocs + 1, *adocs);
			(*docs)[(*ndocs)++] = cv.extra[i];
		}
		free(cv.extra);
	}
	yaml_parser_delete(&parser);
	return error;
}

static char *job_name_of(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t len;

	b = b ? b + 1 : path;
	len = strlen(b);
	if (len > 5 && !strcmp(b + len - 5, ".yaml"))
		len -= 5;
	else if (len > 4 && !strcmp(b + len - 4, ".yml"))
		len -= 4;
	return kreg_strndup(b, len);
}

int kreg_job_load_string(kreg_job **out, const char *name, const char *dir,
			 const char *yaml, size_t len, char *const *search, size_t nsearch)
{
	load_ctx ctx = { search, nsearch, 0, 0 };
	kreg_job *job = kreg_calloc(1, sizeof(*job));
	int error;

	*out = NULL;
	job->path = kreg_strdup(name);
	job->name = job_name_of(name);
	error = load_stream(&job->docs, &job->ndocs, &job->adocs, &ctx, name, dir ? dir : ".",
			    yaml, len);
	if (error < 0)
		goto fail;
	if (!job->ndocs) {
		error = pos_error(name, 1, 1, "an empty job file");
		goto fail;
	}
	for (size_t i = 0; i < job->ndocs; i++)
		if (job->docs[i]->kind != KJ_MAP) {
			error = pos_error(job->docs[i]->file, job->docs[i]->line, job->docs[i]->col,
					  "a job is a mapping of keys to values (document %zu)", i);
			goto fail;
		}
	*out = job;
	return 0;
fail:
	kreg_job_free(job);
	return error;
}

int kreg_job_load(kreg_job **out, const char *path, char *const *search, size_t nsearch)
{
	char *data = NULL, *tmp, *dir;
	size_t len = 0;
	int error;

	*out = NULL;
	if (!is_file(path)) {
		kreg_error_set("%s: %s", path, errno == ENOENT || !kreg_path_exists(path) ?
			       "no such job file" : "not a regular file");
		return KREG_ENOTFOUND;
	}
	if ((error = read_whole(&data, &len, path)) < 0)
		return error;
	tmp = kreg_strdup(path);
	dir = kreg_strdup(dirname(tmp));
	error = kreg_job_load_string(out, path, dir, data, len, search, nsearch);
	free(dir);
	free(tmp);
	free(data);
	return error;
}

void kreg_job_free(kreg_job *job)
{
	if (!job)
		return;
	for (size_t i = 0; i < job->ndocs; i++)
		kreg_jnode_free(job->docs[i]);
	free(job->docs);
	free(job->path);
	free(job->name);
	free(job);
}

size_t kreg_job_documents(const kreg_job *job)
{
	return job->ndocs;
}
