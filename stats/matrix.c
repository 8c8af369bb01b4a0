/* Sample matrices from JSON (jansson) or YAML (libyaml's document API). */
#include "stats/matrix.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"
#include "lib/yaml_depth.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

kreg_stats_matrix *kreg_stats_matrix_new(const char *label)
{
	kreg_stats_matrix *m = kreg_calloc(1, sizeof(*m));

	m->label = kreg_strdup(label ? label : "");
	return m;
}

static const char *metric_of(const void *series, size_t i)
{
	return ((const kreg_stats_series *)series)[i].metric;
}

static kreg_stats_series *series_append(kreg_stats_matrix *m, const char *metric)
{
	kreg_stats_series *s;

	KREG_ARRAY_GROW(m->series, m->count + 1, m->alloc);
	s = &m->series[m->count++];
	s->metric = kreg_strdup(metric);
	s->values = NULL;
	s->n = 0;
	kreg_strindex_update(&m->index, m->series, m->count, metric_of);
	return s;
}

static void series_push(kreg_stats_series *s, double v)
{
	s->values = kreg_reallocarray(s->values, s->n + 1, sizeof(*s->values));
	s->values[s->n++] = v;
}

const kreg_stats_series *kreg_stats_matrix_get(const kreg_stats_matrix *m, const char *metric)
{
	long long i;

	/* series_append keeps the index whole */
	if (m->index.indexed == m->count && m->count) {
		i = kreg_strindex_find(&m->index, m->series, metric, metric_of);
		return i >= 0 ? &m->series[i] : NULL;
	}
	for (size_t k = 0; k < m->count; k++)
		if (!strcmp(m->series[k].metric, metric))
			return &m->series[k];
	return NULL;
}

void kreg_stats_matrix_add(kreg_stats_matrix *m, const char *metric, double value)
{
	kreg_stats_series *s = (kreg_stats_series *)kreg_stats_matrix_get(m, metric);

	if (!s)
		s = series_append(m, metric);
	series_push(s, value);
}

void kreg_stats_matrix_free(kreg_stats_matrix *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->count; i++) {
		free(m->series[i].metric);
		free(m->series[i].values);
	}
	free(m->series);
	kreg_strindex_reset(&m->index);
	free(m->label);
	free(m);
}

/* JSON ---------------------------------------------------------------------- */

static int json_number(double *out, const json_t *v)
{
	if (!json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return isfinite(*out);
}

static int from_json(kreg_stats_matrix *m, const char *name, const char *text, size_t len,
		     const char *key)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, 0, &jerr), *obj;
	const char *metric;
	json_t *val;
	int error = KREG_EINVAL;

	if (!root) {
		kreg_error_set("%s:%d:%d: not valid JSON: %s", name, jerr.line, jerr.column, jerr.text);
		return KREG_EINVAL;
	}
	obj = key ? json_object_get(root, key) : root;
	if (!json_is_object(obj)) {
		kreg_error_set("%s: %s%s%s is not an object of metric: [values]", name,
			       key ? "'" : "the top level", key ? key : "", key ? "'" : "");
		goto done;
	}
	json_object_foreach(obj, metric, val) {
		double d = 0;

		if (json_is_array(val)) {
			size_t i, n = json_array_size(val), ok = 0;
			kreg_stats_series *s;

			for (i = 0; i < n; i++)
				ok += json_number(&d, json_array_get(val, i));
			if (!ok)
				continue;	/* stats_source, strings: not a metric */
			if (ok != n) {
				for (i = 0; json_number(&d, json_array_get(val, i)); i++)
					;
				kreg_error_set("%s: metric '%s': value %zu is not a finite number",
					       name, metric, i + 1);
				goto done;
			}
			s = series_append(m, metric);
			for (i = 0; i < n; i++) {
				json_number(&d, json_array_get(val, i));
				series_push(s, d);
			}
		} else if (json_number(&d, val)) {
			series_push(series_append(m, metric), d);
		}
	}
	error = 0;
done:
	json_decref(root);
	return error;
}

/* YAML ---------------------------------------------------------------------- */

static int yaml_number(double *out, yaml_node_t *n)
{
	const char *s;
	char *end;

	if (!n || n->type != YAML_SCALAR_NODE)
		return 0;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	s = (const char *)n->data.scalar.value;
	if (!*s)
		return 0;
	*out = strtod(s, &end);
	while (*end == ' ')
		end++;
	return *end == '\0' && isfinite(*out);
}

#define MATRIX_MAX_DEPTH 8

