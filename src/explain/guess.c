/* guess: see guess.h. The words are cut as tools/lexicon.py cuts them: a
 * token is a letter, then letters, digits and _+.-, ending on a letter or
 * digit; its words are the token (none with three digits in a row) and its
 * letter parts (see part_end), 3 to 39 bytes, ASCII lower-cased; each counts
 * once per log. */
#include "explain/guess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "core/vec.h"
#include "kb/kb.h"

#define WORD_MAX 40
#define LEX_MAX	 ((size_t)1 << 20) /* words of a table: far more than any will have */
#define N_CAT	 32

struct lex_row {
	char word[WORD_MAX];
	int16_t llr[N_CAT]; /* by sig_categories index */
};

/* the table's words, as many as it has: grown while it is read, once */
static struct lex_row *lex;
static size_t n_lex, lex_cap;
static int16_t prior[N_CAT];
/* per category, the lead over the next and the weight of its strongest word
 * present that a guess of it needs (the rows (margin) and (strong)) */
static int16_t margin_min[N_CAT], strong_min[N_CAT];
/* below this lead the runner-up is named too (the row (close); none: never) */
static int16_t close_max[N_CAT];
/* the lead a hint needs, for a log with no failure-looking line (the row
 * (hint); none: no hint) */
static int16_t hint_min[N_CAT];
static int gate_rows;
static int n_cat, lex_loaded;

static uint8_t *seen; /* the words of the log being guessed: a bit per row of lex */

static struct sig guesses[N_CAT], hints[N_CAT];
static int guess_loaded;
static struct kb_pool pool;
static char pool_mem[16384];

static int lex_row(const struct kb_tsv *t, void *ctx)
{
	struct lex_row *r;
	size_t c;
	const char *w = t->nfields ? t->fields[0] : "";
	int16_t *row = !strcmp(w, "(prior)")	? prior
		       : !strcmp(w, "(margin)") ? margin_min
		       : !strcmp(w, "(strong)") ? strong_min
		       : !strcmp(w, "(close)")	? close_max
		       : !strcmp(w, "(hint)")	? hint_min
						: NULL;

	(void)ctx;
	if (row) {
		for (c = 1; c < t->ncols && c < t->nfields; c++) {
			int k = sig_category_index(t->cols[c]);
			if (k >= 0 && k < N_CAT)
				row[k] = (int16_t)strtol(t->fields[c], NULL, 10);
		}
		gate_rows |= row == margin_min	 ? 1
			     : row == strong_min ? 2
			     : row == hint_min	 ? 4
						 : 0;
		return 0;
	}
	if (strlen(w) >= WORD_MAX)
		return 0;
	if (!(r = vec_grow(NULL, lex, &lex_cap, n_lex, sizeof(*lex), 8192, LEX_MAX)))
		return -1; /* out of memory or past LEX_MAX: no guess */
	lex = r;
	r = &lex[n_lex];
	memset(r, 0, sizeof(*r));
	memcpy(r->word, w, strlen(w) + 1);
	for (c = 1; c < t->ncols && c < t->nfields; c++) {
		int k = sig_category_index(t->cols[c]);
		if (k >= 0 && k < N_CAT)
			r->llr[k] = (int16_t)strtol(t->fields[c], NULL, 10);
	}
	n_lex++;
	return 0;
}

static int by_word(const void *a, const void *b)
{
	return strcmp(((const struct lex_row *)a)->word, ((const struct lex_row *)b)->word);
}

static void lex_load(void)
{
	if (lex_loaded)
		return;
	lex_loaded = 1;
	while (sig_categories[n_cat] && n_cat < N_CAT)
		n_cat++;
	/* Not embedded, out of memory or without its gate: no guess. */
	if (kb_tsv_each("explain_lexicon.tsv", lex_row, NULL) || (gate_rows & 3) != 3 ||
	    !(seen = malloc(n_lex / 8 + 1)))
		n_lex = 0;
	if (n_lex)
		qsort(lex, n_lex, sizeof(lex[0]), by_word);
}

