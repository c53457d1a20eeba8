/* scan_int: what the files of the log scanner share (scan.c: segments and
 * chunks; scan_db.c: the signature database; scan_feed.c: input and its
 * encodings; scan_hit.c: a hit into a diagnosis; scan_rank.c: results and
 * their order; scan_text.c: the text of a line). Not an interface for other
 * modules: scan.h is. The scanner and the database belong to their caller. */
#ifndef CD_SCAN_INT_H
#define CD_SCAN_INT_H

#include <hs/hs_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "explain/scan.h"
#include "explain/tmpl.h"

struct xs_db {
	struct sigdb sigs;
	hs_database_t *hs;
	/* causes[a] bit b: category a causes category b (explain_causes.tsv,
	 * closed transitively) */
	uint32_t causes[32];
	/* direct[a] bit b: a row of explain_causes.tsv says a causes b (no closure) */
	uint32_t direct[32];
};

enum { XS_ENC_UNDECIDED = 0, XS_ENC_RAW, XS_ENC_UTF16LE, XS_ENC_UTF16BE };
enum { XS_PREFIX_UNDECIDED = 0, XS_PREFIX_NONE, XS_PREFIX_QUOTE, XS_PREFIX_GUTTER };

#define XS_PENDING_MAX 64 /* candidates of one line; past it the lowest priority gives way */

struct xs_pending {
	uint32_t sig;
	uint8_t slot;
	size_t to;
};

struct xs_scanner {
	const struct xs_db *db;
	struct xs_result *res;
	uint32_t input;
	hs_scratch_t *scratch;
	uint8_t *buf;
	size_t len;
	uint64_t line;		      /* line number of buf[0] */
	int cont;		      /* buf[0] is inside a line that was cut */
	int prev_file;		      /* the line before buf[0]'s line is a traceback "File" line */
	size_t prev_col, prev_blanks; /* where its blanks before "File" are */
	int last_partial;	      /* the input did not end with a line break */
	int enc;		      /* XS_ENC_*: decided on the first bytes */
	int prefix;		      /* XS_PREFIX_*: decided on the first lines */
	int cr_only; /* lines end with '\r' alone (classic Mac, some Windows tools) */
	uint8_t odd; /* UTF-16: the first byte of a split code unit */
	int has_odd;
	uint32_t hi;	 /* UTF-16: a high surrogate waiting for its pair */
	size_t multi_at; /* where the last message found over several lines starts, + 1 */
	uint32_t multi_sig;
	int has_last; /* the last recorded hit, for multi-line messages */
	uint32_t last_sig, last_diag;
	uint64_t last_line;
	int finished;
	int err;
	/* the chunk being scanned */
	const uint8_t *c;
	size_t cn;
	size_t skip_to;
	int seg_open;
	size_t seg_s, seg_e;
	size_t n_pend;
	struct xs_pending pend[XS_PENDING_MAX];
	size_t cnt_pos;
	uint64_t cnt_line;
	uint64_t benign_line; /* a benign fallback row (weight 0) fitted this line of the input
			       * (0: none yet; lines count from 1): never a candidate */
	/* context facts (explain_facts.tsv): the latest value of each fact name
	 * seen in this input, and how many diagnoses wait for one after them */
	struct {
		char v[XS_FACT_MAX + 1];
		uint64_t line;
	} ctx[SIG_CTX_NAMES];
	uint32_t ctx_set;
	unsigned ctx_waiting[SIG_CTX_NAMES];
};

/* A pattern's match on a line, with its captures (scan_hit.c records it). */
struct xs_hit {
	uint32_t sig;
	const struct tmpl *t;
	const uint8_t *w; /* the window the captures index */
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	int ok;	      /* captures valid */
	size_t start; /* where the match starts in the window */
	uint64_t line;
	int rank;
	const uint8_t *text;
	size_t text_n;
};

/* scan.c: scan the buffer up to its last line break (everything when final). */
int xs_process(struct xs_scanner *s, int final);
/* scan_feed.c: the encoding, on the first bytes of an input. */
int xs_decide(struct xs_scanner *s);
/* scan_hit.c: count the hit into the diagnosis it belongs to, or a new one. */
void xs_record(struct xs_scanner *s, const struct xs_hit *h);
/* '\r' ends a line too (progress bars, CR-only logs). */
static inline int xs_is_break(uint8_t c)
{
	return c == '\n' || c == '\r';
}
/* scan_ctx.c: give d the fact name = v (copied; line: where the input stated
 * it, 0 for none) unless it has that fact already or no room is left. */
void xs_fact_add(struct xs_result *r, struct xs_diag *d, const char *name, const char *v,
		 uint64_t line);
/* scan_ctx.c: a context fact pattern k matched the line p[0, n), line
 * number line: remember its value and give it to the diagnoses waiting. */
void xs_ctx_hit(struct xs_scanner *s, size_t k, const uint8_t *p, size_t n, uint64_t line);
/* scan_ctx.c: a new diagnosis takes the key facts of its category it lacks
 * from the nearest line before; those not seen yet it waits for. */
void xs_ctx_new(struct xs_scanner *s, struct xs_diag *d);
/* scan_ctx.c: the input's last context values into the result (ctx_last). */
void xs_ctx_keep(struct xs_scanner *s);
/* scan_ctx.c: the key facts of d's category an input stated anywhere
 * (ctx_last): for the guess, whose category is known only after the scan. */
void xs_ctx_late(struct xs_result *r, const struct xs_db *db, struct xs_diag *d);
/* scan_infer.c: a cause from pairs of versions the input stated (the
 * driver's CUDA and the CUDA a program was built for, nvcc's and torch's,
 * gcc and nvcc's bound), when no other cause overrules it; before the
 * diagnosis of last resort, which such a cause leaves out. */
void xs_infer(struct xs_result *r, const struct xs_db *db);
/* scan_unwrap.c: unescape the lines of p[from, n) that are a pasted JSON
 * string or Python repr; returns the new length (the text only shrinks). */
size_t xs_unwrap_escapes(uint8_t *p, size_t n, size_t from);
/* scan_unwrap.c: XS_PREFIX_QUOTE or _GUTTER when nearly every one of the
 * first lines of p[0, n) has one, else XS_PREFIX_NONE. */
int xs_prefix_kind(const uint8_t *p, size_t n);
/* scan_unwrap.c: take the prefix of that kind off every line of p[from, n)
 * that has one; returns the new length. */
size_t xs_unwrap_prefix(uint8_t *p, size_t n, size_t from, int kind);
/* scan_text.c: rank tags, traceback source lines, clean text. */
int xs_parse_rank(const uint8_t *p, size_t n);
int xs_in_code(const struct xs_scanner *sc, size_t s, size_t se);
int xs_tail_is_file(const uint8_t *p, size_t m, size_t *col, size_t *blanks);
char *xs_clean_copy(struct cd_arena *a, const uint8_t *p, size_t n);
/* scan_rank.c: keep the bytes just scanned in the result's tail ring. */
void xs_tail_keep(struct xs_result *r, const uint8_t *p, size_t n);

#endif
