/* dockerfile: see dockerfile.h. Line handling follows BuildKit's
 * parser.go Parse(): directives only before the first other line; a line
 * ending in the escape character (then blanks) continues on the next; comment
 * and blank lines inside a continuation are skipped; continuation pieces are
 * joined as they are (no separator), leading blanks of the first line
 * dropped. Heredoc bodies follow the instruction line that names them, in
 * order, up to a line equal to the name (leading tabs ignored for <<-). */
#include "format/dockerfile.h"

#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/str.h"
#include "format/dfignore.h"
#include "format/dfword.h"
#include "format/jscan.h"

struct cursor {
	const char *p;
	size_t n, pos;
	unsigned line; /* lines consumed */
};

struct parser {
	struct cd_arena *a;
	struct df_file *f;
	struct cursor c;
	const char **pending; /* ignore ids waiting for the next instruction */
	size_t n_pending;
	struct cd_err *err;
};

static const struct {
	const char *name;
	enum df_cmd cmd;
} cmds[] = {
	{"from", DF_FROM},
	{"arg", DF_ARG},
	{"env", DF_ENV},
	{"run", DF_RUN},
	{"copy", DF_COPY},
	{"add", DF_ADD},
	{"label", DF_LABEL},
	{"workdir", DF_WORKDIR},
	{"user", DF_USER},
	{"cmd", DF_CMD},
	{"entrypoint", DF_ENTRYPOINT},
	{"shell", DF_SHELL},
	{"onbuild", DF_ONBUILD},
	{"expose", DF_EXPOSE},
	{"volume", DF_VOLUME},
	{"healthcheck", DF_HEALTHCHECK},
	{"stopsignal", DF_STOPSIGNAL},
	{"maintainer", DF_MAINTAINER},
};

const char *dockerfile_cmd_name(enum df_cmd c)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].cmd == c)
			return cmds[i].name;
	return "unknown";
}

static void diag(struct parser *ps, unsigned line, const char *msg)
{
	struct df_file *f = ps->f;

	if (f->n_diags < DF_DIAG_MAX) {
		f->diags[f->n_diags].line = line;
		f->diags[f->n_diags].msg = msg;
		f->n_diags++;
	}
}

/* The next line [*s, *e) without its "\n" (and a "\r" before it); 0 at the end. */
static int next_line(struct cursor *c, size_t *s, size_t *e)
{
	const char *nl;

	if (c->pos >= c->n)
		return 0;
	*s = c->pos;
	nl = memchr(c->p + c->pos, '\n', c->n - c->pos);
	*e = nl ? (size_t)(nl - c->p) : c->n;
	c->pos = nl ? *e + 1 : c->n;
	if (*e > *s && c->p[*e - 1] == '\r')
		(*e)--;
	c->line++;
	return 1;
}

static int is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

static size_t skip_blank(const char *p, size_t s, size_t e)
{
	while (s < e && is_blank(p[s]))
		s++;
	return s;
}

/* "# name=value" before the first instruction: escape, syntax, check. */
static int directive(struct parser *ps, size_t s, size_t e)
{
	const char *p = ps->c.p;
	size_t k, ns, ne, vs;

	s = skip_blank(p, s, e);
	if (s >= e || p[s] != '#')
		return 0;
	k = skip_blank(p, s + 1, e);
	ns = k;
	while (k < e && ((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= 'A' && p[k] <= 'Z')))
		k++;
	ne = k;
	k = skip_blank(p, k, e);
	if (ne == ns || k >= e || p[k] != '=')
		return 0;
	vs = skip_blank(p, k + 1, e);
	while (e > vs && is_blank(p[e - 1]))
		e--;
	if (ne - ns == 6 && !strncasecmp(p + ns, "escape", 6)) {
		if (e - vs == 1 && (p[vs] == '\\' || p[vs] == '`'))
			ps->f->escape = p[vs];
		else
			diag(ps, ps->c.line, "invalid escape directive (expected \\ or `)");
		return 1;
	}
	if (ne - ns == 6 && !strncasecmp(p + ns, "syntax", 6)) {
		ps->f->syntax = arena_strndup(ps->a, p + vs, e - vs);
		return 1;
	}
	return ne - ns == 5 && !strncasecmp(p + ns, "check", 5);
}

