/* tmpl: see tmpl.h. The matcher is a backtracking walk over at most
 * TMPL_OPS_MAX ops (recursion depth is bounded by the op count, not by the
 * line) with a step budget, so a hostile line costs bounded time; it is in
 * tmpl_match.c, this file compiles templates and writes their expressions. */
#include "explain/tmpl.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *const class_names[TMPL_C_COUNT] = {
	"word", "file", "path", "symbol", "ver", "int", "hex", "q", "text",
};

/* Vectorscan spelling of each class (one byte; the op adds the repeat). */
static const char *const class_regex[TMPL_C_COUNT] = {
	"[A-Za-z0-9_.+\\-]",
	"[A-Za-z0-9_.+/\\-]",
	"[^ \\t\\r\\n'\"\\x60:;,()\\[\\]<>{}]",
	"[A-Za-z0-9_.$@]",
	"[0-9.]",
	"[0-9]",
	"[0-9a-fA-Fx]",
	"[^\\r\\n'\"\\x60]",
	"[^\\r\\n]",
};

const char *tmpl_class_name(enum tmpl_class c)
{
	return c < TMPL_C_COUNT ? class_names[c] : "?";
}

static int parse_type(const char *s, size_t n, struct tmpl_op *op)
{
	size_t i;

	if (n == 4 && !memcmp(s, "size", 4)) {
		op->kind = TMPL_SIZE;
		return 0;
	}
	if (n == 6 && !memcmp(s, "soname", 6)) { /* libcudart.so.12: a word */
		op->kind = TMPL_CLASS;
		op->cls = TMPL_C_WORD;
		return 0;
	}
	if (n == 3 && !memcmp(s, "lib", 3)) { /* libnvcuvid.so.1, cudnn64_8.dll */
		op->kind = TMPL_CLASS;
		op->cls = TMPL_C_WORD;
		op->lib = 1;
		return 0;
	}
	if (n == 3 && !memcmp(s, "num", 3)) {
		op->kind = TMPL_CLASS;
		op->cls = TMPL_C_VER;
		return 0;
	}
	for (i = 0; i < TMPL_C_COUNT; i++)
		if (strlen(class_names[i]) == n && !memcmp(s, class_names[i], n)) {
			op->kind = TMPL_CLASS;
			op->cls = (uint8_t)i;
			return 0;
		}
	return -1;
}

static struct tmpl_op *new_op(struct tmpl *t, struct cd_err *err)
{
	struct tmpl_op *op;

	if (t->n_ops >= TMPL_OPS_MAX) {
		err_set(err, CD_EFORMAT, "more than %d parts", TMPL_OPS_MAX);
		return NULL;
	}
	op = &t->ops[t->n_ops++];
	memset(op, 0, sizeof(*op));
	op->cap = -1;
	return op;
}

static int add_lit(struct tmpl *t, const char *s, size_t n, struct cd_arena *a, struct cd_err *err)
{
	struct tmpl_op *op;

	if (!n)
		return 0;
	if (n > UINT16_MAX)
		return err_set(err, CD_EFORMAT, "literal too long");
	op = new_op(t, err);
	if (!op)
		return CD_EFORMAT;
	op->kind = TMPL_LIT;
	op->len = (uint16_t)n;
	op->lit = arena_strndup(a, s, n);
	if (!op->lit)
		return err_set(err, CD_ENOMEM, "out of memory");
	if (n > t->longest_lit)
		t->longest_lit = n;
	return 0;
}

