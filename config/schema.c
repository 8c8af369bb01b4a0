/* The schema walker: reads a libyaml document into C structs as tables of
 * fields (config/schema_internal.h) describe them, collecting every problem
 * with its position; frees and prints what a table describes. It knows no
 * key of kreg.yaml: those are config.c's tables. */
#include "config/schema_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <yaml.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- problems ------------------------------------------------------------ */

static void problems_vadd(kreg_config_problems *p, const char *file, int line, int col,
			  const char *fmt, va_list ap)
{
	kreg_buf b = KREG_BUF_INIT;
	kreg_config_problem *q;

	kreg_buf_vprintf(&b, fmt, ap);
	KREG_ARRAY_GROW(p->items, p->count + 1, p->alloc);
	q = &p->items[p->count++];
	q->file = kreg_strdup(file);
	q->line = line;
	q->col = col;
	q->message = kreg_buf_detach(&b);
}

void schema_problem_at(loader *ld, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problems_vadd(ld->problems, ld->file, line, col, fmt, ap);
	va_end(ap);
}

void schema_problem(loader *ld, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	problems_vadd(ld->problems, ld->file, n ? (int)n->start_mark.line + 1 : 0,
		      n ? (int)n->start_mark.column + 1 : 0, fmt, ap);
	va_end(ap);
}

void kreg_config_problems_release(kreg_config_problems *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->count; i++) {
		free(p->items[i].file);
		free(p->items[i].message);
	}
	free(p->items);
	p->items = NULL;
	p->count = p->alloc = 0;
}

