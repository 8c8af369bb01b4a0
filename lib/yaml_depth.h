/* A YAML text's nesting depth, checked before it is loaded.
 *
 * libyaml's scanner keeps a simple-key slot per flow level and walks them
 * all for every token, so loading N nested '[' costs N^2: a 200 KB job
 * file of '[' took 57 s, and the depth limits of the loaders were checked
 * only after that. This pass reads the events (the scanner stays within
 * max_depth levels, each token costs at most that) and stops at the first
 * collection nested deeper: the whole check is linear in the text. */
#ifndef KREG_YAML_DEPTH_H
#define KREG_YAML_DEPTH_H

#include <stddef.h>

/* 0 when no collection in text is nested more than max_depth deep, or when
 * the text is not valid YAML (the loader that follows reports that); else
 * 1, with the 1-based line and column of the first collection too deep. */
int kreg_yaml_too_deep(const char *text, size_t len, int max_depth, int *line, int *col);

#endif
