/* sigc: build-time compiler and validator of the log signatures.
 * Usage: sigc OUT.c data/signatures/NAME.txt... [--ref TEXT...]
 * Parses every signature file (src/explain/sigdb.c), compiles all patterns
 * into one Vectorscan block-mode database for a generic x86-64/arm64 target,
 * and checks each signature against its own examples: every `sample` line
 * must match the signature and be won by it (no other matching signature has
 * a higher priority), with every fact captured; every `nomatch` line must not
 * match it. The matcher used for facts (tmpl_match) must agree with the
 * database on every example. Any failure exits 1 and the build stops. On
 * success OUT.c holds the serialized database and the hash of the text it
 * was built from, so the binary refuses a database that is not its own.
 * With --ref, each template is anchored on its literal (6 bytes or more)
 * that occurs least in those texts (ordinary and failed runs' output: every
 * anchor found costs a confirmation), and OUT.c names the choice
 * (xs_anchor_ops) for the scanner to apply; without, on tmpl_compile's. */
#include <hs/hs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/str.h"
#include "explain/keyfact.h"
#include "explain/sigdb.h"
#include "explain/tmpl.h"

#define XS_FACT_CAP 257 /* a fact's value, as the scanner keeps it */

struct ctx {
	struct sigdb *db;
	hs_database_t *hs;
	hs_scratch_t *scratch;
	uint8_t *hit;		      /* per pattern: reported on the current line */
	uint8_t *fb_hit;	      /* per fallback pattern: reported on the current line */
	uint8_t ctx_hit[SIG_CTX_MAX]; /* per context fact pattern */
};

static int on_hit(unsigned int id, unsigned long long from, unsigned long long to,
		  unsigned int flags, void *c)
{
	struct ctx *x = c;

	(void)from;
	(void)to;
	(void)flags;
	if (id < x->db->n_pat)
		x->hit[id] = 1;
	else if (id - x->db->n_pat < x->db->n_fb)
		x->fb_hit[id - x->db->n_pat] = 1;
	else if (id - x->db->n_pat - x->db->n_fb < x->db->n_ctx)
		x->ctx_hit[id - x->db->n_pat - x->db->n_fb] = 1;
	return 0;
}

static const char *rel(const char *path)
{
	const char *p = strstr(path, "data/");
	return p ? p + 5 : path;
}

static int read_file(const char *path, struct cd_buf *b)
{
	FILE *f = fopen(path, "rb");
	char tmp[65536];
	size_t k;

	if (!f) {
		perror(path);
		return -1;
	}
	while ((k = fread(tmp, 1, sizeof(tmp), f)) > 0)
		if (buf_append(b, tmp, k)) {
			fclose(f);
			return -1;
		}
	fclose(f);
	return 0;
}

static int count_hit(unsigned int id, unsigned long long from, unsigned long long to,
		     unsigned int flags, void *c)
{
	(void)from;
	(void)to;
	(void)flags;
	((uint64_t *)c)[id]++;
	return 0;
}

/* Anchor each template on its rarest literal of SIG_LIT_MIN bytes or more in the
 * reference texts (caseless counts; a tie keeps tmpl_compile's choice, then
 * the longer). The literals are counted in one pass of one literal
 * database over the texts. */
