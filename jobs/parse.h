/* Parsers: program output -> samples named as LKP names them, with the
 * program prefix ("fio.read_iops", "dbench.throughput_MB/s",
 * "fxmark.ssd_f2fs_dbench_client_4_bufferedio.works/sec").
 *
 * Each parser reads the whole output or nothing: on any problem (junk
 * before the JSON, truncated output, NaN, an error the program reported, a
 * missing field) it returns <0 with a message naming the file and where,
 * and *out is left empty. On success the samples are appended in LKP's
 * order. */
#ifndef KREG_JOBS_PARSE_H
#define KREG_JOBS_PARSE_H

#include "lib/sample.h"

#include <stddef.h>

/* Program output larger than this is refused, not read to the end. */
#define KREG_PARSE_MAX_OUTPUT ((size_t)256 << 20)

/* name stands for the output in messages (a path). */
int kreg_parse_fio(kreg_samples *out, const char *data, size_t len, const char *name);
int kreg_parse_dbench(kreg_samples *out, const char *data, size_t len, const char *name);
int kreg_parse_fxmark(kreg_samples *out, const char *data, size_t len, const char *name);

/* By parser name ("fio", "dbench", "fxmark", and "monitors": the
 * snapshots of jobs/monitors.h, "perf-stat": perf stat's output alone,
 * "perf-profile": perf report's);
 * KREG_ENOTFOUND for another. */
int kreg_parse_output(kreg_samples *out, const char *parser, const char *data, size_t len,
		      const char *name);
int kreg_parse_file(kreg_samples *out, const char *parser, const char *path);

/* A value as LKP prints it: the shortest text that reads back the same
 * double ("2064", "114570.568359375"). buf of at least 32 bytes. */
const char *kreg_format_value(char *buf, size_t size, double v);

#endif
