/* shcmd: see shcmd.h. A reader, not a shell: $(...) and `...` stay inside
 * their word as written, and nothing is expanded. */
#include "format/shcmd.h"

#include <stdint.h>
#include <string.h>

#include "core/buf.h"

struct sp {
	const char *s;
	size_t n, pos;
	struct cd_arena *a;
	struct sh_script *out;
	size_t cap;
	int depth;
	struct cd_err *err;
	const char *words[SHCMD_WORDS_MAX];
	size_t quote[SHCMD_WORDS_MAX]; /* where the word's first quote was, SIZE_MAX: none */
	size_t nw;
	size_t start;
	char after; /* the operator before the command being read */
};

static int split(struct sp *p);

/* strchr(set, c) without the NUL of set matching a NUL byte of the input. */
static int in_set(const char *set, char c)
{
	return c && strchr(set, c);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int is_op(char c)
{
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '\n' || c == '<' ||
	       c == '>';
}

static int add_cmd(struct sp *p, struct sh_cmd *c)
{
	struct sh_script *o = p->out;

	if (o->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 16;
		struct sh_cmd *ncmds;
		if (p->cap >= SHCMD_MAX)
			return err_set(p->err, CD_ERANGE, "more than %d shell commands", SHCMD_MAX);
		ncmds = arena_calloc(p->a, nc, sizeof(*ncmds));
		if (!ncmds)
			return err_set(p->err, CD_ENOMEM, "out of memory");
		if (o->n)
			memcpy(ncmds, o->cmds, o->n * sizeof(*ncmds));
		o->cmds = ncmds;
		p->cap = nc;
	}
	o->cmds[o->n++] = *c;
	return 0;
}

static int is_assignment(const char *w, size_t quote)
{
	size_t i = 0;

	if (!((w[0] >= 'A' && w[0] <= 'Z') || (w[0] >= 'a' && w[0] <= 'z') || w[0] == '_'))
		return 0;
	while ((w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= 'a' && w[i] <= 'z') ||
	       (w[i] >= '0' && w[i] <= '9') || w[i] == '_')
		i++;
	return w[i] == '=' && quote > i;
}

static int keyword(const char *w)
{
	static const char *const kw[] = {"if",	  "then",  "else", "elif", "fi", "do",	 "done",
					 "while", "until", "!",	   "{",	   "}",	 "time", "esac"};
	size_t i;

	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (!strcmp(w, kw[i]))
			return 1;
	return 0;
}

static const char *base_name(const char *w)
{
	const char *s = strrchr(w, '/');

	return s ? s + 1 : w;
}

/* sh -c SCRIPT, bash -ex -c SCRIPT, bash -exc SCRIPT: the script, or NULL. */
static const char *shell_script(const struct sh_cmd *c)
{
	const char *b = base_name(c->argv[0]);
	size_t i;

	if (strcmp(b, "sh") && strcmp(b, "bash") && strcmp(b, "dash") && strcmp(b, "zsh"))
		return NULL;
	for (i = 1; i + 1 < c->argc; i++) {
		if (!strcmp(c->argv[i], "-o") || !strcmp(c->argv[i], "+o")) {
			i++; /* -o pipefail */
			continue;
		}
		if (c->argv[i][0] != '-')
			return NULL;
		if (strchr(c->argv[i] + 1, 'c') && c->argv[i][1] != '-')
			return c->argv[i + 1];
	}
	return NULL;
}

static int emit(struct sp *p)
{
	struct sh_cmd c;
	size_t i = 0, k;
	const char *script;
	int rc;

	memset(&c, 0, sizeof(c));
	while (i < p->nw && p->quote[i] == SIZE_MAX && keyword(p->words[i]))
		i++;
	if (i < p->nw && p->quote[i] == SIZE_MAX &&
	    (!strcmp(p->words[i], "for") || !strcmp(p->words[i], "case") ||
	     !strcmp(p->words[i], "select") || !strcmp(p->words[i], "function")))
		i = p->nw; /* loop and case headers run nothing */
	for (k = i; k < p->nw && is_assignment(p->words[k], p->quote[k]); k++)
		;
	if (k > i) {
		c.n_assign = k - i;
		c.assign = arena_calloc(p->a, k - i, sizeof(*c.assign));
		if (!c.assign)
			return err_set(p->err, CD_ENOMEM, "out of memory");
		memcpy(c.assign, p->words + i, (k - i) * sizeof(*c.assign));
	}
	c.argc = p->nw - k;
	c.offset = p->start;
	c.nested = p->depth > 0;
	c.after = p->after;
	p->nw = 0;
	if (!c.argc && !c.n_assign)
		return 0;
	if (c.argc) {
		c.argv = arena_calloc(p->a, c.argc, sizeof(*c.argv));
		if (!c.argv)
			return err_set(p->err, CD_ENOMEM, "out of memory");
		memcpy(c.argv, p->words + k, c.argc * sizeof(*c.argv));
	}
	if ((rc = add_cmd(p, &c)))
		return rc;
	if (c.argc && (script = shell_script(&c)) && p->depth < SHCMD_DEPTH) {
		struct sp q = *p;
		q.s = script;
		q.n = strlen(script);
		q.pos = 0;
		q.depth = p->depth + 1;
		q.nw = 0;
		if ((rc = split(&q)))
			return rc;
		p->cap = q.cap;
	}
	return 0;
}

/* $( ... ) or ` ... ` copied as written, nesting counted; p->pos is at the
 * '(' or the opening '`'. */
static int copy_subst(struct sp *p, struct cd_buf *w)
{
	int depth = 0, tick = p->s[p->pos] == '`';

	if (tick && buf_putc(w, p->s[p->pos++]))
		return CD_ENOMEM;
	while (p->pos < p->n) {
		char c = p->s[p->pos++];
		if (buf_putc(w, c))
			return CD_ENOMEM;
		if (c == '\\' && p->pos < p->n) {
			if (buf_putc(w, p->s[p->pos++]))
				return CD_ENOMEM;
		} else if (tick && c == '`') {
			return 0;
		} else if (!tick && c == '(') {
			depth++;
		} else if (!tick && c == ')' && --depth == 0) {
			return 0;
		}
	}
	return 0;
}

/* One word at p->pos into w; *quote gets the offset of its first quote
 * (SIZE_MAX when it has none): "A=\"x y\"" still assigns, "'A=1'" does not. */
static int word(struct sp *p, struct cd_buf *w, size_t *quote)
{
	*quote = SIZE_MAX;
	while (p->pos < p->n) {
		char c = p->s[p->pos];
		if (is_blank(c) || is_op(c))
			break;
		if (c == '\\') {
			p->pos++;
			if (p->pos < p->n && p->s[p->pos] != '\n' && buf_putc(w, p->s[p->pos]))
				return CD_ENOMEM;
			p->pos++;
		} else if (c == '\'') {
			const char *e = memchr(p->s + p->pos + 1, '\'', p->n - p->pos - 1);
			size_t end = e ? (size_t)(e - p->s) : p->n;
			if (*quote == SIZE_MAX)
				*quote = w->len;
			if (buf_append(w, p->s + p->pos + 1, end - p->pos - 1))
				return CD_ENOMEM;
			p->pos = end < p->n ? end + 1 : p->n;
		} else if (c == '"') {
			if (*quote == SIZE_MAX)
				*quote = w->len;
			for (p->pos++; p->pos < p->n && p->s[p->pos] != '"'; p->pos++) {
				char d = p->s[p->pos];
				if (d == '\\' && p->pos + 1 < p->n &&
				    in_set("\"\\$`\n", p->s[p->pos + 1])) {
					d = p->s[++p->pos];
					if (d == '\n')
						continue; /* a line continuation */
				}
				if (buf_putc(w, d))
					return CD_ENOMEM;
			}
			p->pos++;
		} else if ((c == '$' && p->pos + 1 < p->n && p->s[p->pos + 1] == '(') || c == '`') {
			if (c == '$' && buf_putc(w, p->s[p->pos++]))
				return CD_ENOMEM;
			if (copy_subst(p, w))
				return CD_ENOMEM;
		} else {
			if (buf_putc(w, c))
				return CD_ENOMEM;
			p->pos++;
		}
	}
	return 0;
}

static int push_word(struct sp *p, struct cd_buf *w, size_t quote)
{
	if (p->nw == SHCMD_WORDS_MAX)
		return 0; /* the rest of a very long command is not read */
	if (!p->nw)
		p->start = p->pos;
	p->words[p->nw] = arena_strndup(p->a, w->p ? w->p : "", w->len);
	if (!p->words[p->nw])
		return err_set(p->err, CD_ENOMEM, "out of memory");
	p->quote[p->nw++] = quote;
	return 0;
}

/* A redirection: the operator and its target are dropped; an fd number just
 * before it ("2>") was pushed as a word and is taken back. */
static void redirection(struct sp *p, int glued_digits)
{
	struct cd_buf t;
	size_t quote;

	if (glued_digits && p->nw)
		p->nw--;
	while (p->pos < p->n && in_set("<>&|-", p->s[p->pos]))
		p->pos++;
	while (p->pos < p->n && is_blank(p->s[p->pos]))
		p->pos++;
	buf_init(&t, SHCMD_INPUT_MAX);
	word(p, &t, &quote);
	buf_free(&t);
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int split(struct sp *p)
{
	struct cd_buf w;
	size_t quote;
	int rc = 0, glued = 0;

	buf_init(&w, SHCMD_INPUT_MAX);
	while (!rc && p->pos < p->n) {
		char c = p->s[p->pos];
		if (is_blank(c)) {
			p->pos++;
			glued = 0;
			continue;
		}
		if (c == '\\' && p->pos + 1 < p->n && p->s[p->pos + 1] == '\n') {
			p->pos += 2;
			continue;
		}
		if (c == '#') {
			while (p->pos < p->n && p->s[p->pos] != '\n')
				p->pos++;
			continue;
		}
		if (c == '<' || c == '>' ||
		    (c == '&' && p->pos + 1 < p->n && p->s[p->pos + 1] == '>')) {
			redirection(p, glued && p->nw && all_digits(p->words[p->nw - 1]));
			glued = 0;
			continue;
		}
		if (is_op(c)) {
			char next = p->pos + 1 < p->n ? p->s[p->pos + 1] : 0;
			p->pos++;
			rc = emit(p);
			if ((c == '&' || c == '|') && next == c) {
				p->pos++;
				p->after = c; /* && or || */
			} else if (c == '|') {
				p->after = 'p';
			} else if (c != '(' && c != ')') {
				p->after = ';';
			}
			glued = 0;
			continue;
		}
		buf_reset(&w);
		if ((rc = word(p, &w, &quote))) {
			rc = err_set(p->err, rc, "a shell word is over %u bytes", SHCMD_INPUT_MAX);
			break;
		}
		rc = push_word(p, &w, quote);
		glued = 1;
	}
	if (!rc)
		rc = emit(p);
	buf_free(&w);
	return rc;
}

int shcmd_split(const char *s, size_t n, struct cd_arena *a, struct sh_script *out,
		struct cd_err *err)
{
	struct sp p;

	memset(out, 0, sizeof(*out));
	if (n > SHCMD_INPUT_MAX)
		return err_set(err, CD_ERANGE, "a shell script over %u bytes", SHCMD_INPUT_MAX);
	memset(&p, 0, sizeof(p));
	p.s = s;
	p.n = n;
	p.a = a;
	p.out = out;
	p.err = err;
	return split(&p);
}
