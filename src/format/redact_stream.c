/* redact_stream: text pushed in pieces, cut into lines at \n and \r (each
 * kept as it was), NUL bytes dropped, a line past RD_LINE_MAX cut back to a
 * word break and marked. Pieces are walked RD_CHUNK bytes at a time; a line
 * that spans pieces is held in the stream's own buffer until it ends. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "format/redact_int.h"

#define RD_CHUNK     ((size_t)64 << 10)
#define RD_CUT_CLIMB ((size_t)4 << 10) /* a cut line goes back this far to a word break */

void rd_stream_init(struct rd_stream *st, struct rd_set *s, int member, struct cd_buf *out)
{
	memset(st, 0, sizeof(*st));
	st->set = s;
	st->member = member;
	st->out = out;
	st->block = -1;
	buf_init(&st->line, RD_LINE_MAX + 1);
}

void rd_stream_free(struct rd_stream *st)
{
	if (st)
		buf_free(&st->line);
}

/* A line cut at RD_LINE_MAX ends at a word break, so no part of a token is kept. */
static void cut_back(struct rd_stream *st)
{
	size_t n = st->line.len, stop = n > RD_CUT_CLIMB ? n - RD_CUT_CLIMB : 0, k = n;

	while (k > stop && !strchr(" \t\"',;", st->line.p[k - 1]))
		k--; /* no break near the end: the last RD_CUT_CLIMB bytes go */
	st->cut += n - k;
	st->line.len = k;
	st->line.p[k] = '\0';
}

static int emit(struct rd_stream *st, const char *p, size_t n, char term, struct cd_err *err)
{
	char note[96];
	int drop, rc = rd_line(st, p, n, &drop, err);

	if (rc)
		return rc;
	if (drop) {
		st->cut = 0;
		return 0;
	}
	if (st->cut) {
		snprintf(note, sizeof(note), " [cuda-doctor: %llu bytes of this line left out]",
			 (unsigned long long)st->cut);
		st->lines_cut++;
		st->cut = 0;
		if (buf_puts(st->out, note))
			return err_set(err, CD_ENOMEM, "output too large");
	}
	if (term && buf_putc(st->out, term))
		return err_set(err, CD_ENOMEM, "output too large");
	return 0;
}

/* Append to the pending line, keeping at most RD_LINE_MAX bytes. */
static void hold(struct rd_stream *st, const char *p, size_t n)
{
	size_t room = RD_LINE_MAX - st->line.len, take = n < room ? n : room;

	if (take && buf_append(&st->line, p, take))
		take = 0;
	st->cut += n - take;
}

static int flush_line(struct rd_stream *st, char term, struct cd_err *err)
{
	int rc;

	if (st->cut)
		cut_back(st);
	rc = emit(st, st->line.p ? st->line.p : "", st->line.len, term, err);
	buf_reset(&st->line);
	return rc;
}

static size_t stop_at(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] == '\n' || p[i] == '\r' || p[i] == '\0')
			break;
	return i;
}

static int feed_chunk(struct rd_stream *st, const char *p, size_t n, struct cd_err *err)
{
	size_t off = 0;
	int rc = 0, pending;

	while (off < n && !rc) {
		size_t len = stop_at(p + off, n - off), at = off + len;
		pending = st->line.len || st->cut;
		if (at == n) { /* the line goes on in the next piece */
			hold(st, p + off, len);
			break;
		}
		if (p[at] == '\0') { /* dropped; the line goes on */
			hold(st, p + off, len);
			st->nul_dropped++;
		} else if (pending) {
			hold(st, p + off, len);
			rc = flush_line(st, p[at], err);
		} else {
			rc = emit(st, p + off, len, p[at], err);
		}
		off = at + 1;
	}
	return rc;
}

int rd_stream_feed(struct rd_stream *st, const void *p, size_t n, struct cd_err *err)
{
	const char *c = p;
	int rc = 0;

	st->bytes_in += n;
	while (n && !rc) {
		size_t k = n < RD_CHUNK ? n : RD_CHUNK;
		rc = feed_chunk(st, c, k, err);
		c += k;
		n -= k;
	}
	return rc;
}

void rd_stream_skip(struct rd_stream *st)
{
	buf_reset(&st->line);
	st->cut = 0;
}

int rd_stream_end(struct rd_stream *st, struct cd_err *err)
{
	int rc = 0;

	if (st->line.len || st->cut)
		rc = flush_line(st, '\0', err);
	buf_free(&st->line);
	return rc;
}

int rd_text(struct rd_set *s, int member, const void *p, size_t n, struct cd_buf *out,
	    struct cd_err *err)
{
	struct rd_stream st;
	int rc;

	rd_stream_init(&st, s, member, out);
	rc = rd_stream_feed(&st, p, n, err);
	if (!rc)
		rc = rd_stream_end(&st, err);
	rd_stream_free(&st);
	return rc;
}

int rd_env(struct rd_set *s, int member, const char *name, const char *value, struct cd_buf *out,
	   struct cd_err *err)
{
	struct cd_buf line;
	int r = rd_var_rule(s, name, strlen(name)), rc;

	buf_init(&line, 0);
	if (r >= 0)
		rd_count(&s->rules[r], member, 1);
	rc = buf_printf(&line, "%s=%s\n", name, r >= 0 ? s->rules[r].repl : value);
	if (rc)
		rc = err_set(err, CD_ENOMEM, "variable %s too large", name);
	else
		rc = rd_text(s, member, line.p, line.len, out, err);
	buf_free(&line);
	return rc;
}
