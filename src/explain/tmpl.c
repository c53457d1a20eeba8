/* tmpl: see tmpl.h. The matcher is a backtracking walk over at most
 * TMPL_OPS_MAX ops (recursion depth is bounded by the op count, not by the
 * line) with a step budget, so a hostile line costs bounded time. */
#include "explain/tmpl.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

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

static int in_class_raw(unsigned cls, unsigned char c)
{
	switch (cls) {
	case TMPL_C_WORD: return isalnum(c) || c == '_' || c == '.' || c == '+' || c == '-';
	case TMPL_C_FILE:
		return isalnum(c) || c == '_' || c == '.' || c == '+' || c == '-' || c == '/';
	case TMPL_C_PATH: return !c || !strchr(" \t\r\n'\"`:;,()[]<>{}", c);
	case TMPL_C_SYMBOL: return isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@';
	case TMPL_C_VER: return isdigit(c) || c == '.';
	case TMPL_C_INT: return isdigit(c);
	case TMPL_C_HEX: return isxdigit(c) || c == 'x';
	case TMPL_C_QUOTED: return c != '\r' && c != '\n' && c != '\'' && c != '"' && c != '`';
	default: return c != '\r' && c != '\n';
	}
}

/* NUL is a byte like any other in a log line (strchr above would find the
 * terminator, hence the explicit test there). Vectorscan's caseless
 * mode folds ASCII letters only, and so does this. */
static int in_class(unsigned cls, unsigned char c, int caseless)
{
	if (in_class_raw(cls, c))
		return 1;
	if (!caseless || !isalpha(c))
		return 0;
	return in_class_raw(cls, (unsigned char)tolower(c)) ||
	       in_class_raw(cls, (unsigned char)toupper(c));
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

/* Bytes a line needs before the anchor for the template to start on it:
 * the literals before the anchor, one byte for each blank or class. */
static size_t anchor_prefix(const struct tmpl *t)
{
	size_t at = 0, i, k = 0;

	if (!anchor_of(t, &at))
		return 0;
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
	if (!rc)
		t->anchor_prefix = anchor_prefix(t);
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
			if (!rc && !edge)
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

/* The op the database anchors the template on: the longest literal, but a
 * literal with anything besides letters ("Error:", "/tuple:", "sm_",
 * "libcudart.so") counts 4 bytes more: plain words ("parameter", "available",
 * and "Pytorch" too, which a caseless match finds in every path) also turn up
 * in ordinary training output, and every false anchor costs a confirmation.
 * Case counts only for a template that matches case. NULL when the template
 * has no literal. */
static const struct tmpl_op *anchor_of(const struct tmpl *t, size_t *at)
{
	const struct tmpl_op *best = NULL;
	size_t i, best_score = 0;

	for (i = 0; i < t->n_ops; i++) {
		const struct tmpl_op *o = &t->ops[i];
		size_t j, score;
		if (o->kind != TMPL_LIT)
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
	size_t at = 0;
	const struct tmpl_op *best = anchor_of(t, &at);

	if (!best)
		return CD_EFORMAT;
	return put_lit(out, best->lit, best->len);
}

/* ---- matcher ------------------------------------------------------------ */

struct mstate {
	const struct tmpl *t;
	const uint8_t *p;
	size_t n;
	size_t steps;
	struct tmpl_cap *caps;
	size_t end;	 /* where the last op ended, on a match */
	int reached_end; /* an attempt ran out of input with ops left */
};

static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t';
}

/* A template blank: blanks, or one line break with the blanks around it
 * (a message wrapped by a terminal or a logger). Inside one line only the
 * first form can occur, so a line matches exactly as the regex says. */
static size_t ws_len(const uint8_t *p, size_t n)
{
	size_t k = 0;

	while (k < n && is_blank(p[k]))
		k++;
	if (k < n && (p[k] == '\r' || p[k] == '\n')) {
		k += (p[k] == '\r' && k + 1 < n && p[k + 1] == '\n') ? 2 : 1;
		while (k < n && is_blank(p[k]))
			k++;
	}
	return k;
}

/* ASCII case folding by table: the matcher's inner loops call it per byte,
 * and tolower() is a function call into the locale. */
static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c | 0x20) : c;
}

static int eqc(unsigned char a, unsigned char b, int caseless)
{
	return a == b || (caseless && fold(a) == fold(b));
}

static int lit_at(const struct tmpl_op *o, const uint8_t *p, size_t n, size_t pos, int caseless)
{
	size_t i;

	if (o->len > n - pos)
		return 0;
	if (!caseless)
		return !memcmp(p + pos, o->lit, o->len);
	for (i = 0; i < o->len; i++)
		if (fold(p[pos + i]) != fold((unsigned char)o->lit[i]))
			return 0;
	return 1;
}

/* Length of a size at p ("20.00 MiB"), 0 if none. Deterministic: a shorter
 * digit run or a skipped optional part can never let 'B' follow. */
