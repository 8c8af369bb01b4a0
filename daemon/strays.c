/* Finding the processes of dead workers (see strays_internal.h). */
#include "daemon/strays_internal.h"

#include "lib/buf.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ENVIRON_MAX (256 * 1024)

void kreg_strays_mark(const char *database, int64_t id, int attempt, const char *owner)
{
	char *v = kreg_asprintf("%lld %d %s %s", (long long)id, attempt, owner, database);

	setenv(KREG_WORK_ENV, v, 1);
	free(v);
}

/* The mark in a process's environment (NUL-separated), or NULL. */
static const char *mark_of(const char *env, size_t len)
{
	static const char key[] = KREG_WORK_ENV "=";

	for (size_t off = 0; off < len;) {
		const char *e = env + off;
		size_t n = strnlen(e, len - off);

		if (n > sizeof(key) - 1 && !memcmp(e, key, sizeof(key) - 1) && off + n < len)
			return e + sizeof(key) - 1;
		off += n + 1;
	}
	return NULL;
}

/* The environment of pid (as it was at its exec); 0 when it cannot be read. */
static int read_environ(kreg_buf *b, pid_t pid)
{
	char path[64], chunk[4096];
	ssize_t n;
	int fd;

	kreg_buf_clear(b);
	snprintf(path, sizeof(path), "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (b->len < ENVIRON_MAX && (n = read(fd, chunk, sizeof(chunk))) > 0)
		kreg_buf_put(b, chunk, (size_t)n);
	close(fd);
	return b->len > 0;
}

/* A zombie is over: it loads nothing, its parent has to reap it. */
static int zombie(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

int kreg_strays_find(const char *database, int (*match)(const kreg_stray *s, void *arg),
		     void *arg, int kill_them, pid_t *first)
{
	kreg_buf env = KREG_BUF_INIT;
	struct dirent *de;
	DIR *dir;
	pid_t self = getpid();
	int found = 0;

	if (first)
		*first = 0;
	if (!(dir = opendir("/proc")))
		return 0;
	while ((de = readdir(dir))) {
		const char *m, *db;
		char *owner = NULL, *end;
		long long id, pid;
		long attempt;
		kreg_stray s;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtoll(de->d_name, &end, 10);
		if (*end || pid <= 0 || (pid_t)pid == self)
			continue;
		if (!read_environ(&env, (pid_t)pid))
			continue;
		kreg_buf_putc(&env, '\0');
		if (!(m = mark_of(env.ptr, env.len)))
			continue;
		/* <id> <attempt> <owner> <database> */
		id = strtoll(m, &end, 10);
		if (*end != ' ')
			continue;
		attempt = strtol(end + 1, &end, 10);
		if (*end != ' ')
			continue;
		if (!(db = strchr(end + 1, ' ')) || strcmp(db + 1, database))
			continue;
		owner = kreg_strndup(end + 1, (size_t)(db - end - 1));
		s = (kreg_stray){ .pid = (pid_t)pid, .id = id, .attempt = (int)attempt,
				  .owner = owner };
		if ((!match || match(&s, arg)) && !zombie(s.pid)) {
			if (kill_them) {
				kill(-s.pid, SIGKILL);	/* a group it leads (kreg_run's children do) */
				kill(s.pid, SIGKILL);
			}
			if (first && !found)
				*first = s.pid;
			found++;
		}
		free(owner);
	}
	closedir(dir);
	kreg_buf_release(&env);
	return found;
}