static int choose_anchors(struct sigdb *db, const struct cd_buf *ref)
{
	size_t n_t = sigdb_n_anchored(db), n = 0, i, j, k;
	const char **lits = NULL;
	size_t *lens = NULL, *tmpl_of = NULL, *op_of = NULL;
	unsigned *ids = NULL, *flags = NULL;
	uint64_t *cnt = NULL;
	hs_database_t *hs = NULL;
	hs_scratch_t *sc = NULL;
	hs_compile_error_t *ce = NULL;
	int rc = -1;

	for (i = 0; i < n_t; i++) {
		const struct tmpl *t = sigdb_anchored(db, i);
		for (j = 0; t && j < t->n_ops; j++)
			n += t->ops[j].kind == TMPL_LIT && t->ops[j].len >= SIG_LIT_MIN;
	}
	lits = calloc(n + 1, sizeof(*lits));
	lens = calloc(n + 1, sizeof(*lens));
	tmpl_of = calloc(n + 1, sizeof(*tmpl_of));
	op_of = calloc(n + 1, sizeof(*op_of));
	ids = calloc(n + 1, sizeof(*ids));
	flags = calloc(n + 1, sizeof(*flags));
	cnt = calloc(n + 1, sizeof(*cnt));
	if (!lits || !lens || !tmpl_of || !op_of || !ids || !flags || !cnt)
		goto out;
	for (i = 0, k = 0; i < n_t; i++) {
		const struct tmpl *t = sigdb_anchored(db, i);
		for (j = 0; t && j < t->n_ops; j++) {
			const struct tmpl_op *o = &t->ops[j];
			if (o->kind != TMPL_LIT || o->len < SIG_LIT_MIN)
				continue;
			lits[k] = o->lit;
			lens[k] = o->len;
			tmpl_of[k] = i;
			op_of[k] = j;
			ids[k] = (unsigned)k;
			flags[k] = HS_FLAG_CASELESS;
			k++;
		}
	}
	if (hs_compile_lit_multi(lits, flags, ids, lens, (unsigned)n, HS_MODE_BLOCK, NULL, &hs,
				 &ce) != HS_SUCCESS) {
		fprintf(stderr, "sigc: the anchors' literals do not compile: %s\n",
			ce ? ce->message : "?");
		hs_free_compile_error(ce);
		goto out;
	}
	if (hs_alloc_scratch(hs, &sc) != HS_SUCCESS ||
	    hs_scan(hs, ref->p ? ref->p : "", (unsigned)ref->len, 0, sc, count_hit, cnt) !=
		    HS_SUCCESS)
		goto out;
	for (i = 0, k = 0; i < n_t; i++) {
		struct tmpl *t = sigdb_anchored(db, i);
		size_t best = SIZE_MAX;
		for (; k < n && tmpl_of[k] == i; k++) {
			size_t cur = t->anchor_op;
			if (best == SIZE_MAX || cnt[k] < cnt[best] ||
			    (cnt[k] == cnt[best] &&
			     (op_of[k] == cur || (op_of[best] != cur && lens[k] > lens[best]))))
				best = k;
		}
		if (best != SIZE_MAX && tmpl_set_anchor(t, op_of[best]))
			goto out;
	}
	rc = 0;
out:
	hs_free_scratch(sc);
	hs_free_database(hs);
	free(lits);
	free(lens);
	free(tmpl_of);
	free(op_of);
	free(ids);
	free(flags);
	free(cnt);
	return rc;
}

