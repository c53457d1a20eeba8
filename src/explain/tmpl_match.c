/* tmpl_match: the matcher of compiled templates (see tmpl.h): a
 * backtracking walk over at most TMPL_OPS_MAX ops, recursion bounded by the
 * op count and work by TMPL_STEPS_MAX, so a hostile line costs bounded time;
 * and the byte count of a size a template captured. It accepts exactly the
 * lines that the Vectorscan expression of tmpl_regex matches. */
#include "explain/tmpl.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

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

/* The end of a shared library's file name: ".so", ".so" and numbers
 * (".so.12", ".so.9.1.0"), ".dll" or ".dylib", after at least one byte. */
static int lib_tail(const uint8_t *p, size_t n)
{
	size_t e = n;

	while (e > 0 && isdigit(p[e - 1])) { /* strip ".N" groups */
		size_t d = e;
		while (d > 0 && isdigit(p[d - 1]))
			d--;
		if (d == 0 || p[d - 1] != '.')
			break;
		e = d - 1;
	}
	if (e > 3 && !strncasecmp((const char *)p + e - 3, ".so", 3))
		return 1;
	return e == n && ((n > 4 && !strncasecmp((const char *)p + n - 4, ".dll", 4)) ||
			  (n > 6 && !strncasecmp((const char *)p + n - 6, ".dylib", 6)));
}

/* A library's name ends its word: what follows is no word byte, or a full
 * stop that ends a sentence ("... libcuda.so.1."). */
static int lib_end(const uint8_t *p, size_t n)
{
	if (!n || !(isalnum(p[0]) || (p[0] && strchr("_.+-", p[0]))))
		return 1;
	return p[0] == '.' && (n == 1 || !isalnum(p[1]));
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
		if (o->lib &&
		    (!lib_tail(s->p + pos, j) || !lib_end(s->p + pos + j, s->n - pos - j)))
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
