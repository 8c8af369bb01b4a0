/* A worker's document: libyaml's events composed into a document the way
 * yaml_parser_load composes them, except that the items of one top-level
 * list (kreg.yaml's hosts) whose name is not wanted are skipped, their
 * events read and dropped without a node built: with 100,000 hosts a
 * worker that needs one reads the text once and builds one host's nodes.
 * What a skipped item anchors is composed all the same (a later alias may
 * name it). Before that, a fast read of the text (below) blanks out the
 * items not wanted when the list has the plain shape it can tell, so
 * libyaml does not even scan them. config/schema_internal.h:
 * schema_load_some, schema_some_input_set. */
#include "config/schema_internal.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <yaml.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
	yaml_parser_t *p;
	yaml_document_t *doc;
	const char *list_key;
	int (*want)(const char *name, void *arg);
	void *arg;
	kreg_buf *names;
	long list_line;		/* schema_some_input's hosts line (0-based), or -1 */
	int list_seen;
	struct anchor { char *name; int id; } *anchors;
	size_t nanchors, aanchors;
} composer;

const char schema_guess_wrong[] = "the items read past were not the list's";

static int next(composer *c, yaml_event_t *e)
{
	return yaml_parser_parse(c->p, e);
}

static int fail(composer *c, const char *problem, yaml_mark_t at)
{
	c->p->error = YAML_COMPOSER_ERROR;
	c->p->problem = problem;
	c->p->problem_mark = at;
	c->p->context = NULL;
	return 0;
}

static yaml_node_t *node(composer *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static int born(composer *c, int id, const yaml_event_t *e, const yaml_char_t *anchor)
{
	if (!id)
		kreg_die("out of memory composing the configuration");
	node(c, id)->start_mark = e->start_mark;
	node(c, id)->end_mark = e->end_mark;
	if (anchor) {
		KREG_ARRAY_GROW(c->anchors, c->nanchors + 1, c->aanchors);
		c->anchors[c->nanchors].name = kreg_strdup((const char *)anchor);
		c->anchors[c->nanchors++].id = id;
	}
	return id;
}

static const yaml_char_t *tag_of(const yaml_char_t *tag)
{
	return tag && strcmp((const char *)tag, "!") ? tag : NULL;
}

static int compose(composer *c, yaml_event_t *e);

/* The rest of a sequence or a mapping whose start was e: its items, each
 * composed and added to node id. */
static int compose_items(composer *c, int id, int mapping)
{
	yaml_event_t k, v;

	for (;;) {
		int kid, vid;

		if (!next(c, &k))
			return 0;
		if (k.type == YAML_SEQUENCE_END_EVENT || k.type == YAML_MAPPING_END_EVENT) {
			node(c, id)->end_mark = k.end_mark;
			yaml_event_delete(&k);
			return id;
		}
		kid = compose(c, &k);
		if (!kid)
			return 0;
		if (!mapping) {
			if (!yaml_document_append_sequence_item(c->doc, id, kid))
				kreg_die("out of memory composing the configuration");
			continue;
		}
		if (!next(c, &v) || !(vid = compose(c, &v)))
			return 0;
		if (!yaml_document_append_mapping_pair(c->doc, id, kid, vid))
			kreg_die("out of memory composing the configuration");
	}
}

/* Read the node that starts with e and drop it, composing only what in it
 * carries an anchor. 1, or 0 on a parser error. */
static int skip(composer *c, yaml_event_t *e)
{
	int depth = 0;

	for (;;) {
		yaml_event_type_t t = e->type;
		const yaml_char_t *anchor = t == YAML_SCALAR_EVENT ? e->data.scalar.anchor :
					    t == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.anchor :
					    t == YAML_MAPPING_START_EVENT ? e->data.mapping_start.anchor : NULL;

		if (anchor) {
			if (!compose(c, e))	/* deletes e */
				return 0;
		} else {
			if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT)
				depth++;
			else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT)
				depth--;
			yaml_event_delete(e);
		}
		if (depth == 0)
			return 1;
		if (!next(c, e))
			return 0;
	}
}

/* Free the nodes from count on (an item skipped once its name was read). */
static void truncate_nodes(composer *c, size_t count)
{
	while ((size_t)(c->doc->nodes.top - c->doc->nodes.start) > count) {
		yaml_node_t *n = --c->doc->nodes.top;

		free(n->tag);
		if (n->type == YAML_SCALAR_NODE)
			free(n->data.scalar.value);
		else if (n->type == YAML_SEQUENCE_NODE)
			free(n->data.sequence.items.start);
		else if (n->type == YAML_MAPPING_NODE)
			free(n->data.mapping.pairs.start);
	}
}