static int valid_name(const char *s, size_t n)
{
	size_t i;

	if (!n || n > 32 || !(islower((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 0; i < n; i++)
		if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* "{...}" at s (after the brace) up to the closing brace at e. */
static int add_placeholder(struct tmpl *t, const char *s, const char *e, struct cd_arena *a,
			   struct cd_err *err)
{
	const char *sep = s;
	struct tmpl_op *op;
	size_t k;

	if (e - s == 1 && (*s == '*' || *s == '^' || *s == '$')) {
		op = new_op(t, err);
		if (!op)
			return CD_EFORMAT;
		op->kind = *s == '*' ? TMPL_ANY : *s == '^' ? TMPL_BOL : TMPL_EOL;
		return 0;
	}
	while (sep < e && *sep != ':' && *sep != '=')
		sep++;
	if (sep == e || !valid_name(s, (size_t)(sep - s)))
		return err_set(err, CD_EFORMAT, "bad placeholder '{%.*s}'", (int)(e - s), s);
	if (t->n_caps >= TMPL_CAPS_MAX)
		return err_set(err, CD_EFORMAT, "more than %d captures", TMPL_CAPS_MAX);
	for (k = 0; k < t->n_caps; k++)
		if (strlen(t->cap_names[k]) == (size_t)(sep - s) &&
		    !memcmp(t->cap_names[k], s, (size_t)(sep - s)))
			return err_set(err, CD_EFORMAT, "capture '%.*s' twice", (int)(sep - s), s);
	if (*sep == '=') {
		const char *q;
		for (q = sep + 1; q < e; q++)
			if (*q == ' ' || *q == '\t')
				return err_set(err, CD_EFORMAT, "blank in a literal capture");
		if (add_lit(t, sep + 1, (size_t)(e - sep - 1), a, err) || sep + 1 == e)
			return err_set(err, CD_EFORMAT, "empty literal capture");
		op = &t->ops[t->n_ops - 1];
	} else {
		const char *eq = memchr(sep + 1, '=', (size_t)(e - sep - 1));
		const char *te = eq ? eq : e;
		struct tmpl_op *pre = NULL;
		if (eq) { /* {name:type=prefix}: the prefix literal, then the class */
			if (eq + 1 == e || add_lit(t, eq + 1, (size_t)(e - eq - 1), a, err))
				return err_set(err, CD_EFORMAT, "bad capture prefix");
			pre = &t->ops[t->n_ops - 1];
			pre->cap = (int8_t)t->n_caps;
		}
		op = new_op(t, err);
		if (!op)
			return CD_EFORMAT;
		if (parse_type(sep + 1, (size_t)(te - sep - 1), op) ||
		    (pre && op->kind != TMPL_CLASS))
			return err_set(err, CD_EFORMAT, "unknown type '%.*s'", (int)(te - sep - 1),
				       sep + 1);
		op->cont = pre != NULL;
	}
	op->cap = (int8_t)t->n_caps;
	t->cap_is_size[t->n_caps] = op->kind == TMPL_SIZE;
	t->cap_names[t->n_caps] = arena_strndup(a, s, (size_t)(sep - s));
	if (!t->cap_names[t->n_caps])
		return err_set(err, CD_ENOMEM, "out of memory");
	t->n_caps++;
	return 0;
}

/* Two placeholders side by side, or a blank next to {*}, would make the
 * captures ambiguous; the lint rejects them. */
static int check_adjacent(const struct tmpl *t, struct cd_err *err)
{
	size_t i;

	for (i = 0; i < t->n_ops; i++) {
		const struct tmpl_op *a = i ? &t->ops[i - 1] : NULL, *b = &t->ops[i];
		if ((b->kind == TMPL_BOL && i) || (b->kind == TMPL_EOL && i + 1 < t->n_ops))
			return err_set(err, CD_EFORMAT, "{^} only first, {$} only last");
		if (a && a->kind != TMPL_LIT && a->kind != TMPL_WS && a->kind != TMPL_BOL &&
		    b->kind != TMPL_LIT && b->kind != TMPL_WS && b->kind != TMPL_EOL)
			return err_set(err, CD_EFORMAT, "two placeholders side by side");
	}
	return 0;
}

static const struct tmpl_op *anchor_of(const struct tmpl *t, size_t *at);

/* The longest run LIT (WS LIT)*: its first op at *at, its last at *end, the
 * literal bytes it holds returned. */
static size_t run_of(const struct tmpl *t, size_t *at, size_t *end)
{
	size_t i, best = 0;

	for (i = 0; i < t->n_ops; i++) {
		size_t j = i, k;
		if (t->ops[i].kind != TMPL_LIT ||
		    (i >= 2 && t->ops[i - 1].kind == TMPL_WS && t->ops[i - 2].kind == TMPL_LIT))
			continue;
		k = t->ops[i].len;
		while (j + 2 < t->n_ops && t->ops[j + 1].kind == TMPL_WS &&
		       t->ops[j + 2].kind == TMPL_LIT) {
			j += 2;
			k += t->ops[j].len;
		}
		if (k > best) {
			best = k;
			*at = i;
			*end = j;
		}
	}
	return best;
}

/* Bytes a line needs before the anchor for the template to start on it:
 * the literals before the anchor, one byte for each blank or class. */
static size_t anchor_prefix(const struct tmpl *t)
{
	size_t at = t->anchor_op, i, k = 0;

	for (i = 0; i < at; i++)
		k += t->ops[i].kind == TMPL_LIT	  ? t->ops[i].len
		     : t->ops[i].kind == TMPL_ANY ? 0
						  : 1;
	return k;
}

int tmpl_compile(struct tmpl *t, const char *src, int caseless, struct cd_arena *a,
		 struct cd_err *err)
{
	const char *p = src;
	struct cd_buf acc;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->caseless = caseless;
	buf_init(&acc, 4096);
	while (*p && !rc) {
		if (*p == '{' && p[1] == '{') {
			rc = buf_putc(&acc, '{');
			p += 2;
		} else if (*p == '}' && p[1] == '}') {
			rc = buf_putc(&acc, '}');
			p += 2;
		} else if (*p == '{') {
			const char *e = strchr(p, '}');
			if (!e) {
				rc = err_set(err, CD_EFORMAT, "unclosed '{'");
				break;
			}
			rc = add_lit(t, acc.p, acc.len, a, err);
			buf_reset(&acc);
			if (!rc)
				rc = add_placeholder(t, p + 1, e, a, err);
			p = e + 1;
		} else if (*p == '}') {
			rc = err_set(err, CD_EFORMAT, "lone '}' (write '}}')");
		} else if (*p == ' ' || *p == '\t') {
			struct tmpl_op *op;
			rc = add_lit(t, acc.p, acc.len, a, err);
			buf_reset(&acc);
			while (*p == ' ' || *p == '\t')
				p++;
			op = rc ? NULL : new_op(t, err);
			if (!rc && !op)
				rc = CD_EFORMAT;
			if (op)
				op->kind = TMPL_WS;
		} else {
			rc = buf_putc(&acc, *p++);
		}
	}
	if (!rc)
		rc = add_lit(t, acc.p, acc.len, a, err);
	buf_free(&acc);
	if (!rc && !t->n_ops)
		rc = err_set(err, CD_EFORMAT, "empty pattern");
	if (!rc)
		rc = check_adjacent(t, err);
	if (!rc) {
		size_t at = 0, end = 0;
		if (anchor_of(t, &at))
			t->anchor_op = at;
		t->anchor_prefix = anchor_prefix(t);
		at = 0;
		t->longest_run = run_of(t, &at, &end);
	}
	return rc ? (rc == CD_ENOMEM ? rc : CD_EFORMAT) : 0;
}

/* ---- Vectorscan expression ------------------------------------------- */

static int put_lit(struct cd_buf *out, const char *s, size_t n)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c))
			rc = buf_putc(out, (char)c);
		else
			rc = buf_printf(out, "\\x%02x", c);
	}
	return rc;
}

