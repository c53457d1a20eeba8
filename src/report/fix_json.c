/* fix_json: the JSON of `cuda-doctor fix`: the standard report with "plan"
 * (the steps in order) and "install" (the torch for this machine, every
 * variant judged) added; docs/fix.md lists the keys. Unknown is null. */
#include <stdio.h>

#include "format/fatbin.h"
#include "report/fix_render.h"

static json_t *step_json(size_t n, const struct plan_step *s)
{
	json_t *o = json_object(), *moves = json_array();
	size_t i;

	json_object_set_new(o, "step", json_integer((json_int_t)n));
	json_object_set_new(o, "ids", json_strv(s->ids, s->n_ids, 1));
	json_object_set_new(o, "severity", json_string(severity_name(s->severity)));
	json_object_set_new(o, "section", json_str(s->section));
	json_object_set_new(o, "title", json_str(s->title));
	json_object_set_new(o, "detail", json_str(s->detail));
	json_object_set_new(o, "command", s->n_cmds ? json_str(s->cmds[0]) : json_null());
	json_object_set_new(o, "commands", json_strv(s->cmds, s->n_cmds, 1));
	json_object_set_new(o, "verify",
			    json_strv(s->verify,
				      s->verify[1]   ? 2
				      : s->verify[0] ? 1
						     : 0,
				      1));
	for (i = 0; i < s->n_moves; i++) {
		json_t *m = json_object();
		json_object_set_new(m, "path", json_str(s->moves[i].path));
		json_object_set_new(m, "why", json_str(s->moves[i].why));
		json_array_append_new(moves, m);
	}
	json_object_set_new(o, "apply_moves", moves);
	json_object_set_new(o, "apply_env", json_strv(s->env, s->n_env, 1));
	return o;
}

static json_t *variant_json(const struct install_variant *v, int chosen)
{
	json_t *o = json_object();

	json_object_set_new(o, "variant", json_str(v->v.variant));
	json_object_set_new(o, "cuda", json_str(v->v.cuda));
	json_object_set_new(o, "pypi_default", json_boolean(v->v.pypi_default));
	json_object_set_new(o, "chosen", json_boolean(chosen));
	json_object_set_new(o, "verdict", json_string(install_verdict_name(v->verdict)));
	json_object_set_new(o, "why", json_str(v->why));
	json_object_set_new(o, "min_driver", json_str(v->min_driver[0] ? v->min_driver : NULL));
	json_object_set_new(o, "minor_compat_driver",
			    json_str(v->minor_floor[0] ? v->minor_floor : NULL));
	json_object_set_new(o, "archs", json_str(v->archs));
	json_object_set_new(o, "archs_from", json_str(v->arch_from));
	return o;
}

static json_t *pick_json(const struct install_pick *p, const char *line)
{
	json_t *o = json_object(), *vs = json_array();
	size_t i;

	json_object_set_new(o, "release", json_str(p->release));
	json_object_set_new(o, "torch", json_str(p->patch.torch));
	json_object_set_new(o, "torchvision", json_str(p->patch.torchvision));
	json_object_set_new(o, "torchaudio", json_str(p->patch.torchaudio));
	json_object_set_new(o, "variant",
			    p->chosen >= 0 ? json_str(p->variants[p->chosen].v.variant)
					   : json_null());
	json_object_set_new(o, "line", json_str(line));
	for (i = 0; i < p->n; i++)
		json_array_append_new(vs, variant_json(&p->variants[i], (int)i == p->chosen));
	json_object_set_new(o, "variants", vs);
	return o;
}

static json_t *install_json(const struct install_choice *c)
{
	static const char *const status[] = {"chosen", "needs-driver", "no-variant"};
	json_t *o = json_object(), *m = json_object(), *ccs = json_array();
	char cc[16];
	size_t i;

	json_object_set_new(m, "driver", json_str(c->driver));
	json_object_set_new(m, "driver_source", json_str(c->driver_source));
	if (c->driver_cuda > 0)
		snprintf(cc, sizeof(cc), "%d.%d", c->driver_cuda / 1000,
			 (c->driver_cuda % 1000) / 10);
	json_object_set_new(m, "driver_cuda", c->driver_cuda > 0 ? json_string(cc) : json_null());
	json_object_set_new(m, "gpus", json_integer((json_int_t)c->n_gpus));
	snprintf(cc, sizeof(cc), "%d.%d", c->low_major, c->low_minor);
	json_object_set_new(m, "lowest_compute_capability",
			    c->n_gpus ? json_string(cc) : json_null());
	for (i = 0; i < c->n_ccs; i++) {
		snprintf(cc, sizeof(cc), "%d.%d", c->ccs[i] / 10, c->ccs[i] % 10);
		json_array_append_new(ccs, json_string(cc));
	}
	json_object_set_new(m, "compute_capabilities", ccs);
	json_object_set_new(o, "machine", m);
	json_object_set_new(o, "status", json_string(status[c->status]));
	json_object_set_new(o, "release_from", json_str(c->release_from));
	json_object_set_new(o, "installer", json_string(install_tool_name(c->tool)));
	json_object_set_new(o, "python", json_str(c->python));
	json_object_set_new(o, "driver_needed",
			    json_str(c->driver_needed[0] ? c->driver_needed : NULL));
	json_object_set_new(o, "label", json_str(c->label));
	json_object_set_new(o, "pick", pick_json(&c->pick, c->line));
	json_object_set_new(o, "alternative",
			    c->alt.chosen >= 0 ? pick_json(&c->alt, c->alt_line) : json_null());
	return o;
}

static json_t *wheel_json(const struct cd_torch_wheel *w)
{
	json_t *o = json_object();

	json_object_set_new(o, "path", json_str(w->path));
	json_object_set_new(o, "version", json_str(w->version));
	json_object_set_new(o, "variant", json_str(w->variant));
	json_object_set_new(o, "member", json_str(w->member));
	json_object_set_new(o, "sass",
			    w->arch.known
				    ? json_arch_names(FATBIN_KIND_ELF, w->arch.sass, w->arch.n_sass)
				    : json_null());
	json_object_set_new(o, "ptx",
			    w->arch.known
				    ? json_arch_names(FATBIN_KIND_PTX, w->arch.ptx, w->arch.n_ptx)
				    : json_null());
	json_object_set_new(o, "containers",
			    w->arch.known ? json_integer((json_int_t)w->arch.containers)
					  : json_null());
	json_object_set_new(o, "error", json_str(w->error ? w->error : w->arch.error));
	return o;
}

json_t *fix_json(const struct fix_report *r)
{
	json_t *o = json_report(r->f, r->fs, "fix"), *plan = json_array();
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < r->plan->n; i++)
		json_array_append_new(plan, step_json(i + 1, &r->plan->steps[i]));
	json_object_set_new(o, "plan", plan);
	json_object_set_new(o, "install", r->install ? install_json(r->install) : json_null());
	json_object_set_new(o, "wheel", r->wheel ? wheel_json(r->wheel) : json_null());
	json_object_set_new(o, "jax_line", json_str(r->jax_line));
	return o;
}