/* A value quoted in a message: printable, and not too long. */
const char *schema_shown(kreg_buf *b, const char *s)
{
	size_t n = 0;

	kreg_buf_clear(b);
	for (; *s && n < 60; s++, n++)
		kreg_buf_putc(b, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
	if (*s)
		kreg_buf_puts(b, "...");
	return kreg_buf_cstr(b);
}

static const char *sep(const char *path)
{
	return *path ? ": " : "";
}

/* ---- values ---------------------------------------------------------------- */

/* dir/s with "." and ".." folded away (lexically, like git's
 * normalize_path_copy): the paths kreg prints stay readable. */
char *schema_resolve_path(const loader *ld, const char *s)
{
	char *joined = s[0] == '/' || !ld->dir ? kreg_strdup(s) : kreg_path_join(ld->dir, s);
	char *out = kreg_malloc(strlen(joined) + 2), *o = out;
	const char *p = joined;

	if (joined[0] != '/') {
		/* no directory to anchor it: leave it as written */
		free(out);
		return joined;
	}
	while (*p) {
		const char *e;
		size_t n;

		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		n = (size_t)(e - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (o > out && *--o != '/')
				;
		} else {
			*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p = e;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	free(joined);
	return out;
}

static const char *type_wants(ftype t)
{
	switch (t) {
	case T_INT: case T_U64: case T_DOUBLE: return "a number";
	case T_RATIO: return "a number or a percentage (like 0.05 or 5%)";
	case T_SIZE: return "a size (like 4k, 512M, 1G)";
	case T_DURATION: return "a duration (like 90, 300s, 30m, 2h)";
	case T_BOOL: return "true or false";
	case T_STRLIST: case T_PATHLIST: return "a list of strings";
	case T_STRUCT: case T_LIST: return "a mapping";
	default: return "a string";
	}
}

static int parse_bool(int *out, const char *s)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

static int parse_ratio(double *out, const char *s)
{
	size_t n = strlen(s);

	if (n > 1 && s[n - 1] == '%') {
		char *t = kreg_strndup(s, n - 1);
		int r = kreg_parse_double(out, t, "ratio");

		free(t);
		if (r == 0)
			*out /= 100;
		return r;
	}
	return kreg_parse_double(out, s, "ratio");
}

static const char *nearest(const char *s, const char *const *cands, size_t n, size_t stride)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, len = strlen(s);
	size_t limit = len / 3 > 2 ? len / 3 : 2;

	for (size_t i = 0; i < n; i++) {
		const char *c = *(const char *const *)((const char *)cands + i * stride);
		size_t d;

		if (!c)
			continue;
		d = kreg_str_distance(s, c);
		if (d < bestd) {
			bestd = d;
			best = c;
		}
	}
	return best && bestd <= limit && bestd < len ? best : NULL;
}

static void list_names(kreg_buf *b, const char *const *cands, size_t n, size_t stride)
{
	for (size_t i = 0; i < n; i++) {
		const char *c = *(const char *const *)((const char *)cands + i * stride);

		if (c)
			kreg_buf_printf(b, "%s%s", i ? ", " : "", c);
	}
}

static size_t enum_count(const enum_val *e)
{
	size_t n = 0;

	while (e[n].name)
		n++;
	return n;
}

static size_t words_count(const char *const *w)
{
	size_t n = 0;

	while (w[n])
		n++;
	return n;
}

/* Convert a scalar for field f into rec. 0, or -1 with *why set to what was
 * wrong (the caller names where). Used for defaults too. */
static int convert(const loader *ld, const field *f, void *rec, const char *s, char **why)
{
	long long ll;
	double d;
	uint64_t u;
	int b;

	*why = NULL;
	switch (f->type) {
	case T_STR:
		free(*AT(rec, f->off, char *));
		*AT(rec, f->off, char *) = kreg_strdup(s);
		return 0;
	case T_PATH:
		free(*AT(rec, f->off, char *));
		*AT(rec, f->off, char *) = schema_resolve_path(ld, s);
		return 0;
	case T_WORD:
		for (size_t i = 0; f->words[i]; i++) {
			if (!strcmp(f->words[i], s)) {
				free(*AT(rec, f->off, char *));
				*AT(rec, f->off, char *) = kreg_strdup(s);
				return 0;
			}
		}
		goto bad_choice;
	case T_ENUM:
		for (size_t i = 0; f->enums[i].name; i++) {
			if (!strcmp(f->enums[i].name, s)) {
				*AT(rec, f->off, int) = f->enums[i].value;
				return 0;
			}
		}
		goto bad_choice;
	case T_INT:
		if (kreg_parse_ll(&ll, s, f->key) < 0) {
			if (kreg_parse_double(&d, s, f->key) == 0)
				*why = kreg_asprintf("expected a whole number, got '%s'", s);
			goto bad;
		}
		if (f->min < f->max && (ll < f->min || ll > f->max))
			goto range;
		if (ll < INT_MIN || ll > INT_MAX)
			goto range;
		*AT(rec, f->off, int) = (int)ll;
		return 0;
	case T_U64:
		if (kreg_parse_ll(&ll, s, f->key) < 0 || ll < 0) {
			*why = kreg_asprintf("expected a whole number from 0 up, got '%s'", s);
			goto bad;
		}
		*AT(rec, f->off, uint64_t) = (uint64_t)ll;
		return 0;
	case T_DOUBLE:
	case T_RATIO:
	case T_DURATION:
		if ((f->type == T_DOUBLE ? kreg_parse_double(&d, s, f->key) :
		     f->type == T_RATIO ? parse_ratio(&d, s) :
		     kreg_parse_duration(&d, s, f->key)) < 0)
			goto bad;
		if (f->min < f->max && (d < f->min || d > f->max)) {
			ll = 0;
			goto range;
		}
		*AT(rec, f->off, double) = d;
		return 0;
	case T_SIZE:
		if (kreg_parse_size(&u, s, f->key) < 0)
			goto bad;
		*AT(rec, f->off, uint64_t) = u;
		return 0;
	case T_BOOL:
		if (parse_bool(&b, s) < 0)
			goto bad;
		*AT(rec, f->off, int) = b;
		return 0;
	default:
		goto bad;
	}
bad:
	if (!*why)
		*why = kreg_asprintf("expected %s, got '%s'", type_wants(f->type), s);
	return -1;
range:
	if (isinf(f->max))
		*why = kreg_asprintf("'%s' is too small (at least %g)", s, f->min);
	else
		*why = kreg_asprintf("'%s' is out of range (%g to %g)", s, f->min, f->max);
	return -1;
bad_choice: {
		kreg_buf b2 = KREG_BUF_INIT;
		const char *near;

		if (f->type == T_ENUM) {
			list_names(&b2, &f->enums[0].name, enum_count(f->enums), sizeof(enum_val));
			near = nearest(s, &f->enums[0].name, enum_count(f->enums), sizeof(enum_val));
		} else {
			list_names(&b2, f->words, words_count(f->words), sizeof(char *));
			near = nearest(s, f->words, words_count(f->words), sizeof(char *));
		}
		if (near)
			*why = kreg_asprintf("unknown value '%s', did you mean '%s'? (one of %s)",
					     s, near, b2.ptr);
		else
			*why = kreg_asprintf("unknown value '%s' (one of %s)", s, b2.ptr);
		kreg_buf_release(&b2);
		return -1;
	}
}

void schema_init_record(const loader *ld, const schema *s, void *rec)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];
		char *why;

		if (f->type == T_STRUCT)
			schema_init_record(ld, f->sub, AT(rec, f->off, char));
		else if (f->def && f->type != T_FORBIDDEN && convert(ld, f, rec, f->def, &why) < 0)
			kreg_die("config: bad built-in default for %s: %s", f->key, why);
	}
}

