/* guess: a category for a log no signature matched, from the words it
 * contains (naive Bayes over data/explain_lexicon.tsv, which
 * tools/lexicon.py writes from the tune corpus), and the diagnosis that says
 * so (data/explain_guess.tsv). Tables are read once into static storage;
 * without them there is no guess. Never allocates per call. */
#ifndef CD_GUESS_H
#define CD_GUESS_H

#include <stddef.h>
#include <stdint.h>

#include "explain/sigdb.h"

#define GUESS_WORDS	 5
#define GUESS_MIN_MARGIN 200 /* hundredths of a nat between the first and second category */
#define GUESS_STRONG	 200 /* a word that speaks this much for the category ... */
#define GUESS_MIN_STRONG 2   /* ... and this many of them */

struct guess {
	int category; /* index into sig_categories; -1: no guess */
	int margin;   /* hundredths of a nat */
	size_t n_words;
	const char *words[GUESS_WORDS]; /* the words that speak most for it (static) */
};

/* The category the words of text speak for, when it leads the next one by
 * GUESS_MIN_MARGIN and GUESS_MIN_STRONG of its words are GUESS_STRONG for
 * it (generic words alone never make a guess); else g->category is -1. */
void guess_category(const uint8_t *text, size_t n, struct guess *g);
/* The diagnosis of a guessed category (its title expands {words}); NULL
 * when the table lacks the category. */
const struct sig *guess_sig(int category);
/* 1 when s is one of guess_sig's diagnoses. */
int guess_is(const struct sig *s);

#endif
