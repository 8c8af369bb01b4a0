#include "lib/spawn.h"
#include "lib/buf.h"
#include "lib/err.h"
#include "lib/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double kreg_now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_sec(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The process groups of the children running now, so that kreg's own end
 * by SIGINT, SIGTERM or SIGHUP ends them too: each child leads a group of
 * its own (make and its compilers, qemu), which a terminal's Ctrl-C does
 * not reach and which would go on under init. */
#define MAX_GROUPS 64
static volatile sig_atomic_t groups[MAX_GROUPS];

static void group_add(pid_t pg)
{
	for (int i = 0; i < MAX_GROUPS; i++)
		if (!groups[i]) {
			groups[i] = pg;
			return;
		}
}

static void group_del(pid_t pg)
{
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] == pg)
			groups[i] = 0;
}

void kreg_spawn_kill_children(void)
{
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	int any = 0;

	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] > 0) {
			kill(-(pid_t)groups[i], SIGTERM);
			kill(-(pid_t)groups[i], SIGCONT);
			any = 1;
		}
	if (!any)
		return;
	/* a moment to clean up (make removes half-written targets), then
	 * whatever is left */
	nanosleep(&pause, NULL);
	for (int i = 0; i < MAX_GROUPS; i++)
		if (groups[i] > 0)
			kill(-(pid_t)groups[i], SIGKILL);
}

