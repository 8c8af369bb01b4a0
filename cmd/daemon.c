/* kreg daemon: watch the trees and do the whole job (daemon/daemon.h). */
#include "cmd/cmd.h"

#include "daemon/daemon.h"
#include "lib/err.h"
#include "lib/log.h"
#include "lib/shared.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: kreg daemon [--foreground] [--once]\n"
	"\n"
	"   --foreground   log to stderr instead of syslog\n"
	"   --once         poll every repo, run the queue until nothing is runnable, exit\n"
	"\n"
	"Watches the configured repos, builds and runs each new head, detects,\n"
	"confirms and bisects regressions. One daemon per database. SIGTERM or\n"
	"SIGINT stop it (running workers get a grace period, the rest is put\n"
	"back); SIGHUP reloads the configuration (a broken one is refused).\n";

int cmd_daemon(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "once", no_argument, NULL, '1' },
		{ NULL, 0, NULL, 0 },
	};
	kreg_daemon_opts o = { 0 };
	kreg_config *cfg = NULL;
	char self[PATH_MAX];
	int c, error;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o.foreground = 1; break;
		case '1': o.once = 1; break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (optind != argc)
		return kreg_cmd_usage(usage, "daemon: unexpected '%s'", argv[optind]);
	if (kreg_self_exe(self, sizeof(self)) < 0) {
		kreg_cmd_error("%s", kreg_error_last());
		return KREG_EXIT_FAIL;
	}
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (!o.foreground && !o.once)
		kreg_log_init("kreg", kreg_log_get_level() > KREG_LOG_INFO ? kreg_log_get_level() :
			      KREG_LOG_INFO, 1);
	else if (kreg_log_get_level() < KREG_LOG_INFO)
		kreg_log_set_level(KREG_LOG_INFO);
	o.self = self;
	o.config_path = strcmp(cfg->path, "<built-in>") ? cfg->path : NULL;
	o.verbose = kreg_opts.verbose;
	error = kreg_daemon_run(cfg, &o);
	if (error < 0) {
		kreg_cmd_error(NULL);
		log_error("%s", kreg_error_last());
		return KREG_EXIT_FAIL;
	}
	return KREG_EXIT_OK;
}