static size_t size_len(const uint8_t *p, size_t n, int caseless)
{
	size_t i = 0;

	while (i < n && (isdigit(p[i]) || p[i] == '.'))
		i++;
	if (!i)
		return 0;
	if (i < n && p[i] == ' ')
		i++;
	if (i < n && strchr("KMGTPE", caseless ? toupper(p[i]) : p[i]) && p[i])
		i++;
	if (i < n && eqc(p[i], 'i', caseless))
		i++;
	if (i < n && eqc(p[i], 'B', caseless))
		return i + 1;
	return 0;
}

static int could_start(const struct tmpl *t, size_t op, unsigned char c)
{
	const struct tmpl_op *o;

	if (op >= t->n_ops)
		return 1;
	o = &t->ops[op];
	switch (o->kind) {
	case TMPL_LIT: return eqc(c, (unsigned char)o->lit[0], t->caseless);
	case TMPL_WS: return is_blank(c) || c == '\r' || c == '\n';
	case TMPL_CLASS: return in_class(o->cls, c, t->caseless);
	case TMPL_SIZE: return isdigit(c) || c == '.';
	default: return 1;
	}
}

static void set_cap(struct mstate *s, const struct tmpl_op *o, size_t off, size_t len)
{
	if (o->cap < 0)
		return;
	if (o->cont) { /* the literal prefix set off; extend it over this op */
		s->caps[o->cap].len = off + len - s->caps[o->cap].off;
		return;
	}
	s->caps[o->cap].off = off;
	s->caps[o->cap].len = len;
}

static size_t run_len(const struct tmpl *t, const struct tmpl_op *o, const uint8_t *p, size_t n)
{
	size_t k = 0;

	if (o->kind == TMPL_WS)
		k = ws_len(p, n);
	else if (o->kind == TMPL_ANY)
		while (k < n && p[k] != '\r' && p[k] != '\n')
			k++;
	else
		while (k < n && in_class(o->cls, p[k], t->caseless))
			k++;
	return k;
}

static int m(struct mstate *s, size_t op, size_t pos)
{
	const struct tmpl *t = s->t;
	const struct tmpl_op *o;
	size_t k, j, min;

	if (++s->steps > TMPL_STEPS_MAX)
		return -1;
	if (op == t->n_ops) {
		s->end = pos;
		return 1;
	}
	if (pos >= s->n)
		s->reached_end = 1;
	o = &t->ops[op];
	if (o->kind == TMPL_LIT) {
		if (!lit_at(o, s->p, s->n, pos, t->caseless))
			return 0;
		set_cap(s, o, pos, o->len);
		return m(s, op + 1, pos + o->len);
	}
	if (o->kind == TMPL_BOL) /* at the window's start, or after a line break */
		return pos == 0 || s->p[pos - 1] == '\n' || s->p[pos - 1] == '\r'
			       ? m(s, op + 1, pos)
			       : 0;
	if (o->kind == TMPL_EOL)
		return pos == s->n || s->p[pos] == '\n' || s->p[pos] == '\r' ? m(s, op + 1, pos)
									     : 0;
	if (o->kind == TMPL_SIZE) {
		k = size_len(s->p + pos, s->n - pos, t->caseless);
		if (!k)
			return 0;
		set_cap(s, o, pos, k);
		return m(s, op + 1, pos + k);
	}
	k = run_len(t, o, s->p + pos, s->n - pos);
	min = o->kind == TMPL_ANY ? 0 : 1;
	for (j = k + 1; j-- > min;) {
		int r;
		if (pos + j < s->n && !could_start(t, op + 1, s->p[pos + j]) &&
		    t->ops[op + 1].kind != TMPL_ANY)
			continue;
		set_cap(s, o, pos, j);
		r = m(s, op + 1, pos + j);
		if (r)
			return r;
	}
	return 0;
}

static const uint8_t *find_lit(const struct tmpl_op *o, const uint8_t *p, size_t n, size_t from,
			       int caseless)
{
	size_t i;

	unsigned char lo, up;

	if (!caseless)
		return from <= n ? memmem(p + from, n - from, o->lit, o->len) : NULL;
	if (o->len > n)
		return NULL;
	/* the first byte in either case by memchr (a letter: the two cases are
	 * looked for in turn, the nearer wins), then the rest folded */
	lo = fold((unsigned char)o->lit[0]);
	up = lo >= 'a' && lo <= 'z' ? (unsigned char)(lo - 0x20) : lo;
	for (i = from; i + o->len <= n;) {
		const uint8_t *a = memchr(p + i, lo, n - o->len + 1 - i), *b = NULL;
		if (up != lo)
			b = memchr(p + i, up, (size_t)((a ? a : p + n - o->len + 1) - (p + i)));
		if (b)
			a = b;
		if (!a)
			return NULL;
		i = (size_t)(a - p);
		if (lit_at(o, p, n, i, 1))
			return a;
		i++;
	}
	return NULL;
}

