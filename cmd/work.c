/* kreg work: the daemon's worker, one work item (daemon/daemon.h). */
#include "cmd/cmd.h"

#include "daemon/daemon.h"
#include "lib/err.h"
#include "lib/util.h"

#include <getopt.h>
#include <stdio.h>

static const char usage[] =
	"usage: kreg work ID --lease OWNER --attempt N [--config-text FILE [--host NAME]]\n"
	"       kreg work --poll REPO [--config-text FILE]\n"
	"\n"
	"Carries out work item ID, which the daemon claimed under OWNER as its\n"
	"attempt N, and stores its result (the daemon starts it; by hand it is\n"
	"refused unless the item is held so). --poll fetches the configured repo\n"
	"REPO and plans its new heads (the daemon's watch, in a process of its own).\n"
	"--config-text FILE: the configuration's text is read from FILE (the one the\n"
	"daemon has loaded), named and resolved as the -c file; of its hosts only\n"
	"the one --host names (the item's) is read, the others skipped.\n";

static const char *config_text;

static int load_config(kreg_config **cfg)
{
	return config_text ? kreg_cmd_load_config_text(cfg, config_text) :
			     kreg_cmd_load_config(cfg);
}

static int poll_repo(const char *name)
{
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	const kreg_repo_cfg *rc;
	int status = KREG_EXIT_FAIL;

	if (load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (!(rc = kreg_config_repo(cfg, name))) {
		kreg_cmd_error("no repo named '%s' in %s", name, cfg->path);
		goto done;
	}
	if (kreg_cmd_open_db(&db, cfg, 0) < 0)
		goto done;
	if (kreg_daemon_poll_repo(cfg, db, rc, NULL) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	status = KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return status;
}

int cmd_work(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lease", required_argument, NULL, 'l' },
		{ "attempt", required_argument, NULL, 'a' },
		{ "poll", required_argument, NULL, 'p' },
		{ "config-text", required_argument, NULL, 't' },
		{ "host", required_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *owner = NULL, *poll = NULL, *host = NULL;
	long long id = 0, attempt = -1;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	int c, status = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': owner = optarg; break;
		case 'p': poll = optarg; break;
		case 't': config_text = optarg; break;
		case 'h': host = optarg; break;
		case 'a':
			if (kreg_parse_ll(&attempt, optarg, "--attempt") < 0 || attempt < 0)
				return kreg_cmd_usage(usage, "--attempt: a whole number");
			break;
		default: return kreg_cmd_usage(usage, NULL);
		}
	}
	if (poll) {
		if (optind != argc || host)
			return kreg_cmd_usage(usage, "work: --poll takes no item nor host");
		return poll_repo(poll);
	}
	if (optind != argc - 1)
		return kreg_cmd_usage(usage, "work: which item?");
	if (kreg_parse_ll(&id, argv[optind], "work item") < 0 || id <= 0)
		return kreg_cmd_usage(usage, "work: '%s' is not a work item id", argv[optind]);
	if (!owner || attempt < 0)
		return kreg_cmd_usage(usage, "work: --lease and --attempt are needed");
	if (host && !config_text)
		return kreg_cmd_usage(usage, "work: --host goes with --config-text");
	/* the daemon's text, checked whole: only the item's host is built */
	if ((config_text ? kreg_cmd_load_config_hosts(&cfg, config_text, &host, host ? 1 : 0) :
			   kreg_cmd_load_config(&cfg)) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_cmd_open_db(&db, cfg, 0) < 0)
		goto done;
	if (kreg_daemon_work(cfg, db, id, owner, (int)attempt) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	status = KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return status;
}
