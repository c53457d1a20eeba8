/* redact: the redaction engine of `bundle`: rules (rows of data/redact_rules.tsv, given
 * as struct rd_def) applied line by line to text pushed in any pieces, replacements kept
 * consistent across every member of one bundle (host0, gpu-uuid-0), and a ledger of
 * rule -> count -> members that never holds a value. The set owns its compiled rules,
 * aliases and scratch (rd_set_free); a stream appends to the caller's struct cd_buf.
 * Memory is bounded (lines cut at RD_LINE_MAX, RD_ALIASES_MAX aliases). Errors are CD_E*
 * codes naming the rule and the member: a rule that fails fails the text, never skips it. */
#ifndef CD_REDACT_H
#define CD_REDACT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

#define RD_RULES_MAX   48
#define RD_MEMBERS_MAX 64
#define RD_NAME_MAX    40
#define RD_LINE_MAX    ((size_t)64 << 10) /* longer lines keep their start, and say so */
#define RD_ALIASES_MAX 4096
#define RD_VALUES_MAX  32 /* literal values: @host, @user, @home and learned fields */

/* One rule as the table spells it; strings are borrowed for the call. */
struct rd_def {
	const char *name;	   /* "hf-token" */
	const char *kind;	   /* "var" | "shape" | "field" */
	const char *flags;	   /* comma-separated: "case" (case-sensitive), "learn" */
	const char *keywords;	   /* comma-separated; the rule runs on lines holding one */
	const char *pattern;	   /* POSIX ERE, or @ipv4 @ipv6 @mac @host @user @home */
	const char *end;	   /* shape: a block from pattern to end (several lines) */
	const char *replacement;   /* "{n}" numbers each distinct value: "host{n}" */
	const char *allow;	   /* ERE: a value it matches is left alone */
	const char *allow_context; /* ERE: the text just before a value; a match leaves it */
	int group;		   /* the pattern's group replaced (0: the whole match) */
};

struct rd_set;

CD_WUR int rd_set_new(struct rd_set **out);
void rd_set_free(struct rd_set *s);
/* Compile and append a rule (rules apply in the order added). CD_EFORMAT names
 * what is wrong with it. */
CD_WUR int rd_set_add(struct rd_set *s, const struct rd_def *d, struct cd_err *err);
/* A value of this machine for the rules whose pattern is builtin ("@host",
 * "@user", "@home"): replaced wherever it stands as a word (a path for @home).
 * Values the rule's allow matches, and empty ones, are ignored. */
CD_WUR int rd_set_value(struct rd_set *s, const char *builtin, const char *value);
/* A value no shape or field rule replaces (a version the facts read, which an
 * address rule would otherwise take for 9.1.0.70). */
CD_WUR int rd_set_allow(struct rd_set *s, const char *value);
/* Make the named rule fail on the first line it is given (tests of the
 * closed failure; the bundle reads CD_TEST_REDACT_FAIL). */
void rd_set_fail(struct rd_set *s, const char *rule);

/* A member of the ledger (the name is copied); -1 past RD_MEMBERS_MAX. */
int rd_member(struct rd_set *s, const char *name);
/* The consistent replacement of a structured field's value under a rule
 * (the report's host name, its GPU UUIDs), counted for member. NULL when no
 * rule has that name; the value itself when the rule's allow keeps it. */
const char *rd_alias(struct rd_set *s, int member, const char *rule, const char *value);

/* The ledger, in rule order. */
size_t rd_rules(const struct rd_set *s);
const char *rd_rule_name(const struct rd_set *s, size_t i);
const char *rd_rule_kind(const struct rd_set *s, size_t i);
uint64_t rd_rule_hits(const struct rd_set *s, size_t i);
size_t rd_members(const struct rd_set *s);
const char *rd_member_name(const struct rd_set *s, size_t m);
int rd_rule_in_member(const struct rd_set *s, size_t i, size_t m);

/* One member's text, pushed in any pieces. Lines end at \n or \r (kept as
 * they are); NUL bytes are dropped; a line longer than RD_LINE_MAX keeps its
 * start up to a word break and ends with a note of the bytes left out. */
struct rd_stream {
	struct rd_set *set;
	int member;
	struct cd_buf *out;
	struct cd_buf line; /* a line that spans pieces, at most RD_LINE_MAX */
	uint64_t cut;	    /* bytes of that line past RD_LINE_MAX */
	int block;	    /* the block rule the text is inside, -1 */
	uint64_t bytes_in, nul_dropped, lines_cut;
};

void rd_stream_init(struct rd_stream *st, struct rd_set *s, int member, struct cd_buf *out);
CD_WUR int rd_stream_feed(struct rd_stream *st, const void *p, size_t n, struct cd_err *err);
/* The text jumps (the middle of a log left out): the line held so far is
 * dropped, not finished; a block stays open across the gap. */
void rd_stream_skip(struct rd_stream *st);
/* The last line (no line break added); frees the stream's own buffer. */
CD_WUR int rd_stream_end(struct rd_stream *st, struct cd_err *err);
void rd_stream_free(struct rd_stream *st);

/* A whole text at once. */
CD_WUR int rd_text(struct rd_set *s, int member, const void *p, size_t n, struct cd_buf *out,
		   struct cd_err *err);
/* One environment variable as the line "NAME=VALUE\n": the whole value is
 * replaced when a var rule names it, then the line goes through every rule. */
CD_WUR int rd_env(struct rd_set *s, int member, const char *name, const char *value,
		  struct cd_buf *out, struct cd_err *err);

#endif
