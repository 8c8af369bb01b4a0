/* Files kreg ships (job definitions, kernel config fragments): installed
 * under KREG_SHAREDIR, or, when kreg runs from its source tree, there. */
#ifndef KREG_SHARED_H
#define KREG_SHARED_H

#include <stddef.h>

/* The path of a shipped file: <KREG_SHAREDIR>/<installed>, else
 * <bin>/../share/kreg/<installed> where <bin> holds the running binary
 * (make install's layout under another prefix: a DESTDIR, a moved tree),
 * else <source tree>/<source> where the source tree holds the running
 * binary (./kreg or build/<kind>/kreg). NULL (error set) when none exists.
 * Caller frees. */
char *kreg_shared_file(const char *installed, const char *source);

/* The running kreg binary's path into buf (a worker, the daemon's children
 * and the demo's scripts run this one). 0, or <0 with the error set. */
int kreg_self_exe(char *buf, size_t size);

/* The one rule for a file the configuration names among shipped ones (a
 * kconfig base or fragment: kind "kernel", source_dir "config/kernel"):
 * path itself when it exists (the configuration has resolved a relative
 * name against its own folder already), else the shipped file of its base
 * name, kreg_shared_file("<kind>/<base>", "<source_dir>/<base>"). So
 * `kernel/qemu-guest.config` is found installed and in the source tree
 * alike. NULL (error set, naming where it looked) when none exists.
 * Caller frees. */
char *kreg_shared_find(const char *path, const char *kind, const char *source_dir);

#endif