static void on_fatal_signal(int sig)
{
	int saved = errno;

	kreg_spawn_kill_children();
	/* then end as the signal would have ended kreg */
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

/* Once: for each of SIGINT, SIGTERM, SIGHUP left at its default (a caller
 * with a handler of its own, the daemon, calls kreg_spawn_kill_children
 * itself), end the children's groups before kreg ends. */
static void install_handlers(void)
{
	static int done;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	if (done)
		return;
	done = 1;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(sigs[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESTART;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* In the child: only async-signal-safe calls until exec. */
static _Noreturn void child_exec(const kreg_spawn_opts *o, char **envp, int in_fd,
				 int out_fd, int err_pipe, pid_t parent)
{
	int e;

	setpgid(0, 0);
	/* The child dies with kreg, however kreg ends (kill -9 too): a fio
	 * or make of a killed worker does not go on beside the next run.
	 * kreg may have died before this was set: then it is gone already. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/* The parent may block signals; the child starts clean. */
	{
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
	}
	if (dup2(in_fd, 0) < 0)
		goto fail;
	if (out_fd >= 0 && (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0))
		goto fail;
	if (o->cwd && chdir(o->cwd) < 0)
		goto fail;
	if (o->cpus && sched_setaffinity(0, sizeof(*o->cpus), o->cpus) < 0)
		goto fail;
	/* (a nicer child needs no privilege: a failure leaves kreg's) */
	if (o->nice > 0 && nice(o->nice) == -1)
		errno = 0;
	execvpe(o->argv[0], (char *const *)o->argv, envp);
fail:
	e = errno;
	if (write(err_pipe, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

extern char **environ;

/* The environment for the child, built before fork: environ with o->env
 * entries replacing those of the same name. */
static char **make_env(const kreg_spawn_opts *o)
{
	size_t n = 0, m = 0, k = 0;
	char **envp;

	while (environ[n])
		n++;
	if (o->env)
		while (o->env[m])
			m++;
	envp = kreg_calloc(n + m + 1, sizeof(*envp));
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t klen = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
		int replaced = 0;

		for (size_t j = 0; j < m; j++)
			if (!strncmp(o->env[j], environ[i], klen))
				replaced = 1;
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		envp[k++] = (char *)o->env[j];
	envp[k] = NULL;
	return envp;
}

int kreg_spawn(kreg_spawn_result *out, const kreg_spawn_opts *o)
{
	char **envp = NULL;
	int in_fd = -1, out_fd = -1, pipefd[2] = { -1, -1 };
	int error = KREG_ERROR, status, child_errno = 0;
	double start, deadline = 0, term_sent = 0;
	double grace = o->kill_grace > 0 ? o->kill_grace : 2.0;
	double nap = 0.001;
	pid_t pid = -1, parent;
	ssize_t n;

	memset(out, 0, sizeof(*out));
	if (!o->argv || !o->argv[0]) {
		kreg_error_set("run: empty argv");
		return KREG_EINVAL;
	}
	in_fd = open(o->stdin_path ? o->stdin_path : "/dev/null", O_RDONLY | O_CLOEXEC);
	if (in_fd < 0) {
		kreg_error_errno("%s: cannot open for reading",
				 o->stdin_path ? o->stdin_path : "/dev/null");
		goto done;
	}
	if (o->out_path)
		out_fd = open(o->out_path, O_WRONLY | O_CREAT | O_CLOEXEC |
			      (o->append ? O_APPEND : O_TRUNC), 0644);
	else if (!o->inherit_output)
		out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out_fd < 0 && (o->out_path || !o->inherit_output)) {
		kreg_error_errno("%s: cannot open for writing",
				 o->out_path ? o->out_path : "/dev/null");
		goto done;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		kreg_error_errno("run: pipe");
		goto done;
	}
	envp = make_env(o);
	install_handlers();
	fflush(NULL);
	start = kreg_now_mono();
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		kreg_error_errno("run: fork");
		goto done;
	}
	if (pid == 0)
		child_exec(o, envp, in_fd, out_fd, pipefd[1], parent);
	/* Both sides set the group, so a kill right after fork finds it. */
	setpgid(pid, pid);
	group_add(pid);
	close(pipefd[1]);
	pipefd[1] = -1;
	do {
		n = read(pipefd[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(pid, &status, 0);
		errno = child_errno;
		kreg_error_errno("%s: cannot run", o->argv[0]);
		error = child_errno == ENOENT ? KREG_ENOTFOUND : KREG_ERROR;
		goto done;
	}
	if (o->timeout > 0)
		deadline = start + o->timeout;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		double now;

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			kreg_error_errno("run: waitpid");
			goto done;
		}
		now = kreg_now_mono();
		if (deadline && now >= deadline && !term_sent) {
			out->timed_out = 1;
			kill(-pid, SIGTERM);
			term_sent = now;
		} else if (term_sent && now >= term_sent + grace) {
			kill(-pid, SIGKILL);
			term_sent = now + 3600;	/* once */
		}
		sleep_sec(nap);
		if (nap < 0.05)
			nap *= 2;
	}
	out->seconds = kreg_now_mono() - start;
	if (out->timed_out)
		kill(-pid, SIGKILL);	/* whatever is left of the group */
	group_del(pid);
	if (WIFEXITED(status)) {
		out->exited = 1;
		out->status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		out->signo = WTERMSIG(status);
	}
	error = 0;
done:
	if (pid > 0)
		group_del(pid);
	free(envp);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (out_fd >= 0)
		close(out_fd);
	if (in_fd >= 0)
		close(in_fd);
	return error;
}

int kreg_spawn_capture(kreg_spawn_result *out, char **output, const kreg_spawn_opts *opts)
{
	char path[] = "/tmp/kreg-run-XXXXXX";
	kreg_spawn_opts o = *opts;
	kreg_buf b = KREG_BUF_INIT;
	int fd, error;

	*output = NULL;
	fd = mkstemp(path);
	if (fd < 0) {
		kreg_error_errno("run: cannot create a temporary file");
		return KREG_ERROR;
	}
	close(fd);
	o.out_path = path;
	o.append = 0;
	error = kreg_spawn(out, &o);
	if (error == 0 && (error = kreg_buf_read_file(&b, path)) == 0)
		*output = kreg_buf_detach(&b);
	kreg_buf_release(&b);
	unlink(path);
	return error;
}

const char *kreg_spawn_describe(const kreg_spawn_result *r, char *buf, unsigned size)
{
	if (r->timed_out)
		snprintf(buf, size, "timed out after %.0f s", r->seconds);
	else if (r->exited)
		snprintf(buf, size, "exit %d", r->status);
	else
		snprintf(buf, size, "killed by signal %d (%s)", r->signo,
			 strsignal(r->signo));
	return buf;
}