/* An item of the list: a mapping whose start was e (no anchor). Its keys
 * are composed until its name is read: wanted, the item is composed
 * whole; else the rest is skipped and what was composed of it dropped.
 * The item's node, -1 when skipped, 0 on a parser error. */
static int compose_item(composer *c, yaml_event_t *e)
{
	size_t count = (size_t)(c->doc->nodes.top - c->doc->nodes.start), anchors = c->nanchors;
	int id = born(c, yaml_document_add_mapping(c->doc, tag_of(e->data.mapping_start.tag),
						      e->data.mapping_start.style), e, NULL);
	int wanted = 1, has_name = 0;
	yaml_event_t k, v;

	yaml_event_delete(e);
	for (;;) {
		int kid, vid, is_name;

		if (!next(c, &k))
			return 0;
		if (k.type == YAML_MAPPING_END_EVENT) {
			node(c, id)->end_mark = k.end_mark;
			yaml_event_delete(&k);
			break;
		}
		if (!wanted) {
			if (!skip(c, &k) || !next(c, &v) || !skip(c, &v))
				return 0;
			continue;
		}
		is_name = !has_name && k.type == YAML_SCALAR_EVENT &&
			  !strcmp((const char *)k.data.scalar.value, "name");
		if (!(kid = compose(c, &k)) || !next(c, &v))
			return 0;
		if (is_name && v.type == YAML_SCALAR_EVENT) {
			const char *name = (const char *)v.data.scalar.value;

			has_name = 1;
			kreg_buf_put(c->names, name, strlen(name) + 1);
			wanted = c->want(name, c->arg);
		}
		if (!wanted) {
			if (!skip(c, &v))
				return 0;
			continue;
		}
		if (!(vid = compose(c, &v)))
			return 0;
		if (!yaml_document_append_mapping_pair(c->doc, id, kid, vid))
			kreg_die("out of memory composing the configuration");
	}
	if (wanted)
		return id;
	/* what it anchored stays, unattached, for the aliases that follow */
	if (c->nanchors == anchors)
		truncate_nodes(c, count);
	return -1;
}

/* An item composed whole (an anchored one, an alias): kept when wanted,
 * else left unattached (an alias may name it); -1 then. */
static int composed_item(composer *c, int id)
{
	yaml_node_t *n = node(c, id);

	if (n->type != YAML_MAPPING_NODE)
		return id;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
		const char *name;

		if (k->type != YAML_SCALAR_NODE || strcmp((const char *)k->data.scalar.value, "name"))
			continue;
		if (v->type != YAML_SCALAR_NODE)
			return id;
		name = (const char *)v->data.scalar.value;
		kreg_buf_put(c->names, name, strlen(name) + 1);
		return c->want(name, c->arg) ? id : -1;
	}
	return id;
}

/* The list of items to filter, its start e (no anchor). */
static int compose_list(composer *c, yaml_event_t *e)
{
	int id = born(c, yaml_document_add_sequence(c->doc, tag_of(e->data.sequence_start.tag),
						       e->data.sequence_start.style), e, NULL);
	yaml_event_t it;

	yaml_event_delete(e);
	for (;;) {
		int item;

		if (!next(c, &it))
			return 0;
		if (it.type == YAML_SEQUENCE_END_EVENT) {
			node(c, id)->end_mark = it.end_mark;
			yaml_event_delete(&it);
			return id;
		}
		if (it.type == YAML_MAPPING_START_EVENT && !it.data.mapping_start.anchor)
			item = compose_item(c, &it);
		else if ((item = compose(c, &it)) > 0)
			item = composed_item(c, item);
		if (!item)
			return 0;
		if (item > 0 && !yaml_document_append_sequence_item(c->doc, id, item))
			kreg_die("out of memory composing the configuration");
	}
}

/* The top-level mapping: as compose, the list under list_key filtered. */
static int compose_root(composer *c, yaml_event_t *e)
{
	int id = born(c, yaml_document_add_mapping(c->doc, tag_of(e->data.mapping_start.tag),
						      e->data.mapping_start.style), e,
		      e->data.mapping_start.anchor);
	yaml_event_t k, v;

	yaml_event_delete(e);
	for (;;) {
		int kid, vid, is_list;

		if (!next(c, &k))
			return 0;
		if (k.type == YAML_MAPPING_END_EVENT) {
			node(c, id)->end_mark = k.end_mark;
			yaml_event_delete(&k);
			if (c->list_line >= 0 && !c->list_seen)
				return fail(c, schema_guess_wrong, k.start_mark);
			return id;
		}
		is_list = k.type == YAML_SCALAR_EVENT &&
			  !strcmp((const char *)k.data.scalar.value, c->list_key);
		if (is_list && c->list_line >= 0 && !c->list_seen) {
			/* the fast read's guess: this key, at the start of that line */
			if ((long)k.start_mark.line != c->list_line || k.start_mark.column) {
				yaml_event_delete(&k);
				return fail(c, schema_guess_wrong, k.start_mark);
			}
			c->list_seen = 1;
		}
		if (!(kid = compose(c, &k)) || !next(c, &v))
			return 0;
		if (is_list && v.type == YAML_SEQUENCE_START_EVENT && !v.data.sequence_start.anchor)
			vid = compose_list(c, &v);
		else
			vid = compose(c, &v);
		if (!vid)
			return 0;
		if (!yaml_document_append_mapping_pair(c->doc, id, kid, vid))
			kreg_die("out of memory composing the configuration");
	}
}