/* An ignore comment (format/dfignore): its ids into the pending list or the
 * file's global list. */
static int ignore_comment(struct parser *ps, size_t s, size_t e)
{
	struct dfignore ig;
	const char ***list;
	size_t *count, i;
	int rc = dfignore_parse(ps->c.p + s, e - s, ps->a, &ig);

	if (rc <= 0)
		return rc;
	list = ig.global ? &ps->f->global_ignore : &ps->pending;
	count = ig.global ? &ps->f->n_global_ignore : &ps->n_pending;
	if (!*list && !(*list = arena_calloc(ps->a, DF_IGNORE_MAX, sizeof(**list))))
		return CD_ENOMEM;
	for (i = 0; i < ig.n && *count < DF_IGNORE_MAX; i++)
		(*list)[(*count)++] = ig.ids[i];
	return 0;
}

/* The line without a final escape character (and blanks after it); *more
 * says the instruction continues. */
static size_t cut_continuation(const char *p, size_t s, size_t e, char esc, int *more)
{
	size_t k = e;

	while (k > s && (p[k - 1] == ' ' || p[k - 1] == '\t'))
		k--;
	*more = k > s && p[k - 1] == esc;
	return *more ? k - 1 : e;
}

static int is_comment_line(const char *p, size_t s, size_t e)
{
	s = skip_blank(p, s, e);
	return s < e && p[s] == '#';
}

static int join(struct parser *ps, struct cd_buf *b, size_t s, size_t e)
{
	if (b->len + (e - s) > DF_LINE_MAX)
		return err_set(ps->err, CD_ERANGE, "an instruction at line %u is over %zu bytes",
			       ps->c.line, DF_LINE_MAX);
	return buf_append(b, ps->c.p + s, e - s);
}

/* The instruction's whole text, continuation lines joined. */
static int read_instruction(struct parser *ps, size_t s, size_t e, struct cd_buf *b)
{
	char esc = ps->f->escape;
	int more, rc;
	size_t ce;

	ce = cut_continuation(ps->c.p, s, e, esc, &more);
	if ((rc = join(ps, b, s, ce)))
		return rc;
	while (more && next_line(&ps->c, &s, &e)) {
		if (is_comment_line(ps->c.p, s, e) || skip_blank(ps->c.p, s, e) == e)
			continue;
		ce = cut_continuation(ps->c.p, s, e, esc, &more);
		if ((rc = join(ps, b, s, ce)))
			return rc;
	}
	return 0;
}

static enum df_cmd lookup(const char *w, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strlen(cmds[i].name) == n && !strncasecmp(cmds[i].name, w, n))
			return cmds[i].cmd;
	return DF_UNKNOWN;
}

/* Leading "--name[=value]" words; returns the offset of the arguments after them. */
static int take_flags(struct parser *ps, struct df_instr *in, const char *t, size_t n, size_t *rest)
{
	size_t pos = 0, ws, we, cap = 0;

	*rest = 0;
	while (dfword_next(t, n, ps->f->escape, &pos, &ws, &we)) {
		const char *eq;
		if (we - ws < 2 || t[ws] != '-' || t[ws + 1] != '-')
			break;
		if (we - ws == 2) { /* "--" ends the flags */
			*rest = pos;
			break;
		}
		if (in->n_flags == cap) {
			struct df_flag *nf;
			if (cap == DF_ITEMS_MAX)
				break;
			cap = cap ? cap * 2 : 4;
			nf = arena_calloc(ps->a, cap, sizeof(*nf));
			if (!nf)
				return CD_ENOMEM;
			if (in->n_flags)
				memcpy(nf, in->flags, in->n_flags * sizeof(*nf));
			in->flags = nf;
		}
		eq = memchr(t + ws, '=', we - ws);
		in->flags[in->n_flags].name =
			arena_strndup(ps->a, t + ws + 2, (eq ? (size_t)(eq - t) : we) - ws - 2);
		in->flags[in->n_flags].value =
			eq ? arena_strndup(ps->a, eq + 1, we - (size_t)(eq + 1 - t)) : NULL;
		in->n_flags++;
		*rest = pos;
	}
	while (*rest < n && is_blank(t[*rest]))
		(*rest)++;
	return 0;
}

