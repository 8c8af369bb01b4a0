/* A run whose owner is dead: started in a child that exits at once. */
#include "helper_dead_run.h"

#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int64_t test_dead_run(const char *path, const kreg_db_run_key *key)
{
	int fds[2], status;
	int64_t id = 0;
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		kreg_db *db;
		int64_t run = -1;

		close(fds[0]);
		if (kreg_db_open(&db, path, 0) == 0 && kreg_db_run_start(db, &run, key) == 0)
			kreg_db_close(db);
		else
			fprintf(stderr, "dead run: %s\n", kreg_error_last());
		if (write(fds[1], &run, sizeof(run)) != sizeof(run))
			_exit(2);
		_exit(0);	/* no finish: the run stays 'running', its owner gone */
	}
	close(fds[1]);
	if (read(fds[0], &id, sizeof(id)) != sizeof(id))
		id = -1;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return id;
}
