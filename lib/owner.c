/* Owners of work: pid + boot id + process start time. */
#include "lib/owner.h"

#include "lib/buf.h"
#include "lib/err.h"
#include "lib/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int read_boot_id(char *out, size_t size)
{
	kreg_buf b = KREG_BUF_INIT;
	size_t n;

	if (kreg_buf_read_file(&b, "/proc/sys/kernel/random/boot_id") < 0) {
		kreg_buf_release(&b);
		return KREG_ERROR;
	}
	n = b.len;
	while (n && (b.ptr[n - 1] == '\n' || b.ptr[n - 1] == ' '))
		n--;
	if (!n || n >= size) {
		kreg_buf_release(&b);
		kreg_error_set("/proc/sys/kernel/random/boot_id: not a boot id");
		return KREG_ERROR;
	}
	memcpy(out, b.ptr, n);
	out[n] = 0;
	kreg_buf_release(&b);
	return 0;
}

/* Field 22 of /proc/PID/stat, after the command in parentheses (which may
 * hold anything, so read from the last ')'). KREG_ENOTFOUND: no such pid,
 * or it has ended (a zombie). */
static int start_time(long long pid, long long *start)
{
	char path[64], *p;
	kreg_buf b = KREG_BUF_INIT;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
	if (kreg_buf_read_file(&b, path) < 0) {
		kreg_buf_release(&b);
		return KREG_ENOTFOUND;
	}
	p = strrchr(kreg_buf_cstr(&b), ')');
	if (!p) {
		kreg_buf_release(&b);
		kreg_error_set("%s: not a process's stat", path);
		return KREG_ERROR;
	}
	/* a zombie has ended: only its parent has not read its status yet */
	if (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X')) {
		kreg_buf_release(&b);
		return KREG_ENOTFOUND;
	}
	for (p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	{
		char *end;

		errno = 0;
		*start = strtoll(p, &end, 10);
		if (errno || end == p) {
			kreg_buf_release(&b);
			kreg_error_set("%s: no start time", path);
			return KREG_ERROR;
		}
	}
	kreg_buf_release(&b);
	return 0;
}

int kreg_owner_self(kreg_owner *o)
{
	memset(o, 0, sizeof(*o));
	o->pid = (long long)getpid();
	if (read_boot_id(o->boot, sizeof(o->boot)) < 0)
		return KREG_ERROR;
	if (start_time(o->pid, &o->start) < 0) {
		kreg_error_set("cannot read this process's start time from /proc");
		return KREG_ERROR;
	}
	return 0;
}

int kreg_owner_alive(const kreg_owner *o)
{
	char boot[40];
	long long start;

	if (!o->boot[0] || o->pid <= 0)
		return 0;
	if (read_boot_id(boot, sizeof(boot)) < 0 || strcmp(boot, o->boot))
		return 0;	/* another boot: every process of that one is gone */
	if (kill((pid_t)o->pid, 0) < 0 && errno == ESRCH)
		return 0;
	if (start_time(o->pid, &start) < 0)
		return 0;
	return start == o->start;	/* else the pid was reused */
}
