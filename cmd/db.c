/* kreg db: init, migrate, info, check. */
#include "cmd/cmd.h"

#include "db/results.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: kreg db init      create the database (and the data directory)\n"
	"       kreg db migrate   bring an older schema up to date\n"
	"       kreg db info      schema version, tables and their row counts\n"
	"       kreg db check     integrity, foreign keys, runs left running by dead processes\n";

static int print_table(const char *table, int64_t rows, void *arg)
{
	(void)arg;
	printf("  %-16s %lld\n", table, (long long)rows);
	return 0;
}

int cmd_db(int argc, char **argv)
{
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	const char *sub;
	int ret = KREG_EXIT_FAIL, from, to, version;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc != 2)
		return kreg_cmd_usage(usage, argc < 2 ? "db: which subcommand?" : "db: too many arguments");
	sub = argv[1];
	if (strcmp(sub, "init") && strcmp(sub, "migrate") && strcmp(sub, "info") && strcmp(sub, "check"))
		return kreg_cmd_usage(usage, "db: unknown subcommand '%s'", sub);
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;

	if (!strcmp(sub, "init")) {
		if (kreg_cmd_open_db(&db, cfg, KREG_DB_CREATE | KREG_DB_MIGRATE) < 0)
			goto done;
		printf("%s: schema version %d\n", kreg_db_path(db), KREG_DB_VERSION);
	} else if (!strcmp(sub, "migrate")) {
		/* Open without migrating, then migrate here to report the step. */
		if (kreg_db_open(&db, cfg->database, 0) < 0) {
			if (strstr(kreg_error_last(), "older than") == NULL)
				goto fail;
			if (kreg_db_open(&db, cfg->database, KREG_DB_MIGRATE) < 0)
				goto fail;
			printf("%s: migrated to schema version %d\n", cfg->database, KREG_DB_VERSION);
		} else {
			if (kreg_db_migrate(db, &from, &to) < 0)
				goto fail;
			printf("%s: schema version %d, up to date\n", cfg->database, to);
		}
	} else if (!strcmp(sub, "info")) {
		if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
			goto done;
		if (kreg_db_version(db, &version) < 0)
			goto fail;
		printf("database: %s\nschema version: %d\ntables:\n", kreg_db_path(db), version);
		if (kreg_db_tables(db, print_table, NULL) < 0)
			goto fail;
	} else {
		if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
			goto done;
		kreg_db_stuck_run *stuck = NULL;
		size_t nstuck = 0;

		if (kreg_db_check(db) < 0)
			goto fail;
		printf("%s: integrity ok, foreign keys ok\n", kreg_db_path(db));
		if (kreg_db_runs_stuck(db, &stuck, &nstuck) < 0)
			goto fail;
		for (size_t i = 0; i < nstuck; i++) {
			if (stuck[i].pid > 0)
				printf("run %lld: left running by pid %lld, which is gone\n",
				       (long long)stuck[i].id, stuck[i].pid);
			else
				printf("run %lld: left running by a process that is gone\n",
				       (long long)stuck[i].id);
		}
		free(stuck);
		if (nstuck) {
			kreg_cmd_error("%zu run%s left running by dead processes (the next run "
				       "started marks them infra_failed)", nstuck, nstuck == 1 ? "" : "s");
			goto done;
		}
	}
	ret = KREG_EXIT_OK;
	goto done;
fail:
	kreg_cmd_error(NULL);
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
