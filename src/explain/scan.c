/* scan: see scan.h. Block-mode Vectorscan over line-aligned chunks: a match
 * never spans a line break (no pattern can match '\r' or '\n'), so chunks that
 * end at a break lose nothing, and the match callback only has to find the
 * line ("segment": '\r' ends one too, for progress bars) around each hit.
 * Vectorscan reports matches in end-offset order, so the searches for line
 * bounds cover each byte of the chunk about once. The rest of the scanner
 * is in scan_*.c (see scan_int.h). */
#include "explain/scan.h"

#include <hs/hs_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "explain/scan_int.h"
#include "explain/tmpl.h"

/* Newlines in p[0, n), 16 bytes at a time in the compiler's portable
 * vectors (SSE2 on x86-64, NEON on arm64): each compare gives 0xff for a
 * newline, subtracted from per-byte counters that are summed every 255
 * blocks, before a counter could wrap. Lines of training output are short,
 * so one memchr call per line would cost more than the bytes. */
typedef uint8_t nl_vec __attribute__((vector_size(16)));

static uint64_t count_nl(const uint8_t *p, size_t n)
{
	const nl_vec nl = {'\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n',
			   '\n', '\n', '\n', '\n', '\n', '\n', '\n', '\n'};
	uint64_t k = 0;
	size_t i = 0, j;

	while (i + 16 <= n) {
		nl_vec acc = {0};
		size_t blocks = (n - i) / 16 > 255 ? 255 : (n - i) / 16;
		for (j = 0; j < blocks; j++, i += 16) {
			nl_vec v;
			memcpy(&v, p + i, 16);
			acc -= (nl_vec)(v == nl);
		}
		for (j = 0; j < 16; j++)
			k += acc[j];
	}
	for (; i < n; i++)
		k += p[i] == '\n';
	return k;
}

static uint64_t line_of(struct xs_scanner *s, size_t pos)
{
	if (pos < s->cnt_pos) /* an earlier position: count back from the last one */
		s->cnt_line -= count_nl(s->c + pos, s->cnt_pos - pos);
	else
		s->cnt_line += count_nl(s->c + s->cnt_pos, pos - s->cnt_pos);
	s->cnt_pos = pos;
	return s->cnt_line;
}

static size_t caps_set(const struct tmpl *t, const struct tmpl_cap *c)
{
	size_t i, k = 0;

	for (i = 0; i < t->n_caps; i++)
		k += c[i].off != SIZE_MAX;
	return k;
}

/* Of a signature's patterns, the one that captures the most facts on this
 * line ("... (11.8) mismatches ... PyTorch (12.4)" over its shorter form).
 * On one line (need < 0) the pattern whose anchor the database found is
 * tried first and, when it does not match, the others are not: each of them
 * that could match has its own anchor on the line, so its own candidate.
 * Most anchors in ordinary output are false ("checkpoint", "should"), and
 * this keeps their cost to one attempt. With need >= 0 (a window of several
 * lines) a match must cover that offset, the end of the anchor the database
 * found, so a message is found from its own line, never only from its
 * neighbours. */
static void best_template(const struct sig *sg, size_t hit_slot, struct xs_hit *h, size_t n,
			  long need, int *wraps)
{
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	size_t i, best = 0, best_i = hit_slot, st, en, k;
	int at_end;

	h->t = sg->tmpl[hit_slot];
	h->ok = 0;
	if (need < 0) {
		if (tmpl_match_span(h->t, h->w, n, caps, &st, &en, &at_end) != 1) {
			*wraps |= at_end;
			return;
		}
		h->ok = 1;
		h->start = st;
		best = caps_set(h->t, caps);
		memcpy(h->caps, caps, sizeof(caps));
	}
	for (i = 0; i < sg->pattern.n; i++) {
		if (need < 0 && i == hit_slot)
			continue;
		if (tmpl_match_span(sg->tmpl[i], h->w, n, caps, &st, &en, &at_end) != 1) {
			*wraps |= at_end;
			continue;
		}
		if (need >= 0 && ((size_t)need <= st || (size_t)need > en))
			continue;
		k = caps_set(sg->tmpl[i], caps);
		if (h->ok && (k < best || (k == best && i > best_i)))
			continue; /* of as many facts, the first pattern */
		h->t = sg->tmpl[i];
		h->ok = 1;
		h->start = st;
		best = k;
		best_i = i;
		memcpy(h->caps, caps, sizeof(caps));
	}
}

