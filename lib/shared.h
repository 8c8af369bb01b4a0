/* Files kreg ships (job definitions, kernel config fragments): installed
 * under KREG_SHAREDIR, or, when kreg runs from its source tree, there. */
#ifndef KREG_SHARED_H
#define KREG_SHARED_H

/* The path of a shipped file: <KREG_SHAREDIR>/<installed>, else
 * <source tree>/<source> where the source tree holds the running binary
 * (./kreg or build/<kind>/kreg). NULL (error set) when neither exists.
 * Caller frees. */
char *kreg_shared_file(const char *installed, const char *source);

#endif
