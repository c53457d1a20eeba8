/* buildinfo: see buildinfo.h. A small scanner of Python literals: quoted
 * strings ('...' or "...", backslash escapes skipped, no triple quotes
 * needed: build_info.py has none), identifiers, and the punctuation ':' '='
 * '[' ']' ','. A key is a string followed by ':' or an identifier followed by
 * '='; the value that follows is recorded when it is of a kind we keep. */
#include "format/buildinfo.h"

#include <string.h>

#include "core/err.h"

struct scan {
	const uint8_t *p;
	size_t n, off;
};

enum tok { T_END = 0, T_STR, T_ID, T_PUNCT, T_OTHER };

struct token {
	enum tok kind;
	const uint8_t *s; /* STR: inside the quotes; ID: the name */
	size_t len;
	char c; /* PUNCT */
};

static int is_id(uint8_t c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static void skip_space(struct scan *s)
{
	while (s->off < s->n) {
		uint8_t c = s->p[s->off];
		if (c == '#') {
			while (s->off < s->n && s->p[s->off] != '\n')
				s->off++;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
			s->off++;
		} else {
			break;
		}
	}
}

static void next(struct scan *s, struct token *t)
{
	uint8_t c, q;

	skip_space(s);
	memset(t, 0, sizeof(*t));
	if (s->off >= s->n)
		return;
	c = s->p[s->off];
	if (c == '\'' || c == '"') {
		q = c;
		t->kind = T_STR;
		t->s = s->p + ++s->off;
		while (s->off < s->n && s->p[s->off] != q && s->p[s->off] != '\n')
			s->off += s->p[s->off] == '\\' && s->off + 1 < s->n ? 2 : 1;
		if (s->off > s->n)
			s->off = s->n;
		t->len = (size_t)(s->p + s->off - t->s);
		if (s->off < s->n && s->p[s->off] == q)
			s->off++;
		else
			t->kind = T_OTHER; /* unterminated */
		return;
	}
	if (is_id(c, 1)) {
		t->kind = T_ID;
		t->s = s->p + s->off;
		while (s->off < s->n && is_id(s->p[s->off], 0))
			s->off++;
		t->len = (size_t)(s->p + s->off - t->s);
		return;
	}
	s->off++;
	t->kind = strchr(":=[],{}()", c) && c ? T_PUNCT : T_OTHER;
	t->c = (char)c;
}

static int tok_is(const struct token *t, const char *word)
{
	size_t n = strlen(word);

	return (t->kind == T_ID || t->kind == T_STR) && t->len == n && !memcmp(t->s, word, n);
}

static const char *copy(struct cd_arena *a, const struct token *t)
{
	size_t n = t->len < BUILDINFO_VALUE_MAX ? t->len : BUILDINFO_VALUE_MAX;
	size_t i;

	for (i = 0; i < n; i++)
		if (t->s[i] == 0)
			return NULL;
	return arena_strndup(a, (const char *)t->s, n);
}

static void set_str(struct cd_arena *a, const char **slot, const struct token *v, int weak)
{
	if (v->kind != T_STR || (weak && *slot))
		return;
	*slot = copy(a, v);
}

static void caps_list(struct scan *s, struct cd_arena *a, struct buildinfo *out)
{
	struct token t;

	for (;;) {
		next(s, &t);
		if (t.kind == T_END || (t.kind == T_PUNCT && t.c == ']'))
			return;
		if (t.kind == T_STR && out->n_caps < BUILDINFO_CAPS_MAX) {
			const char *c = copy(a, &t);
			if (c)
				out->caps[out->n_caps++] = c;
		} else if (t.kind != T_PUNCT || t.c != ',') {
			return;
		}
	}
}

static int flag(const struct token *v)
{
	return tok_is(v, "True") ? 1 : tok_is(v, "False") ? 0 : -1;
}

/* key and its value token v (already read); found is set when a value of
 * a kept key was stored. */
static void take(struct scan *s, struct cd_arena *a, const struct token *key, const struct token *v,
		 struct buildinfo *out)
{
	const char **slot = NULL;
	int weak = 0;
	size_t before = out->n_caps;

	if (tok_is(key, "cuda_version") || (weak = tok_is(key, "cuda_version_number")))
		slot = &out->cuda_version;
	else if (tok_is(key, "cudnn_version") || (weak = tok_is(key, "cudnn_version_number")))
		slot = &out->cudnn_version;
	if (slot) {
		set_str(a, slot, v, weak);
		out->found |= *slot != NULL;
	} else if (tok_is(key, "is_cuda_build") && flag(v) >= 0) {
		out->is_cuda_build = flag(v);
		out->found = 1;
	} else if (tok_is(key, "is_rocm_build") && flag(v) >= 0) {
		out->is_rocm_build = flag(v);
		out->found = 1;
	} else if (tok_is(key, "cuda_compute_capabilities") && v->kind == T_PUNCT && v->c == '[') {
		caps_list(s, a, out);
		out->found |= out->n_caps > before;
	}
}

int buildinfo_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct buildinfo *out)
{
	struct scan s = {p, n > BUILDINFO_INPUT_MAX ? BUILDINFO_INPUT_MAX : n, 0};
	struct token prev, t, v;

	memset(out, 0, sizeof(*out));
	out->is_cuda_build = out->is_rocm_build = -1;
	memset(&prev, 0, sizeof(prev));
	for (next(&s, &t); t.kind != T_END; prev = t, next(&s, &t)) {
		int dict_key = prev.kind == T_STR && t.kind == T_PUNCT && t.c == ':';
		int assign = prev.kind == T_ID && t.kind == T_PUNCT && t.c == '=';
		if (!dict_key && !assign)
			continue;
		next(&s, &v);
		take(&s, a, &prev, &v, out);
		t = v;
	}
	return out->found ? 0 : CD_EFORMAT;
}