/* Exec form: a JSON array of strings, as BuildKit's parseJSON accepts. */
static int exec_form(struct parser *ps, struct df_instr *in)
{
	const char *t = in->args, *tmp[DF_ITEMS_MAX];
	size_t n = strlen(t), k = 0;
	struct cd_err e = {0};
	struct jscan j;

	while (n && is_blank(t[n - 1]))
		n--;
	if (!n || t[0] != '[' || t[n - 1] != ']')
		return 0;
	jscan_init(&j, (const uint8_t *)t, n, &e);
	if (jscan_expect(&j, '['))
		return 0;
	if (!jscan_accept(&j, ']')) {
		do {
			size_t len;
			if (k == DF_ITEMS_MAX || jscan_peek(&j) != '"' ||
			    jscan_string(&j, ps->a, &tmp[k], &len))
				return 0;
			k++;
		} while (jscan_accept(&j, ','));
		if (jscan_expect(&j, ']'))
			return 0;
	}
	if (jscan_peek(&j) != -1)
		return 0;
	in->argv = arena_calloc(ps->a, k ? k : 1, sizeof(*in->argv));
	if (!in->argv)
		return CD_ENOMEM;
	memcpy(in->argv, tmp, k * sizeof(*tmp));
	in->n_argv = k;
	in->json = 1;
	return 0;
}

/* Raw words of the arguments (COPY sources, EXPOSE ports, FROM's parts). */
static int words(struct parser *ps, struct df_instr *in)
{
	const char *t = in->args, *tmp[DF_ITEMS_MAX];
	size_t n = strlen(t), pos = 0, ws, we, k = 0;

	while (k < DF_ITEMS_MAX && dfword_next(t, n, ps->f->escape, &pos, &ws, &we))
		tmp[k++] = arena_strndup(ps->a, t + ws, we - ws);
	in->argv = arena_calloc(ps->a, k ? k : 1, sizeof(*in->argv));
	if (!in->argv)
		return CD_ENOMEM;
	memcpy(in->argv, tmp, k * sizeof(*tmp));
	in->n_argv = k;
	return 0;
}

/* ARG name[=default]..., ENV/LABEL key=value... or the legacy "ENV key value". */
static int key_values(struct parser *ps, struct df_instr *in)
{
	const char *t = in->args;
	size_t n = strlen(t), pos = 0, ws, we, k = 0;
	struct df_kv tmp[DF_ITEMS_MAX];

	while (k < DF_ITEMS_MAX && dfword_next(t, n, ps->f->escape, &pos, &ws, &we)) {
		const char *eq = memchr(t + ws, '=', we - ws);
		if (!eq && in->cmd != DF_ARG) {
			if (k) {
				diag(ps, in->line, "a key without '=' after key=value pairs");
				break;
			}
			/* legacy form: the rest of the line is the value */
			tmp[0].key = arena_strndup(ps->a, t + ws, we - ws);
			while (pos < n && is_blank(t[pos]))
				pos++;
			while (n > pos && is_blank(t[n - 1]))
				n--;
			tmp[0].value = arena_strndup(ps->a, t + pos, n - pos);
			k = 1;
			if (pos >= n)
				diag(ps, in->line, "ENV or LABEL without a value");
			break;
		}
		tmp[k].key = arena_strndup(ps->a, t + ws, (eq ? (size_t)(eq - t) : we) - ws);
		tmp[k].value = eq ? arena_strndup(ps->a, eq + 1, we - (size_t)(eq + 1 - t)) : NULL;
		if (!tmp[k].key || !*tmp[k].key)
			diag(ps, in->line, "an empty name before '='");
		k++;
	}
	if (!k)
		diag(ps, in->line, "ARG, ENV or LABEL without an argument");
	in->kv = arena_calloc(ps->a, k ? k : 1, sizeof(*in->kv));
	if (!in->kv)
		return CD_ENOMEM;
	memcpy(in->kv, tmp, k * sizeof(*tmp));
	in->n_kv = k;
	return 0;
}