void schema_free_record(const schema *s, void *rec)
{
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];

		switch (f->type) {
		case T_STR: case T_PATH: case T_WORD:
			free(*AT(rec, f->off, char *));
			break;
		case T_STRLIST: case T_PATHLIST: {
			char **v = *AT(rec, f->off, char **);

			for (size_t j = 0; j < *AT(rec, f->cnt, size_t); j++)
				free(v[j]);
			free(v);
			break;
		}
		case T_STRUCT:
			schema_free_record(f->sub, AT(rec, f->off, char));
			break;
		case T_LIST: {
			char *v = *AT(rec, f->off, char *);

			for (size_t j = 0; j < *AT(rec, f->cnt, size_t); j++)
				schema_free_record(f->sub, v + j * f->sub->size);
			free(v);
			break;
		}
		default:
			break;
		}
	}
}

/* ---- the walk -------------------------------------------------------------- */

yaml_node_t *schema_node(loader *ld, int i)
{
	return yaml_document_get_node(ld->doc, i);
}

static int spend(loader *ld, const yaml_node_t *n)
{
	if (ld->budget == 0) {
		if (!ld->over_budget)
			schema_problem(ld, n, "the configuration is too large (aliases expand to more than %d values)",
				VALUE_BUDGET);
		ld->over_budget = 1;
		return -1;
	}
	ld->budget--;
	return 0;
}

static const char *describe(kreg_buf *b, const yaml_node_t *n)
{
	kreg_buf tmp = KREG_BUF_INIT;

	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	schema_shown(&tmp, (const char *)n->data.scalar.value);
	kreg_buf_clear(b);
	kreg_buf_printf(b, "'%s'", tmp.ptr);
	kreg_buf_release(&tmp);
	return b->ptr;
}

int schema_is_null(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
		!strcmp(s, "NULL"));
}