/* Where a match can start: at each occurrence of a leading literal; for a
 * leading class followed by a literal, at the start of the class run before
 * each occurrence of that literal (walked back at most 4 KiB: a match that
 * starts further back also starts there); else anywhere its first op fits. */

static int match_ops(struct mstate *s, size_t *start, size_t *end)
{
	const struct tmpl *t = s->t;
	const uint8_t *p = s->p;
	size_t n = s->n;
	struct tmpl_cap *caps = s->caps;
	const struct tmpl_op *o0 = &t->ops[0];
	const uint8_t *q;
	size_t i, from = 0;
	int r;

	for (i = 0; i < TMPL_CAPS_MAX; i++) {
		caps[i].off = SIZE_MAX;
		caps[i].len = 0;
	}
	if (!t->n_ops)
		return 0;
	if (o0->kind == TMPL_LIT) {
		while ((q = find_lit(o0, p, n, from, t->caseless))) {
			r = m(s, 0, (size_t)(q - p));
			if (r > 0) {
				*start = (size_t)(q - p);
				*end = s->end;
			}
			if (r)
				return r;
			from = (size_t)(q - p) + 1;
		}
		return 0;
	}
	if (o0->kind == TMPL_CLASS && t->n_ops > 1 && t->ops[1].kind == TMPL_LIT) {
		while ((q = find_lit(&t->ops[1], p, n, from, t->caseless))) {
			size_t at = (size_t)(q - p), st = at, lim = at > 4096 ? at - 4096 : 0;
			while (st > lim && in_class(o0->cls, p[st - 1], t->caseless))
				st--;
			if (st < at && (r = m(s, 0, st)) != 0) {
				*start = st;
				*end = s->end;
				return r;
			}
			from = at + 1;
			if (s->steps > TMPL_STEPS_MAX)
				return -1;
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!could_start(t, 0, p[i]))
			continue;
		r = m(s, 0, i);
		if (r > 0) {
			*start = i;
			*end = s->end;
		}
		if (r)
			return r;
	}
	return 0;
}

static int match_raw(const struct tmpl *t, const uint8_t *p, size_t n, struct tmpl_cap *caps,
		     size_t *start, size_t *end, int *reached_end)
{
	struct mstate s = {t, p, n, 0, caps, 0, 0};
	int r = match_ops(&s, start, end);

	*reached_end = s.reached_end;
	return r;
}

/* A version at the end of a sentence ("capability 6.0.") keeps its digits
 * only: a trailing dot is never part of a version. */
int tmpl_match(const struct tmpl *t, const uint8_t *p, size_t n, struct tmpl_cap *caps)
{
	size_t start, end;
	int at_end;

	return tmpl_match_span(t, p, n, caps, &start, &end, &at_end);
}

int tmpl_match_span(const struct tmpl *t, const uint8_t *p, size_t n, struct tmpl_cap *caps,
		    size_t *start, size_t *end, int *at_end)
{
	int r = match_raw(t, p, n, caps, start, end, at_end);
	size_t i;

	if (r <= 0)
		return r;
	for (i = 0; i < t->n_ops; i++) {
		const struct tmpl_op *o = &t->ops[i];
		struct tmpl_cap *c;

		if (o->cap < 0 || o->kind != TMPL_CLASS || o->cls != TMPL_C_VER)
			continue;
		c = &caps[o->cap];
		while (c->off != SIZE_MAX && c->len > 1 && p[c->off + c->len - 1] == '.')
			c->len--;
	}
	return r;
}

int64_t tmpl_size_bytes(const char *s, size_t n)
{
	double v = 0, scale = 1, frac = 0.1;
	size_t i = 0;
	int seen = 0, dot = 0;
	const char *units = "KMGTPE";

	for (; i < n && (isdigit((unsigned char)s[i]) || s[i] == '.'); i++) {
		if (s[i] == '.') {
			if (dot++)
				return -1;
			continue;
		}
		seen = 1;
		if (!dot)
			v = v * 10 + (s[i] - '0');
		else {
			v += (s[i] - '0') * frac;
			frac /= 10;
		}
		if (v > 1e19)
			return -1;
	}
	if (!seen)
		return -1;
	if (i < n && s[i] == ' ')
		i++;
	if (i < n && s[i] && strchr(units, toupper((unsigned char)s[i]))) {
		int k = (int)(strchr(units, toupper((unsigned char)s[i])) - units) + 1;
		int bin = i + 1 < n && (s[i + 1] == 'i' || s[i + 1] == 'I');
		scale = pow(bin ? 1024.0 : 1000.0, k);
	}
	v *= scale;
	if (!(v < 9.2e18))
		return -1;
	return (int64_t)(v + 0.5);
}
