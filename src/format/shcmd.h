/* shcmd: the simple commands of a POSIX shell script as a reader can see
 * them without running it (a RUN line, a heredoc script): split at ; & && ||
 * | newlines and parentheses, words with their quotes removed, redirections
 * and comments dropped, leading VAR=value assignments kept apart. Control
 * structures are flattened: every branch of an if or case is listed, loop
 * headers are skipped. "sh -c SCRIPT" and "bash -c SCRIPT" are read too.
 * Everything lives in the caller's arena; CD_ENOMEM / CD_ERANGE past a cap. */
#ifndef CD_SHCMD_H
#define CD_SHCMD_H

#include <stddef.h>

#include "core/arena.h"
#include "core/err.h"

#define SHCMD_MAX	4096	   /* commands of one script */
#define SHCMD_WORDS_MAX 512	   /* words of one command */
#define SHCMD_INPUT_MAX (1u << 20) /* bytes of one script */
#define SHCMD_DEPTH	4	   /* nested sh -c */

struct sh_cmd {
	size_t n_assign;
	const char **assign; /* "NAME=value" before the command word */
	size_t argc;
	const char **argv;
	size_t offset; /* where the command starts in the text it came from */
	int nested;    /* from an sh -c / bash -c argument */
	char after;    /* what joins it to the command before: '&' (&&), '|' (||), 'p'
			* (a pipe), ';' (; & or a newline), 0 for the first */
};

struct sh_script {
	size_t n;
	struct sh_cmd *cmds;
};

CD_WUR int shcmd_split(const char *s, size_t n, struct cd_arena *a, struct sh_script *out,
		       struct cd_err *err);

#endif