static int is_letter(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_upper(uint8_t c)
{
	return c >= 'A' && c <= 'Z';
}

static int is_lower(uint8_t c)
{
	return c >= 'a' && c <= 'z';
}

static int is_alnum(uint8_t c)
{
	return is_letter(c) || (c >= '0' && c <= '9');
}

static int is_word_byte(uint8_t c)
{
	return is_alnum(c) || c == '_' || c == '+' || c == '.' || c == '-';
}

static uint8_t lower(uint8_t c)
{
	return is_upper(c) ? (uint8_t)(c + 32) : c;
}

static int three_digits(const uint8_t *w, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		run = w[i] >= '0' && w[i] <= '9' ? run + 1 : 0;
		if (run >= 3)
			return 1;
	}
	return 0;
}

/* The next token at or after *pos: a letter, then letters, digits and
 * _+.-, ending on a letter or digit. Its start and length; 0 at the end. */
static size_t next_token(const uint8_t *p, size_t n, size_t *pos, size_t *start)
{
	size_t i = *pos, e, last;

	while (i < n && !is_letter(p[i]))
		i++;
	if (i >= n) {
		*pos = n;
		return 0;
	}
	last = i;
	for (e = i + 1; e < n && is_word_byte(p[e]); e++)
		if (is_alnum(p[e]))
			last = e;
	*start = i;
	*pos = last + 1;
	return last - i + 1;
}

/* The end of the letter part of tok that starts at i (a letter): a run of
 * lower-case letters, a capital and the lower-case letters after it, or a
 * run of capitals short of the one that starts a lower-case part
 * (HTTPError: HTTP, Error). */
static size_t part_end(const uint8_t *t, size_t n, size_t i)
{
	size_t j = i;

	if (is_upper(t[i])) {
		while (j < n && is_upper(t[j]))
			j++;
		if (j >= n || !is_lower(t[j]))
			return j;
		if (j - 1 > i)
			return j - 1;
		j = i + 1;
	}
	while (j < n && is_lower(t[j]))
		j++;
	return j;
}

