/* Who owns a piece of work: a process on this machine, named so that it
 * can be told apart from a later one with the same pid (its boot and its
 * start time), and whether it still lives.
 *
 *   kreg_owner me;
 *   kreg_owner_self(&me);            // this process
 *   if (!kreg_owner_alive(&other))   // its runs may be reaped
 */
#ifndef KREG_OWNER_H
#define KREG_OWNER_H

typedef struct {
	char boot[40];		/* /proc/sys/kernel/random/boot_id */
	long long pid;
	long long start;	/* clock ticks after boot (/proc/PID/stat field 22) */
} kreg_owner;

/* This process. <0 when /proc cannot be read (the error says why). */
int kreg_owner_self(kreg_owner *o);
/* 1 when o's process is running: same boot, the pid is there and started
 * when o says; 0 when it is gone (or the machine rebooted since). An owner
 * with an empty boot id (a row from before owners were kept) is gone. */
int kreg_owner_alive(const kreg_owner *o);

#endif