/* A word that opens a heredoc: [fd]<<[-]NAME with NAME possibly quoted. */
static int heredoc_word(struct parser *ps, const char *w, size_t n, struct df_heredoc *h,
			int *chomp)
{
	struct dfword_opts o = {ps->f->escape, NULL, 0};
	struct cd_buf name;
	struct cd_err e = {0};
	unsigned met = 0;
	size_t k = 0;

	while (k < n && w[k] >= '0' && w[k] <= '9')
		k++;
	if (n - k < 3 || w[k] != '<' || w[k + 1] != '<')
		return 0;
	k += 2;
	*chomp = k < n && w[k] == '-';
	if (*chomp)
		k++;
	if (k >= n || memchr(w + k, '<', n - k))
		return 0;
	buf_init(&name, 4096);
	if (dfword_expand(w + k, n - k, &o, &name, &met, &e) || !name.len) {
		buf_free(&name);
		return 0;
	}
	h->name = arena_strndup(ps->a, name.p, name.len);
	h->expand = !(met & DFWORD_QUOTED);
	buf_free(&name);
	return h->name != NULL;
}

static int heredoc_body(struct parser *ps, struct df_instr *in, struct df_heredoc *h, int chomp)
{
	struct cd_buf b;
	size_t s, e, k;
	int rc = 0;

	buf_init(&b, DF_LINE_MAX);
	while (next_line(&ps->c, &s, &e)) {
		k = s;
		if (chomp)
			while (k < e && ps->c.p[k] == '\t')
				k++;
		if (e - k == strlen(h->name) && !memcmp(ps->c.p + k, h->name, e - k))
			goto done;
		if ((rc = buf_append(&b, ps->c.p + k, e - k)) || (rc = buf_putc(&b, '\n')))
			goto fail;
	}
	diag(ps, in->line, "unterminated heredoc");
done:
	h->body = arena_strndup(ps->a, b.p ? b.p : "", b.len);
	rc = h->body ? 0 : CD_ENOMEM;
fail:
	buf_free(&b);
	if (rc == CD_ENOMEM)
		err_set(ps->err, rc, "a heredoc at line %u is over %zu bytes", in->line,
			DF_LINE_MAX);
	return rc;
}

static int heredocs(struct parser *ps, struct df_instr *in)
{
	const char *t = in->args;
	size_t n = strlen(t), pos = 0, ws, we;
	struct df_heredoc tmp[DF_HEREDOC_MAX];
	int chomp[DF_HEREDOC_MAX], rc;
	size_t k = 0, i;

	if (!strstr(t, "<<"))
		return 0;
	while (k < DF_HEREDOC_MAX && dfword_next(t, n, ps->f->escape, &pos, &ws, &we))
		if (heredoc_word(ps, t + ws, we - ws, &tmp[k], &chomp[k]))
			k++;
	if (!k)
		return 0;
	in->heredocs = arena_calloc(ps->a, k, sizeof(*in->heredocs));
	if (!in->heredocs)
		return CD_ENOMEM;
	for (i = 0; i < k; i++) {
		if ((rc = heredoc_body(ps, in, &tmp[i], chomp[i])))
			return rc;
		in->heredocs[i] = tmp[i];
	}
	in->n_heredocs = k;
	return 0;
}

static int parse_args(struct parser *ps, struct df_instr *in)
{
	switch (in->cmd) {
	case DF_ARG:
	case DF_ENV:
	case DF_LABEL: return key_values(ps, in);
	case DF_RUN:
	case DF_CMD:
	case DF_ENTRYPOINT:
	case DF_SHELL: return exec_form(ps, in);
	case DF_COPY:
	case DF_ADD:
	case DF_VOLUME: {
		int rc = exec_form(ps, in);
		return rc || in->json ? rc : words(ps, in);
	}
	case DF_ONBUILD:
	case DF_HEALTHCHECK:
	case DF_MAINTAINER: return 0;
	default: return words(ps, in);
	}
}

static struct df_instr *new_instr(struct parser *ps, size_t *cap)
{
	struct df_file *f = ps->f;

	if (f->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		struct df_instr *ni;
		if (*cap >= DF_INSTR_MAX) {
			err_set(ps->err, CD_ERANGE, "more than %d instructions", DF_INSTR_MAX);
			return NULL;
		}
		ni = arena_calloc(ps->a, nc, sizeof(*ni));
		if (!ni) {
			err_set(ps->err, CD_ENOMEM, "out of memory");
			return NULL;
		}
		if (f->n)
			memcpy(ni, f->items, f->n * sizeof(*ni));
		f->items = ni;
		*cap = nc;
	}
	memset(&f->items[f->n], 0, sizeof(f->items[f->n]));
	return &f->items[f->n++];
}

