/* pep440: Python package versions and version specifiers (PEP 440, as
 * implemented by the `packaging` library that pip uses).
 * Versions and specifiers are plain values in caller storage; nothing is
 * allocated. Parsers take (p, n) bytes and fail with CD_EFORMAT on anything
 * PEP 440 does not accept, CD_ERANGE when a number or a count is over a cap
 * (a release number over 2^64-1, more than PEP440_RELEASE_MAX components). */
#ifndef CD_PEP440_H
#define CD_PEP440_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define PEP440_INPUT_MAX   256 /* longest version or specifier text accepted */
#define PEP440_RELEASE_MAX 20  /* release components ("1.2.3" has 3) */
#define PEP440_LOCAL_MAX   64  /* bytes of the normalised local label */
#define PEP440_SPECS_MAX   16  /* clauses in one specifier set */

enum pep440_pre { PEP440_PRE_NONE = 0, PEP440_PRE_A, PEP440_PRE_B, PEP440_PRE_RC };

struct pep440_version {
	uint64_t epoch;
	size_t n_release;
	uint64_t release[PEP440_RELEASE_MAX];
	enum pep440_pre pre_kind;
	uint64_t pre;
	int has_post;
	uint64_t post;
	int has_dev;
	uint64_t dev;
	/* Normalised local label without '+': lower case, '.'-separated, numeric
	 * parts without leading zeros; "" when there is none. */
	char local[PEP440_LOCAL_MAX];
};

/* Parse a version (surrounding white space allowed, a leading 'v' allowed). */
CD_WUR int pep440_parse(const char *p, size_t n, struct pep440_version *out);
/* Total order of PEP 440 ("1.0.dev0" < "1.0a1" < "1.0" < "1.0+x" < "1.0.post1"). */
int pep440_cmp(const struct pep440_version *a, const struct pep440_version *b);
/* Normalised text ("1!2.0rc1.post2.dev3+ubuntu.1"); returns the length it
 * wanted, like snprintf. */
size_t pep440_format(const struct pep440_version *v, char *out, size_t cap);
int pep440_is_prerelease(const struct pep440_version *v);  /* has pre or dev */
int pep440_is_postrelease(const struct pep440_version *v); /* has post */

enum pep440_op {
	PEP440_OP_COMPAT = 0, /* ~= */
	PEP440_OP_EQ,	      /* == */
	PEP440_OP_NE,	      /* != */
	PEP440_OP_LE,	      /* <= */
	PEP440_OP_GE,	      /* >= */
	PEP440_OP_LT,	      /* <  */
	PEP440_OP_GT,	      /* >  */
	PEP440_OP_ARBITRARY   /* === */
};

struct pep440_spec {
	enum pep440_op op;
	int wildcard; /* "==1.2.*" / "!=1.2.*" */
	struct pep440_version v;
	char text[PEP440_INPUT_MAX]; /* the version as written (=== compares it) */
};

struct pep440_specset {
	size_t n;
	struct pep440_spec specs[PEP440_SPECS_MAX];
};

/* How to treat pre-releases of the candidate version. */
enum pep440_prerelease {
	PEP440_PRE_DEFAULT = -1, /* PEP 440: only when a clause names a pre-release */
	PEP440_PRE_EXCLUDE = 0,
	PEP440_PRE_INCLUDE = 1 /* what `pip check` uses for installed versions */
};

/* One clause: operator, optional white space, version (">= 1.0"). */
CD_WUR int pep440_spec_parse(const char *p, size_t n, struct pep440_spec *out);
/* Comma-separated clauses; empty input is the empty set (matches anything). */
CD_WUR int pep440_specset_parse(const char *p, size_t n, struct pep440_specset *out);
const char *pep440_op_str(enum pep440_op op);
/* 1 when v satisfies the clause / every clause, else 0. */
int pep440_spec_contains(const struct pep440_spec *s, const struct pep440_version *v,
			 enum pep440_prerelease pre);
int pep440_specset_contains(const struct pep440_specset *s, const struct pep440_version *v,
			    enum pep440_prerelease pre);
/* The set as text, clauses joined by ','; returns the length it wanted. */
size_t pep440_specset_format(const struct pep440_specset *s, char *out, size_t cap);

#endif
