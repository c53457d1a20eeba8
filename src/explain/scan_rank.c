/* scan_rank: the results of a scan: inputs, facts, and the order of the
 * diagnoses (causes before symptoms, root causes before what they cause,
 * then by input and line); the diagnosis of last resort when nothing
 * matched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain/guess.h"
#include "explain/scan_int.h"

const struct sig xs_sig_unknown = {
	.id = "unknown-failure",
	.category = "unknown",
	.severity = CD_SEV_WARNING,
	.role = SIG_CAUSE,
	.title = "no known failure matched; these lines look most like it",
	.explain = "No signature of cuda-doctor matched this log. The lines shown are the ones "
		   "that look most like the failure: the last exception and its message, error: "
		   "lines, failed steps and non-zero exits. Most CUDA failures come from the "
		   "environment: the driver and the CUDA version it supports, the GPUs, the "
		   "toolkit, the libraries torch loads.",
	.fix = {3,
		{"cuda-doctor check   # the driver, GPUs, toolkit and the libraries torch would "
		 "load",
		 "cuda-doctor jit     # when the failure is a build of a CUDA extension",
		 "search the project's issues for the exact message of the last line shown"}},
};

int xs_is_fallback(const struct sig *s)
{
	return s == &xs_sig_unknown || guess_is(s);
}

int xs_is_hint(const struct sig *s)
{
	return guess_is_hint(s);
}

void xs_tail_keep(struct xs_result *r, const uint8_t *p, size_t n)
{
	size_t k;

	if (!r->tail && !(r->tail = arena_alloc(&r->arena, XS_TAIL)))
		return; /* no memory: no guess */
	if (n > XS_TAIL) {
		p += n - XS_TAIL;
		n = XS_TAIL;
	}
	while (n) {
		k = XS_TAIL - r->tail_pos < n ? XS_TAIL - r->tail_pos : n;
		memcpy(r->tail + r->tail_pos, p, k);
		r->tail_pos = (r->tail_pos + k) % XS_TAIL;
		r->tail_n = r->tail_n + k < XS_TAIL ? r->tail_n + k : XS_TAIL;
		p += k;
		n -= k;
	}
}

/* The words that weighed most, as the fact "words" of a guess. */
static void put_words(struct xs_result *r, struct xs_diag *d, const char *const *w, size_t n)
{
	char words[256];
	size_t i, at = 0;

	words[0] = '\0';
	for (i = 0; i < n; i++) {
		int k = snprintf(words + at, sizeof(words) - at, "%s%s", i ? ", " : "", w[i]);
		if (k < 0 || (size_t)k >= sizeof(words) - at)
			break;
		at += (size_t)k;
	}
	xs_fact_add(r, d, "words", words, 0);
}

/* The last XS_TAIL bytes scanned, in order (the ring unrolled); NULL when
 * there are none or memory ran out. */
static const uint8_t *tail_text(struct xs_result *r)
{
	uint8_t *lin;
	size_t start = r->tail_pos;

	if (!r->tail_n)
		return NULL;
	if (r->tail_n < XS_TAIL)
		return r->tail; /* not wrapped yet: already in order */
	if (!(lin = arena_alloc(&r->arena, XS_TAIL)))
		return NULL;
	memcpy(lin, r->tail + start, XS_TAIL - start);
	memcpy(lin + XS_TAIL - start, r->tail, start);
	return lin;
}

/* When the words of the log's tail speak clearly for one category (and
 * --no-guess was not given), the diagnosis of last resort becomes that
 * category's guess (guess.h), with that category's key facts the input
 * stated and the words as its facts; a close runner-up follows it as its
 * alternative (returns 1 when it wrote that at d + 1). */
static int guess_unknown(struct xs_result *r, const struct xs_db *db, struct xs_diag *d)
{
	struct guess g;
	const struct sig *s, *s2;
	const uint8_t *lin;

	if (r->no_guess || d->n_facts >= XS_FACTS_MAX || !(lin = tail_text(r)))
		return 0;
	guess_category(lin, r->tail_n, &g);
	if (g.category < 0 || !(s = guess_sig(g.category)))
		return 0;
	d->sig = s;
	xs_ctx_late(r, db, d); /* its key fact first, then the words */
	put_words(r, d, g.words, g.n_words);
	/* a close runner-up: named as the guess's alternative, with its key facts */
	if (g.second >= 0 && (s2 = guess_sig(g.second)) && r->n + 1 < XS_DIAG_MAX) {
		struct xs_diag *a = &r->d[r->n + 1];
		*a = *d;
		a->sig = s2;
		a->alt_of = s;
		a->n_facts = 0;
		xs_ctx_late(r, db, a);
		put_words(r, a, g.words2, g.n_words2);
		return 1;
	}
	return 0;
}

struct xs_result *xs_result_new(void)
{
	struct xs_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	arena_init(&r->arena);
	r->arena.max_total = (size_t)16 << 20;
	return r;
}

void xs_result_free(struct xs_result *r)
{
	if (!r)
		return;
	arena_free(&r->arena);
	free(r);
}