/* The scalar's string: 0, 1 when it is null, -1 (problem reported). */
static int scalar(loader *ld, const field *f, const yaml_node_t *v, const char *path, const char **out)
{
	const char *s;
	kreg_buf b = KREG_BUF_INIT;

	if (v->type != YAML_SCALAR_NODE) {
		schema_problem(ld, v, "%s%sexpected %s, got %s", path, sep(path),
			type_wants(f->type == T_PATHLIST ? T_PATH : f->type == T_STRLIST ? T_STR : f->type),
			describe(&b, v));
		kreg_buf_release(&b);
		return -1;
	}
	s = (const char *)v->data.scalar.value;
	if (strlen(s) != v->data.scalar.length) {
		schema_problem(ld, v, "%s%sa NUL character in a value", path, sep(path));
		return -1;
	}
	for (const char *p = s; *p; p++) {
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
			schema_problem(ld, v, "%s%scontrol characters (like a line break) are not allowed here",
				path, sep(path));
			return -1;
		}
	}
	*out = s;
	return schema_is_null(v) ? 1 : 0;
}

static void add_named(named **arr, size_t *n, size_t *alloc, int kind, const char *name,
		      const char *path, const yaml_node_t *at)
{
	KREG_ARRAY_GROW(*arr, *n + 1, *alloc);
	(*arr)[*n].kind = kind;
	(*arr)[*n].path = kreg_strdup(path);
	(*arr)[*n].name = kreg_strdup(name);
	(*arr)[*n].line = (int)at->start_mark.line + 1;
	(*arr)[*n].col = (int)at->start_mark.column + 1;
	(*arr)[*n].order = *n;
	(*n)++;
}

static int valid_ident(const char *s)
{
	if (!*s || *s == '.' || *s == '-')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

void schema_parse_record(loader *ld, const schema *s, void *rec, const yaml_node_t *map,
			 const char *path);

static void string_item(loader *ld, const field *f, void *rec, const yaml_node_t *v, const char *path)
{
	const char *s;
	char ***arr = AT(rec, f->off, char **);
	size_t *cnt = AT(rec, f->cnt, size_t);
	int r = scalar(ld, f, v, path, &s);

	if (r < 0)
		return;
	if (r > 0) {
		schema_problem(ld, v, "%s%san empty item", path, sep(path));
		return;
	}
	*arr = kreg_reallocarray(*arr, *cnt + 1, sizeof(char *));
	(*arr)[(*cnt)++] = f->type == T_PATHLIST ? schema_resolve_path(ld, s) : kreg_strdup(s);
	if (f->flags & F_REF)
		add_named(&ld->refs, &ld->nrefs, &ld->arefs, f->kind, s, path, v);
}

static void set_field(loader *ld, const field *f, void *rec, const yaml_node_t *v, const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	const char *s;
	char *why;
	int r;

	if (spend(ld, v) < 0)
		return;
	switch (f->type) {
	case T_FORBIDDEN:
		schema_problem(ld, v, "%s: %s", path, f->def);
		return;
	case T_STRUCT:
		schema_parse_record(ld, f->sub, AT(rec, f->off, char), v, path);
		return;
	case T_LIST: {
		char **arr = AT(rec, f->off, char *);
		size_t *cnt = AT(rec, f->cnt, size_t);

		if (v->type == YAML_SCALAR_NODE && schema_is_null(v))
			return;
		if (v->type != YAML_SEQUENCE_NODE) {
			schema_problem(ld, v, "%s: expected a list (of '- key: value' items), got %s",
				path, describe(&b, v));
			break;
		}
		for (yaml_node_item_t *it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top && !ld->over_budget; it++) {
			yaml_node_t *item = schema_node(ld, *it);
			char *ipath = kreg_asprintf("%s[%zu]", path, (size_t)(it - v->data.sequence.items.start));
			char *elem;

			if (item->type != YAML_MAPPING_NODE) {
				schema_problem(ld, item, "%s: expected a mapping (key: value lines), got %s",
					ipath, describe(&b, item));
				free(ipath);
				continue;
			}
			*arr = kreg_reallocarray(*arr, *cnt + 1, f->sub->size);
			elem = *arr + *cnt * f->sub->size;
			memset(elem, 0, f->sub->size);
			schema_init_record(ld, f->sub, elem);
			(*cnt)++;
			schema_parse_record(ld, f->sub, elem, item, ipath);
			free(ipath);
		}
		break;
	}
	case T_STRLIST:
	case T_PATHLIST:
		if (v->type == YAML_SEQUENCE_NODE) {
			for (yaml_node_item_t *it = v->data.sequence.items.start;
			     it < v->data.sequence.items.top && !ld->over_budget; it++) {
				char *ipath = kreg_asprintf("%s[%zu]", path,
							    (size_t)(it - v->data.sequence.items.start));

				if (spend(ld, schema_node(ld, *it)) == 0)
					string_item(ld, f, rec, schema_node(ld, *it), ipath);
				free(ipath);
			}
		} else if (!(v->type == YAML_SCALAR_NODE && schema_is_null(v))) {
			string_item(ld, f, rec, v, path);
		}
		break;
	default:
		r = scalar(ld, f, v, path, &s);
		if (r < 0)
			break;
		if (r > 0) {
			if (f->flags & F_REQUIRED)
				schema_problem(ld, v, "%s: has no value", path);
			break;
		}
		if (convert(ld, f, rec, s, &why) < 0) {
			schema_problem(ld, v, "%s: %s", path, why);
			free(why);
			break;
		}
		if ((f->flags & F_IDENT) && !valid_ident(s))
			schema_problem(ld, v, "%s: '%s' is not a valid name (letters, digits, '.', '_', '-')",
				path, schema_shown(&b, s));
		if (f->flags & F_NAME)
			add_named(&ld->names, &ld->nnames, &ld->anames, f->kind, s, path, v);
		if (f->flags & F_REF)
			add_named(&ld->refs, &ld->nrefs, &ld->arefs, f->kind, s, path, v);
		break;
	}
	kreg_buf_release(&b);
}

static const field *find_field(const schema *s, const char *key)
{
	for (size_t i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].key, key))
			return &s->fields[i];
	return NULL;
}

