/* kreg status: where the daemon stands (daemon/daemon.h). */
#include "cmd/cmd.h"

#include "daemon/daemon.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: kreg status [--noise] [--json]\n"
	"\n"
	"Repos and their heads, the work queue by kind and state and the time it\n"
	"will take (from this lab's stored build and run durations), each host and\n"
	"what it is doing, the regressions in flight, and for each job and host\n"
	"the smallest change its noisiest metric can show (kreg changes' figures).\n"
	"  --noise  that figure for every metric\n"
	"  --json   machine-readable (every metric's noise)\n";

int cmd_status(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	int json = 0, noise = 0, status = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--noise"))
			noise = 1;
		else
			return kreg_cmd_usage(usage, "status: unexpected '%s'", argv[i]);
	}
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
		goto done;
	if (kreg_daemon_status(cfg, db, stdout, json, noise) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	status = KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return status;
}
