/* scan: see scan.h. Block-mode Vectorscan over line-aligned chunks: a match
 * never spans a line break (no pattern can match '\r' or '\n'), so chunks that
 * end at a break lose nothing, and the match callback only has to find the
 * line ("segment": '\r' ends one too, for progress bars) around each hit.
 * Vectorscan reports matches in end-offset order, so the searches for line
 * bounds cover each byte of the chunk about once. */
#include "explain/scan.h"

#include <errno.h>
#include <hs/hs_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/str.h"
#include "explain/keyfact.h"
#include "explain/tmpl.h"
#include "kb/kb.h"

/* Written by tools/sigc.c from data/signatures into $(BUILD)/gen/sigdb.c. */
extern const unsigned char xs_hsdb[];
extern const size_t xs_hsdb_len;
extern const uint64_t xs_sig_hash;

struct xs_db {
	struct sigdb sigs;
	hs_database_t *hs;
	/* causes[a] bit b: category a causes category b (explain_causes.tsv,
	 * closed transitively) */
	uint32_t causes[32];
};

/* Read data/explain_causes.tsv into db->causes and close it transitively;
 * an unknown category or a cycle is CD_EINTERNAL (the data is wrong). */
static int load_causes(struct xs_db *db, struct cd_err *err)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	size_t n = 0, a, b, k;
	int rc = 0;

	if (!t)
		return err_set(err, CD_ENOMEM, "out of memory");
	while (sig_categories[n])
		n++;
	if (n > 32 || kb_tsv_open(t, "explain_causes.tsv")) {
		free(t);
		return err_set(err, CD_EINTERNAL, "explain_causes.tsv is missing");
	}
	while (!rc && kb_tsv_next(t)) {
		int c = sig_category_index(kb_tsv_get(t, "cause"));
		int e = sig_category_index(kb_tsv_get(t, "effect"));
		if (c < 0 || e < 0 || c == e)
			rc = err_set(err, CD_EINTERNAL,
				     "explain_causes.tsv:%zu: not two categories", t->lineno);
		else
			db->causes[c] |= (uint32_t)1 << e;
	}
	free(t);
	for (k = 0; k < n; k++) /* Warshall: through category k */
		for (a = 0; a < n; a++)
			if (db->causes[a] >> k & 1)
				db->causes[a] |= db->causes[k];
	for (a = 0; !rc && a < n; a++)
		if (db->causes[a] >> a & 1)
			rc = err_set(err, CD_EINTERNAL, "explain_causes.tsv: %s causes itself",
				     sig_categories[a]);
	(void)b;
	return rc;
}

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

static char *clean_copy(struct cd_arena *a, const uint8_t *p, size_t n);

enum { XS_ENC_UNDECIDED = 0, XS_ENC_RAW, XS_ENC_UTF16LE, XS_ENC_UTF16BE };

struct xs_scanner;
static int decide(struct xs_scanner *s);

#define PENDING_MAX 64 /* candidates of one line; past it the lowest priority gives way */

struct pending {
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
	int cr_only; /* lines end with '\r' alone (classic Mac, some Windows tools) */
	uint8_t odd; /* UTF-16: the first byte of a split code unit */
	int has_odd;
	uint32_t hi;  /* UTF-16: a high surrogate waiting for its pair */
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
	struct pending pend[PENDING_MAX];
	size_t cnt_pos;
	uint64_t cnt_line;
};

