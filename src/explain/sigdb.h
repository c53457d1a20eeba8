/* sigdb: the log-signature database, parsed from the stanza files
 * data/signatures/NAME.txt (format in docs/signatures.md). The database owns
 * everything it returns (one arena, freed by sigdb_free). Parsing is strict:
 * an unknown key, a missing required key, a bad category or a duplicate id
 * is CD_EFORMAT with "file:line: message" in err, so a bad row fails the
 * build instead of shipping. */
#ifndef CD_SIGDB_H
#define CD_SIGDB_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"
#include "explain/tmpl.h"
#include "facts/finding.h"

#define SIG_LIST_MAX 8	  /* patterns, fixes, sources, samples, near misses */
#define SIGDB_MAX    4096 /* signatures */
#define SIG_FILE_MAX (1 << 20)
#define SIG_LIT_MIN  6 /* bytes of the literal a pattern needs, and an anchor has */

enum sig_role { SIG_CAUSE = 0, SIG_SYMPTOM = 1 };

struct sig_list {
	size_t n;
	const char *v[SIG_LIST_MAX];
};

struct sig {
	const char *id;
	const char *category; /* one of sig_categories */
	enum cd_severity severity;
	enum sig_role role;
	int priority; /* 0..100: which signature wins when several match one line */
	int caseless;
	const char *title;
	const char *explain;
	struct sig_list pattern; /* template sources */
	struct tmpl *tmpl[SIG_LIST_MAX];
	struct sig_list fix;
	struct sig_list source;
	struct sig_list sample;
	struct sig_list nomatch;
	const char *file;
	size_t line;
};

/* A pattern of the diagnosis of last resort (data/explain_fallback.tsv):
 * a line that looks like a failure, with a weight. */
#define SIG_FALLBACK_MAX  64
#define SIG_FALLBACK_SEED 2 /* the weight from which a line starts `unknown` */
struct sig_fallback {
	int weight; /* 1..9 */
	int caseless;
	const char *pattern; /* a Vectorscan expression */
	const char *what;
	const char *example; /* must match pattern (tools/sigc.c) */
};

/* An extractor of a key fact from the lines around a diagnosis
 * (data/explain_facts.tsv): when a diagnosis of one of its categories lacks
 * the fact, the nearest line before (else after) that the pattern matches
 * gives it. */
#define SIG_CTX_MAX   256
#define SIG_CTX_NAMES 16 /* distinct fact names among the extractors */
struct sig_ctx {
	const char *fact;
	uint32_t categories; /* bit i: sig_categories[i] */
	int slot;	     /* index of fact in sigdb.ctx_names */
	int cap;	     /* the capture of the template named fact; -1: value is the fact */
	int bare_int;	     /* that capture is a plain {fact:int} (keyfact_context) */
	struct tmpl *tmpl;   /* caseless */
	const char *pattern, *example, *value, *source;
};

/* A message that two causes print (data/explain_also.tsv): a diagnosis of
 * the signature `of` names `alt` too, a signature no pattern finds (its
 * explanation says how to tell the two apart; severity is `of`'s). */
#define SIG_ALSO_MAX 64
struct sig_also {
	const char *of_id;
	uint32_t of; /* index into sigdb.sigs (sigdb_finish) */
	struct sig alt;
};

struct sigdb {
	struct cd_arena arena;
	size_t n_also;
	struct sig_also also[SIG_ALSO_MAX];
	size_t n_fb;
	struct sig_fallback fb[SIG_FALLBACK_MAX];
	size_t n_ctx;
	struct sig_ctx ctx[SIG_CTX_MAX];
	size_t n_ctx_names;
	const char *ctx_names[SIG_CTX_NAMES];
	uint32_t ctx_cats[SIG_CTX_NAMES]; /* the categories whose key fact each name is */
	size_t n, cap;
	struct sig *sigs;
	size_t n_pat;	   /* patterns over all signatures, in order */
	uint32_t *pat_sig; /* pattern index -> signature index */
	uint8_t *pat_slot; /* pattern index -> index in sig->tmpl */
	uint64_t hash;	   /* FNV-1a of the file names and bytes parsed */
};

extern const char *const sig_categories[];
int sig_category_index(const char *name); /* -1 if unknown */

void sigdb_init(struct sigdb *db);
void sigdb_free(struct sigdb *db);
/* Parse one file's bytes (name is for messages and the hash). */
CD_WUR int sigdb_parse(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
		       struct cd_err *err);
/* Parse the fallback table (TSV: weight, flags, pattern, what, example);
 * its bytes join the hash. CD_EFORMAT with "file:line: message" in err. */
CD_WUR int sigdb_parse_fallback(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
				struct cd_err *err);
/* Parse the context facts (TSV: fact, categories, pattern, example, value,
 * source with two URLs); its bytes join the hash. CD_EFORMAT as above. */
/* The slot of a context fact's name (data/explain_facts.tsv, gpu_models.tsv)
 * in ctx_names, -1 when no row gives that fact. */
int sigdb_ctx_index(const struct sigdb *db, const char *fact);
CD_WUR int sigdb_parse_facts(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
			     struct cd_err *err);
/* Parse the GPU models (TSV: model, compute capability, two source URLs):
 * each a context pattern of the fact cc whose value is the row's; its bytes
 * join the hash. CD_EFORMAT as above. */
CD_WUR int sigdb_parse_models(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
			      struct cd_err *err);
/* Parse the alternatives (TSV: signature, id, category, title, tell apart,
 * fix, two or more source URLs); its bytes join the hash. The signatures
 * they name are looked up by sigdb_finish. CD_EFORMAT as above. */
CD_WUR int sigdb_parse_also(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
			    struct cd_err *err);
/* Check the whole set (unique ids) and build the pattern table. */
CD_WUR int sigdb_finish(struct sigdb *db, struct cd_err *err);
/* Parse every embedded file signatures/NAME.txt, in name order, and finish
 * (defined in scan_db.c, next to the compiled database it must agree with). */
CD_WUR int sigdb_load_kb(struct sigdb *db, struct cd_err *err);
const struct sig *sigdb_find(const struct sigdb *db, const char *id);
/* The templates the scanner's database anchors on one literal, in database
 * order: the signatures' patterns, then the context facts' (NULL for a
 * context pattern whose literals are all shorter than SIG_LIT_MIN: its run
 * of literals is its anchor). tools/sigc.c chooses their anchors in this
 * order and the scanner applies them in the same (after sigdb_finish). */
size_t sigdb_n_anchored(const struct sigdb *db);
struct tmpl *sigdb_anchored(const struct sigdb *db, size_t i);

#endif
