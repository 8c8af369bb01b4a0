#include "lib/yaml_depth.h"

#include "lib/mem.h"

#include <yaml.h>

int kreg_yaml_too_deep(const char *text, size_t len, int max_depth, int *line, int *col)
{
	yaml_parser_t parser;
	int depth = 0, deep = 0;

	if (!yaml_parser_initialize(&parser))
		kreg_die("out of memory (yaml parser)");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		yaml_event_t ev;
		yaml_event_type_t type;

		if (!yaml_parser_parse(&parser, &ev))
			break;	/* a syntax error: the loader says where */
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
			if (++depth > max_depth) {
				*line = (int)ev.start_mark.line + 1;
				*col = (int)ev.start_mark.column + 1;
				deep = 1;
			}
		} else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (deep || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return deep;
}
