/* dfword: a Dockerfile's words as BuildKit reads them (the shell lexer of
 * moby/buildkit frontend/dockerfile/shell/lex.go): quotes, the escape
 * character, and $VAR / ${VAR...} replacement from an environment of build
 * arguments and ENV values. Environments hold pointers the caller owns (an
 * arena); expansion writes into a capped struct cd_buf. Failures: CD_EFORMAT
 * (unterminated quote, bad substitution), CD_ENOMEM (a word over DFWORD_MAX). */
#ifndef CD_DFWORD_H
#define CD_DFWORD_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"

#define DFENV_MAX    256	 /* variables one environment holds */
#define DFWORD_MAX   (64u << 10) /* bytes one expanded word may have */
#define DFWORD_DEPTH 16		 /* ${a:-${b:-...}} nesting */

struct dfenv_var {
	const char *name;
	const char *value; /* never NULL: an ARG without a value is not in the env */
};

struct dfenv {
	size_t n;
	struct dfenv_var v[DFENV_MAX];
};

void dfenv_init(struct dfenv *e);
/* Set or replace; CD_ENOMEM when the environment is full. */
CD_WUR int dfenv_set(struct dfenv *e, const char *name, const char *value);
/* The value, or NULL when unset. */
const char *dfenv_get(const struct dfenv *e, const char *name);

enum {
	DFWORD_RAW = 1,	       /* keep quotes and escapes (RUN text handed to a shell) */
	DFWORD_KEEP_UNSET = 2, /* leave $VAR of an unset variable as written */
};

/* What an expansion met (the flags output). */
enum {
	DFWORD_UNSET = 1, /* a referenced variable had no value */
	DFWORD_QUOTED = 2 /* the word had quotes (heredoc names: no expansion) */
};

struct dfword_opts {
	char escape;		 /* '\\' or '`' (the escape parser directive) */
	const struct dfenv *env; /* NULL: nothing is set */
	unsigned flags;		 /* DFWORD_RAW | DFWORD_KEEP_UNSET */
};

/* Expand one word as BuildKit's ProcessWord does: quotes removed (unless
 * DFWORD_RAW), $ replacements done, no splitting. Appends to out; *met
 * (optional) gets DFWORD_UNSET / DFWORD_QUOTED. */
CD_WUR int dfword_expand(const char *s, size_t n, const struct dfword_opts *o, struct cd_buf *out,
			 unsigned *met, struct cd_err *err);

/* The next raw word of s (blank-separated, quotes and escapes kept together),
 * starting at *pos; 1 with [*start, *end) set, 0 at the end. */
int dfword_next(const char *s, size_t n, char escape, size_t *pos, size_t *start, size_t *end);

/* Shell glob of BuildKit's ${v#pat} family: '*', '?', '[...]', escapes. */
int dfword_glob(const char *pat, size_t np, const char *s, size_t ns);

#endif
