/* Running a child process from an argv array, never through a shell (git's
 * run-command). The child leads its own process group, so a timeout kills
 * everything it started, and dies with kreg (PR_SET_PDEATHSIG: SIGKILL
 * when the process that started it ends, kill -9 too). */
#ifndef KREG_SPAWN_H
#define KREG_SPAWN_H

#include <sched.h>

typedef struct {
	const char *const *argv;	/* argv[0] is looked up in PATH */
	const char *cwd;		/* NULL: the caller's */
	const char *const *env;		/* extra "KEY=VALUE" entries, NULL-terminated, or NULL */
	const char *stdin_path;		/* NULL: /dev/null */
	const char *out_path;		/* stdout and stderr go here (created/truncated); NULL: /dev/null */
	int append;			/* append to out_path instead of truncating */
	int inherit_output;		/* no out_path: keep the caller's stdout and stderr */
	double timeout;			/* seconds; 0: none */
	double kill_grace;		/* seconds between SIGTERM and SIGKILL; 0: 2 s */
	int nice;			/* the child runs this much nicer than kreg (nice(2)) */
	const cpu_set_t *cpus;		/* the CPUs the child may run on (sched_setaffinity);
					 * NULL: kreg's */
} kreg_spawn_opts;

typedef struct {
	int exited;		/* 1: exited normally, status is its code */
	int status;		/* exit code when exited */
	int signo;		/* the signal that ended it, when not exited */
	int timed_out;		/* killed by kreg for running past the timeout */
	double seconds;		/* wall time */
} kreg_spawn_result;

/* Run and wait. Returns 0 when the child ran (whatever its status: look at
 * out), <0 with the error set when it could not be started (no such program
 * gives KREG_ENOTFOUND). */
int kreg_spawn(kreg_spawn_result *out, const kreg_spawn_opts *opts);

/* Run, capturing stdout+stderr into *output (NUL-terminated, caller frees).
 * Same return as kreg_run. */
int kreg_spawn_capture(kreg_spawn_result *out, char **output, const kreg_spawn_opts *opts);

/* "exit 3", "killed by signal 9", "timed out after 10 s" */
/* End the process groups of the children kreg_run is waiting for now
 * (SIGTERM, a moment, SIGKILL). Async-signal-safe: kreg_run installs it for
 * SIGINT, SIGTERM and SIGHUP when they are at their default, so kreg's own
 * end ends its children (make, qemu) too; a program with handlers of its
 * own calls it from them. */
void kreg_spawn_kill_children(void);
const char *kreg_spawn_describe(const kreg_spawn_result *r, char *buf, unsigned size);

/* Monotonic seconds. */
double kreg_now_mono(void);

#endif