/* The start of the line XS_JOIN_LINES before the one starting at s (within
 * the chunk and XS_JOIN_BYTES), and the end of the line as many after e. */
static size_t join_start(const struct xs_scanner *s, size_t at)
{
	size_t lim = at > XS_JOIN_BYTES ? at - XS_JOIN_BYTES : 0, k = 0;

	while (at > lim && k < XS_JOIN_LINES) {
		at--; /* the break before the line */
		if (at > lim && s->c[at] == '\n' && s->c[at - 1] == '\r')
			at--;
		while (at > lim && !xs_is_break(s->c[at - 1]))
			at--;
		k++;
	}
	return at;
}

static size_t join_end(const struct xs_scanner *s, size_t at)
{
	size_t lim = s->cn - at > XS_JOIN_BYTES ? at + XS_JOIN_BYTES : s->cn, k = 0;

	while (at < lim && k < XS_JOIN_LINES) {
		at += (s->c[at] == '\r' && at + 1 < lim && s->c[at + 1] == '\n') ? 2 : 1;
		while (at < lim && !xs_is_break(s->c[at]))
			at++;
		k++;
	}
	return at;
}

/* Try the candidates, highest priority first, on their line, or (multi) on
 * the lines around it joined; returns the winner or NULL. On the line, a
 * candidate whose message may wrap (an attempt ran out of the line, or the
 * anchor sits too near the line's start for the message to begin there) is
 * marked in *wrap for the second try; only those are tried again. */
static const struct xs_pending *try_window(struct xs_scanner *s, const struct xs_pending *cand,
					   size_t nc, struct xs_hit *h, int multi, uint64_t *wrap)
{
	const struct sig *sigs = s->db->sigs.sigs;
	size_t i;

	for (i = 0; i < nc; i++) {
		const struct xs_pending *c = &cand[i];
		const struct tmpl *a = sigs[c->sig].tmpl[c->slot];
		size_t ws, we;
		int wraps = 0;
		if (multi && !(*wrap >> i & 1))
			continue;
		memset(h, 0, sizeof(*h));
		h->sig = c->sig;
		if (multi) {
			ws = join_start(s, s->seg_s);
			we = join_end(s, s->seg_e);
		} else {
			ws = c->to - s->seg_s > XS_WINDOW ? c->to - XS_WINDOW : s->seg_s;
			we = s->seg_e - c->to > XS_WINDOW ? c->to + XS_WINDOW : s->seg_e;
		}
		h->w = s->c + ws;
		best_template(&sigs[c->sig], c->slot, h, we - ws, multi ? (long)(c->to - ws) : -1,
			      &wraps);
		if (h->ok)
			return c;
		if (!multi &&
		    (wraps || c->to - s->seg_s < a->anchor_prefix + a->ops[a->anchor_op].len))
			*wrap |= (uint64_t)1 << i;
	}
	return NULL;
}