static const struct lex_row *find(const char *w)
{
	size_t lo = 0, hi = n_lex;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(w, lex[mid].word);
		if (!c)
			return &lex[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Mark the word t[0..k) as present, lower-cased, when the table has it. */
static void see(const uint8_t *t, size_t k)
{
	char w[WORD_MAX];
	const struct lex_row *r;
	size_t i, at;

	if (k < 3 || k >= WORD_MAX)
		return;
	for (i = 0; i < k; i++)
		w[i] = (char)lower(t[i]);
	w[k] = '\0';
	if (!(r = find(w)))
		return;
	at = (size_t)(r - lex);
	seen[at / 8] = (uint8_t)(seen[at / 8] | 1u << (at % 8));
}

/* The words of a log as tools/lexicon.py cuts them: each token whole (no
 * three digits in a row), and its letter parts. */
static void see_words(const uint8_t *p, size_t n)
{
	size_t pos = 0, s = 0, k, i;

	while ((k = next_token(p, n, &pos, &s)) != 0) {
		const uint8_t *t = p + s;
		if (!three_digits(t, k))
			see(t, k);
		for (i = 0; i < k;) {
			size_t e;
			if (!is_letter(t[i])) {
				i++;
				continue;
			}
			e = part_end(t, k, i);
			see(t + i, e - i);
			i = e;
		}
	}
}

/* The words present that speak most for category c, strongest first. */
static void top_words(int c, const char **out, size_t *n)
{
	size_t i, k;

	*n = 0;
	for (k = 0; k < GUESS_WORDS; k++) {
		const struct lex_row *top = NULL;
		for (i = 0; i < n_lex; i++) {
			size_t j;
			if (!(seen[i / 8] >> (i % 8) & 1) || lex[i].llr[c] < GUESS_SHOWN)
				continue;
			for (j = 0; j < *n; j++)
				if (out[j] == lex[i].word)
					break;
			if (j == *n && (!top || lex[i].llr[c] > top->llr[c]))
				top = &lex[i];
		}
		if (!top)
			break;
		out[(*n)++] = top->word;
	}
}

size_t guess_words(void)
{
	lex_load();
	return n_lex;
}

void guess_category(const uint8_t *text, size_t n, struct guess *g)
{
	long score[N_CAT];
	int strong[N_CAT];
	size_t i;
	int c, best = -1, second = -1;

	memset(g, 0, sizeof(*g));
	g->category = -1;
	g->second = -1;
	lex_load();
	if (!n_lex || !n_cat)
		return;
	memset(seen, 0, n_lex / 8 + 1);
	see_words(text, n);
	for (c = 0; c < n_cat; c++) {
		score[c] = prior[c];
		strong[c] = 0;
	}
	for (i = 0; i < n_lex; i++) {
		if (!(seen[i / 8] >> (i % 8) & 1))
			continue;
		for (c = 0; c < n_cat; c++) {
			score[c] += lex[i].llr[c];
			if (lex[i].llr[c] > strong[c])
				strong[c] = lex[i].llr[c];
		}
	}
	for (c = 0; c < n_cat; c++)
		if (best < 0 || score[c] > score[best]) {
			second = best;
			best = c;
		} else if (second < 0 || score[c] > score[second])
			second = c;
	if (best < 0 || second < 0 || score[best] - score[second] < margin_min[best] ||
	    strong[best] < strong_min[best])
		return;
	g->category = best;
	g->margin = (int)(score[best] - score[second]);
	g->hint = (gate_rows & 4) && g->margin >= hint_min[best];
	if (g->margin < close_max[best] && strong[second] >= strong_min[second])
		g->second = second;
	top_words(best, g->words, &g->n_words);
	if (g->second >= 0)
		top_words(g->second, g->words2, &g->n_words2);
}

/* One category's guess or hint, from its row of explain_guess.tsv. */
static int fill(struct sig *s, int k, const struct kb_tsv *t, const char *fix, int hint)
{
	char buf[512];

	if ((size_t)snprintf(
		    buf, sizeof(buf),
		    hint ? "%s: a hint from the log's words ({words}); no line looks like "
			   "a failure"
			 : "%s: a guess from the log's words ({words}); no signature matched",
		    kb_tsv_get(t, "title")) >= sizeof(buf) ||
	    !(s->title = kb_pool_dup(&pool, buf)))
		return -1;
	if ((size_t)snprintf(buf, sizeof(buf), "%s-%s", hint ? "hint" : "guess",
			     sig_categories[k]) >= sizeof(buf) ||
	    !(s->id = kb_pool_dup(&pool, buf)))
		return -1;
	s->category = sig_categories[k];
	s->severity = hint ? CD_SEV_INFO : CD_SEV_WARNING;
	s->role = SIG_CAUSE;
	s->explain =
		hint ? "No line of this log looks like a failure and no signature matched, but its "
		       "words are those of logs of this category (tests/corpus/tune; "
		       "tools/lexicon.py). If the run failed, hung or stopped, look here first: "
		       "confirm it with the command below. The lines shown are the ones that look "
		       "most like a failure, else the log's last."
		     : "No signature of cuda-doctor matched this log, but the words in it are "
		       "those "
		       "of logs of this category (tests/corpus/tune; tools/lexicon.py). It is a "
		       "guess: confirm it with the command below. The lines shown are the ones "
		       "that "
		       "look most like the failure.";
	s->fix.n = 2;
	s->fix.v[0] = fix;
	s->fix.v[1] = "search the project's issues for the exact message of the last line shown";
	return 0;
}

static int guess_row(const struct kb_tsv *t, void *ctx)
{
	int k = sig_category_index(kb_tsv_get(t, "category"));
	const char *fix;

	(void)ctx;
	if (k < 0 || k >= N_CAT || !(fix = kb_pool_dup(&pool, kb_tsv_get(t, "fix"))))
		return 0;
	if (fill(&guesses[k], k, t, fix, 0) || fill(&hints[k], k, t, fix, 1))
		guesses[k].title = hints[k].title = NULL; /* the pool is full: neither */
	return 0;
}

static void guess_load(void)
{
	if (guess_loaded)
		return;
	guess_loaded = 1;
	pool.p = pool_mem;
	pool.cap = sizeof(pool_mem);
	(void)!kb_tsv_each("explain_guess.tsv", guess_row, NULL); /* none: no guess */
}

const struct sig *guess_sig(int category)
{
	guess_load();
	if (category < 0 || category >= N_CAT || !guesses[category].title)
		return NULL;
	return &guesses[category];
}

const struct sig *guess_hint_sig(int category)
{
	guess_load();
	if (category < 0 || category >= N_CAT || !hints[category].title)
		return NULL;
	return &hints[category];
}

int guess_is(const struct sig *s)
{
	return (s >= guesses && s < guesses + N_CAT) || guess_is_hint(s);
}

int guess_is_hint(const struct sig *s)
{
	return s >= hints && s < hints + N_CAT;
}
