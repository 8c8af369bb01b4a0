/* Private to config/: the schema walker (schema.c) that reads a YAML
 * document into C structs as tables of fields describe them, frees and
 * prints them; kreg's own tables and the checks across keys are config.c. */
#ifndef KREG_SCHEMA_INTERNAL_H
#define KREG_SCHEMA_INTERNAL_H

#include "config/config.h"
#include "lib/buf.h"

#include <stddef.h>
#include <yaml.h>

/* Aliases can make a small file expand to a huge tree ("billion laughs");
 * past this many values the walk stops. */
#define VALUE_BUDGET 200000
#define MAX_DEPTH 32	/* nesting of values: kreg.yaml needs 5 */

typedef enum {
	T_STR,		/* char * */
	T_PATH,		/* char *, relative to the config file's directory */
	T_WORD,		/* char *, one of f->words */
	T_INT,		/* int */
	T_U64,		/* uint64_t */
	T_DOUBLE,	/* double */
	T_RATIO,	/* double: 0.05 or 5% */
	T_SIZE,		/* uint64_t bytes: 512M */
	T_DURATION,	/* double seconds: 30m */
	T_BOOL,		/* int 0/1 */
	T_ENUM,		/* int, one of f->enums */
	T_STRLIST,	/* char ** + size_t count; a single string is a list of one */
	T_PATHLIST,	/* the same, each resolved like T_PATH */
	T_STRUCT,	/* an embedded struct, f->sub */
	T_LIST,		/* an array of f->sub structs + size_t count */
	T_FORBIDDEN,	/* a key that must not be there; f->def says why */
} ftype;

enum {
	F_REQUIRED = 1 << 0,
	F_SELECT = 1 << 1,	/* this enum selects which other keys apply */
	F_NAME = 1 << 2,	/* a name that must be unique among its kind */
	F_REF = 1 << 3,		/* a reference to a name of kind f->kind */
	F_IDENT = 1 << 4,	/* letters, digits, '.', '_', '-' (used in paths) */
};

typedef struct {
	const char *name;
	int value;
} enum_val;

typedef struct schema schema;
typedef struct loader loader;

typedef struct {
	const char *key;
	ftype type;
	size_t off;		/* of the value in the struct */
	size_t cnt;		/* of the count, for lists */
	const char *def;	/* default, parsed like a value from the file */
	unsigned flags;
	unsigned only;		/* selector values (bits) the key applies to; 0 all */
	int kind;		/* for F_NAME / F_REF: a kind of name (config.c's K_*) */
	const enum_val *enums;	/* T_ENUM */
	const char *const *words; /* T_WORD */
	double min, max;	/* range of numbers when min < max */
	const schema *sub;	/* T_STRUCT, T_LIST */
} field;

struct schema {
	const char *what;	/* "host", for messages */
	size_t size;
	const field *fields;
	size_t nfields;
	/* Checks across keys of one record, after its keys are read. */
	void (*check)(loader *ld, void *rec, const yaml_node_t *map, const char *path);
};

typedef struct {
	int kind;
	char *name;
	char *path;		/* where, for messages: hosts[1].name */
	int line, col;
	size_t order;
} named;

struct loader {
	yaml_document_t *doc;
	const char *file;	/* as given, for messages */
	char *dir;		/* absolute directory of the file */
	kreg_config_problems *problems;
	kreg_config *cfg;	/* config.c's: what its checks fill in */
	const schema *root;	/* the document's: may be empty */
	named *names;
	size_t nnames, anames;
	named *refs;
	size_t nrefs, arefs;
	/* job files to look up in job_path once everything is read */
	struct pending_file { size_t job; int line, col; } *jobfiles;
	size_t njobfiles, ajobfiles;
	size_t budget;
	int over_budget;
	int some_hosts;		/* a worker's load: hosts not wanted were skipped */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SCHEMA(name, type, fields, check) \
	static const schema name = { #type, sizeof(type), fields, ARRAY_SIZE(fields), check }
/* The schema of kreg.yaml's mail (config/mail.c). */
extern const schema kreg_config_mail_schema;

#define AT(rec, off, type) ((type *)((char *)(rec) + (off)))

/* Problems, at a node or a position of the file being read. */
void schema_problem_at(loader *ld, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void schema_problem(loader *ld, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A value quoted in a message: printable, and not too long (in b). */
const char *schema_shown(kreg_buf *b, const char *s);
/* s relative to the file's directory, "." and ".." folded away. */
char *schema_resolve_path(const loader *ld, const char *s);

/* The walk: a record's defaults, its keys read from map (problems
 * collected in ld), freeing it; the node of an index, whether it is null,
 * a key's value in a mapping. */
void schema_init_record(const loader *ld, const schema *s, void *rec);
void schema_parse_record(loader *ld, const schema *s, void *rec, const yaml_node_t *map,
			 const char *path);
void schema_free_record(const schema *s, void *rec);
yaml_node_t *schema_node(loader *ld, int i);
int schema_is_null(const yaml_node_t *n);
const yaml_node_t *schema_map_get(loader *ld, const yaml_node_t *map, const char *key);

/* The next document of p like yaml_parser_load (1, or 0 with p's error
 * set), except that the items of the top-level list under list_key whose
 * name want() refuses are read and dropped without a node built (what
 * they anchor excepted); every item's name goes to names, each ending in
 * NUL (compose.c). */
typedef struct {
	char *text;		/* the copy with items blanked, or NULL */
	long list_line;		/* the line of the list's key (0-based), -1: none */
} schema_some_input;
/* The text to hand schema_load_some: yaml with the items of the list a
 * fast read finds not wanted blanked out (their names put in names; in
 * owns it), or yaml itself. schema_load_some then fails with problem
 * schema_guess_wrong if the read was wrong: read yaml itself then. */
const char *schema_some_input_set(schema_some_input *in, const char *yaml, size_t len,
				  const char *list_key, int (*want)(const char *name, void *arg),
				  void *arg, kreg_buf *names);
void schema_some_input_free(schema_some_input *in);
extern const char schema_guess_wrong[];
int schema_load_some(yaml_parser_t *p, yaml_document_t *doc, const char *list_key,
		     int (*want)(const char *name, void *arg), void *arg, kreg_buf *names,
		     const schema_some_input *in);

/* s quoted for YAML, escaped. */
void schema_yaml_quote(kreg_buf *b, const char *s);
/* A record as YAML, defaults filled in (`kreg config show`). */
void schema_dump_record(kreg_buf *b, const schema *s, const void *rec, int indent, int dash);

#endif