int tmpl_regex(const struct tmpl *t, struct cd_buf *out)
{
	size_t first = 0, last = t->n_ops, i;
	int rc = 0;

	/* Unanchored: a leading or trailing {*} changes nothing, and a leading
	 * or trailing repeat needs only its first or last byte to exist. This
	 * keeps one report per occurrence and lets the literal lead. */
	while (first < last && t->ops[first].kind == TMPL_ANY)
		first++;
	while (last > first && t->ops[last - 1].kind == TMPL_ANY)
		last--;
	if (first == last)
		return CD_EFORMAT;
	for (i = first; i < last && !rc; i++) {
		const struct tmpl_op *o = &t->ops[i];
		int edge = i == first || i == last - 1;
		switch (o->kind) {
		case TMPL_LIT: rc = put_lit(out, o->lit, o->len); break;
		case TMPL_WS: rc = buf_puts(out, edge ? "[ \\t]" : "[ \\t]+"); break;
		case TMPL_CLASS:
			rc = buf_puts(out, class_regex[o->cls]);
			if (!rc && o->lib)
				rc = buf_puts(out, "*\\.(so(\\.[0-9]+)*|dll|dylib)");
			else if (!rc && !edge)
				rc = buf_putc(out, '+');
			break;
		case TMPL_ANY: rc = buf_puts(out, "[^\\r\\n]*"); break;
		case TMPL_BOL: rc = buf_putc(out, '^'); break;
		case TMPL_EOL: rc = buf_putc(out, '$'); break;
		case TMPL_SIZE:
			rc = buf_puts(out, i == first ? "[0-9.] ?[KMGTPE]?i?B"
						      : "[0-9.]+ ?[KMGTPE]?i?B");
			break;
		default: rc = CD_EINTERNAL;
		}
	}
	return rc;
}

