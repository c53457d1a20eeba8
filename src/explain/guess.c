/* guess: see guess.h. The words are cut as tools/lexicon.py cuts them: a
 * letter, then letters, digits and _+.-, ending on a letter or digit; 3 to
 * 39 bytes, ASCII lower-cased, none with three digits in a row; each counts
 * once per log. */
#include "explain/guess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

#define LEX_MAX	 4096
#define WORD_MAX 40
#define N_CAT	 32

struct lex_row {
	char word[WORD_MAX];
	int16_t llr[N_CAT]; /* by sig_categories index */
};

static struct lex_row lex[LEX_MAX];
static size_t n_lex;
static int16_t prior[N_CAT];
static int n_cat, lex_loaded;

static uint8_t seen[LEX_MAX / 8]; /* the words of the log being guessed */

static struct sig guesses[N_CAT];
static int guess_loaded;
static struct kb_pool pool;
static char pool_mem[8192];

static int lex_row(const struct kb_tsv *t, void *ctx)
{
	struct lex_row *r;
	size_t c;
	const char *w = t->nfields ? t->fields[0] : "";

	(void)ctx;
	if (!strcmp(w, "(prior)")) {
		for (c = 1; c < t->ncols && c < t->nfields; c++) {
			int k = sig_category_index(t->cols[c]);
			if (k >= 0 && k < N_CAT)
				prior[k] = (int16_t)strtol(t->fields[c], NULL, 10);
		}
		return 0;
	}
	if (n_lex >= LEX_MAX || strlen(w) >= WORD_MAX)
		return 0;
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
	/* Not embedded or out of memory: no words, no guess. */
	if (kb_tsv_each("explain_lexicon.tsv", lex_row, NULL))
		n_lex = 0;
	qsort(lex, n_lex, sizeof(lex[0]), by_word);
}

static int is_word_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '+' ||
	       c == '.' || c == '-';
}

static int is_alnum(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static uint8_t lower(uint8_t c)
{
	return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
}

static int three_digits(const char *w, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		run = w[i] >= '0' && w[i] <= '9' ? run + 1 : 0;
		if (run >= 3)
			return 1;
	}
	return 0;
}

/* The next word at or after *pos; its length, 0 at the end. */
static size_t next_word(const uint8_t *p, size_t n, size_t *pos, char *w)
{
	size_t i = *pos;

	while (i < n) {
		size_t s, e, last, k;
		uint8_t c = lower(p[i]);
		if (c < 'a' || c > 'z') {
			i++;
			continue;
		}
		s = i;
		last = i;
		for (e = i + 1; e < n && is_word_byte(lower(p[e])); e++)
			if (is_alnum(lower(p[e])))
				last = e;
		k = last - s + 1;
		i = last + 1;
		if (k < 3 || k >= WORD_MAX)
			continue;
		for (e = 0; e < k; e++)
			w[e] = (char)lower(p[s + e]);
		w[k] = '\0';
		if (three_digits(w, k))
			continue;
		*pos = i;
		return k;
	}
	*pos = n;
	return 0;
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

void guess_category(const uint8_t *text, size_t n, struct guess *g)
{
	long score[N_CAT];
	size_t pos = 0, i, k;
	int c, best = -1, second = -1;
	char w[WORD_MAX];

	memset(g, 0, sizeof(*g));
	g->category = -1;
	lex_load();
	if (!n_lex || !n_cat)
		return;
	memset(seen, 0, sizeof(seen));
	for (c = 0; c < n_cat; c++)
		score[c] = prior[c];
	while (next_word(text, n, &pos, w)) {
		const struct lex_row *r = find(w);
		size_t at;
		if (!r)
			continue;
		at = (size_t)(r - lex);
		if (seen[at / 8] >> (at % 8) & 1)
			continue;
		seen[at / 8] = (uint8_t)(seen[at / 8] | 1u << (at % 8));
		for (c = 0; c < n_cat; c++)
			score[c] += r->llr[c];
	}
	for (c = 0; c < n_cat; c++)
		if (best < 0 || score[c] > score[best]) {
			second = best;
			best = c;
		} else if (second < 0 || score[c] > score[second])
			second = c;
	if (best < 0 || second < 0 || score[best] - score[second] < GUESS_MIN_MARGIN)
		return;
	for (i = 0, k = 0; i < n_lex; i++)
		k += (seen[i / 8] >> (i % 8) & 1) && lex[i].llr[best] >= GUESS_STRONG;
	if (k < GUESS_MIN_STRONG)
		return;
	g->category = best;
	g->margin = (int)(score[best] - score[second]);
	/* the words present that speak most for it, strongest first */
	for (k = 0; k < GUESS_WORDS; k++) {
		const struct lex_row *top = NULL;
		for (i = 0; i < n_lex; i++) {
			size_t j;
			if (!(seen[i / 8] >> (i % 8) & 1) || lex[i].llr[best] <= 0)
				continue;
			for (j = 0; j < g->n_words; j++)
				if (g->words[j] == lex[i].word)
					break;
			if (j == g->n_words && (!top || lex[i].llr[best] > top->llr[best]))
				top = &lex[i];
		}
		if (!top)
			break;
		g->words[g->n_words++] = top->word;
	}
}

static int guess_row(const struct kb_tsv *t, void *ctx)
{
	int k = sig_category_index(kb_tsv_get(t, "category"));
	struct sig *s;
	const char *title, *fix;
	char buf[512];

	(void)ctx;
	if (k < 0 || k >= N_CAT)
		return 0;
	s = &guesses[k];
	if ((size_t)snprintf(buf, sizeof(buf),
			     "%s: a guess from the log's words ({words}); no signature matched",
			     kb_tsv_get(t, "title")) >= sizeof(buf))
		return 0;
	title = kb_pool_dup(&pool, buf);
	fix = kb_pool_dup(&pool, kb_tsv_get(t, "fix"));
	if ((size_t)snprintf(buf, sizeof(buf), "guess-%s", sig_categories[k]) >= sizeof(buf))
		return 0;
	s->id = kb_pool_dup(&pool, buf);
	if (!title || !fix || !s->id)
		return 0;
	s->category = sig_categories[k];
	s->severity = CD_SEV_WARNING;
	s->role = SIG_CAUSE;
	s->title = title;
	s->explain = "No signature of cuda-doctor matched this log, but the words in it are those "
		     "of logs of this category (tests/corpus/tune; tools/lexicon.py). It is a "
		     "guess: confirm it with the command below. The lines shown are the ones that "
		     "look most like the failure.";
	s->fix.n = 2;
	s->fix.v[0] = fix;
	s->fix.v[1] = "search the project's issues for the exact message of the last line shown";
	return 0;
}

const struct sig *guess_sig(int category)
{
	if (!guess_loaded) {
		guess_loaded = 1;
		pool.p = pool_mem;
		pool.cap = sizeof(pool_mem);
		(void)!kb_tsv_each("explain_guess.tsv", guess_row, NULL); /* none: no guess */
	}
	if (category < 0 || category >= N_CAT || !guesses[category].title)
		return NULL;
	return &guesses[category];
}

int guess_is(const struct sig *s)
{
	return s >= guesses && s < guesses + N_CAT;
}