static int from_yaml(kreg_stats_matrix *m, const char *name, const char *text, size_t len,
		     const char *key)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *map;
	int error = KREG_EINVAL, have_doc = 0, line, col;

	/* metric: [values], under one key at most; checked before loading, as
	 * libyaml's time grows with the square of the depth */
	if (kreg_yaml_too_deep(text, len, MATRIX_MAX_DEPTH, &line, &col)) {
		kreg_error_set("%s:%d:%d: values nested more than %d deep: not a matrix of "
			       "metric: [values]", name, line, col, MATRIX_MAX_DEPTH);
		return KREG_EINVAL;
	}
	if (!yaml_parser_initialize(&parser))
		kreg_die("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		kreg_error_set("%s:%zu:%zu: not valid YAML: %s", name, parser.problem_mark.line + 1,
			       parser.problem_mark.column + 1,
			       parser.problem ? parser.problem : "parse error");
		goto done;
	}
	have_doc = 1;
	root = yaml_document_get_root_node(&doc);
	map = root;
	if (map && key) {
		map = NULL;
		if (root->type == YAML_MAPPING_NODE)
			for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
			     p < root->data.mapping.pairs.top; p++) {
				yaml_node_t *k = yaml_document_get_node(&doc, p->key);

				if (k && k->type == YAML_SCALAR_NODE &&
				    !strcmp((const char *)k->data.scalar.value, key))
					map = yaml_document_get_node(&doc, p->value);
			}
	}
	if (!map || map->type != YAML_MAPPING_NODE) {
		kreg_error_set("%s: %s%s%s is not a mapping of metric: [values]", name,
			       key ? "'" : "the top level", key ? key : "", key ? "'" : "");
		goto done;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&doc, p->value);
		const char *metric;
		double d = 0;

		if (!k || k->type != YAML_SCALAR_NODE || !v)
			continue;
		metric = (const char *)k->data.scalar.value;
		if (kreg_stats_matrix_get(m, metric)) {
			kreg_error_set("%s:%zu:%zu: metric '%s' appears twice", name,
				       k->start_mark.line + 1, k->start_mark.column + 1, metric);
			goto done;
		}
		if (v->type == YAML_SEQUENCE_NODE) {
			yaml_node_item_t *it;
			size_t n = 0, ok = 0;
			kreg_stats_series *s;

			for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, n++)
				ok += yaml_number(&d, yaml_document_get_node(&doc, *it));
			if (!ok)
				continue;	/* a list of names, not a metric */
			if (ok != n) {
				yaml_node_t *bad = NULL;

				for (it = v->data.sequence.items.start; !bad; it++)
					if (!yaml_number(&d, yaml_document_get_node(&doc, *it)))
						bad = yaml_document_get_node(&doc, *it);
				kreg_error_set("%s:%zu:%zu: metric '%s': '%s' is not a finite number", name,
					       bad->start_mark.line + 1, bad->start_mark.column + 1, metric,
					       bad->type == YAML_SCALAR_NODE ?
					       (const char *)bad->data.scalar.value : "(not a scalar)");
				goto done;
			}
			s = series_append(m, metric);
			for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
				yaml_number(&d, yaml_document_get_node(&doc, *it));
				series_push(s, d);
			}
		} else if (yaml_number(&d, v)) {
			series_push(series_append(m, metric), d);
		}
	}
	error = 0;
done:
	if (have_doc)
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return error;
}

int kreg_stats_matrix_parse(kreg_stats_matrix **out, const char *name, const char *text,
			    size_t len, const char *key)
{
	kreg_stats_matrix *m = kreg_stats_matrix_new(name);
	size_t i = 0;
	int error;

	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i < len && text[i] == '{')
		error = from_json(m, name, text, len, key);
	else
		error = from_yaml(m, name, text, len, key);
	if (!error && !m->count) {
		kreg_error_set("%s: no metric with numeric values", name);
		error = KREG_EINVAL;
	}
	if (error < 0) {
		kreg_stats_matrix_free(m);
		return error;
	}
	*out = m;
	return 0;
}

int kreg_stats_matrix_load(kreg_stats_matrix **out, const char *path, const char *key)
{
	kreg_buf b = KREG_BUF_INIT;
	int error;

	if ((error = kreg_buf_read_file_max(&b, path, KREG_MATRIX_MAX_FILE, "a sample matrix")) < 0)
		goto done;
	error = kreg_stats_matrix_parse(out, path, kreg_buf_cstr(&b), b.len, key);
done:
	kreg_buf_release(&b);
	return error;
}