static int instruction(struct parser *ps, size_t s, size_t e, size_t *cap)
{
	struct df_instr *in;
	struct cd_buf b;
	size_t k, kw, rest;
	int rc;

	if (!(in = new_instr(ps, cap)))
		return ps->err && ps->err->code ? ps->err->code : CD_ENOMEM;
	in->line = ps->c.line;
	buf_init(&b, DF_LINE_MAX + 1);
	if ((rc = read_instruction(ps, skip_blank(ps->c.p, s, e), e, &b)))
		goto out;
	rc = CD_ENOMEM;
	for (k = 0; k < b.len && !is_blank(b.p[k]) && b.p[k] != '\n'; k++)
		;
	kw = k;
	in->keyword = arena_strndup(ps->a, b.p, kw);
	in->cmd = lookup(b.p, kw);
	if (in->cmd == DF_UNKNOWN) { /* BuildKit: "unknown instruction: RUNN" */
		const char *m =
			in->keyword ? arena_printf(ps->a, "unknown instruction: %.64s", in->keyword)
				    : NULL;
		diag(ps, in->line, m ? m : "unknown instruction");
	}
	k = skip_blank(b.p, kw, b.len);
	if (take_flags(ps, in, b.p + k, b.len - k, &rest))
		goto out;
	in->args = arena_strndup(ps->a, b.p + k + rest, b.len - k - rest);
	if (!in->keyword || !in->args)
		goto out;
	if ((rc = parse_args(ps, in)))
		goto out;
	if ((in->cmd == DF_RUN || in->cmd == DF_COPY || in->cmd == DF_ADD) &&
	    (rc = heredocs(ps, in)))
		goto out;
	in->ignore = ps->pending;
	in->n_ignore = ps->n_pending;
	ps->pending = NULL;
	ps->n_pending = 0;
	in->end_line = ps->c.line;
	rc = 0;
out:
	buf_free(&b);
	if (rc == CD_ENOMEM && !(ps->err && ps->err->code))
		err_set(ps->err, rc, "out of memory");
	return rc;
}

int dockerfile_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct df_file *out,
		     struct cd_err *err)
{
	struct parser ps = {a, out, {(const char *)p, n, 0, 0}, NULL, 0, err};
	int directives = 1, rc;
	size_t s, e, cap = 0;

	memset(out, 0, sizeof(*out));
	out->escape = '\\';
	if (n > DF_INPUT_MAX)
		return err_set(err, CD_ERANGE, "over %zu bytes: not a Dockerfile", DF_INPUT_MAX);
	if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		ps.c.pos = 3;
	while (next_line(&ps.c, &s, &e)) {
		if (directives && directive(&ps, s, e))
			continue;
		directives = 0;
		s = skip_blank(ps.c.p, s, e);
		if (s == e) {
			ps.n_pending = 0; /* an ignore comment applies to the line after it */
			ps.pending = NULL;
			continue;
		}
		if (ps.c.p[s] == '#') {
			/* As hadolint: an ignore comment applies to the instruction on
			 * the next line only; any other comment line ends it. */
			ps.n_pending = 0;
			ps.pending = NULL;
			if ((rc = ignore_comment(&ps, s, e)) < 0)
				return err_set(err, rc, "out of memory");
			continue;
		}
		if ((rc = instruction(&ps, s, e, &cap)))
			return rc;
	}
	out->lines = ps.c.line;
	return 0;
}

const char *dockerfile_flag(const struct df_instr *in, const char *name, int *present)
{
	size_t i;

	if (present)
		*present = 0;
	for (i = 0; i < in->n_flags; i++)
		if (in->flags[i].name && !strcmp(in->flags[i].name, name)) {
			if (present)
				*present = 1;
			return in->flags[i].value;
		}
	return NULL;
}

int dockerfile_ignored(const struct df_file *f, const struct df_instr *in, const char *id)
{
	return dfignore_has(f->global_ignore, f->n_global_ignore, id) ||
	       (in && dfignore_has(in->ignore, in->n_ignore, id));
}
