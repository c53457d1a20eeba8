/* dockerfile: see dockerfile.h. The rules run over the scanned stages; a
 * finding on an instruction with "# cuda-doctor ignore=ID" above it (or a
 * global ignore) is dropped and counted. */
#include "check/dockerfile/dockerfile.h"

#include <string.h>

#include "check/dockerfile/df_int.h"

static const struct df_instr *instr_at(const struct df_file *f, unsigned line)
{
	size_t i;

	for (i = 0; line && i < f->n; i++)
		if (f->items[i].line <= line && line <= f->items[i].end_line)
			return &f->items[i];
	return NULL;
}

/* One finding per id and line: a RUN that installs torch twice (the two
 * branches of a case) is one place to fix. */
static int repeated(const struct cd_findings *out, size_t from, size_t upto,
		    const struct cd_finding *x)
{
	size_t i;

	for (i = from; i < upto; i++)
		if (out->items[i]->line == x->line && !strcmp(out->items[i]->id, x->id))
			return 1;
	return 0;
}

static size_t drop_ignored(const struct df_file *f, struct cd_findings *out, size_t from)
{
	size_t i, k = from, dropped = 0;

	for (i = from; i < out->n; i++) {
		struct cd_finding *x = out->items[i];
		if (dockerfile_ignored(f, instr_at(f, x->line), x->id)) {
			dropped++;
			continue;
		}
		if (x->line && repeated(out, from, k, x))
			continue;
		out->items[k++] = x;
	}
	out->n = k;
	return dropped;
}

static const char *last_torch(const struct dfc *c, size_t i)
{
	const struct dfc_stage *s = &c->stages[i];

	for (;;) {
		if (s->n_torch)
			return s->torch[s->n_torch - 1].spec;
		if (s->st->parent < 0)
			return NULL;
		s = &c->stages[s->st->parent];
	}
}

static int report(const struct dfc *c, struct dfc_report *rep)
{
	size_t i;

	rep->n_stages = c->n;
	rep->stages = arena_calloc(c->a, c->n ? c->n : 1, sizeof(*rep->stages));
	if (!rep->stages)
		return CD_ENOMEM;
	for (i = 0; i < c->n; i++) {
		const struct dfc_stage *s = &c->stages[i];
		struct dfc_stage_view *v = &rep->stages[i];
		v->index = i;
		v->name = s->st->name;
		v->image = s->st->image_unset ? NULL : s->st->image;
		v->parent = s->st->parent;
		v->img = s->img;
		v->cuda = dfc_stage_cuda(s);
		v->has_nvcc = dfc_has_nvcc(s);
		v->torch = last_torch(c, i);
		v->final = i == c->m->target;
	}
	return 0;
}

int check_dockerfile(const struct df_model *m, const struct dfc_opts *o, struct cd_findings *out,
		     struct dfc_report *rep)
{
	struct dfc c;
	size_t first = out->n;
	int rc;

	memset(&c, 0, sizeof(c));
	c.m = m;
	c.o = o;
	c.out = out;
	c.a = out->arena;
	memset(rep, 0, sizeof(*rep));
	rep->path = o->path;
	rep->host = o->host;
	if ((rc = dfc_scan(&c)))
		return rc;
	dfc_rules_build(&c);
	dfc_rules_image(&c);
	dfc_rules_torch(&c);
	dfc_rules_nvidia(&c);
	rep->n_ignored = drop_ignored(m->file, out, first);
	findings_sort_located(out);
	return report(&c, rep);
}
