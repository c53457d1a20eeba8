/* redact_int: the engine's private types, shared by redact*.c only. A rule
 * is compiled once (regex_t) and keeps its own ledger counts; literal values
 * (this machine's host, user and home, and the values `learn` rules found)
 * live in the set's arena with their lower-case copies. Nothing here is
 * thread-safe: one set belongs to one bundle. */
#ifndef CD_REDACT_INT_H
#define CD_REDACT_INT_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"
#include "format/redact.h"

#define RD_KW_MAX     12
#define RD_KW_LEN     24
#define RD_REPL_MAX   48
#define RD_GROUPS     10
#define RD_VALUE_MAX  256 /* a longer value is never allowed by allow */
#define RD_CONTEXT    32  /* bytes before a value given to allow_context */
#define RD_NAME_SCAN  128 /* bytes of a variable name compared */
#define RD_ALIAS_SLOT 8192
#define RD_KWENT_MAX  (RD_RULES_MAX * RD_KW_MAX + RD_VALUES_MAX)

enum rd_kind { RD_KIND_VAR = 1, RD_KIND_SHAPE, RD_KIND_FIELD };

enum rd_builtin {
	RD_BI_NONE = 0, /* a regular expression */
	RD_BI_IPV4,
	RD_BI_IPV6,
	RD_BI_MAC,
	RD_BI_HOST,
	RD_BI_USER,
	RD_BI_HOME
};

struct rd_rule {
	char name[RD_NAME_MAX];
	enum rd_kind kind;
	enum rd_builtin bi;
	int icase, learn, group;
	size_t n_kw;
	char kw[RD_KW_MAX][RD_KW_LEN]; /* lower case */
	regex_t re, end, allow, ctx;
	int has_re, has_end, has_allow, has_ctx;
	char repl[RD_REPL_MAX];
	int numbered; /* repl holds {n} */
	size_t ns;    /* numbering space: rules with the same repl share one */
	uint64_t hits;
	uint64_t members; /* bit m: hit in member m */
};

struct rd_value {
	size_t rule;
	const char *value, *lower;
	size_t len;
	const char *alias; /* set on first use */
};

/* One keyword (or value) in the index by its first byte: a line is looked at
 * once for every rule's keywords, not once per keyword. */
struct rd_kwent {
	const char *kw; /* lower case */
	size_t len;
	size_t rule;
	int next; /* the next entry with the same first byte, -1 */
};

struct rd_alias_ent {
	size_t ns;
	const char *value; /* lower case when its rule is caseless */
	const char *alias;
};

struct rd_set {
	struct cd_arena arena;
	size_t n;
	struct rd_rule rules[RD_RULES_MAX];
	size_t n_members;
	const char *members[RD_MEMBERS_MAX];
	size_t n_values;
	struct rd_value values[RD_VALUES_MAX];
	size_t n_kwent;
	struct rd_kwent kwent[RD_KWENT_MAX];
	int kwhead[256];	    /* first entry for each first byte, -1 */
	uint8_t base[RD_RULES_MAX]; /* 1: the rule runs on every line (no keyword, no value) */
	size_t n_ns;
	uint64_t ns_next[RD_RULES_MAX];
	const char *ns_over[RD_RULES_MAX]; /* the alias once RD_ALIASES_MAX are taken */
	size_t n_aliases;
	struct rd_alias_ent *slots[RD_ALIAS_SLOT];
	size_t n_allowed;
	const char *allow_slots[RD_ALIAS_SLOT]; /* rd_set_allow's values, hashed */
	char fail[RD_NAME_MAX];
	/* scratch of one line: the text being rewritten, its next version, and
	 * the lower-case copy of the line as read (for keywords) */
	struct cd_buf cur, nxt, low, tmp;
};

/* redact.c */
const char *rd_alias_of(struct rd_set *s, struct rd_rule *r, const char *v, size_t n);
int rd_is_allowed(struct rd_set *s, const struct rd_rule *r, const char *line, size_t vs,
		  size_t ve);
void rd_count(struct rd_rule *r, int member, uint64_t k);
CD_WUR int rd_learn(struct rd_set *s, size_t rule, const char *v, size_t n);
/* Which rules may match a text whose lower-case copy is low[0..n): its
 * keywords or values are in it, or it has none. flags has RD_RULES_MAX bytes. */
void rd_flags(const struct rd_set *s, const char *low, size_t n, uint8_t *flags);
CD_WUR int rd_fail(struct rd_set *s, const struct rd_rule *r, int member, struct cd_err *err,
		   const char *why);

/* redact_line.c: one line (no terminator) into st->out; *drop when a block
 * swallowed all of it (no terminator either). */
struct rd_stream;
CD_WUR int rd_line(struct rd_stream *st, const char *p, size_t n, int *drop, struct cd_err *err);

/* redact_var.c: the assignments of the current line (s->cur) whose name a
 * var rule matches; *changed when s->cur was rewritten. */
CD_WUR int rd_vars(struct rd_stream *st, int *changed, struct cd_err *err);
/* The var rule (index) that names this variable, or -1. */
int rd_var_rule(struct rd_set *s, const char *name, size_t n);

/* redact_addr.c: the next address at or after from in p[0..n): 1 and
 * [*b, *e), or 0. */
int rd_find_ipv4(const char *p, size_t n, size_t from, size_t *b, size_t *e);
int rd_find_ipv6(const char *p, size_t n, size_t from, size_t *b, size_t *e);
int rd_find_mac(const char *p, size_t n, size_t from, size_t *b, size_t *e);

#endif
