/* tmpl: the pattern language of the log signatures (docs/signatures.md).
 * A template is literal text with typed placeholders: "fatal error:
 * {header:file}: No such file or directory". tmpl_compile turns it into ops
 * (owned by the caller's arena); tmpl_regex writes the equivalent Vectorscan
 * expression; tmpl_match finds the leftmost match in one line and returns
 * the captured facts. Both accept exactly the same lines, which the build-time
 * validator relies on. Errors are CD_EFORMAT with a message in err. */
#ifndef CD_TMPL_H
#define CD_TMPL_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"

#define TMPL_OPS_MAX  128
#define TMPL_CAPS_MAX 8
/* Work bound of one tmpl_match call; past it the line counts as no match. */
#define TMPL_STEPS_MAX 200000

enum tmpl_kind {
	TMPL_LIT = 0, /* literal bytes, no blanks */
	TMPL_WS,      /* a blank in the template: one or more spaces or tabs */
	TMPL_CLASS,   /* one or more bytes of a class */
	TMPL_ANY,     /* {*}: zero or more bytes of the line */
	TMPL_SIZE,    /* a size such as "20.00 MiB", "512 bytes" or "1.5GB" */
	TMPL_BOL,     /* {^}: the start of a line */
	TMPL_EOL      /* {$}: the end of a line */
};

/* Character classes of the typed placeholders ({name:TYPE}). */
enum tmpl_class {
	TMPL_C_WORD = 0, /* word:   A-Z a-z 0-9 _ . + - */
	TMPL_C_FILE,	 /* file:   word and '/' (header names, relative paths) */
	TMPL_C_PATH,	 /* path:   anything but blanks, quotes, ':' , ';' ( ) [ ] < > { } */
	TMPL_C_SYMBOL,	 /* symbol: A-Z a-z 0-9 _ . $ @ (mangled C/C++ names) */
	TMPL_C_VER,	 /* ver:    0-9 and '.' */
	TMPL_C_INT,	 /* int:    0-9 */
	TMPL_C_HEX,	 /* hex:    0-9 a-f A-F x */
	TMPL_C_QUOTED,	 /* q:      anything but quotes and backquotes */
	TMPL_C_TEXT,	 /* text:   anything on the line */
	TMPL_C_COUNT
};

struct tmpl_op {
	uint8_t kind; /* enum tmpl_kind */
	uint8_t cls;  /* enum tmpl_class, for TMPL_CLASS */
	int8_t cap;   /* capture index, or -1 */
	uint8_t cont; /* extends the capture begun by the literal before it */
	uint8_t lib;  /* TMPL_CLASS of type lib: the run must end as a library's name */
	uint16_t len; /* TMPL_LIT: bytes */
	const char *lit;
};

struct tmpl {
	size_t n_ops;
	struct tmpl_op ops[TMPL_OPS_MAX];
	size_t n_caps;
	const char *cap_names[TMPL_CAPS_MAX];
	uint8_t cap_is_size[TMPL_CAPS_MAX];
	int caseless;
	size_t longest_lit;   /* bytes of the longest literal, for the lint */
	size_t longest_run;   /* literal bytes of the longest run of literals with one blank
				 between each ("gcc (GCC)": 8), for a context fact's lint */
	size_t anchor_op;     /* the literal op the database anchors on (tmpl_set_anchor) */
	size_t anchor_prefix; /* bytes a line needs before the anchor for a match to start on it */
};

struct tmpl_cap {
	size_t off, len; /* in the matched line; len 0 and off SIZE_MAX: not set */
};

/* Parse src (NUL-terminated) into t; literal bytes are copied into a. */
CD_WUR int tmpl_compile(struct tmpl *t, const char *src, int caseless, struct cd_arena *a,
			struct cd_err *err);
/* The Vectorscan expression that matches a line iff tmpl_match does. */
CD_WUR int tmpl_regex(const struct tmpl *t, struct cd_buf *out);
/* 1 and caps filled on a match, 0 on none, -1 when the work bound ran out.
 * p is one line; or several, for a message that wraps: a blank of the
 * template also matches one line break with the blanks around it ({*} and
 * the placeholders never cross a line break). */
int tmpl_match(const struct tmpl *t, const uint8_t *p, size_t n, struct tmpl_cap *caps);
/* The same, with the matched bytes p[*start, *end) on a match; *at_end is
 * set when an attempt ran out of input with ops left (the message may go on
 * on the next line). */
int tmpl_match_span(const struct tmpl *t, const uint8_t *p, size_t n, struct tmpl_cap *caps,
		    size_t *start, size_t *end, int *at_end);
/* The template's anchor literal (anchor_op) as a Vectorscan expression: the
 * scanner's database holds these anchors only (literal search runs at
 * memory speed) and tmpl_match confirms each line an anchor hits. Every line
 * the template matches contains each of its literals, so nothing is lost,
 * whichever literal anchors it. tmpl_compile chooses the longest, one with
 * more than letters first; tools/sigc.c may choose the rarest in ordinary
 * output instead, and the scanner applies its choice (tmpl_set_anchor). */
CD_WUR int tmpl_anchor_regex(const struct tmpl *t, struct cd_buf *out);
/* Anchor t on its op `op`, a literal; CD_EFORMAT when it is none. */
CD_WUR int tmpl_set_anchor(struct tmpl *t, size_t op);
/* The template's longest run of literals split by blanks ("gcc (GCC)",
 * "=> not found") as a Vectorscan expression, each blank [ \t]+: the anchor
 * of a context fact pattern whose every literal is shorter than 6 bytes.
 * Every line the template matches without crossing a line break contains
 * it (a context fact is matched on one line). */
CD_WUR int tmpl_run_regex(const struct tmpl *t, struct cd_buf *out);
/* "20.00 MiB" -> 20971520; -1 when it does not parse or overflows. */
CD_WUR int64_t tmpl_size_bytes(const char *s, size_t n);
const char *tmpl_class_name(enum tmpl_class c);

#endif
