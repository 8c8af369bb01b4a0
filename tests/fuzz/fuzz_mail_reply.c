/* libFuzzer: a reply as kreg reads it from the mailbox (mail/reply.h) on
 * arbitrary bytes: never a crash or a leak; what it keeps is checked
 * (Message-IDs valid, an address without controls, printable lines). */
#include "mail/reply.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kreg_mail_reply r;

	kreg_mail_reply_parse(&r, (const char *)data, size, "kreg@lab.example.org");
	if (r.message_id && !kreg_mail_msgid_ok(r.message_id))
		__builtin_trap();
	for (size_t i = 0; i < r.nrefs; i++)
		if (!kreg_mail_msgid_ok(r.refs[i]))
			__builtin_trap();
	if (r.from && strpbrk(r.from, "\r\n <>"))
		__builtin_trap();
	for (size_t i = 0; i < r.ncmds; i++)
		if (strpbrk(r.cmds[i].line, "\r\n"))
			__builtin_trap();
	kreg_mail_reply_release(&r);
	return 0;
}