static int compile_db(struct ctx *x)
{
	struct sigdb *db = x->db;
	size_t total = db->n_pat + db->n_fb + db->n_ctx;
	const char **exprs = calloc(total, sizeof(*exprs));
	unsigned *flags = calloc(total, sizeof(*flags)), *ids = calloc(total, sizeof(*ids));
	struct cd_buf b;
	hs_compile_error_t *ce = NULL;
	hs_platform_info_t plat;
	size_t i;
	int rc = -1;

	if (!exprs || !flags || !ids)
		goto out;
	for (i = 0; i < db->n_pat; i++) {
		const struct sig *s = &db->sigs[db->pat_sig[i]];
		buf_init(&b, 0);
		if (tmpl_anchor_regex(s->tmpl[db->pat_slot[i]], &b) || !b.p) {
			fprintf(stderr, "%s:%zu: %s: pattern cannot be expressed\n", s->file,
				s->line, s->id);
			goto out;
		}
		exprs[i] = buf_steal(&b);
		flags[i] = s->caseless ? HS_FLAG_CASELESS : 0;
		ids[i] = (unsigned)i;
	}
	/* The fallback patterns follow, with ids n_pat + k: ^ and $ are line
	 * bounds, and every line a pattern fits is reported. */
	for (i = 0; i < db->n_fb; i++) {
		exprs[db->n_pat + i] = strdup(db->fb[i].pattern);
		if (!exprs[db->n_pat + i])
			goto out;
		flags[db->n_pat + i] =
			HS_FLAG_MULTILINE | (db->fb[i].caseless ? HS_FLAG_CASELESS : 0);
		ids[db->n_pat + i] = (unsigned)(db->n_pat + i);
	}
	/* Then the context fact patterns (explain_facts.tsv), ids n_pat + n_fb
	 * + k: their anchors, like the signatures'. */
	for (i = 0; i < db->n_ctx; i++) {
		size_t id = db->n_pat + db->n_fb + i;
		const struct tmpl *t = db->ctx[i].tmpl;
		buf_init(&b, 0);
		if ((sigdb_anchored(db, db->n_pat + i) ? tmpl_anchor_regex(t, &b)
						       : tmpl_run_regex(t, &b)) ||
		    !b.p) {
			fprintf(stderr, "explain_facts.tsv: pattern %zu cannot be expressed\n",
				i + 1);
			goto out;
		}
		exprs[id] = buf_steal(&b);
		flags[id] = HS_FLAG_CASELESS;
		ids[id] = (unsigned)id;
	}
	/* A generic target: the database must load on any CPU the binary runs on;
	 * the runtime library still picks its fastest code paths itself. */
	memset(&plat, 0, sizeof(plat));
	plat.tune = HS_TUNE_FAMILY_GENERIC;
	if (hs_compile_multi(exprs, flags, ids, (unsigned)total, HS_MODE_BLOCK, &plat, &x->hs,
			     &ce) != HS_SUCCESS) {
		const struct sig *s = ce->expression >= 0 && (size_t)ce->expression < db->n_pat
					      ? &db->sigs[db->pat_sig[ce->expression]]
					      : NULL;
		fprintf(stderr, "%s:%zu: %s: %s (%s)\n", s ? s->file : "?", s ? s->line : 0,
			s ? s->id : "?", ce->message,
			ce->expression >= 0 ? exprs[ce->expression] : "");
		hs_free_compile_error(ce);
		goto out;
	}
	rc = hs_alloc_scratch(x->hs, &x->scratch) == HS_SUCCESS ? 0 : -1;
out:
	for (i = 0; exprs && i < total; i++)
		free((void *)exprs[i]);
	free(exprs);
	free(flags);
	free(ids);
	return rc;
}

/* Scan one line as the scanner does: the database finds the anchors, the
 * template confirms each; fill x->hit with the confirmed patterns. Returns
 * the winning signature or -1. */
static long scan_line(struct ctx *x, const char *line)
{
	const struct sigdb *db = x->db;
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	long best = -1;
	size_t i;

	memset(x->hit, 0, db->n_pat);
	hs_scan(x->hs, line, (unsigned)strlen(line), 0, x->scratch, on_hit, x);
	for (i = 0; i < db->n_pat; i++) {
		long s = (long)db->pat_sig[i];
		if (x->hit[i] && tmpl_match(db->sigs[s].tmpl[db->pat_slot[i]],
					    (const uint8_t *)line, strlen(line), caps) != 1)
			x->hit[i] = 0;
		if (!x->hit[i])
			continue;
		if (best < 0 || db->sigs[s].priority > db->sigs[best].priority ||
		    (db->sigs[s].priority == db->sigs[best].priority && s < best))
			best = s;
	}
	return best;
}

static int fail(const struct sig *s, const char *what, const char *line)
{
	fprintf(stderr, "%s:%zu: %s: %s:\n    %s\n", s->file, s->line, s->id, what, line);
	return 1;
}

/* Every line a template matches must contain its anchor (the database
 * finds it): the matcher and the database agree on each pattern. */