const yaml_node_t *schema_map_get(loader *ld, const yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = schema_node(ld, p->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return schema_node(ld, p->value);
	}
	return NULL;
}

/* The section one level down that has this key: "min_runs" at the top
 * level belongs under "detect". */
static const char *home_of(const schema *s, const char *key)
{
	for (size_t i = 0; i < s->nfields; i++)
		if ((s->fields[i].type == T_STRUCT || s->fields[i].type == T_LIST) &&
		    find_field(s->fields[i].sub, key))
			return s->fields[i].key;
	return NULL;
}

/* "qemu" or "qemu or ssh": the selector values in mask. */
static void mask_names(kreg_buf *b, const field *sel, unsigned mask)
{
	int n = 0;

	for (size_t i = 0; sel->enums[i].name; i++) {
		unsigned bit = 1u << sel->enums[i].value;

		if (!(mask & bit))
			continue;
		mask &= ~bit;
		kreg_buf_printf(b, "%s%s", n++ ? (mask ? ", " : " or ") : "", sel->enums[i].name);
	}
}

void schema_parse_record(loader *ld, const schema *s, void *rec, const yaml_node_t *map,
			 const char *path)
{
	kreg_buf b = KREG_BUF_INIT;
	const field *sel = NULL;
	unsigned selected = 0;
	uint64_t seen = 0;

	if (map->type != YAML_MAPPING_NODE) {
		if (map->type == YAML_SCALAR_NODE && schema_is_null(map) && s != ld->root)
			goto required;
		schema_problem(ld, map, "%s%sexpected a mapping (key: value lines), got %s",
			path, sep(path), describe(&b, map));
		kreg_buf_release(&b);
		return;
	}
	/* The selector first: it says which other keys belong here. */
	for (size_t i = 0; i < s->nfields; i++)
		if (s->fields[i].flags & F_SELECT)
			sel = &s->fields[i];
	if (sel) {
		const yaml_node_t *v = schema_map_get(ld, map, sel->key);
		const char *str;
		char *why;

		if (v && v->type == YAML_SCALAR_NODE) {
			str = (const char *)v->data.scalar.value;
			if (convert(ld, sel, rec, str, &why) == 0)
				selected = 1u << *AT(rec, sel->off, int);
			free(why);
		}
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = schema_node(ld, p->key), *v = schema_node(ld, p->value);
		const char *key;
		const field *f;
		char *kpath;
		int dup = 0;

		if (k->type != YAML_SCALAR_NODE) {
			schema_problem(ld, k, "%s%sa key must be a plain string, not %s", path, sep(path),
				describe(&b, k));
			continue;
		}
		key = (const char *)k->data.scalar.value;
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = schema_node(ld, q->key);

			if (k2->type == YAML_SCALAR_NODE && !strcmp((char *)k2->data.scalar.value, key)) {
				schema_problem(ld, k, "%s%sduplicate key '%s' (first at line %zu)", path, sep(path),
					schema_shown(&b, key), k2->start_mark.line + 1);
				dup = 1;
				break;
			}
		}
		if (dup)
			continue;
		f = find_field(s, key);
		if (!f) {
			const char *near = nearest(key, &s->fields[0].key, s->nfields, sizeof(field));
			const char *home;
			kreg_buf b2 = KREG_BUF_INIT;

			schema_shown(&b2, key);
			if (near)
				schema_problem(ld, k, "%s%sunknown key '%s', did you mean '%s'?", path, sep(path),
					b2.ptr, near);
			else if ((home = home_of(s, key)))
				schema_problem(ld, k, "%s%sunknown key '%s' (it belongs under '%s')", path,
					sep(path), b2.ptr, home);
			else
				schema_problem(ld, k, "%s%sunknown key '%s'", path, sep(path), b2.ptr);
			kreg_buf_release(&b2);
			continue;
		}
		seen |= 1ull << (f - s->fields);
		kpath = kreg_asprintf("%s%s%s", path, *path ? "." : "", key);
		if (f->only && selected && !(f->only & selected)) {
			kreg_buf_clear(&b);
			mask_names(&b, sel, f->only);
			kreg_buf_printf(&b, " %s, not ", sel->key);
			mask_names(&b, sel, selected);
			schema_problem(ld, k, "%s: only for the %s", kpath, b.ptr);
		} else if (f != sel || v->type != YAML_SCALAR_NODE || !selected) {
			set_field(ld, f, rec, v, kpath);
		}
		free(kpath);
	}