int xs_result_input(struct xs_result *r, const char *name)
{
	if (r->n_inputs >= XS_INPUTS_MAX)
		return -1;
	r->inputs[r->n_inputs].name = arena_strdup(&r->arena, name);
	return (int)r->n_inputs++;
}

const char *xs_fact(const struct xs_diag *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n_facts; i++)
		if (!strcmp(d->facts[i].name, name))
			return d->facts[i].value;
	return NULL;
}

int xs_has_rank(const struct xs_diag *d, unsigned rank)
{
	return rank < XS_RANKS && (d->ranks[rank / 8] >> (rank % 8) & 1);
}

int xs_is_alternative(const struct xs_diag *d)
{
	return d->alt_of != NULL;
}

/* Ranking tier: causes at warning or error first, then symptoms at warning
 * or error, then the other causes their messages may have, then anything
 * informational (an info line is context, never the root cause of a
 * failure). */
static int diag_tier(const struct xs_diag *d)
{
	if (d->alt_of)
		return 2;
	if (d->sig->severity == CD_SEV_INFO)
		return 3;
	return d->sig->role == SIG_CAUSE ? 0 : 1;
}

/* How many categories of the other causes in the log can cause this one's
 * (explain_causes.tsv): 0 for a root cause. Filled by xs_rank. */
static int diag_depth(const struct xs_diag *d)
{
	return d->depth;
}

static int diag_cmp(const void *a, const void *b)
{
	const struct xs_diag *x = a, *y = b;
	int tx = diag_tier(x), ty = diag_tier(y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (xs_is_fallback(x->sig) != xs_is_fallback(y->sig)) /* last resort, last */
		return xs_is_fallback(x->sig) ? 1 : -1;
	if (diag_depth(x) != diag_depth(y))
		return diag_depth(x) < diag_depth(y) ? -1 : 1;
	if (x->sig->role != y->sig->role)
		return x->sig->role < y->sig->role ? -1 : 1;
	if (x->sig->severity != y->sig->severity)
		return x->sig->severity > y->sig->severity ? -1 : 1;
	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	if (x->first_line != y->first_line)
		return x->first_line < y->first_line ? -1 : 1;
	if (x->sig->priority != y->sig->priority)
		return x->sig->priority > y->sig->priority ? -1 : 1;
	return strcmp(x->sig->id, y->sig->id);
}

static int by_line(const void *a, const void *b)
{
	const struct xs_cand *x = a, *y = b;

	if (x->input != y->input)
		return x->input < y->input ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Is the line one a diagnosis already explains (among its first lines)? */
static int explained(const struct xs_result *r, const struct xs_cand *c)
{
	size_t i, j;

	for (i = 0; i < r->n; i++)
		for (j = 0; j < r->d[i].n_lines; j++)
			if (r->d[i].input == c->input && r->d[i].lines[j] == c->line)
				return 1;
	return 0;
}

/* The line of the log's last bytes that is not blank, at p[*b, *e), and its
 * number in the last input; 0 when all of them are blank. */
static uint64_t last_line(const struct xs_result *r, const uint8_t *p, size_t n, size_t *b,
			  size_t *e)
{
	uint64_t back = 0, lines = r->inputs[r->n_inputs - 1].lines;
	size_t i = n;

	while (i > 0 && (xs_is_break(p[i - 1]) || p[i - 1] == ' ' || p[i - 1] == '\t')) {
		/* a line ends at \n, at \r\n and, in a log of \r alone, at \r */
		back += p[i - 1] == '\n' || (p[i - 1] == '\r' && (i == n || p[i] != '\n'));
		i--;
	}
	if (!i || back > lines)
		return 0;
	*e = i;
	while (i > 0 && !xs_is_break(p[i - 1]) && *e - i < XS_TEXT_MAX)
		i--;
	*b = i;
	return lines - (back ? back - 1 : 0);
}

/* Nothing looks like a failure, but the words of the log speak for one
 * category by far (the guess's (hint) lead): a hint at severity info, with
 * the lines that look a little like a failure, else the log's last line. A
 * log that hung or was cut short has no failing line; a healthy log seldom
 * reaches that lead, and when it does the hint stays informational. A report
 * of the environment (a benign row fitted a line: collect_env's "Could not
 * collect") describes a machine, not a run: no hint. */
static void add_hint(struct xs_result *r, const struct xs_db *db)
{
	struct guess g;
	const struct sig *s;
	const uint8_t *lin;
	struct xs_diag *d;
	size_t i, b = 0, e = 0;
	uint64_t line;

	if (r->no_guess || r->benign || !r->n_inputs || !(lin = tail_text(r)))
		return;
	guess_category(lin, r->tail_n, &g);
	if (g.category < 0 || !g.hint || !(s = guess_hint_sig(g.category)))
		return;
	d = &r->d[r->n];
	memset(d, 0, sizeof(*d));
	d->sig = s;
	qsort(r->cand, r->n_cand, sizeof(r->cand[0]), by_line);
	for (i = 0; i < r->n_cand && d->n_lines < XS_LINES_MAX; i++) {
		d->lines[d->n_lines] = r->cand[i].line;
		d->line_text[d->n_lines++] =
			xs_clean_copy(&r->arena, (const uint8_t *)r->cand[i].text, r->cand[i].n);
		d->inputs |= (uint64_t)1 << (r->cand[i].input % 64);
	}
	if (d->n_lines) {
		d->input = r->cand[0].input;
		d->first_line = r->cand[0].line;
		d->text = d->line_text[0];
	} else if ((line = last_line(r, lin, r->tail_n, &b, &e)) != 0) {
		d->input = (uint32_t)(r->n_inputs - 1);
		d->inputs = (uint64_t)1 << (d->input % 64);
		d->first_line = d->lines[0] = line;
		d->text = d->line_text[0] = xs_clean_copy(&r->arena, lin + b, e - b);
		d->n_lines = 1;
	} else
		return;
	d->count = d->n_lines;
	xs_ctx_late(r, db, d);
	put_words(r, d, g.words, g.n_words);
	r->n++;
}

/* No cause or symptom was found: the diagnosis of last resort, from the
 * candidates no diagnosis explains, when one of them is heavy enough to be
 * a failure. */
static void add_unknown(struct xs_result *r, const struct xs_db *db)
{
	struct xs_diag *d;
	const struct xs_cand *best = NULL;
	size_t i;
	char *text;
	uint32_t input;
	uint64_t line;

	for (i = 0; i < r->n; i++)
		if (diag_tier(&r->d[i]) < 2)
			return;
	for (i = 0; i < r->n_cand;) /* lines an informational diagnosis explains */
		if (explained(r, &r->cand[i]))
			r->cand[i] = r->cand[--r->n_cand];
		else
			i++;
	for (i = 0; i < r->n_cand; i++)
		if (!best || r->cand[i].weight > best->weight ||
		    (r->cand[i].weight == best->weight && by_line(&r->cand[i], best) > 0))
			best = &r->cand[i];
	if (r->n >= XS_DIAG_MAX)
		return;
	if (!best || best->weight < SIG_FALLBACK_SEED) {
		add_hint(r, db);
		return;
	}
	text = xs_clean_copy(&r->arena, (const uint8_t *)best->text, best->n);
	input = best->input;
	line = best->line;
	qsort(r->cand, r->n_cand, sizeof(r->cand[0]), by_line);
	d = &r->d[r->n];
	memset(d, 0, sizeof(*d));
	d->sig = &xs_sig_unknown;
	d->input = input;
	d->first_line = line;
	d->text = text;
	for (i = 0; i < r->n_cand; i++) {
		d->count++;
		d->inputs |= (uint64_t)1 << (r->cand[i].input % 64);
		d->lines[d->n_lines] = r->cand[i].line;
		d->line_text[d->n_lines++] =
			xs_clean_copy(&r->arena, (const uint8_t *)r->cand[i].text, r->cand[i].n);
	}
	r->n += 1 + (size_t)guess_unknown(r, db, d);
}

static int has_category(const struct xs_result *r, const char *category)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->d[i].sig->category, category))
			return 1;
	return 0;
}

