/* The processes of the daemon's workers, found again after a worker died.
 * A worker marks itself (KREG_WORK in its environment, set after it
 * started, so that the worker's own /proc/PID/environ does not show it but
 * every program it starts, and what they start, inherits it):
 *
 *   KREG_WORK=<item id> <attempt> <daemon owner> <database>
 *
 * A process carrying the mark of an item whose worker is gone is a stray:
 * it would go on loading the machine beside the next run (a fio job
 * process whose fio was killed goes on under init). The daemon kills the
 * strays of a worker that died, and at start those of the daemons before
 * it (only marks of its own database: other daemons on the machine keep
 * theirs). */
#ifndef KREG_DAEMON_STRAYS_INTERNAL_H
#define KREG_DAEMON_STRAYS_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#define KREG_WORK_ENV "KREG_WORK"

typedef struct {
	pid_t pid;
	int64_t id;
	int attempt;
	const char *owner;	/* the daemon's owner string the item was claimed under */
} kreg_stray;

/* Mark this process (a worker of item id under owner, attempt) for what
 * it starts. */
void kreg_strays_mark(const char *database, int64_t id, int attempt, const char *owner);

/* Every process of the machine that carries a mark of database and that
 * match says is a stray (match NULL: every marked one): SIGKILL to it and
 * to its process group when kill_them. Returns how many were found (alive,
 * not zombies); *first (may be NULL) the pid of one of them. */
int kreg_strays_find(const char *database, int (*match)(const kreg_stray *s, void *arg),
		     void *arg, int kill_them, pid_t *first);

#endif