required:
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];

		if ((f->flags & F_REQUIRED) && !(seen & (1ull << i)))
			schema_problem(ld, map, "%s%smissing required key '%s'", path, sep(path), f->key);
	}
	if (s->check)
		s->check(ld, rec, map, path);
	kreg_buf_release(&b);
}

/* ---- printing ------------------------------------------------------------------ */

void schema_yaml_quote(kreg_buf *b, const char *s)
{
	kreg_buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			kreg_buf_putc(b, '\\');
		if ((unsigned char)*s < 0x20)
			kreg_buf_printf(b, "\\x%02x", (unsigned char)*s);
		else
			kreg_buf_putc(b, *s);
	}
	kreg_buf_putc(b, '"');
}


static void dump_str(kreg_buf *b, const char *s)
{
	int plain = *s && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/", *s) &&
		    strcmp(s, "true") && strcmp(s, "false") && strcmp(s, "yes") && strcmp(s, "no") &&
		    strcmp(s, "on") && strcmp(s, "off") && strcmp(s, "null");

	for (const char *p = s; plain && *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-", *p))
			plain = 0;
	if (plain)
		kreg_buf_puts(b, s);
	else
		schema_yaml_quote(b, s);
}

static void dump_size(kreg_buf *b, uint64_t v)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (v && v % 1024 == 0 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u >= 0)
		kreg_buf_printf(b, "%llu%c", (unsigned long long)v, units[u]);
	else
		kreg_buf_printf(b, "%llu", (unsigned long long)v);
}

