/* pep440_int: what the two halves of pep440 share (pep440.c parses,
 * pep440_match.c orders and matches): character classes, ASCII whatever the
 * locale, as packaging's regular expressions read them. Not an interface for
 * other modules: pep440.h is. Nothing here allocates or fails. */
#ifndef CD_PEP440_INT_H
#define CD_PEP440_INT_H

static inline int pep440_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline char pep440_lc(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

#endif