static int agree(struct ctx *x, size_t si, const char *line, int *any_full)
{
	const struct sig *s = &x->db->sigs[si];
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	size_t p, k, base = 0;
	int bad = 0;

	for (k = 0; k < si; k++)
		base += x->db->sigs[k].pattern.n;
	for (p = 0; p < s->pattern.n; p++) {
		int m = tmpl_match(s->tmpl[p], (const uint8_t *)line, strlen(line), caps);
		int full = m == 1;
		if ((m == 1) != (x->hit[base + p] != 0))
			bad |= fail(s,
				    m == 1 ? "the fact matcher matches but the database does not"
					   : "the database matches but the fact matcher does not",
				    line);
		for (k = 0; full && k < s->tmpl[p]->n_caps; k++)
			if (caps[k].off == SIZE_MAX || !caps[k].len)
				full = 0;
		if (full)
			*any_full = 1;
	}
	return bad;
}

static int validate(struct ctx *x)
{
	struct sigdb *db = x->db;
	size_t i, j;
	int bad = 0;

	for (i = 0; i < db->n; i++) {
		const struct sig *s = &db->sigs[i];
		for (j = 0; j < s->sample.n; j++) {
			int full = 0;
			long w = scan_line(x, s->sample.v[j]);
			bad |= agree(x, i, s->sample.v[j], &full);
			if (w < 0)
				bad |= fail(s, "sample does not match any signature",
					    s->sample.v[j]);
			else if ((size_t)w != i) {
				fprintf(stderr,
					"%s:%zu: %s: sample is won by %s (priority %d >= %d):\n    "
					"%s\n",
					s->file, s->line, s->id, db->sigs[w].id,
					db->sigs[w].priority, s->priority, s->sample.v[j]);
				bad = 1;
			} else if (!full)
				bad |= fail(s, "sample matches but a fact stays empty",
					    s->sample.v[j]);
		}
		for (j = 0; j < s->nomatch.n; j++) {
			int full = 0;
			long w = scan_line(x, s->nomatch.v[j]);
			bad |= agree(x, i, s->nomatch.v[j], &full);
			if (w >= 0 && (size_t)w == i)
				bad |= fail(s, "near miss matches", s->nomatch.v[j]);
			else if (full)
				bad |= fail(s, "near miss matches one pattern", s->nomatch.v[j]);
		}
	}
	return bad;
}

/* Every context fact pattern gives its value from its own example, found
 * by the database and confirmed by the matcher as the scanner does. */
static int validate_ctx(struct ctx *x)
{
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	char v[XS_FACT_CAP];
	size_t i;
	int bad = 0;

	for (i = 0; i < x->db->n_ctx; i++) {
		const struct sig_ctx *c = &x->db->ctx[i];
		const uint8_t *e = (const uint8_t *)c->example;
		size_t n = strlen(c->example);
		memset(x->ctx_hit, 0, sizeof(x->ctx_hit));
		hs_scan(x->hs, c->example, (unsigned)n, 0, x->scratch, on_hit, x);
		v[0] = '\0';
		if (!x->ctx_hit[i] || tmpl_match(c->tmpl, e, n, caps) != 1)
			; /* no match: v stays empty */
		else if (c->cap < 0)
			str_copy(v, sizeof(v), c->value); /* a GPU model */
		else if (caps[c->cap].off != SIZE_MAX)
			keyfact_norm(c->fact, e + caps[c->cap].off, caps[c->cap].len, v, sizeof(v));
		if (strcmp(v, c->value)) {
			fprintf(stderr,
				"context pattern %zu (%s) gives %s=\"%s\", not \"%s\", from "
				"its example:\n    %s\n",
				i + 1, c->pattern, c->fact, v, c->value, c->example);
			bad = 1;
		}
	}
	return bad;
}

