/* Reading the mailbox of mail.imap with libcurl's IMAP: its UIDVALIDITY,
 * the UIDs above the last one read, a message's size (RFC822.SIZE, asked
 * before the message), the message. One connection for a poll; every
 * failure (no connection, a refused login, a connection dropped
 * mid-fetch, mail.timeout) is an error with curl's words, and the poll
 * stops there: what was not read is read by the next one. */
#ifndef KREG_MAIL_IMAP_H
#define KREG_MAIL_IMAP_H

#include "config/config.h"
#include "lib/buf.h"

#include <stddef.h>
#include <stdint.h>

typedef struct kreg_imap kreg_imap;

/* A session on cfg->imap (its password read from password_file). */
int kreg_imap_open(kreg_imap **out, const kreg_mail_cfg *cfg);
void kreg_imap_close(kreg_imap *s);

/* The mailbox's UIDVALIDITY (STATUS). */
int kreg_imap_uidvalidity(kreg_imap *s, int64_t *uidvalidity);
/* The UIDs above `above`, ascending (UID SEARCH UID above+1:*). */
int kreg_imap_search(kreg_imap *s, int64_t **uids, size_t *n, int64_t above);
/* The size of message uid in bytes; *size -1 when there is no such
 * message any more (expunged). */
int kreg_imap_size(kreg_imap *s, int64_t *size, int64_t uid);
/* Message uid as it is, at most max bytes (more is an error). */
int kreg_imap_fetch(kreg_imap *s, kreg_buf *out, int64_t uid, uint64_t max);
/* Its header only (to answer a message refused by its size). */
int kreg_imap_fetch_headers(kreg_imap *s, kreg_buf *out, int64_t uid, uint64_t max);

#endif
