/* jit_exec: run a program, or a function in a forked child, with a deadline.
 * The child gets its own process group, stdin from /dev/null and stdout +
 * stderr into a pipe the parent drains into a capped buffer (bytes past the
 * cap are read and dropped, so the child never blocks on a full pipe). At the
 * deadline the whole group is killed with SIGKILL and reaped. Nothing here
 * prints; the caller owns `out` (buf_free). A small, local stand-in for the
 * isolation module the driver probe uses, with the same contract. */
#ifndef CD_JIT_EXEC_H
#define CD_JIT_EXEC_H

#include "core/buf.h"

struct jit_exec_result {
	int started;   /* fork (and exec) succeeded */
	int exit_code; /* when the child exited; -1 otherwise */
	int signal;    /* signal that ended it (SIGKILL after a timeout); 0 otherwise */
	int timed_out;
	long elapsed_ms;
	size_t dropped; /* output bytes past the cap */
};

/* Run argv[0] (a path, or a name looked up on PATH) with envp (NULL: the
 * current environment) in cwd (NULL: unchanged). 0 when the child ran to an
 * end (see r), CD_EIO when it could not be started. */
int jit_exec(char *const argv[], char *const envp[], const char *cwd, int timeout_ms,
	     struct cd_buf *out, size_t cap, struct jit_exec_result *r);

/* Run fn(arg, fd) in a forked child; what it writes to fd is captured; its
 * return value is the child's exit code. */
int jit_exec_fn(int (*fn)(void *arg, int fd), void *arg, int timeout_ms, struct cd_buf *out,
		size_t cap, struct jit_exec_result *r);

#endif
