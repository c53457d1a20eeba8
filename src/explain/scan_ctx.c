/* scan_ctx: key facts from the lines around a diagnosis (data/explain_facts.tsv,
 * and the GPU models of data/gpu_models.tsv for the compute capability).
 * The scanner keeps, per fact name, the latest value a context pattern found
 * in this input; a new diagnosis that lacks a key fact of its category takes
 * it (the nearest line before its own), or waits for the first line after.
 * Bounded: one value per fact name, a bit per diagnosis. */
#include <string.h>

#include "core/str.h"

#include "explain/keyfact.h"
#include "explain/scan_int.h"

void xs_fact_add(struct xs_result *r, struct xs_diag *d, const char *name, const char *v,
		 uint64_t line)
{
	struct xs_fact *f;

	if (d->n_facts >= XS_FACTS_MAX || xs_fact(d, name))
		return;
	f = &d->facts[d->n_facts];
	f->name = name;
	f->value = arena_strdup(&r->arena, v);
	f->line = line;
	if (f->value)
		d->n_facts++;
}

void xs_ctx_hit(struct xs_scanner *s, size_t k, const uint8_t *p, size_t n, uint64_t line)
{
	const struct sigdb *db = &s->db->sigs;
	const struct sig_ctx *c = &db->ctx[k];
	struct tmpl_cap caps[TMPL_CAPS_MAX];
	const struct tmpl_cap *cp = &caps[c->cap < 0 ? 0 : c->cap];
	char *v = s->ctx[c->slot].v;
	char tmp[XS_FACT_MAX + 1];
	uint32_t bit = (uint32_t)1 << c->slot;
	size_t i;

	if (tmpl_match(c->tmpl, p, n, caps) != 1)
		return;
	if (c->cap < 0) /* a GPU model's name: the row's compute capability */
		str_copy(tmp, sizeof(tmp), c->value);
	else if (cp->off == SIZE_MAX || !cp->len ||
		 !keyfact_context(c->fact, p + cp->off,
				  cp->len < XS_FACT_MAX ? cp->len : XS_FACT_MAX, c->bare_int, tmp,
				  sizeof(tmp)))
		return; /* "45" or "535.104.05" in a compute capability's place: not one */
	memcpy(v, tmp, strlen(tmp) + 1);
	s->ctx[c->slot].line = line;
	s->ctx_set |= bit;
	for (i = 0; s->ctx_waiting[c->slot] && i < s->res->n; i++) {
		struct xs_diag *d = &s->res->d[i];
		if (d->input != s->input || !(d->ctx_wait & bit))
			continue;
		d->ctx_wait &= ~bit;
		s->ctx_waiting[c->slot]--;
		xs_fact_add(s->res, d, c->fact, v, line);
	}
}

void xs_ctx_new(struct xs_scanner *s, struct xs_diag *d)
{
	const struct sigdb *db = &s->db->sigs;
	int cat = sig_category_index(d->sig->category);
	size_t j;

	if (cat < 0)
		return;
	for (j = 0; j < db->n_ctx_names; j++) {
		uint32_t bit = (uint32_t)1 << j;
		if (!(db->ctx_cats[j] >> cat & 1) || xs_fact(d, db->ctx_names[j]))
			continue;
		if (s->ctx_set & bit) {
			xs_fact_add(s->res, d, db->ctx_names[j], s->ctx[j].v, s->ctx[j].line);
		} else {
			d->ctx_wait |= bit;
			s->ctx_waiting[j]++;
		}
	}
}

void xs_ctx_keep(struct xs_scanner *s)
{
	const struct sigdb *db = &s->db->sigs;
	size_t j;

	for (j = 0; j < db->n_ctx_names && j < SIG_CTX_NAMES; j++) {
		const char *v;
		if (!(s->ctx_set >> j & 1) || !(v = arena_strdup(&s->res->arena, s->ctx[j].v)))
			continue;
		s->res->ctx_last[j].value = v;
		s->res->ctx_last[j].input = s->input;
		s->res->ctx_last[j].line = s->ctx[j].line;
	}
}

void xs_ctx_late(struct xs_result *r, const struct xs_db *db, struct xs_diag *d)
{
	int cat = sig_category_index(d->sig->category);
	size_t j;

	if (cat < 0)
		return;
	for (j = 0; j < db->sigs.n_ctx_names && j < SIG_CTX_NAMES; j++)
		if ((db->sigs.ctx_cats[j] >> cat & 1) && r->ctx_last[j].value &&
		    r->ctx_last[j].input == d->input)
			xs_fact_add(r, d, db->sigs.ctx_names[j], r->ctx_last[j].value,
				    r->ctx_last[j].line);
}
