/* libFuzzer: the YAML nesting check (lib/yaml_depth.h) against libyaml's
 * own loader. When the check passes, the loaded documents are nested no
 * deeper than the limit (aliases aside); when it refuses, the place it
 * names is inside the text. Then the job loader, which runs the check first, on the same text. */
#include "jobs/job.h"
#include "lib/yaml_depth.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <yaml.h>

#define LIMIT 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int depth_of(yaml_document_t *doc, yaml_node_t *n, int level)
{
	int deepest = level;

	/* a scalar is no level: the collection holding it is */
	if (!n || n->type == YAML_SCALAR_NODE)
		return level - 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     i < n->data.sequence.items.top; i++) {
			int d = depth_of(doc, yaml_document_get_node(doc, *i), level + 1);

			deepest = d > deepest ? d : deepest;
		}
	} else if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			int k = depth_of(doc, yaml_document_get_node(doc, p->key), level + 1);
			int v = depth_of(doc, yaml_document_get_node(doc, p->value), level + 1);

			deepest = k > deepest ? k : deepest;
			deepest = v > deepest ? v : deepest;
		}
	}
	return deepest;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	int line = 0, col = 0, lines = 1;
	kreg_job *job = NULL;

	if (size > 1 << 16)
		return 0;
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r';	/* libyaml counts CR too */
	if (kreg_yaml_too_deep(text, size, LIMIT, &line, &col)) {
		if (line < 1 || line > lines || col < 1)
			__builtin_trap();
	} else if (!memchr(data, '*', size)) {
		/* (an alias adds the depth of what it names when loaded, and the
		 * loaders count that themselves: texts with one are not compared) */
		yaml_parser_t parser;

		yaml_parser_initialize(&parser);
		yaml_parser_set_input_string(&parser, data, size);
		for (;;) {
			yaml_document_t doc;
			yaml_node_t *root;

			if (!yaml_parser_load(&parser, &doc))
				break;
			root = yaml_document_get_root_node(&doc);
			if (!root) {
				yaml_document_delete(&doc);
				break;
			}
			/* the root collection is level 1, as the check counts */
			if (root->type != YAML_SCALAR_NODE && depth_of(&doc, root, 1) > LIMIT)
				__builtin_trap();
			yaml_document_delete(&doc);
		}
		yaml_parser_delete(&parser);
	}
	if (kreg_job_load_string(&job, "fuzz.yaml", "/nonexistent-kreg-fuzz", text, size, NULL,
				 0) == 0)
		kreg_job_free(job);
	return 0;
}