/* Any node, its first event e (deleted): its id, 0 on an error. */
static int compose(composer *c, yaml_event_t *e)
{
	int id = 0;

	switch (e->type) {
	case YAML_ALIAS_EVENT:
		for (size_t i = c->nanchors; i-- > 0;)
			if (!strcmp(c->anchors[i].name, (const char *)e->data.alias.anchor)) {
				id = c->anchors[i].id;
				break;
			}
		if (!id)
			fail(c, "found undefined alias", e->start_mark);
		break;
	case YAML_SCALAR_EVENT:
		id = born(c, yaml_document_add_scalar(c->doc, tag_of(e->data.scalar.tag),
						      e->data.scalar.value, (int)e->data.scalar.length,
						      e->data.scalar.style), e, e->data.scalar.anchor);
		break;
	case YAML_SEQUENCE_START_EVENT:
		id = born(c, yaml_document_add_sequence(c->doc, tag_of(e->data.sequence_start.tag),
							e->data.sequence_start.style), e,
			  e->data.sequence_start.anchor);
		yaml_event_delete(e);
		return compose_items(c, id, 0);
	case YAML_MAPPING_START_EVENT:
		id = born(c, yaml_document_add_mapping(c->doc, tag_of(e->data.mapping_start.tag),
						       e->data.mapping_start.style), e,
			  e->data.mapping_start.anchor);
		yaml_event_delete(e);
		return compose_items(c, id, 1);
	default:
		fail(c, "did not find expected node content", e->start_mark);
		break;
	}
	yaml_event_delete(e);
	return id;
}

int schema_load_some(yaml_parser_t *p, yaml_document_t *doc, const char *list_key,
		     int (*want)(const char *name, void *arg), void *arg, kreg_buf *names,
		     const schema_some_input *in)
{
	composer c = { .p = p, .doc = doc, .list_key = list_key, .want = want, .arg = arg,
		       .names = names, .list_line = in && in->text ? in->list_line : -1 };
	yaml_event_t e;
	int ok = 0, root;

	memset(doc, 0, sizeof(*doc));
	if (!p->stream_start_produced) {
		if (!next(&c, &e))
			return 0;
		yaml_event_delete(&e);	/* STREAM-START */
	}
	if (p->stream_end_produced)
		return 1;
	if (!next(&c, &e))
		return 0;
	if (e.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&e);
		return 1;
	}
	if (!yaml_document_initialize(doc, NULL, NULL, NULL, e.data.document_start.implicit, 1))
		kreg_die("out of memory composing the configuration");
	doc->start_mark = e.start_mark;
	yaml_event_delete(&e);
	if (!next(&c, &e))
		goto done;
	if (c.list_line >= 0 && e.type != YAML_MAPPING_START_EVENT) {
		fail(&c, schema_guess_wrong, e.start_mark);
		yaml_event_delete(&e);
		goto done;
	}
	root = e.type == YAML_MAPPING_START_EVENT ? compose_root(&c, &e) : compose(&c, &e);
	if (!root || !next(&c, &e))	/* DOCUMENT-END */
		goto done;
	doc->end_mark = e.end_mark;
	yaml_event_delete(&e);
	ok = 1;
done:
	for (size_t i = 0; i < c.nanchors; i++)
		free(c.anchors[i].name);
	free(c.anchors);
	if (!ok) {
		yaml_document_delete(doc);
		memset(doc, 0, sizeof(*doc));
	}
	return ok;
}

/* ---- the fast read ---------------------------------------------------------- */

/* The common shape of the list, read without libyaml: the key at the
 * start of a line, alone on it, then one item a line or a few (block
 * style), each opening with its name ("- name: X" or "- {name: X, ...}"),
 * and none of what could make the text mean something else (quotes,
 * escapes, anchors, aliases, tags, block scalars, comments after a
 * value, control characters, anything not ASCII). An item not wanted is then blanked in a copy of the text
 * (spaces, its line breaks kept: every position stays), and blank lines
 * are all libyaml scans of it. The composer checks the guess (the key
 * where it was seen); anything else is read the slow way. */

static int ident(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '.' || ch == '_' || ch == '-';
}