/* A message that two causes print (data/explain_also.tsv): the other cause
 * is named too, on the same line, unless a diagnosis of its category is
 * there already. */
static void add_alternatives(struct xs_result *r, const struct xs_db *db)
{
	const struct sigdb *s = &db->sigs;
	size_t i, j, n = r->n;

	for (i = 0; i < n; i++)
		for (j = 0; j < s->n_also; j++) {
			const struct sig_also *a = &s->also[j];
			struct xs_diag *d;
			if (&s->sigs[a->of] != r->d[i].sig || diag_tier(&r->d[i]) > 1 ||
			    has_category(r, a->alt.category) || r->n >= XS_DIAG_MAX)
				continue;
			d = &r->d[r->n++];
			*d = r->d[i];
			d->sig = &a->alt;
			d->alt_of = r->d[i].sig;
			d->n_env = 0;
		}
}

void xs_rank(struct xs_result *r, const struct xs_db *db)
{
	uint32_t present = 0;
	size_t i, c;

	xs_infer(r, db); /* a cause from stated versions leaves no room for the last resort */
	add_unknown(r, db);
	add_alternatives(r, db);

	for (i = 0; i < r->n; i++) /* the categories of the causes found */
		if (diag_tier(&r->d[i]) == 0 &&
		    (c = (size_t)sig_category_index(r->d[i].sig->category)) < 32)
			present |= (uint32_t)1 << c;
	for (i = 0; i < r->n; i++) {
		int k = sig_category_index(r->d[i].sig->category), depth = 0;
		for (c = 0; k >= 0 && c < 32; c++)
			if ((present >> c & 1) && (db->causes[c] >> k & 1))
				depth++;
		r->d[i].depth = depth;
	}
	qsort(r->d, r->n, sizeof(r->d[0]), diag_cmp);
	memset(r->slots, 0, sizeof(r->slots)); /* indexes are stale after sorting */
}