int xs_db_open(struct xs_db **out, struct cd_err *err)
{
	struct xs_db *db = calloc(1, sizeof(*db));
	int rc;

	*out = NULL;
	if (!db)
		return err_set(err, CD_ENOMEM, "out of memory");
	sigdb_init(&db->sigs);
	rc = sigdb_load_kb(&db->sigs, err);
	if (!rc && db->sigs.hash != xs_sig_hash)
		rc = err_set(err, CD_EINTERNAL, "signature database does not match its patterns");
	if (!rc)
		rc = load_causes(db, err);
	if (!rc &&
	    hs_deserialize_database((const char *)xs_hsdb, xs_hsdb_len, &db->hs) != HS_SUCCESS)
		rc = err_set(err, CD_EINTERNAL, "cannot load the compiled signature database");
	if (rc) {
		xs_db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

void xs_db_close(struct xs_db *db)
{
	if (!db)
		return;
	if (db->hs)
		hs_free_database(db->hs);
	sigdb_free(&db->sigs);
	free(db);
}

static int by_name(const void *a, const void *b)
{
	const struct kb_file *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int sigdb_load_kb(struct sigdb *db, struct cd_err *err)
{
	const struct kb_file *files[256];
	const struct kb_file *f;
	size_t n = 0, i;
	int rc;

	for (f = kb_files; f->name && n < 256; f++)
		if (str_has_prefix(f->name, "signatures/") && str_has_suffix(f->name, ".txt"))
			files[n++] = f;
	qsort(files, n, sizeof(files[0]), by_name);
	for (i = 0; i < n; i++) {
		rc = sigdb_parse(db, files[i]->name, files[i]->data, files[i]->len, err);
		if (rc)
			return rc;
	}
	f = kb_get("explain_fallback.tsv");
	if (!f)
		return err_set(err, CD_EINTERNAL, "explain_fallback.tsv is missing");
	rc = sigdb_parse_fallback(db, f->name, f->data, f->len, err);
	return rc ? rc : sigdb_finish(db, err);
}

const struct sigdb *xs_db_sigs(const struct xs_db *db)
{
	return &db->sigs;
}

/* ---- results ------------------------------------------------------------ */

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

/* Ranking tier: causes at warning or error first, then symptoms at warning
 * or error, then anything informational (an info line is context, never the
 * root cause of a failure). */
static int diag_tier(const struct xs_diag *d)
{
	if (d->sig->severity == CD_SEV_INFO)
		return 2;
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

/* No cause or symptom was found: the diagnosis of last resort, from the
 * candidates no diagnosis explains, when one of them is heavy enough to be
 * a failure. */
static void add_unknown(struct xs_result *r)
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
	if (!best || best->weight < SIG_FALLBACK_SEED || r->n >= XS_DIAG_MAX)
		return;
	text = clean_copy(&r->arena, (const uint8_t *)best->text, best->n);
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
			clean_copy(&r->arena, (const uint8_t *)r->cand[i].text, r->cand[i].n);
	}
	r->n++;
}

void xs_rank(struct xs_result *r, const struct xs_db *db)
{
	uint32_t present = 0;
	size_t i, c;

	add_unknown(r);

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

/* ---- ANSI escapes ------------------------------------------------------- */

/* ECMA-48: CSI is ESC '[' params (0x30-0x3F)* intermediates (0x20-0x2F)*
 * final (0x40-0x7E); OSC is ESC ']' ... BEL or ESC '\'; other escapes are
 * ESC intermediates* final. A sequence never swallows a line break. */
static size_t esc_len(const uint8_t *p, size_t n)
{
	size_t i = 1;

	if (n < 2)
		return 1;
	if (p[1] == '[') {
		for (i = 2; i < n && p[i] >= 0x30 && p[i] <= 0x3F; i++)
			;
		for (; i < n && p[i] >= 0x20 && p[i] <= 0x2F; i++)
			;
		return i < n && p[i] >= 0x40 && p[i] <= 0x7E ? i + 1 : i;
	}
	if (p[1] == ']') {
		for (i = 2; i < n && i < 512 && p[i] != '\n'; i++) {
			if (p[i] == 0x07)
				return i + 1;
			if (p[i] == 0x1b && i + 1 < n && p[i + 1] == '\\')
				return i + 2;
		}
		return 2;
	}
	for (; i < n && p[i] >= 0x20 && p[i] <= 0x2F; i++)
		;
	return i < n && p[i] >= 0x30 && p[i] <= 0x7E ? i + 1 : i;
}

size_t xs_strip_ansi(uint8_t *p, size_t n)
{
	size_t r = 0, w = 0;

	while (r < n) {
		const uint8_t *e = memchr(p + r, 0x1b, n - r);
		size_t k = e ? (size_t)(e - (p + r)) : n - r;
		memmove(p + w, p + r, k);
		w += k;
		r += k;
		if (r < n)
			r += esc_len(p + r, n - r);
	}
	return w;
}

/* ---- line helpers ------------------------------------------------------- */

static int is_break(uint8_t c)
{
	return c == '\n' || c == '\r';
}

/* "[rank3]:", "[default3]:" (torchrun), "[1,3]<stderr>:" (mpirun), possibly
 * after a host name; -1 if none. */
static int parse_rank(const uint8_t *p, size_t n)
{
	static const char *const tags[] = {"[rank", "[default", NULL};
	size_t lim = n < 64 ? n : 64, i, k;

	for (i = 0; i < lim; i++) {
		if (p[i] != '[')
			continue;
		for (k = 0; tags[k]; k++) {
			size_t t = strlen(tags[k]), j = i + t;
			unsigned v = 0;
			if (j >= n || memcmp(p + i, tags[k], t))
				continue;
			if (j < n && p[j] == '-') /* "[rank-3]" is not a rank tag */
				continue;
			while (j < n && p[j] >= '0' && p[j] <= '9' && v < XS_RANKS)
				v = v * 10 + (unsigned)(p[j++] - '0');
			if (j < n && p[j] == ']' && j > i + t)
				return v < XS_RANKS ? (int)v : -1;
		}
		if (i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') { /* [job,rank] */
			size_t j = i + 1;
			unsigned v = 0;
			while (j < n && p[j] >= '0' && p[j] <= '9')
				j++;
			if (j >= n || p[j] != ',')
				continue;
			for (j++; j < n && p[j] >= '0' && p[j] <= '9' && v < XS_RANKS; j++)
				v = v * 10 + (unsigned)(p[j] - '0');
			if (j + 1 < n && p[j] == ']' && p[j + 1] == '<')
				return v < XS_RANKS ? (int)v : -1;
		}
	}
	return -1;
}

/* A Python traceback frame line, `  File "x.py", line 3, in f`, after any
 * prefix (a rank tag, a logger's timestamp): the line after it is source
 * code, which quotes error text without being an error. *col is where the
 * blanks before "File" start, *blanks how many there are. Frames of frozen
 * or generated code (File "<frozen importlib._bootstrap>") show no source. */
static int is_file_line(const uint8_t *p, size_t n, size_t *col, size_t *blanks)
{
	const uint8_t *q = n >= 14 ? memmem(p, n < 256 ? n : 256, "File \"", 6) : NULL;
	size_t at, b = 0;

	if (!q)
		return 0;
	at = (size_t)(q - p);
	if (at + 6 >= n || p[at + 6] == '<' ||
	    !memmem(q, n - at < 4096 ? n - at : 4096, "\", line ", 8))
		return 0;
	while (b < at && (p[at - b - 1] == ' ' || p[at - b - 1] == '\t'))
		b++;
	if (!b && at) /* "xFile": not a frame */
		return 0;
	*col = at - b;
	*blanks = b;
	return 1;
}

/* Source code under a frame is indented deeper than the frame at the same
 * column; the exception that ends a traceback is not. */
static int is_code_line(const uint8_t *p, size_t n, size_t col, size_t blanks)
{
	size_t j;

	if (n <= col + blanks)
		return 0;
	for (j = col; j <= col + blanks; j++)
		if (p[j] != ' ' && p[j] != '\t')
			return 0;
	return 1;
}

/* A line of a rich (boxed) traceback: "│ ❱ 424 │ raise ...". */
static int is_box_line(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n && i < 64 && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i + 3 <= n && p[i] == 0xe2 && p[i + 1] == 0x94 && p[i + 2] == 0x82;
}

/* Is the segment starting at s the source line of a traceback frame? */
static int in_code(const struct xs_scanner *sc, size_t s, size_t se)
{
	const uint8_t *c = sc->c;
	size_t e = s, b, col, blanks;

	if (is_box_line(c + s, se - s))
		return 1;
	if (s == 0)
		return sc->prev_file && is_code_line(c, se, sc->prev_col, sc->prev_blanks);
	if (c[e - 1] == '\n') {
		e--;
		if (e && c[e - 1] == '\r')
			e--;
	} else {
		e--;
	}
	b = e;
	while (b > 0 && !is_break(c[b - 1]) && e - b < 4096)
		b--;
	return is_file_line(c + b, e - b, &col, &blanks) &&
	       is_code_line(c + s, se - s, col, blanks);
}

/* Copy with control bytes made visible as '?' (a tab becomes a space). */
static char *clean_copy(struct cd_arena *a, const uint8_t *p, size_t n)
{
	char *s = arena_alloc(a, n + 1);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++)
		s[i] = p[i] == '\t' ? ' ' : (p[i] < 0x20 || p[i] == 0x7f) ? '?' : (char)p[i];
	s[n] = '\0';
	return s;
}

/* ---- recording a hit ------------------------------------------------------ */

struct hit {
	uint32_t sig;
	const struct tmpl *t;
	const uint8_t *w; /* the window the captures index */
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	int ok; /* captures valid */
	uint64_t line;
	int rank;
	const uint8_t *text;
	size_t text_n;
};

/* The canonical value of capture i of a hit (keyfact.h) in buf. */
static const char *cap_value(const struct hit *h, size_t i, char *buf, size_t cap)
{
	const struct tmpl_cap *c = &h->caps[i];
	size_t n = c->len < XS_FACT_MAX ? c->len : XS_FACT_MAX;

	keyfact_norm(h->t->cap_names[i], h->w + c->off, n, buf, cap);
	return buf;
}

/* Causes are told apart by their facts (two missing headers are two
 * diagnoses); a symptom is one diagnosis however its lines vary (ninja's
 * "build stopped" and CalledProcessError are the same failed build). */
static uint64_t hit_hash(const struct hit *h, int by_facts)
{
	uint64_t v = str_fnv1a(STR_FNV_SEED, &h->sig, sizeof(h->sig));
	char buf[XS_FACT_MAX + 1];
	size_t i;

	for (i = 0; by_facts && h->ok && i < h->t->n_caps; i++) {
		if (h->caps[i].off == SIZE_MAX)
			continue;
		v = str_fnv1a(v, h->t->cap_names[i], strlen(h->t->cap_names[i]) + 1);
		cap_value(h, i, buf, sizeof(buf));
		v = str_fnv1a(v, buf, strlen(buf) + 1);
	}
	return v;
}

/* by_facts: every fact of the hit is in d with the same value; otherwise
 * only no fact may conflict (a fact d lacks is added to it). */
static int same_facts(const struct xs_diag *d, const struct hit *h, int by_facts)
{
	char buf[XS_FACT_MAX + 1];
	size_t i;

	for (i = 0; h->ok && i < h->t->n_caps; i++) {
		const char *v;
		if (h->caps[i].off == SIZE_MAX)
			continue;
		v = xs_fact(d, h->t->cap_names[i]);
		if (!v && !by_facts)
			continue;
		if (!v || strcmp(v, cap_value(h, i, buf, sizeof(buf))))
			return 0;
	}
	return 1;
}

/* Line numbers are kept for the input a diagnosis was first seen in; other
 * inputs add to the count, the ranks and the input mask. */
static void add_location(struct xs_diag *d, uint32_t input, uint64_t line, int rank)
{
	d->count++;
	d->inputs |= (uint64_t)1 << (input % 64);
	if (input == d->input && d->n_lines < XS_LINES_MAX &&
	    (!d->n_lines || d->lines[d->n_lines - 1] != line))
		d->lines[d->n_lines++] = line;
	if (rank >= 0 && !xs_has_rank(d, (unsigned)rank)) {
		d->ranks[rank / 8] |= (uint8_t)(1u << (rank % 8));
		d->n_ranks++;
	}
}

static void fill_facts(struct xs_result *r, struct xs_diag *d, const struct hit *h)
{
	char buf[XS_FACT_MAX + 1];
	size_t i;

	for (i = 0; h->ok && i < h->t->n_caps && d->n_facts < XS_FACTS_MAX; i++) {
		const struct tmpl_cap *c = &h->caps[i];
		struct xs_fact *f;
		if (c->off == SIZE_MAX || xs_fact(d, h->t->cap_names[i]))
			continue; /* a continuation line does not overwrite a fact */
		f = &d->facts[d->n_facts];
		f->name = h->t->cap_names[i];
		f->value = arena_strdup(&r->arena, cap_value(h, i, buf, sizeof(buf)));
		if (!f->value)
			return;
		d->n_facts++;
		if (h->t->cap_is_size[i] && d->n_facts < XS_FACTS_MAX) {
			int64_t b = tmpl_size_bytes(f->value, strlen(f->value));
			if (b < 0)
				continue;
			f = &d->facts[d->n_facts];
			f->name = arena_printf(&r->arena, "%s_bytes", h->t->cap_names[i]);
			f->value = arena_printf(&r->arena, "%lld", (long long)b);
			if (f->name && f->value)
				d->n_facts++;
		}
	}
}

/* A message printed over several lines (PyTorch's CUDA mismatch, its old-GPU
 * warning) hits one signature on consecutive lines: those continue the
 * diagnosis of the first line and add their facts to it. */
static int continue_last(struct xs_scanner *s, const struct hit *h)
{
	char buf[XS_FACT_MAX + 1];
	struct xs_diag *d;
	size_t i;

	if (!s->has_last || s->last_sig != h->sig || h->line < s->last_line ||
	    h->line - s->last_line > XS_CONT_LINES || s->last_diag >= s->res->n)
		return 0;
	d = &s->res->d[s->last_diag];
	if (d->sig != &s->db->sigs.sigs[h->sig] || d->input != s->input)
		return 0;
	for (i = 0; h->ok && i < h->t->n_caps; i++) { /* a different value: a new message */
		const char *v = xs_fact(d, h->t->cap_names[i]);
		if (h->caps[i].off != SIZE_MAX && v && strcmp(v, cap_value(h, i, buf, sizeof(buf))))
			return 0;
	}
	fill_facts(s->res, d, h);
	add_location(d, s->input, h->line, h->rank);
	s->last_line = h->line;
	return 1;
}

static void remember(struct xs_scanner *s, const struct hit *h, const struct xs_diag *d)
{
	s->has_last = 1;
	s->last_sig = h->sig;
	s->last_line = h->line;
	s->last_diag = (uint32_t)(d - s->res->d);
}

static void record(struct xs_scanner *s, const struct hit *h)
{
	struct xs_result *r = s->res;
	int by_facts = s->db->sigs.sigs[h->sig].role == SIG_CAUSE;
	uint64_t hv = hit_hash(h, by_facts);
	size_t nslots = sizeof(r->slots) / sizeof(r->slots[0]), i = hv % nslots, probes;
	struct xs_diag *d;

	if (continue_last(s, h))
		return;

	for (probes = 0; probes < nslots && r->slots[i]; probes++, i = (i + 1) % nslots) {
		d = &r->d[r->slots[i] - 1];
		if (d->hash == hv && d->sig == &s->db->sigs.sigs[h->sig] &&
		    same_facts(d, h, by_facts)) {
			if (!by_facts)
				fill_facts(r, d, h);
			add_location(d, s->input, h->line, h->rank);
			remember(s, h, d);
			return;
		}
	}
	if (r->n >= XS_DIAG_MAX || probes == nslots) {
		r->dropped++;
		return;
	}
	d = &r->d[r->n];
	memset(d, 0, sizeof(*d));
	d->sig = &s->db->sigs.sigs[h->sig];
	d->input = s->input;
	d->first_line = h->line;
	d->hash = hv;
	fill_facts(r, d, h);
	d->text = clean_copy(&r->arena, h->text, h->text_n);
	add_location(d, s->input, h->line, h->rank);
	r->slots[i] = (uint32_t)(++r->n);
	remember(s, h, d);
}

/* ---- segments ------------------------------------------------------------- */

static uint64_t line_of(struct xs_scanner *s, size_t pos)
{
	if (pos < s->cnt_pos) { /* an out-of-order match: count again */
		s->cnt_pos = 0;
		s->cnt_line = s->line;
	}
	while (s->cnt_pos < pos) {
		const uint8_t *nl = memchr(s->c + s->cnt_pos, '\n', pos - s->cnt_pos);
		if (!nl) {
			s->cnt_pos = pos;
			break;
		}
		s->cnt_line++;
		s->cnt_pos = (size_t)(nl - s->c) + 1;
	}
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
 * With need >= 0 (a window of several lines) a match must cover that offset,
 * the end of the anchor the database found, so a message is found from its
 * own line, never only from its neighbours. */
static void best_template(const struct sig *sg, size_t hit_slot, struct hit *h, size_t n, long need,
			  int *wraps)
{
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	size_t i, best = 0, st, en;
	int at_end;

	h->t = sg->tmpl[hit_slot];
	h->ok = 0;
	for (i = 0; i < sg->pattern.n; i++) {
		size_t k;
		if (tmpl_match_span(sg->tmpl[i], h->w, n, caps, &st, &en, &at_end) != 1) {
			*wraps |= at_end;
			continue;
		}
		if (need >= 0 && ((size_t)need <= st || (size_t)need > en))
			continue;
		k = caps_set(sg->tmpl[i], caps);
		if (h->ok && k <= best)
			continue;
		h->t = sg->tmpl[i];
		h->ok = 1;
		best = k;
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
		while (at > lim && !is_break(s->c[at - 1]))
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
		while (at < lim && !is_break(s->c[at]))
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
static const struct pending *try_window(struct xs_scanner *s, const struct pending *cand, size_t nc,
					struct hit *h, int multi, uint64_t *wrap)
{
	const struct sig *sigs = s->db->sigs.sigs;
	size_t i;

	for (i = 0; i < nc; i++) {
		const struct pending *c = &cand[i];
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
		if (!multi && (wraps || c->to - s->seg_s < a->anchor_prefix + a->longest_lit))
			*wrap |= (uint64_t)1 << i;
	}
	return NULL;
}

static int by_priority(const void *a, const void *b, const struct sig *sigs)
{
	const struct pending *x = a, *y = b;

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
	struct pending cand[PENDING_MAX];
	const struct pending *p;
	struct hit h;
	size_t nc = s->n_pend, i, j, ts, te;
	uint64_t wrap = 0; /* candidates whose message may wrap */

	s->seg_open = 0;
	memcpy(cand, s->pend, nc * sizeof(cand[0]));
	s->n_pend = 0;
	for (i = 1; i < nc; i++) /* insertion sort: a handful of candidates */
		for (j = i; j > 0 && by_priority(&cand[j], &cand[j - 1], sigs) < 0; j--) {
			struct pending tmp = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = tmp;
		}
	p = try_window(s, cand, nc, &h, 0, &wrap);
	if (!p && wrap)
		p = try_window(s, cand, nc, &h, 1, &wrap);
	if (!p)
		return;
	s->res->hits++;
	if (in_code(s, s->seg_s, s->seg_e)) {
		s->res->code_lines++;
		return;
	}
	h.line = line_of(s, s->seg_s);
	h.rank = s->seg_s == 0 && s->cont ? -1 : parse_rank(s->c + s->seg_s, s->seg_e - s->seg_s);
	ts = s->seg_s;
	te = s->seg_e;
	if (te - ts > XS_TEXT_MAX) { /* keep the part of a long line around the hit */
		ts = p->to > ts + XS_TEXT_MAX / 2 ? p->to - XS_TEXT_MAX / 2 : ts;
		te = te - ts > XS_TEXT_MAX ? ts + XS_TEXT_MAX : te;
	}
	h.text = s->c + ts;
	h.text_n = te - ts;
	record(s, &h);
}

static void open_segment(struct xs_scanner *s, size_t to)
{
	size_t lo = 0, j;

	if (s->seg_open && s->seg_e < to)
		lo = s->seg_e + 1;
	if (s->seg_open)
		flush(s);
	for (j = to - 1; j > lo && !is_break(s->c[j - 1]); j--)
		;
	s->seg_s = j;
	for (j = to; j < s->cn && !is_break(s->c[j]); j++)
		;
	s->seg_e = j;
	s->seg_open = 1;
}

/* Keep the line around `to` among the candidates of last resort: the
 * heaviest and, of equal weight, the latest (the last exception of a log is
 * the one that ended it). Traceback source lines are not candidates. */
static void on_fallback(struct xs_scanner *s, int weight, size_t to)
{
	struct xs_result *r = s->res;
	struct xs_cand *c = NULL;
	size_t b = to, e = to, i;
	uint64_t line;

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
	while (b > 0 && !is_break(s->c[b - 1]) && to - b < XS_TEXT_MAX)
		b--;
	while (e < s->cn && !is_break(s->c[e]) && e - b < XS_TEXT_MAX)
		e++;
	line = line_of(s, b);
	for (i = 0; i < r->n_cand; i++) /* another pattern on the same line */
		if (r->cand[i].input == s->input && r->cand[i].line == line) {
			if (weight > r->cand[i].weight)
				r->cand[i].weight = weight;
			return;
		}
	if ((b == 0 || is_break(s->c[b - 1])) && e < s->cn && in_code(s, b, e))
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
		if (id - s->db->sigs.n_pat < s->db->sigs.n_fb)
			on_fallback(s, s->db->sigs.fb[id - s->db->sigs.n_pat].weight, (size_t)to);
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
	if (s->n_pend == PENDING_MAX) { /* a crowded line: the lowest priority gives way */
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

/* Newlines in p[0, n): eight bytes at a time (exact zero-byte count of
 * p ^ '\n'), so short lines do not cost one memchr call each. */
static uint64_t count_nl(const uint8_t *p, size_t n)
{
	const uint64_t nl = 0x0a0a0a0a0a0a0a0aULL, lo7 = 0x7f7f7f7f7f7f7f7fULL;
	uint64_t k = 0;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w, y;
		memcpy(&w, p + i, 8);
		w ^= nl;
		y = ~(((w & lo7) + lo7) | w | lo7);
		k += ((y >> 7) * 0x0101010101010101ULL) >> 56; /* bytes set, at most 8 */
	}
	for (; i < n; i++)
		k += p[i] == '\n';
	return k;
}

/* Is the last line of buf[0, m) (which ends at a break) a traceback frame? */
static int tail_is_file(const uint8_t *p, size_t m, size_t *col, size_t *blanks)
{
	size_t e = m, b;

	while (e > 0 && is_break(p[e - 1]) && m - e < 2)
		e--;
	b = e;
	while (b > 0 && !is_break(p[b - 1]) && e - b < 4096)
		b--;
	return is_file_line(p + b, e - b, col, blanks);
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
	rc = hs_scan(s->db->hs, (const char *)s->buf, (unsigned int)m, 0, s->scratch, on_match, s);
	if (rc != HS_SUCCESS && rc != HS_SCAN_TERMINATED)
		s->err = CD_EINTERNAL;
	if (s->seg_open)
		flush(s);
}

/* Scan buf up to its last line break (everything when final; all of a full
 * buffer without a break, keeping XS_OVERLAP bytes to scan again). */
static int process(struct xs_scanner *s, int final)
{
	size_t cut, m;
	int forced = 0;

	if (s->enc == XS_ENC_UNDECIDED) {
		int rc = decide(s);
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
	m = memchr(s->buf, 0x1b, cut) ? xs_strip_ansi(s->buf, cut) : cut;
	scan_chunk(s, m);
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
		s->prev_file = tail_is_file(s->buf, m, &s->prev_col, &s->prev_blanks);
	if (final && m)
		s->last_partial = !is_break(s->buf[m - 1]);
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

static void count_bytes(struct xs_scanner *s, size_t n)
{
	if (s->input < s->res->n_inputs)
		s->res->inputs[s->input].bytes += n;
}

/* Append bytes that are already the scanner's text (UTF-8 or raw). */
static int append(struct xs_scanner *s, const uint8_t *b, size_t n)
{
	int rc;

	while (n) {
		size_t k = XS_BUF - s->len;
		if (!k) {
			rc = process(s, 0);
			if (rc)
				return rc;
			continue;
		}
		if (k > n)
			k = n;
		memcpy(s->buf + s->len, b, k);
		s->len += k;
		b += k;
		n -= k;
	}
	return s->err;
}

static size_t put_utf8(uint8_t *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (uint8_t)(0xc0 | c >> 6);
		o[1] = (uint8_t)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (uint8_t)(0xe0 | c >> 12);
		o[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		o[2] = (uint8_t)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (uint8_t)(0xf0 | c >> 18);
	o[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
	o[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
	o[3] = (uint8_t)(0x80 | (c & 0x3f));
	return 4;
}

/* UTF-16 (a PowerShell redirect) into UTF-8, in blocks; a code unit or a
 * surrogate pair split between two calls is carried over; a lone surrogate
 * becomes U+FFFD. */
static int feed_utf16(struct xs_scanner *s, const uint8_t *b, size_t n)
{
	uint8_t out[16384];
	size_t o = 0, i = 0;
	int rc;

	while (i < n) {
		uint8_t u0, u1;
		uint32_t c;
		if (s->has_odd) {
			u0 = s->odd;
			u1 = b[i++];
			s->has_odd = 0;
		} else if (i + 1 < n) {
			u0 = b[i];
			u1 = b[i + 1];
			i += 2;
		} else {
			s->odd = b[i++];
			s->has_odd = 1;
			break;
		}
		c = s->enc == XS_ENC_UTF16LE ? (uint32_t)(u0 | u1 << 8) : (uint32_t)(u1 | u0 << 8);
		if (s->hi) {
			uint32_t hi = s->hi;
			s->hi = 0;
			if (c >= 0xdc00 && c <= 0xdfff) {
				o += put_utf8(out + o,
					      0x10000 + ((hi - 0xd800) << 10) + (c - 0xdc00));
				goto flush;
			}
			o += put_utf8(out + o, 0xfffd);
		}
		if (c >= 0xd800 && c <= 0xdbff)
			s->hi = c;
		else if (c >= 0xdc00 && c <= 0xdfff)
			o += put_utf8(out + o, 0xfffd);
		else if (c != 0xfeff || s->line > 1 || s->len || o) /* a BOM is no text */
			o += put_utf8(out + o, c);
	flush:
		if (o > sizeof(out) - 8) {
			rc = append(s, out, o);
			if (rc)
				return rc;
			o = 0;
		}
	}
	return o ? append(s, out, o) : s->err;
}

/* UTF-16 by its byte order mark, or by ASCII text with every other byte
 * NUL in the first 256 bytes. */
static int detect_enc(const uint8_t *p, size_t n)
{
	size_t i, k = n < 256 ? n & ~(size_t)1 : 256, z_odd = 0, z_even = 0;

	if (n >= 2 && p[0] == 0xff && p[1] == 0xfe)
		return XS_ENC_UTF16LE;
	if (n >= 2 && p[0] == 0xfe && p[1] == 0xff)
		return XS_ENC_UTF16BE;
	if (k < 16)
		return XS_ENC_RAW;
	for (i = 0; i < k; i += 2) {
		z_even += !p[i];
		z_odd += !p[i + 1];
	}
	if (z_odd * 10 >= k / 2 * 9 && z_even * 10 < k / 2)
		return XS_ENC_UTF16LE;
	if (z_even * 10 >= k / 2 * 9 && z_odd * 10 < k / 2)
		return XS_ENC_UTF16BE;
	return XS_ENC_RAW;
}

/* On the first bytes of an input: UTF-16 is decoded from then on (what is in
 * the buffer already is taken out and fed again), and a text whose lines end
 * with '\r' alone has them read as line ends. */
static int decide(struct xs_scanner *s)
{
	uint8_t *raw;
	size_t n = s->len;
	int rc;

	s->enc = detect_enc(s->buf, s->len);
	if (s->enc != XS_ENC_RAW) {
		raw = malloc(n ? n : 1);
		if (!raw)
			return CD_ENOMEM;
		memcpy(raw, s->buf, n);
		s->len = 0;
		rc = feed_utf16(s, raw, n);
		free(raw);
		if (rc)
			return rc;
	}
	if (s->len && memchr(s->buf, '\r', s->len) && !memchr(s->buf, '\n', s->len))
		s->cr_only = 1;
	return 0;
}

int xs_feed(struct xs_scanner *s, const void *p, size_t n)
{
	if (s->finished)
		return CD_EINTERNAL;
	count_bytes(s, n);
	if (s->enc == XS_ENC_UTF16LE || s->enc == XS_ENC_UTF16BE)
		return feed_utf16(s, p, n);
	return append(s, p, n);
}

int xs_feed_fd(struct xs_scanner *s, int fd, struct cd_err *err)
{
	ssize_t k;
	int rc;

	if (s->finished)
		return CD_EINTERNAL;
	for (;;) {
		if (s->len == XS_BUF && (rc = process(s, 0)) != 0)
			return err_set(err, rc, "scan failed");
		if (s->enc == XS_ENC_UTF16LE || s->enc == XS_ENC_UTF16BE) {
			uint8_t raw[65536];
			k = read(fd, raw, sizeof(raw));
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return err_set(err, CD_EIO, "read: %s", strerror(errno));
			if (k == 0)
				return 0;
			count_bytes(s, (size_t)k);
			if ((rc = feed_utf16(s, raw, (size_t)k)) != 0)
				return err_set(err, rc, "scan failed");
			continue;
		}
		k = read(fd, s->buf + s->len, XS_BUF - s->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(err, CD_EIO, "read: %s", strerror(errno));
		if (k == 0)
			return 0;
		count_bytes(s, (size_t)k);
		s->len += (size_t)k;
	}
}

int xs_finish(struct xs_scanner *s)
{
	int rc;

	if (s->finished)
		return s->err;
	s->finished = 1;
	rc = process(s, 1);
	if (s->input < s->res->n_inputs) /* a last line without a break counts too */
		s->res->inputs[s->input].lines = s->line - 1 + (s->last_partial ? 1 : 0);
	return rc;
}
