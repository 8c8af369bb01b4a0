#include "lib/log.h"

#include "lib/esc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

/* The log is one of the two pieces of global state kreg allows. */
static struct {
	const char *ident;
	enum kreg_log_level level;
	int use_syslog;
} logger = { "kreg", KREG_LOG_WARN, 0 };

static const char *const level_names[] = { "error", "warn", "info", "debug" };

void kreg_log_init(const char *ident, enum kreg_log_level level, int use_syslog)
{
	logger.ident = ident ? ident : "kreg";
	logger.level = level;
	logger.use_syslog = use_syslog;
	if (use_syslog)
		openlog(logger.ident, LOG_PID, LOG_DAEMON);
}

void kreg_log_set_level(enum kreg_log_level level)
{
	logger.level = level;
}

enum kreg_log_level kreg_log_get_level(void)
{
	return logger.level;
}

int kreg_log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (!strcmp(name, level_names[i]))
			return (int)i;
	return -1;
}

void kreg_log(enum kreg_log_level level, const char *fmt, ...)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char msg[2048], *esc;
	va_list ap;

	if (level > logger.level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one message, one line: what it quotes from elsewhere is escaped */
	esc = kreg_esc(msg);
	if (logger.use_syslog) {
		syslog(prio[level], "%s", esc);
	} else {
		char stamp[32];
		struct tm tm;
		time_t now = time(NULL);

		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(stderr, "%s %s[%s]: %s\n", stamp, logger.ident,
			level_names[level], esc);
	}
	free(esc);
}

void kreg_say(FILE *progress, const char *fmt, ...)
{
	va_list ap;

	if (!progress)
		return;
	va_start(ap, fmt);
	vfprintf(progress, fmt, ap);
	va_end(ap);
	fputc('\n', progress);
	fflush(progress);
}