/* Words of the benign lines ordinary training output prints by the
 * thousand: torch's "torch.utils.checkpoint: the use_reentrant parameter
 * should be passed explicitly" warning (torch/utils/checkpoint.py, at every
 * step of a checkpointed model), transformers' "Loading checkpoint shards",
 * "warning" as a log level, and the plain words named below. A literal that
 * is one of them anchors a template only when it has no other literal of 6
 * bytes or more: every line that has the word would cost a confirmation. */
static const char *const common_words[] = {"warning",	"checkpoint", "should",
					   "parameter", "available",  NULL};

static int is_common(const struct tmpl_op *o)
{
	size_t i;

	for (i = 0; common_words[i]; i++)
		if (o->len == strlen(common_words[i]) &&
		    !strncasecmp(o->lit, common_words[i], o->len))
			return 1;
	return 0;
}

/* The op the database anchors the template on: the longest literal, but a
 * literal with anything besides letters ("Error:", "/tuple:", "sm_",
 * "libcudart.so") counts 4 bytes more: plain words ("parameter", "available",
 * and "Pytorch" too, which a caseless match finds in every path) also turn up
 * in ordinary training output, and every false anchor costs a confirmation;
 * a common word (above) only when no other literal has 6 bytes. Case counts
 * only for a template that matches case. NULL when the template has no
 * literal. */
static const struct tmpl_op *anchor_of(const struct tmpl *t, size_t *at)
{
	const struct tmpl_op *best = NULL;
	size_t i, best_score = 0;
	int other = 0; /* a literal of 6 bytes or more that is no common word */

	for (i = 0; i < t->n_ops; i++)
		other |= t->ops[i].kind == TMPL_LIT && t->ops[i].len >= 6 && !is_common(&t->ops[i]);
	for (i = 0; i < t->n_ops; i++) {
		const struct tmpl_op *o = &t->ops[i];
		size_t j, score;
		if (o->kind != TMPL_LIT || (other && is_common(o)))
			continue;
		score = o->len;
		for (j = 0; j < o->len; j++) {
			unsigned char c = (unsigned char)o->lit[j];
			if ((c < 'a' || c > 'z') && (t->caseless ? c < 'A' || c > 'Z' : 1)) {
				score += 4;
				break;
			}
		}
		if (!best || score > best_score) {
			best = o;
			best_score = score;
			*at = i;
		}
	}
	return best;
}

int tmpl_anchor_regex(const struct tmpl *t, struct cd_buf *out)
{
	const struct tmpl_op *o = &t->ops[t->anchor_op];

	if (t->anchor_op >= t->n_ops || o->kind != TMPL_LIT)
		return CD_EFORMAT;
	return put_lit(out, o->lit, o->len);
}

int tmpl_set_anchor(struct tmpl *t, size_t op)
{
	if (op >= t->n_ops || t->ops[op].kind != TMPL_LIT)
		return CD_EFORMAT;
	t->anchor_op = op;
	t->anchor_prefix = anchor_prefix(t);
	return 0;
}

int tmpl_run_regex(const struct tmpl *t, struct cd_buf *out)
{
	size_t at = 0, end = 0, i;
	int rc = 0;

	if (!run_of(t, &at, &end))
		return CD_EFORMAT;
	for (i = at; i <= end && !rc; i++)
		rc = t->ops[i].kind == TMPL_LIT ? put_lit(out, t->ops[i].lit, t->ops[i].len)
						: buf_puts(out, "[ \\t]+");
	return rc;
}
