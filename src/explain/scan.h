/* scan: one pass over a log with every signature in one Vectorscan database.
 * Input is pushed in pieces (xs_feed) or read from a descriptor; a fixed
 * buffer (XS_BUF bytes) holds the current chunk, which always ends at a line
 * break unless one line is longer than the buffer (then it is cut, with an
 * overlap, and still scanned). Only lines a pattern hit are looked at again,
 * to extract facts. Results go into a bounded struct xs_result: at most
 * XS_DIAG_MAX distinct diagnoses, deduplicated by signature and facts, so
 * memory does not depend on the input. xs_result and the scanner are owned
 * by the caller (xs_result_free, xs_close). Errors are CD_E* codes. */
#ifndef CD_SCAN_H
#define CD_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"
#include "explain/sigdb.h"

#define XS_BUF	      ((size_t)1 << 20)
#define XS_OVERLAP    4096  /* bytes rescanned when a line longer than XS_BUF is cut */
#define XS_WINDOW     32768 /* bytes either side of a hit given to the fact matcher */
#define XS_DIAG_MAX   256
#define XS_LINES_MAX  16
#define XS_TEXT_MAX   512
#define XS_FACT_MAX   256
#define XS_RANKS      1024
#define XS_FACTS_MAX  (2 * TMPL_CAPS_MAX)
#define XS_ENV_MAX    16
#define XS_INPUTS_MAX 64
#define XS_CONT_LINES 3 /* hits of one signature this close continue one message */
#define XS_JOIN_LINES 2 /* a message that wraps is looked for this many lines either side */
#define XS_JOIN_BYTES 2048
#define XS_CAND_MAX   6			  /* lines kept for the diagnosis of last resort */
#define XS_TAIL	      ((size_t)256 << 10) /* the last bytes kept for a guess from the words */

struct xs_db;

/* Load the signatures (embedded data/signatures) and the database compiled
 * from them at build time; CD_EINTERNAL if the two do not belong together. */
CD_WUR int xs_db_open(struct xs_db **out, struct cd_err *err);
void xs_db_close(struct xs_db *db);
const struct sigdb *xs_db_sigs(const struct xs_db *db);

struct xs_fact {
	const char *name;
	const char *value;
	uint64_t line; /* 0: the matched line gave it; else the line of its context */
};

struct xs_diag {
	const struct sig *sig;
	uint32_t input;	     /* index into xs_result.inputs */
	uint64_t first_line; /* 1-based */
	uint64_t count;	     /* matching lines, all of them */
	uint64_t inputs;     /* bit i: seen in input i (mod 64) */
	size_t n_lines;
	uint64_t lines[XS_LINES_MAX]; /* the first XS_LINES_MAX line numbers */
	size_t n_facts;
	struct xs_fact facts[XS_FACTS_MAX];
	const char *text; /* the first matching line, control bytes replaced */
	uint64_t hash;
	size_t n_ranks; /* distinct ranks seen ("[rank3]:", "[default3]:") */
	uint8_t ranks[XS_RANKS / 8];
	int depth; /* categories of other causes found that cause this one's (xs_rank) */
	/* an alternative (data/explain_also.tsv): the other cause the line of
	 * this signature's diagnosis may have; NULL for a diagnosis found */
	const struct sig *alt_of;
	uint32_t ctx_wait; /* bit j: key fact sigdb.ctx_names[j] still looked for after it */
	size_t n_env;	   /* filled by the environment cross-check */
	const char *env[XS_ENV_MAX];
	/* `unknown` only: the text of each line in lines[] (the lines that look
	 * most like the failure, in line order) */
	const char *line_text[XS_LINES_MAX];
};

/* A line that looks like a failure (data/explain_fallback.tsv). */
struct xs_cand {
	uint32_t input;
	uint64_t line;
	int weight;
	size_t n;
	char text[XS_TEXT_MAX + 1];
};

struct xs_result {
	struct cd_arena arena;
	size_t n;
	struct xs_diag d[XS_DIAG_MAX];
	uint32_t slots[2 * XS_DIAG_MAX]; /* dedupe hash table: index + 1 */
	uint64_t dropped;		 /* distinct diagnoses past XS_DIAG_MAX */
	uint64_t hits;			 /* lines a signature matched */
	uint64_t code_lines;		 /* hits skipped as traceback source lines */
	uint64_t cut_lines;		 /* lines longer than XS_BUF */
	size_t n_cand;			 /* the heaviest, latest failure-looking lines */
	struct xs_cand cand[XS_CAND_MAX];
	uint64_t benign; /* lines a benign row fitted: the log is (or holds) a report of the
			  * environment, so no hint is made from its words */
	int no_guess;	 /* set before xs_rank: the diagnosis of last resort stays unknown */
	uint8_t *tail;	 /* a ring of the last XS_TAIL bytes scanned (arena) */
	size_t tail_pos, tail_n;
	size_t n_inputs;
	struct {
		const char *name;
		uint64_t bytes, lines;
	} inputs[XS_INPUTS_MAX];
	/* per context fact name (sigdb.ctx_names), the last value an input
	 * stated (xs_finish), for the guess that is made after the scan */
	struct {
		const char *value; /* NULL: none */
		uint32_t input;
		uint64_t line;
	} ctx_last[SIG_CTX_NAMES];
};

/* Heap-allocated (it is large); NULL when memory runs out. */
CD_WUR struct xs_result *xs_result_new(void);
void xs_result_free(struct xs_result *r);
/* Register an input; returns its index or -1 past XS_INPUTS_MAX. */
CD_WUR int xs_result_input(struct xs_result *r, const char *name);
/* The signature of the diagnosis of last resort, category "unknown": when
 * no signature's cause or symptom is found, xs_rank puts it first, with the
 * lines that look most like the failure. */
extern const struct sig xs_sig_unknown;
/* The diagnosis of last resort: `unknown`, or a category guessed from the
 * words of the log (explain/guess.h) when no signature matched. */
int xs_is_fallback(const struct sig *s);
/* The hint among them: no line looked like a failure, the words of the log
 * spoke for one category by far (explain/guess.h); severity info. */
int xs_is_hint(const struct sig *s);

/* A diagnosis that names the other cause a message may have (alt_of). */
int xs_is_alternative(const struct xs_diag *d);

/* Order: causes before symptoms before alternatives before info; among causes, one whose
 * category another cause found can cause (data/explain_causes.tsv: a
 * shadowing LD_LIBRARY_PATH causes the undefined symbol) after that one;
 * then errors before warnings, then by input and first line (the earliest
 * cause in a log is the root one). */
void xs_rank(struct xs_result *r, const struct xs_db *db);
const char *xs_fact(const struct xs_diag *d, const char *name);
int xs_has_rank(const struct xs_diag *d, unsigned rank);

struct xs_scanner;

CD_WUR int xs_open(struct xs_scanner **out, const struct xs_db *db, struct xs_result *res,
		   uint32_t input, struct cd_err *err);
CD_WUR int xs_feed(struct xs_scanner *s, const void *p, size_t n);
/* Read fd to its end through the scanner's own buffer. */
CD_WUR int xs_feed_fd(struct xs_scanner *s, int fd, struct cd_err *err);
/* Scan what is left; the scanner can then only be closed. */
CD_WUR int xs_finish(struct xs_scanner *s);
void xs_close(struct xs_scanner *s);

/* Remove ANSI escape sequences in place; returns the new length. */
size_t xs_strip_ansi(uint8_t *p, size_t n);

#endif
