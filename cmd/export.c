/* kreg export kcidb: the lab's results as a KCIDB document (kcidb/),
 * read from the database only. */
#include "cmd/cmd.h"

#include "kcidb/kcidb.h"
#include "lib/err.h"
#include "lib/mem.h"
#include "lib/util.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: kreg export kcidb [--since TIME] [-o FILE]\n"
	"\n"
	"Write the lab's results as one KCIDB 5.3 document (KernelCI's common\n"
	"results database): checkouts (each tested commit), builds, tests (each\n"
	"run's metrics, DONE with their numbers; failed runs FAIL or ERROR),\n"
	"issues (each regression) and incidents. Every id starts with\n"
	"kcidb.origin (default: kreg) and is the same in every export.\n"
	"docs/kcidb.md says what goes where.\n"
	"\n"
	"  --since TIME  only what was stored at or after TIME: 2026-12-01,\n"
	"                2026-12-01T18:00Z, @SECONDS (since the epoch), or 2h, 7d\n"
	"                (that long ago)\n"
	"  -o FILE       write FILE (atomically) instead of standard output\n";

/* The document into path as kreg_write_file_atomic writes a file (a
 * temporary beside it, O_EXCL, written out, renamed), but as it is made:
 * a lab's document can be larger than is worth holding. */
static int export_file(const char *path, kreg_db *db, const kreg_config *cfg,
		       const kreg_kcidb_opts *opts, kreg_kcidb_stats *stats)
{
	char *tmp = kreg_asprintf("%s.tmp.%ld", path, (long)getpid());
	int fd, error = KREG_ERROR;
	FILE *f = NULL;

	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		kreg_error_errno("%s: cannot create", tmp);
		if (fd >= 0)
			close(fd);
		goto done;
	}
	if (kreg_kcidb_export(f, db, cfg, opts, stats) < 0)
		goto done;
	if (fsync(fileno(f)) < 0) {
		kreg_error_errno("%s: cannot write out", tmp);
		goto done;
	}
	if (fclose(f) != 0) {
		f = NULL;
		kreg_error_errno("%s: cannot write", tmp);
		goto done;
	}
	f = NULL;
	if (rename(tmp, path) < 0) {
		kreg_error_errno("%s: cannot rename to %s", tmp, path);
		goto done;
	}
	error = 0;
done:
	if (f)
		fclose(f);
	if (error < 0 && fd >= 0)
		unlink(tmp);
	free(tmp);
	return error;
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	kreg_kcidb_opts opts = { 0 };
	kreg_kcidb_stats stats;
	kreg_config *cfg = NULL;
	kreg_db *db = NULL;
	const char *output = NULL;
	int opt, ret = KREG_EXIT_FAIL;

	if (kreg_cmd_wants_help(argc, argv, usage))
		return KREG_EXIT_OK;
	if (argc < 2)
		return kreg_cmd_usage(usage, "export: say what to export (kcidb)");
	if (strcmp(argv[1], "kcidb"))
		return kreg_cmd_usage(usage, "export: unknown format '%s' (kcidb)", argv[1]);
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+o:", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (kreg_kcidb_parse_time(&opts.since, optarg, kreg_now()) < 0)
				return kreg_cmd_usage(usage, "export: %s", kreg_error_last());
			break;
		case 'o': output = optarg; break;
		default:
			return kreg_cmd_usage(usage, "export: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return kreg_cmd_usage(usage, "export: unexpected argument '%s'", argv[optind]);
	if (kreg_cmd_load_config(&cfg) < 0)
		return KREG_EXIT_FAIL;
	if (kreg_cmd_open_db(&db, cfg, KREG_DB_READONLY) < 0)
		goto done;
	if (output ? export_file(output, db, cfg, &opts, &stats) < 0 :
	    kreg_kcidb_export(stdout, db, cfg, &opts, &stats) < 0) {
		kreg_cmd_error(NULL);
		goto done;
	}
	if (output && !kreg_opts.quiet)
		printf("%s: %zu checkouts, %zu builds, %zu tests, %zu issues, %zu incidents\n",
		       output, stats.checkouts, stats.builds, stats.tests, stats.issues,
		       stats.incidents);
	ret = KREG_EXIT_OK;
done:
	kreg_db_close(db);
	kreg_config_free(cfg);
	return ret;
}
