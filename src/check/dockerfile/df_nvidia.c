/* df_nvidia: the NVIDIA Container Toolkit's variables of the final image
 * (its base image's ENV and the Dockerfile's): the builders of check/image.c
 * judge them; this file places each finding at the ENV that set the variable,
 * or at the FROM of the base image that brought it. */
#include <string.h>

#include "check/dockerfile/df_int.h"
#include "check/image.h"

static void place(struct dfc *c, struct cd_finding *x, const char *var)
{
	const struct df_instr *in;
	size_t t = c->m->target;
	const struct dfc_stage *s = &c->stages[t];

	if (!x)
		return;
	in = var ? dfc_env_line(c, t, var) : NULL;
	if (!in) {
		size_t k = t;
		while (c->m->stages[k].parent >= 0)
			k = (size_t)c->m->stages[k].parent;
		in = &c->m->file->items[c->m->stages[k].from];
		if (var)
			finding_evidence(x, c->a, "%s comes from the base image %s%s", var,
					 s->st->root ? s->st->root : "?",
					 s->img.env_set[0] ? " (data/base_image_env.tsv)" : "");
	}
	finding_at(x, c->o->path, in->line, in->end_line);
	dfc_evidence_instr(c, x, in);
	dfc_evidence_rule(c, x, x->id);
}

/* An ENV built from a variable of a base image whose ENV is not known
 * (${NVIDIA_DRIVER_CAPABILITIES:+...}graphics) has a value that cannot be told. */
static int uncertain(const struct dfc *c, const char *var)
{
	const struct df_instr *in = dfc_env_line(c, c->m->target, var);
	size_t k;

	if (!in || dfc_env_known(&c->stages[c->m->target]))
		return 0;
	for (k = 0; k < in->n_kv; k++)
		if (!strcmp(in->kv[k].key, var) && in->kv[k].value && strchr(in->kv[k].value, '$'))
			return 1;
	return 0;
}

void dfc_rules_nvidia(struct dfc *c)
{
	const struct dfc_stage *s;
	struct image_env e;
	struct image_host h, *hp = NULL;

	if (!c->n)
		return;
	s = &c->stages[c->m->target];
	image_env_read(s->end_env, &e);
	if (c->o->host) {
		h.driver = c->o->host->driver;
		h.cuda = c->o->host->cuda;
		h.brand = c->o->host->brand;
		h.source = c->o->host->source;
		hp = &h;
	}
	if (!uncertain(c, "NVIDIA_DRIVER_CAPABILITIES"))
		place(c, image_check_capabilities(&e, c->out), "NVIDIA_DRIVER_CAPABILITIES");
	place(c, image_check_disable_require(&e, hp, c->out), "NVIDIA_DISABLE_REQUIRE");
	if (hp)
		place(c, image_check_require(&e, hp, c->out),
		      e.n_require ? e.require_name[0] : "CUDA_VERSION");
}
