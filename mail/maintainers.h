/* A kernel tree's MAINTAINERS file, read and matched the way
 * `scripts/get_maintainer.pl --no-git --no-git-fallback` does it: F: globs
 * and directories, N: regular expressions, X: exclusions, K: keywords over
 * a file's text or a patch; the sections that
 * match a file sorted most specific first; M:, R: and L: entries collected in
 * that order, people before lists, duplicates (by name or address) dropped,
 * subscribers-only lists left out, the chief penguin left out. */
#ifndef KREG_MAIL_MAINTAINERS_H
#define KREG_MAIL_MAINTAINERS_H

#include <stddef.h>

typedef struct kreg_maintainers kreg_maintainers;

/* Whether path (relative to the tree's top) is a directory of the tree:
 * get_maintainer.pl adds a trailing slash to an F: or X: pattern that names
 * one. Return 1 for a directory, 0 otherwise. */
typedef int (*kreg_maint_is_dir_fn)(const char *path, void *arg);

/* Parse the text of a MAINTAINERS file (origin names it in errors). is_dir
 * may be NULL: no pattern is then taken for a directory. */
int kreg_maintainers_parse(kreg_maintainers **out, const char *text, size_t len,
			   const char *origin, kreg_maint_is_dir_fn is_dir, void *arg);
void kreg_maintainers_free(kreg_maintainers *m);

/* The tree's .mailmap, read as get_maintainer.pl reads it (its four forms
 * of line, '#' comments): the people a match names are mapped through it,
 * then repeats (by name or address, any case) take the first one's form,
 * as get_maintainer.pl's deduplicate_email. */
int kreg_maintainers_mailmap(kreg_maintainers *m, const char *text, size_t len);
size_t kreg_maintainers_nsections(const kreg_maintainers *m);

typedef enum {
	KREG_MAINT_MAINTAINER,	/* M: */
	KREG_MAINT_REVIEWER,	/* R: */
	KREG_MAINT_LIST,	/* L: */
} kreg_maint_kind;

typedef struct {
	kreg_maint_kind kind;
	char *name;		/* "" for a bare address and for lists */
	char *address;
	char *formatted;	/* as get_maintainer.pl prints it: Name <addr> */
	char *role;		/* "maintainer:BLOCK LAYER", "open list:BLOCK LAYER" */
} kreg_maint_entry;

typedef struct {
	kreg_maint_entry *items;	/* people first, then lists */
	size_t count, alloc;
	char **sections;		/* titles of the matching sections, in order */
	size_t nsections, asections;
} kreg_maint_result;

/* Who get_maintainer.pl names for these files (paths from the tree's top;
 * a directory ends in '/'), from their F:, N: and X: lines only (as its
 * --no-keywords). */
int kreg_maintainers_match(kreg_maintainers *m, kreg_maint_result *out,
			   const char *const *files, size_t nfiles);

/* Text K: keywords are matched against, as get_maintainer.pl does (its
 * default, --keywords): a file's contents (its -f FILE; not for a directory
 * nor MAINTAINERS itself), or a patch (`git format-patch` text: the lines
 * before the diff as they are, then only its +/- lines). The sections of the
 * K: patterns that match are added after those of the files, in
 * get_maintainer.pl's order. The text need not end in a NUL. */
typedef enum {
	KREG_MAINT_FILE_TEXT,
	KREG_MAINT_PATCH,
	KREG_MAINT_FILE_ADDRESSES,	/* a file a patch changes: only its addresses */
} kreg_maint_text_kind;

/* A file's text (FILE_TEXT, FILE_ADDRESSES) names its path: the e-mail
 * addresses in a .yaml file (a devicetree binding's maintainers:) are named
 * too, after MAINTAINERS' people, as get_maintainer.pl names them (the role
 * "in file" added to whoever they are; its --file-emails, which would read
 * every file's, is off by default). */
typedef struct {
	kreg_maint_text_kind kind;
	const char *text;
	size_t len;
	const char *path;	/* NULL: a patch */
} kreg_maint_text;

/* kreg_maintainers_match with K: keywords over texts (ntexts may be 0). */
int kreg_maintainers_match_texts(kreg_maintainers *m, kreg_maint_result *out,
				 const char *const *files, size_t nfiles,
				 const kreg_maint_text *texts, size_t ntexts);
void kreg_maint_result_release(kreg_maint_result *r);

/* get_maintainer.pl's parse_email + format_email: split "Name <addr>" and
 * quote a name that holds anything but letters, digits, '_', ' ' and '-'.
 * Returns 0, or KREG_ENOTFOUND when there is no address. */
int kreg_maint_parse_email(const char *text, char **name, char **address);
char *kreg_maint_format_email(const char *name, const char *address);

#endif
