/* The command layer: one small file per `kreg <command>` (git's builtin/),
 * parsing options and calling the rooms below. */
#ifndef KREG_CMD_H
#define KREG_CMD_H

#include "config/config.h"
#include "db/db.h"

/* Exit status of every command. */
enum { KREG_EXIT_OK = 0, KREG_EXIT_FAIL = 1, KREG_EXIT_USAGE = 2 };

/* Options given before the command. */
typedef struct {
	const char *config_path;	/* -c FILE, or $KREG_CONFIG */
	int verbose;			/* -v, repeatable */
	int quiet;
} kreg_global_opts;

extern kreg_global_opts kreg_opts;

typedef int (*kreg_cmd_fn)(int argc, char **argv);

/* Load the configuration named by -c / $KREG_CONFIG / ./kreg.yaml, or the
 * built-in default when none is named and none is found. Prints the
 * problems and returns <0 on failure. */
int kreg_cmd_load_config(kreg_config **out);
/* The same with the text read from text_path instead of the file: the
 * daemon's workers get the configuration the daemon has loaded (a file
 * edited since, maybe broken, waits for its SIGHUP). Relative paths and
 * messages still go by the -c file's name. */
int kreg_cmd_load_config_text(kreg_config **out, const char *text_path);
/* The same, building only the hosts named (kreg_config_load_hosts): a
 * work item's. */
int kreg_cmd_load_config_hosts(kreg_config **out, const char *text_path,
			       const char *const *hosts, size_t nhosts);
/* Open the configured database (created and migrated when flags say so). */
int kreg_cmd_open_db(kreg_db **out, const kreg_config *cfg, unsigned flags);

/* Print "kreg: <msg>" (with the last error when msg is NULL) to stderr. */
void kreg_cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a usage message to stderr and return KREG_EXIT_USAGE. */
int kreg_cmd_usage(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when argv[1..] asks for --help / -h; prints usage to stdout. */
int kreg_cmd_wants_help(int argc, char **argv, const char *usage);

int cmd_config(int argc, char **argv);
int cmd_db(int argc, char **argv);
int cmd_job(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_changes(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_host(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_work(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_mail(int argc, char **argv);
int cmd_regression(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_demo(int argc, char **argv);

#endif