/* Every fallback pattern matches its own example. */
static int validate_fallback(struct ctx *x)
{
	size_t i;
	int bad = 0;

	for (i = 0; i < x->db->n_fb; i++) {
		const struct sig_fallback *fb = &x->db->fb[i];
		memset(x->fb_hit, 0, x->db->n_fb);
		hs_scan(x->hs, fb->example, (unsigned)strlen(fb->example), 0, x->scratch, on_hit,
			x);
		if (!x->fb_hit[i]) {
			fprintf(stderr,
				"explain_fallback.tsv: pattern %zu does not match its example:\n"
				"    %s\n    %s\n",
				i + 1, fb->pattern, fb->example);
			bad = 1;
		}
	}
	return bad;
}

static int categories(const struct sigdb *db)
{
	size_t count[32] = {0}, i;
	int c, bad = 0;

	for (i = 0; i < db->n; i++)
		count[sig_category_index(db->sigs[i].category)]++;
	for (c = 0; sig_categories[c]; c++) {
		if (!count[c]) {
			fprintf(stderr, "sigc: category %s has no signature\n", sig_categories[c]);
			bad = 1;
		}
	}
	return bad;
}

static int write_out(const char *path, struct ctx *x)
{
	char *ser = NULL;
	size_t n = 0, i;
	FILE *f;

	if (hs_serialize_database(x->hs, &ser, &n) != HS_SUCCESS)
		return -1;
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		free(ser);
		return -1;
	}
	fprintf(f, "/* generated by tools/sigc.c from data/signatures; do not edit */\n"
		   "#include <stddef.h>\n#include <stdint.h>\n\n");
	fprintf(f, "extern const uint64_t xs_sig_hash;\nextern const size_t xs_hsdb_len;\n"
		   "extern const unsigned char xs_hsdb[];\n");
	fprintf(f, "const uint64_t xs_sig_hash = 0x%016llxULL;\n", (unsigned long long)x->db->hash);
	fprintf(f, "const size_t xs_hsdb_len = %zu;\n", n);
	fprintf(f, "const unsigned char xs_hsdb[] = {");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%u,", i % 24 ? "" : "\n", (unsigned char)ser[i]);
	fprintf(f, "\n};\n");
	free(ser);
	/* the anchor of each template, in database order (choose_anchors) */
	fprintf(f, "extern const size_t xs_anchor_n;\nextern const uint8_t xs_anchor_ops[];\n");
	fprintf(f, "const size_t xs_anchor_n = %zu;\n", sigdb_n_anchored(x->db));
	fprintf(f, "const uint8_t xs_anchor_ops[] = {");
	for (i = 0; i < sigdb_n_anchored(x->db); i++)
		fprintf(f, "%s%zu,", i % 24 ? "" : "\n",
			sigdb_anchored(x->db, i) ? sigdb_anchored(x->db, i)->anchor_op : 0);
	fprintf(f, "0\n};\n");
	return fclose(f) ? -1 : 0;
}

/* The same patterns as POSIX extended regular expressions, one a line, for
 * the benchmark's grep -E / ripgrep runs (bench/explain.sh): written next
 * to the generated C file. ANY is ".*", blanks "[ <tab>]+", classes as
 * bracket expressions; literals escaped. */
static void put_ere_lit(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr(".[]()*+?{}|^$\\", s[i]))
			fputc('\\', f);
		fputc(s[i], f);
	}
}

