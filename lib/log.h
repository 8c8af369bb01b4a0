/* Logging: one line per message, to stderr (default) or syslog. */
#ifndef KREG_LOG_H
#define KREG_LOG_H

#include <stdio.h>

enum kreg_log_level {
	KREG_LOG_ERROR = 0,
	KREG_LOG_WARN,
	KREG_LOG_INFO,
	KREG_LOG_DEBUG,
};

/* ident names the program in syslog; use_syslog 0 logs to stderr. */
void kreg_log_init(const char *ident, enum kreg_log_level level, int use_syslog);
void kreg_log_set_level(enum kreg_log_level level);
enum kreg_log_level kreg_log_get_level(void);
/* "error", "warn", "info", "debug" -> level; <0 when unknown. */
int kreg_log_level_parse(const char *name);
void kreg_log(enum kreg_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A progress line of a use case (fmt and a newline, flushed) to progress,
 * when it is not NULL: what `kreg` prints as it goes and a worker logs. */
void kreg_say(FILE *progress, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) kreg_log(KREG_LOG_ERROR, __VA_ARGS__)
#define log_warn(...) kreg_log(KREG_LOG_WARN, __VA_ARGS__)
#define log_info(...) kreg_log(KREG_LOG_INFO, __VA_ARGS__)
#define log_debug(...) kreg_log(KREG_LOG_DEBUG, __VA_ARGS__)

#endif