static int by_priority(const void *a, const void *b, const struct sig *sigs)
{
	const struct xs_pending *x = a, *y = b;

	if (sigs[x->sig].priority != sigs[y->sig].priority)
		return sigs[x->sig].priority > sigs[y->sig].priority ? -1 : 1;
	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

/* The segment's candidates, highest priority first: the first whose
 * template really matches the line is the hit (the database only found its
 * anchor literal). When none does, the message may wrap onto the lines
 * around it: the same candidates are tried on those lines joined. */
static void flush(struct xs_scanner *s)
{
	const struct sig *sigs = s->db->sigs.sigs;
	struct xs_pending cand[XS_PENDING_MAX];
	const struct xs_pending *p;
	struct xs_hit h;
	size_t nc = s->n_pend, i, j, ts, te, ls = s->seg_s, le = s->seg_e, at, to = 0;
	uint64_t wrap = 0; /* candidates whose message may wrap */

	s->seg_open = 0;
	memcpy(cand, s->pend, nc * sizeof(cand[0]));
	s->n_pend = 0;
	for (i = 1; i < nc; i++) /* insertion sort: a handful of candidates */
		for (j = i; j > 0 && by_priority(&cand[j], &cand[j - 1], sigs) < 0; j--) {
			struct xs_pending tmp = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = tmp;
		}
	if ((p = try_window(s, cand, nc, &h, 0, &wrap)) != NULL)
		to = p->to;
	else if (wrap && (p = try_window(s, cand, nc, &h, 1, &wrap)) != NULL) {
		/* a message over several lines is where it starts, whichever of
		 * its lines holds the anchor */
		at = (size_t)(h.w - s->c) + h.start;
		for (ls = at; ls > 0 && !xs_is_break(s->c[ls - 1]); ls--)
			;
		for (le = at; le < s->cn && !xs_is_break(s->c[le]); le++)
			;
		to = at;
		if (s->multi_at == at + 1 && s->multi_sig == p->sig)
			return; /* the same message, found again from another of its lines */
		s->multi_at = at + 1;
		s->multi_sig = p->sig;
	}
	if (!p)
		return;
	s->res->hits++;
	if (xs_in_code(s, ls, le)) {
		s->res->code_lines++;
		return;
	}
	h.line = line_of(s, ls);
	h.rank = ls == 0 && s->cont ? -1 : xs_parse_rank(s->c + ls, le - ls);
	ts = ls;
	te = le;
	if (te - ts > XS_TEXT_MAX) { /* keep the part of a long line around the hit */
		ts = to > ts + XS_TEXT_MAX / 2 ? to - XS_TEXT_MAX / 2 : ts;
		te = te - ts > XS_TEXT_MAX ? ts + XS_TEXT_MAX : te;
	}
	h.text = s->c + ts;
	h.text_n = te - ts;
	xs_record(s, &h);
}

static void open_segment(struct xs_scanner *s, size_t to)
{
	size_t lo = 0, j;

	if (s->seg_open && s->seg_e < to)
		lo = s->seg_e + 1;
	if (s->seg_open)
		flush(s);
	for (j = to - 1; j > lo && !xs_is_break(s->c[j - 1]); j--)
		;
	s->seg_s = j;
	for (j = to; j < s->cn && !xs_is_break(s->c[j]); j++)
		;
	s->seg_e = j;
	s->seg_open = 1;
}

/* Keep the line around `to` among the candidates of last resort: the
 * heaviest and, of equal weight, the latest (the last exception of a log is
 * the one that ended it). Traceback source lines are not candidates, nor is
 * a line a benign row (weight 0: collect_env's "Could not collect") fits,
 * whichever pattern the database reports first. */
static void on_fallback(struct xs_scanner *s, int weight, size_t to)
{
	struct xs_result *r = s->res;
	struct xs_cand *c = NULL;
	size_t b = to, e = to, i;
	uint64_t line;

	while (b > 0 && !xs_is_break(s->c[b - 1]) && to - b < XS_TEXT_MAX)
		b--;
	line = line_of(s, b);
	if (line == s->benign_line)
		return;
	if (!weight) { /* a harmless line: it, and any candidate on it, is out */
		s->benign_line = line;
		r->benign++;
		for (i = 0; i < r->n_cand; i++)
			if (r->cand[i].input == s->input && r->cand[i].line == line) {
				r->cand[i] = r->cand[--r->n_cand];
				break;
			}
		return;
	}
	if (r->n_cand == XS_CAND_MAX) { /* the lightest, earliest one goes */
		c = &r->cand[0];
		for (i = 1; i < r->n_cand; i++)
			if (r->cand[i].weight < c->weight ||
			    (r->cand[i].weight == c->weight && r->cand[i].input == c->input &&
			     r->cand[i].line < c->line))
				c = &r->cand[i];
		if (weight < c->weight)
			return;
	}
	while (e < s->cn && !xs_is_break(s->c[e]) && e - b < XS_TEXT_MAX)
		e++;
	for (i = 0; i < r->n_cand; i++) /* another pattern on the same line */
		if (r->cand[i].input == s->input && r->cand[i].line == line) {
			if (weight > r->cand[i].weight)
				r->cand[i].weight = weight;
			return;
		}
	if ((b == 0 || xs_is_break(s->c[b - 1])) && e < s->cn && xs_in_code(s, b, e))
		return;
	if (!c)
		c = &r->cand[r->n_cand++];
	c->input = s->input;
	c->line = line;
	c->weight = weight;
	c->n = e - b;
	memcpy(c->text, s->c + b, c->n);
	c->text[c->n] = '\0';
}

/* A context fact pattern's anchor at `to`: the line around it (within
 * XS_WINDOW either side), after the pending line's hits are recorded, so a
 * diagnosis sees the facts of the lines before it only. */
static void on_context(struct xs_scanner *s, size_t k, size_t to)
{
	size_t b = to, e = to;

	if (s->seg_open && to > s->seg_e)
		flush(s);
	while (b > 0 && !xs_is_break(s->c[b - 1]) && to - b < XS_WINDOW)
		b--;
	while (e < s->cn && !xs_is_break(s->c[e]) && e - to < XS_WINDOW)
		e++;
	xs_ctx_hit(s, k, s->c + b, e - b, line_of(s, b));
}

static int on_match(unsigned int id, unsigned long long from, unsigned long long to,
		    unsigned int flags, void *ctx)
{
	struct xs_scanner *s = ctx;
	uint32_t sig;
	size_t i;

	(void)from;
	(void)flags;
	if (to <= s->skip_to || to == 0)
		return 0;
	if (id >= s->db->sigs.n_pat) {
		size_t k = id - s->db->sigs.n_pat;
		if (k < s->db->sigs.n_fb)
			on_fallback(s, s->db->sigs.fb[k].weight, (size_t)to);
		else if (k - s->db->sigs.n_fb < s->db->sigs.n_ctx)
			on_context(s, k - s->db->sigs.n_fb, (size_t)to);
		return 0;
	}
	if (!s->seg_open || to <= s->seg_s || to > s->seg_e)
		open_segment(s, (size_t)to);
	sig = s->db->sigs.pat_sig[id];
	/* one candidate per pattern (not per signature): each pattern's anchor
	 * is where its own match, or its wrapped message, is looked for */
	for (i = 0; i < s->n_pend; i++)
		if (s->pend[i].sig == sig && s->pend[i].slot == s->db->sigs.pat_slot[id])
			return 0;
	if (s->n_pend == XS_PENDING_MAX) { /* a crowded line: the lowest priority gives way */
		const struct sig *sigs = s->db->sigs.sigs;
		size_t lo = 0;
		for (i = 1; i < s->n_pend; i++)
			if (sigs[s->pend[i].sig].priority < sigs[s->pend[lo].sig].priority)
				lo = i;
		if (sigs[s->pend[lo].sig].priority >= sigs[sig].priority)
			return 0;
		s->pend[lo] = s->pend[--s->n_pend];
	}
	s->pend[s->n_pend].sig = sig;
	s->pend[s->n_pend].slot = s->db->sigs.pat_slot[id];
	s->pend[s->n_pend].to = (size_t)to;
	s->n_pend++;
	return 0;
}

/* ---- chunks ---------------------------------------------------------------- */

static size_t last_break(const uint8_t *p, size_t n)
{
	const uint8_t *q = memrchr(p, '\n', n);

	if (!q)
		q = memrchr(p, '\r', n);
	return q ? (size_t)(q - p) + 1 : 0;
}

static void scan_chunk(struct xs_scanner *s, size_t m)
{
	hs_error_t rc;

	s->c = s->buf;
	s->cn = m;
	s->seg_open = 0;
	s->n_pend = 0;
	s->cnt_pos = 0;
	s->cnt_line = s->line;
	s->multi_at = 0;
	rc = hs_scan(s->db->hs, (const char *)s->buf, (unsigned int)m, 0, s->scratch, on_match, s);
	if (rc != HS_SUCCESS && rc != HS_SCAN_TERMINATED)
		s->err = CD_EINTERNAL;
	if (s->seg_open)
		flush(s);
}

/* A paste read as the lines it was (scan_unwrap.c), past the bytes of a
 * cut line already unwrapped (skip_to), the prefix judged on the first
 * buffer of the input. */
static size_t unwrap(struct xs_scanner *s, size_t cut)
{
	size_t from = s->cont ? s->skip_to : 0, m = cut;

	if (s->prefix == XS_PREFIX_UNDECIDED)
		s->prefix = xs_prefix_kind(s->buf, cut);
	if (s->prefix != XS_PREFIX_NONE)
		m = xs_unwrap_prefix(s->buf, m, from, s->prefix);
	return xs_unwrap_escapes(s->buf, m, from);
}

/* Scan buf up to its last line break (everything when final; all of a full
 * buffer without a break, keeping XS_OVERLAP bytes to scan again). */
int xs_process(struct xs_scanner *s, int final)
{
	size_t cut, m;
	int forced = 0;

	if (s->enc == XS_ENC_UNDECIDED) {
		int rc = xs_decide(s);
		if (rc)
			return s->err = rc;
		if (!final && s->len < XS_BUF)
			return s->err; /* UTF-16 shrank to less than a buffer: read on */
	}
	if (s->cr_only)
		for (m = 0; m < s->len; m++)
			if (s->buf[m] == '\r')
				s->buf[m] = '\n';
	cut = final ? s->len : last_break(s->buf, s->len);

	if (!cut) {
		if (s->len < XS_BUF)
			return s->err;
		cut = s->len;
		forced = 1;
	}
	m = unwrap(s, cut);
	m = memchr(s->buf, 0x1b, m) ? xs_strip_ansi(s->buf, m) : m;
	scan_chunk(s, m);
	xs_tail_keep(s->res, s->buf, m);
	s->line += count_nl(s->buf, m);
	if (forced) {
		size_t keep = m < XS_OVERLAP ? m : XS_OVERLAP;
		if (!s->cont)
			s->res->cut_lines++;
		memmove(s->buf, s->buf + m - keep, keep);
		s->len = keep;
		s->skip_to = keep;
		s->cont = 1;
		return s->err;
	}
	if (m)
		s->prev_file = xs_tail_is_file(s->buf, m, &s->prev_col, &s->prev_blanks);
	if (final && m)
		s->last_partial = !xs_is_break(s->buf[m - 1]);
	memmove(s->buf, s->buf + cut, s->len - cut);
	s->len -= cut;
	s->skip_to = 0;
	s->cont = 0;
	return s->err;
}

int xs_open(struct xs_scanner **out, const struct xs_db *db, struct xs_result *res, uint32_t input,
	    struct cd_err *err)
{
	struct xs_scanner *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return err_set(err, CD_ENOMEM, "out of memory");
	s->db = db;
	s->res = res;
	s->input = input;
	s->line = 1;
	s->buf = malloc(XS_BUF);
	if (!s->buf || hs_alloc_scratch(db->hs, &s->scratch) != HS_SUCCESS) {
		xs_close(s);
		return err_set(err, CD_ENOMEM, "out of memory for the scanner");
	}
	*out = s;
	return 0;
}

void xs_close(struct xs_scanner *s)
{
	if (!s)
		return;
	if (s->scratch)
		hs_free_scratch(s->scratch);
	free(s->buf);
	free(s);
}

int xs_finish(struct xs_scanner *s)
{
	int rc;

	if (s->finished)
		return s->err;
	s->finished = 1;
	rc = xs_process(s, 1);
	if (s->input < s->res->n_inputs) /* a last line without a break counts too */
		s->res->inputs[s->input].lines = s->line - 1 + (s->last_partial ? 1 : 0);
	xs_ctx_keep(s);
	return rc;
}
