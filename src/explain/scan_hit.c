/* scan_hit: a hit into a diagnosis: causes are told apart by their facts,
 * a symptom is one diagnosis however its lines vary, and a message over
 * consecutive lines continues the diagnosis of its first line. */
#include <string.h>

#include "core/str.h"
#include "explain/keyfact.h"
#include "explain/scan_int.h"

/* The canonical value of capture i of a hit (keyfact.h) in buf. */
static const char *cap_value(const struct xs_hit *h, size_t i, char *buf, size_t cap)
{
	const struct tmpl_cap *c = &h->caps[i];
	size_t n = c->len < XS_FACT_MAX ? c->len : XS_FACT_MAX;

	keyfact_norm(h->t->cap_names[i], h->w + c->off, n, buf, cap);
	return buf;
}

/* Causes are told apart by their facts (two missing headers are two
 * diagnoses); a symptom is one diagnosis however its lines vary (ninja's
 * "build stopped" and CalledProcessError are the same failed build). */
static uint64_t hit_hash(const struct xs_hit *h, int by_facts)
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

/* A fact the matched lines gave, not one taken from their context. */
static const char *own_fact(const struct xs_diag *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n_facts; i++)
		if (!strcmp(d->facts[i].name, name))
			return d->facts[i].line ? NULL : d->facts[i].value;
	return NULL;
}

/* by_facts: every fact of the hit is in d with the same value; otherwise
 * only no fact may conflict (a fact d lacks is added to it). */
static int same_facts(const struct xs_diag *d, const struct xs_hit *h, int by_facts)
{
	char buf[XS_FACT_MAX + 1];
	size_t i;

	for (i = 0; h->ok && i < h->t->n_caps; i++) {
		const char *v;
		if (h->caps[i].off == SIZE_MAX)
			continue;
		v = own_fact(d, h->t->cap_names[i]);
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

/* The fact of that name taken from the context, to be replaced by the
 * matched line's own; NULL if d has none. */
static struct xs_fact *context_fact(struct xs_diag *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n_facts; i++)
		if (!strcmp(d->facts[i].name, name))
			return d->facts[i].line ? &d->facts[i] : NULL;
	return NULL;
}

static void fill_facts(struct xs_result *r, struct xs_diag *d, const struct xs_hit *h)
{
	char buf[XS_FACT_MAX + 1];
	size_t i;

	for (i = 0; h->ok && i < h->t->n_caps; i++) {
		const struct tmpl_cap *c = &h->caps[i];
		struct xs_fact *f;
		const char *v;
		if (c->off == SIZE_MAX || own_fact(d, h->t->cap_names[i]))
			continue; /* a continuation line does not overwrite a fact */
		f = context_fact(d, h->t->cap_names[i]); /* but replaces a context one */
		if (!f && d->n_facts >= XS_FACTS_MAX)
			return;
		v = arena_strdup(&r->arena, cap_value(h, i, buf, sizeof(buf)));
		if (!v)
			return;
		if (!f)
			f = &d->facts[d->n_facts++];
		f->name = h->t->cap_names[i];
		f->value = v;
		f->line = 0;
		if (h->t->cap_is_size[i] && d->n_facts < XS_FACTS_MAX) {
			int64_t b = tmpl_size_bytes(f->value, strlen(f->value));
			if (b < 0)
				continue;
			f = &d->facts[d->n_facts];
			f->line = 0;
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
static int continue_last(struct xs_scanner *s, const struct xs_hit *h)
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
		const char *v = own_fact(d, h->t->cap_names[i]);
		if (h->caps[i].off != SIZE_MAX && v && strcmp(v, cap_value(h, i, buf, sizeof(buf))))
			return 0;
	}
	fill_facts(s->res, d, h);
	add_location(d, s->input, h->line, h->rank);
	s->last_line = h->line;
	return 1;
}

static void remember(struct xs_scanner *s, const struct xs_hit *h, const struct xs_diag *d)
{
	s->has_last = 1;
	s->last_sig = h->sig;
	s->last_line = h->line;
	s->last_diag = (uint32_t)(d - s->res->d);
}

void xs_record(struct xs_scanner *s, const struct xs_hit *h)
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
	d->text = xs_clean_copy(&r->arena, h->text, h->text_n);
	add_location(d, s->input, h->line, h->rank);
	r->slots[i] = (uint32_t)(++r->n);
	xs_ctx_new(s, d);
	remember(s, h, d);
}