static int write_ere(const char *c_path, const struct sigdb *db)
{
	static const char *const cls[TMPL_C_COUNT] = {
		"[A-Za-z0-9_.+-]", "[A-Za-z0-9_./+-]", "[^] \t'\"`:;,()<>{}[]",
		"[A-Za-z0-9_.$@]", "[0-9.]",	       "[0-9]",
		"[0-9a-fA-Fx]",	   "[^'\"`]",	       ".",
	};
	char path[4096];
	const char *slash = strrchr(c_path, '/');
	size_t i, k, j;
	FILE *f;

	snprintf(path, sizeof(path), "%.*spatterns.ere", slash ? (int)(slash - c_path + 1) : 0,
		 c_path);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	for (i = 0; i < db->n; i++)
		for (k = 0; k < db->sigs[i].pattern.n; k++) {
			const struct tmpl *t = db->sigs[i].tmpl[k];
			size_t first = 0, last = t->n_ops;
			while (first < last && t->ops[first].kind == TMPL_ANY)
				first++;
			while (last > first && t->ops[last - 1].kind == TMPL_ANY)
				last--;
			for (j = first; j < last; j++) {
				const struct tmpl_op *o = &t->ops[j];
				switch (o->kind) {
				case TMPL_LIT: put_ere_lit(f, o->lit, o->len); break;
				case TMPL_WS: fputs("[ \t]+", f); break;
				case TMPL_CLASS: fprintf(f, "%s+", cls[o->cls]); break;
				case TMPL_ANY: fputs(".*", f); break;
				case TMPL_BOL: fputc('^', f); break;
				case TMPL_EOL: fputc('$', f); break;
				default: fputs("[0-9.]+ ?[KMGTPE]?i?B", f); break;
				}
			}
			fputc('\n', f);
		}
	return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct sigdb db;
	struct cd_err err = {0};
	struct ctx x = {.db = &db};
	struct cd_buf ref;
	int i, rc = 1, n_in = argc, n_ref = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: sigc OUT.c SIGNATURES.txt... [--ref TEXT...]\n");
		return 2;
	}
	sigdb_init(&db);
	buf_init(&ref, (size_t)256 << 20);
	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--ref")) {
			n_in = i;
			break;
		}
	for (i = n_in + 1; i < argc; i++, n_ref++) /* the reference texts, one buffer */
		if (read_file(argv[i], &ref) || buf_putc(&ref, '\n')) {
			fprintf(stderr, "sigc: cannot read %s\n", argv[i]);
			goto out;
		}
	for (i = 2; i < n_in; i++) {
		struct cd_buf b;
		int facts = str_has_suffix(argv[i], "explain_facts.tsv");
		int models = str_has_suffix(argv[i], "gpu_models.tsv");
		int also = str_has_suffix(argv[i], "explain_also.tsv");
		int fallback = !facts && !models && !also && str_has_suffix(argv[i], ".tsv");
		buf_init(&b, SIG_FILE_MAX + 1);
		if (read_file(argv[i], &b) ||
		    (facts	? sigdb_parse_facts
		     : models	? sigdb_parse_models
		     : also	? sigdb_parse_also
		     : fallback ? sigdb_parse_fallback
				: sigdb_parse)(&db, rel(argv[i]), (const uint8_t *)(b.p ? b.p : ""),
					       b.len, &err)) {
			if (err.code)
				fprintf(stderr, "%s\n", err.msg);
			buf_free(&b);
			goto out;
		}
		buf_free(&b);
	}
	if (sigdb_finish(&db, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		goto out;
	}
	if (n_ref && choose_anchors(&db, &ref))
		goto out;
	x.hit = calloc(db.n_pat ? db.n_pat : 1, 1);
	x.fb_hit = calloc(db.n_fb ? db.n_fb : 1, 1);
	if (!x.hit || !x.fb_hit || compile_db(&x))
		goto out;
	if (validate(&x) | validate_fallback(&x) | validate_ctx(&x) | categories(&db))
		goto out;
	if (write_out(argv[1], &x) || write_ere(argv[1], &db))
		goto out;
	printf("sigc: %zu signatures, %zu patterns, %zu fallback patterns, %zu context fact "
	       "patterns, %zu alternatives: every sample matches, every near miss does not\n",
	       db.n, db.n_pat, db.n_fb, db.n_ctx, db.n_also);
	if (n_ref)
		printf("sigc: anchors: the rarest literal of each pattern in %d reference texts "
		       "(%zu bytes)\n",
		       n_ref, ref.len);
	rc = 0;
out:
	if (rc)
		remove(argv[1]);
	if (x.scratch)
		hs_free_scratch(x.scratch);
	if (x.hs)
		hs_free_database(x.hs);
	free(x.hit);
	free(x.fb_hit);
	buf_free(&ref);
	sigdb_free(&db);
	return rc;
}
