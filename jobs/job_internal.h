/* Private to jobs/: the YAML value tree job files are read into. */
#ifndef KREG_JOBS_JOB_INTERNAL_H
#define KREG_JOBS_JOB_INTERNAL_H

#include "jobs/job.h"

#include "lib/buf.h"
#include "lib/strindex.h"

typedef enum { KJ_NULL, KJ_SCALAR, KJ_SEQ, KJ_MAP } kreg_jkind;

typedef struct {
	char *key;
	kreg_jnode *val;
	int line, col;		/* of the key */
} kreg_jpair;

struct kreg_jnode {
	kreg_jkind kind;
	char *str;		/* KJ_SCALAR: the text */
	int quoted;		/* KJ_SCALAR: written quoted (a string, whatever it looks like) */
	kreg_jnode **items;	/* KJ_SEQ */
	size_t count, alloc;
	kreg_jpair *pairs;	/* KJ_MAP, in file order */
	size_t npairs, apairs;
	kreg_strindex keys;	/* KJ_MAP: pairs by key (40,000 keys: linear time) */
	char *file;		/* where it was read: file, 1-based line and column */
	int line, col;
};

struct kreg_job {
	char *path;		/* as given */
	char *name;		/* base name without .yaml */
	kreg_jnode **docs;
	size_t ndocs, adocs;
};

kreg_jnode *kreg_jnode_new(kreg_jkind kind, const char *file, int line, int col);
kreg_jnode *kreg_jnode_scalar(const char *s);
kreg_jnode *kreg_jnode_dup(const kreg_jnode *n);
void kreg_jnode_free(kreg_jnode *n);
/* The value under key in a mapping, or NULL. */
kreg_jnode *kreg_jnode_get(const kreg_jnode *map, const char *key);
/* Set key: replace the value in place when present (the key keeps its
 * position, as a Ruby Hash does), append otherwise. Takes val. */
void kreg_jnode_set(kreg_jnode *map, const char *key, kreg_jnode *val, int line, int col);
void kreg_jnode_del(kreg_jnode *map, const char *key);
void kreg_jnode_push(kreg_jnode *seq, kreg_jnode *val);

/* What Ruby's YAML would make of a scalar: nil, false, or text ("true" for
 * the YAML 1.1 true words). */
typedef enum { KJ_VAL_NIL, KJ_VAL_FALSE, KJ_VAL_TEXT } kreg_jval;
kreg_jval kreg_jnode_value(const kreg_jnode *n, const char **text);

/* Block-style YAML of a mapping, keys in order. */
void kreg_jnode_emit(kreg_buf *out, const kreg_jnode *n);

#endif