static size_t line_end(const char *s, size_t n, size_t i)
{
	const char *nl = memchr(s + i, '\n', n - i);

	return nl ? (size_t)(nl - s) + 1 : n;
}

/* The name an item opens with (at s[i], after "- "), or 0. */
static size_t item_name(const char *s, size_t n, size_t i, size_t *at)
{
	size_t k, flow = 0;

	if (i < n && s[i] == '{') {
		flow = 1;
		for (i++; i < n && s[i] == ' '; i++)
			;
	}
	if (n - i < 6 || memcmp(s + i, "name: ", 6))
		return 0;
	for (i += 6; i < n && s[i] == ' '; i++)
		;
	for (k = i; k < n && ident(s[k]); k++)
		;
	if (k == i || s[i] == '-' || s[i] == '.')
		return 0;
	*at = i;
	i = k;
	while (i < n && s[i] == ' ')
		i++;
	if (flow ? i < n && (s[i] == ',' || s[i] == '}') : i == n || s[i] == '\n')
		return k - *at;
	return 0;
}

/* Blank s[a, b) in the copy (made on the first item blanked), its line
 * breaks kept. */
static void blank(schema_some_input *in, const char *s, size_t n, size_t a, size_t b)
{
	if (!in->text) {
		in->text = kreg_malloc(n + 1);
		memcpy(in->text, s, n);
		in->text[n] = '\0';
	}
	for (size_t i = a; i < b; i++)
		if (in->text[i] != '\n')
			in->text[i] = ' ';
}

static void fast_read(schema_some_input *in, const char *s, size_t n, const char *key,
		      int (*want)(const char *name, void *arg), void *arg, kreg_buf *names)
{
	size_t klen = strlen(key), i, sec = 0, end = n, indent = (size_t)-1, item = 0;
	long line = 0;
	int found = 0, open = 0, unwanted = 0;
	char name[256];

	for (i = 0; i < n; i = line_end(s, n, i), line++) {
		if (n - i > klen && !memcmp(s + i, key, klen) && s[i + klen] == ':') {
			size_t j = i + klen + 1;

			while (j < n && s[j] == ' ')
				j++;
			if (j < n && s[j] != '\n')
				return;
			found = 1;
			sec = line_end(s, n, i);
			break;
		}
	}
	if (!found)
		return;
	in->list_line = line;
	for (i = sec; i < n; i = line_end(s, n, i)) {
		size_t e = line_end(s, n, i), ind = 0, at;

		if (s[i] != ' ' && s[i] != '\n' && s[i] != '#' && s[i] != '-') {
			end = i;
			break;
		}
		/* nor a line break of libyaml's own (NEL, LS, PS: not ASCII) */
		for (size_t j = i; j < e; j++)
			if ((unsigned char)s[j] >= 0x80 || ((unsigned char)s[j] < 0x20 && s[j] != '\n') ||
			    strchr("&*!\"'\\|>%@`?", s[j]))
				goto slow;
		while (i + ind < e && s[i + ind] == ' ')
			ind++;
		if (i + ind == e || s[i + ind] == '\n' || s[i + ind] == '#')
			continue;	/* a blank line, a comment line */
		if (memchr(s + i, '#', e - i) || (ind == 0 && e - i >= 3 && (!memcmp(s + i, "---", 3) ||
							      !memcmp(s + i, "...", 3))))
			goto slow;
		if (indent == (size_t)-1)
			indent = ind;
		if (ind < indent ||
		    (ind == indent && (s[i + ind] != '-' || i + ind + 1 >= e || s[i + ind + 1] != ' ')))
			goto slow;
		if (ind > indent)
			continue;
		/* an item starts: the one before ends here */
		if (open && unwanted)
			blank(in, s, n, item, i);
		open = 1;
		item = i;
		unwanted = 0;
		{
			size_t len = item_name(s, e, i + ind + 2, &at);

			if (len && len < sizeof(name)) {
				memcpy(name, s + at, len);
				name[len] = '\0';
				if (!want(name, arg)) {
					unwanted = 1;
					kreg_buf_put(names, name, len + 1);
				}
			}
		}
	}
	if (open && unwanted)
		blank(in, s, n, item, end);
	return;
slow:
	free(in->text);
	in->text = NULL;
	kreg_buf_truncate(names, 0);
}

const char *schema_some_input_set(schema_some_input *in, const char *yaml, size_t len,
				  const char *list_key, int (*want)(const char *name, void *arg),
				  void *arg, kreg_buf *names)
{
	memset(in, 0, sizeof(*in));
	in->list_line = -1;
	fast_read(in, yaml, len, list_key, want, arg, names);
	return in->text ? in->text : yaml;
}

void schema_some_input_free(schema_some_input *in)
{
	free(in->text);
	memset(in, 0, sizeof(*in));
	in->list_line = -1;
}
