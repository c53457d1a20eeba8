/* dockerfile: a Dockerfile read into instructions as BuildKit's parser
 * (moby/buildkit frontend/dockerfile/parser) reads it: parser directives
 * (escape, syntax), comments, line continuations, heredocs (<<EOF, <<-EOF,
 * quoted names), exec (JSON) and shell forms, --flags, and the key=value
 * lists of ARG, ENV and LABEL, plus "# cuda-doctor ignore=ID" comments.
 * Everything lives in the caller's arena. Only CD_ENOMEM and CD_ERANGE (over
 * a cap) fail the parse; malformed instructions become diagnostics. */
#ifndef CD_DOCKERFILE_H
#define CD_DOCKERFILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define DF_INPUT_MAX   ((size_t)4 << 20) /* bytes of one Dockerfile */
#define DF_INSTR_MAX   8192		 /* instructions */
#define DF_LINE_MAX    ((size_t)1 << 20) /* one instruction, continuations joined */
#define DF_ITEMS_MAX   256		 /* flags, key=value pairs or JSON strings of one */
#define DF_HEREDOC_MAX 16		 /* heredocs of one instruction */
#define DF_IGNORE_MAX  32		 /* ids of one ignore comment */
#define DF_DIAG_MAX    64

enum df_cmd {
	DF_UNKNOWN = 0,
	DF_FROM,
	DF_ARG,
	DF_ENV,
	DF_RUN,
	DF_COPY,
	DF_ADD,
	DF_LABEL,
	DF_WORKDIR,
	DF_USER,
	DF_CMD,
	DF_ENTRYPOINT,
	DF_SHELL,
	DF_ONBUILD,
	DF_EXPOSE,
	DF_VOLUME,
	DF_HEALTHCHECK,
	DF_STOPSIGNAL,
	DF_MAINTAINER
};

struct df_flag {
	const char *name;  /* without "--": "from", "mount", "platform" */
	const char *value; /* raw, NULL for a flag without "=" */
};

struct df_kv {
	const char *key;
	const char *value; /* raw (quotes and $VARs as written); NULL: ARG without default */
};

struct df_heredoc {
	const char *name;
	const char *body; /* every line with its '\n'; leading tabs removed for <<- */
	int expand;	  /* the name was not quoted */
};

struct df_instr {
	enum df_cmd cmd;
	const char *keyword; /* as written */
	unsigned line;	     /* first line, 1-based */
	unsigned end_line;   /* last line (continuations and heredocs included) */
	const char *args;    /* after the flags; continuation lines joined */
	int json;	     /* exec form: argv holds the strings */
	size_t n_argv;
	const char **argv;
	size_t n_flags;
	struct df_flag *flags;
	size_t n_kv; /* ARG, ENV, LABEL */
	struct df_kv *kv;
	size_t n_heredocs;
	struct df_heredoc *heredocs;
	size_t n_ignore; /* "# cuda-doctor ignore=" on the comment lines just above */
	const char **ignore;
};

struct df_diag {
	unsigned line;
	const char *msg;
};

struct df_file {
	char escape;	    /* '\\' unless "# escape=`" */
	const char *syntax; /* "# syntax=" directive, NULL if none */
	size_t n;
	struct df_instr *items;
	size_t n_global_ignore; /* "# cuda-doctor global ignore=" */
	const char **global_ignore;
	size_t n_diags;
	struct df_diag diags[DF_DIAG_MAX];
	unsigned lines;
};

CD_WUR int dockerfile_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct df_file *out,
			    struct cd_err *err);

/* The value of a flag ("from"), or NULL; *present tells a bare flag apart. */
const char *dockerfile_flag(const struct df_instr *in, const char *name, int *present);
/* Is id ignored for this instruction (its comment or a global one)? */
int dockerfile_ignored(const struct df_file *f, const struct df_instr *in, const char *id);
const char *dockerfile_cmd_name(enum df_cmd c);

#endif