void schema_dump_record(kreg_buf *b, const schema *s, const void *rec, int indent, int dash);

/* One key, or nothing when it has no value. dash: the "- " of a list item
 * goes before the first key printed. */
static int dump_field(kreg_buf *b, const field *f, const void *rec, int indent, int *dash)
{
	const void *at = (const char *)rec + f->off;
	int pad = indent;

	switch (f->type) {
	case T_STR: case T_PATH: case T_WORD:
		if (!*(char *const *)at)
			return 0;
		break;
	case T_STRLIST: case T_PATHLIST: case T_LIST:
		if (!*(const size_t *)((const char *)rec + f->cnt))
			return 0;
		break;
	case T_FORBIDDEN:
		return 0;
	default:
		break;
	}
	if (*dash) {
		kreg_buf_printf(b, "%*s- ", indent - 2, "");
		*dash = 0;
		pad = 0;
	}
	kreg_buf_printf(b, "%*s%s:", pad, "", f->key);
	switch (f->type) {
	case T_STR: case T_PATH: case T_WORD:
		kreg_buf_putc(b, ' ');
		dump_str(b, *(char *const *)at);
		break;
	case T_INT:
		kreg_buf_printf(b, " %d", *(const int *)at);
		break;
	case T_BOOL:
		kreg_buf_puts(b, *(const int *)at ? " true" : " false");
		break;
	case T_ENUM:
		for (size_t i = 0; f->enums[i].name; i++) {
			if (f->enums[i].value == *(const int *)at) {
				kreg_buf_printf(b, " %s", f->enums[i].name);
				break;
			}
		}
		break;
	case T_U64:
		kreg_buf_printf(b, " %llu", (unsigned long long)*(const uint64_t *)at);
		break;
	case T_SIZE:
		kreg_buf_putc(b, ' ');
		dump_size(b, *(const uint64_t *)at);
		break;
	case T_DOUBLE: case T_RATIO:
		kreg_buf_printf(b, " %.15g", *(const double *)at);
		break;
	case T_DURATION:
		kreg_buf_printf(b, " %.15gs", *(const double *)at);
		break;
	case T_STRLIST: case T_PATHLIST: {
		char *const *v = *(char *const *const *)at;
		size_t n = *(const size_t *)((const char *)rec + f->cnt);

		kreg_buf_puts(b, " [");
		for (size_t i = 0; i < n; i++) {
			if (i)
				kreg_buf_puts(b, ", ");
			dump_str(b, v[i]);
		}
		kreg_buf_putc(b, ']');
		break;
	}
	case T_STRUCT:
		kreg_buf_putc(b, '\n');
		schema_dump_record(b, f->sub, at, indent + 2, 0);
		return 1;
	case T_LIST: {
		const char *v = *(const char *const *)at;
		size_t n = *(const size_t *)((const char *)rec + f->cnt);

		kreg_buf_putc(b, '\n');
		for (size_t i = 0; i < n; i++)
			schema_dump_record(b, f->sub, v + i * f->sub->size, indent + 4, 1);
		return 1;
	}
	default:
		break;
	}
	kreg_buf_putc(b, '\n');
	return 1;
}

void schema_dump_record(kreg_buf *b, const schema *s, const void *rec, int indent, int dash)
{
	unsigned selected = 0;

	for (size_t i = 0; i < s->nfields; i++)
		if (s->fields[i].flags & F_SELECT)
			selected = 1u << *(const int *)((const char *)rec + s->fields[i].off);
	for (size_t i = 0; i < s->nfields; i++) {
		const field *f = &s->fields[i];

		if (f->only && !(f->only & selected))
			continue;
		dump_field(b, f, rec, indent, &dash);
	}
}
