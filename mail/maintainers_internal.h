/* Private to mail/: MAINTAINERS as parsed (maintainers.c) and its
 * .mailmap and e-mail forms (mailmap.c). */
#ifndef KREG_MAIL_MAINTAINERS_INTERNAL_H
#define KREG_MAIL_MAINTAINERS_INTERNAL_H

#include "mail/maintainers.h"

#include <regex.h>
#include <stddef.h>

typedef struct {
	char type;		/* 'F', 'M', ...; 0 for a section title */
	char *value;		/* converted pattern for F/X, the text otherwise */
	size_t litlen;		/* F/X: length of the literal prefix of value */
	int compiled;		/* 0 not yet, 1 ok, -1 invalid */
	regex_t re;
	int pcompiled;		/* K: the same, for a patch's lines */
	regex_t pre;		/* K: "^[+-].*" and the pattern */
} tv_line;

typedef struct {
	char *key;		/* an address, or "Name <address>" as format_email */
	char *value;
} map_pair;

typedef struct {
	map_pair *items;
	size_t count, alloc;
} str_map;

struct kreg_maintainers {
	tv_line *lines;
	size_t count, alloc;
	char *origin;
	str_map mm_names, mm_addresses;	/* the tree's .mailmap, as get_maintainer.pl */
};

/* A string map as a Perl hash: the last value set for a key wins. */
void kreg_maint__map_set(str_map *m, const char *key, const char *value);
const char *kreg_maint__map_get(const str_map *m, const char *key);
void kreg_maint__map_free(str_map *m);
/* get_maintainer.pl's mailmap_email: (name, address) mapped in place. */
void kreg_maint__mailmap_email(const kreg_maintainers *m, char **name, char **address);

#endif
