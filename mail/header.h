/* Mail headers that untrusted text cannot break: every value is made
 * printable first (control characters, CR and LF become '?'), non-ASCII
 * text is RFC 2047 encoded (UTF-8, base64 encoded-words of at most 75
 * characters), lines are folded before 78 characters, and an address that
 * is not a plain local@domain is refused. Lines end in CRLF. */
#ifndef KREG_MAIL_HEADER_H
#define KREG_MAIL_HEADER_H

#include "lib/buf.h"

#include <stddef.h>

/* An unstructured header ("Subject: text"). */
void kreg_mail_header_text(kreg_buf *out, const char *name, const char *text);

/* 1 when address is local@domain of the characters RFC 5322 allows
 * unquoted (dot-atom), at most 254 bytes. */
int kreg_mail_address_ok(const char *address);

/* One mailbox as header text: the display name quoted or encoded, then
 * <address>. KREG_EINVAL (message set) when the address is not ok. */
int kreg_mail_mailbox(kreg_buf *out, const char *name, const char *address);

/* An address header ("To: a <x>, b <y>"), folded between mailboxes and
 * inside encoded names. mailboxes are kreg_mail_mailbox's output. */
void kreg_mail_header_addresses(kreg_buf *out, const char *name, char *const *mailboxes, size_t n);

/* A header whose value kreg made itself (Message-ID, Date): checked to be
 * printable ASCII; folded at spaces. */
void kreg_mail_header_raw(kreg_buf *out, const char *name, const char *value);

#endif
