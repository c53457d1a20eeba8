/* guess: a category for a log no signature matched, from the words it
 * contains and their letter parts (a logistic regression whose weights are
 * data/explain_lexicon.tsv, which tools/lexicon.py writes from the tune
 * corpus), and the diagnosis that says
 * so (data/explain_guess.tsv). Tables are read once into static storage;
 * without them there is no guess. Never allocates per call. */
#ifndef CD_GUESS_H
#define CD_GUESS_H

#include <stddef.h>
#include <stdint.h>

#include "explain/sigdb.h"

#define GUESS_WORDS 5
#define GUESS_SHOWN 40 /* a word named as the reason weighs at least this for it */

struct guess {
	int category; /* index into sig_categories; -1: no guess */
	int margin;   /* hundredths of a nat */
	int second;   /* the runner-up, named too when the lead is below the (close) row; -1 */
	int hint;     /* 1 when the lead also reaches the (hint) row: enough for a log in
		       * which no line looks like a failure */
	size_t n_words;
	const char *words[GUESS_WORDS]; /* the words that speak most for it (static) */
	size_t n_words2;
	const char *words2[GUESS_WORDS]; /* the same for the runner-up named */
};

/* The category the words of text speak for, when it leads the next one by
 * the table's (margin) for it and one of its words weighs its (strong) (words
 * such as "error" or "raise" weigh far less; a path word can reach it, so a
 * plain Python error is sometimes guessed too); else g->category is -1. The
 * two rows are written by tools/lexicon.py (MARGIN, STRONG), the one place
 * the gate is set; a table without them makes no guess. When the lead is
 * below the (close) row and a word weighs (strong) for the runner-up too,
 * g->second is the runner-up, else -1. */
void guess_category(const uint8_t *text, size_t n, struct guess *g);
/* The diagnosis of a guessed category (its title expands {words}); NULL
 * when the table lacks the category. */
const struct sig *guess_sig(int category);
/* The same at severity info, for a log in which no line looks like a
 * failure (a hang, a log cut short): a hint of where to look. */
const struct sig *guess_hint_sig(int category);
/* The words of the table read: every row of it, or 0 when there is no guess. */
size_t guess_words(void);
/* 1 when s is one of guess_sig's or guess_hint_sig's diagnoses. */
int guess_is(const struct sig *s);
/* 1 when s is one of guess_hint_sig's. */
int guess_is_hint(const struct sig *s);

#endif
