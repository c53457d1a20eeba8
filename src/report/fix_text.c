/* fix_text: the human `cuda-doctor fix` report and its Markdown form: the
 * plan, step by step (mark, title, finding ids, the commands, how to check
 * it, what --apply does; the first command is the fix, the others, marked
 * "also:", are its alternatives and follow-ups), then the torch for this
 * machine: the driver and
 * GPUs as the chooser saw them, each CUDA variant of the release with its
 * verdict, the install line, and the alternative where the release cannot
 * run here. */
#include <stdio.h>
#include <string.h>

#include "report/color.h"
#include "report/fix_render.h"

static const char *u(const char *s)
{
	return s ? s : "unknown";
}

static void mark(const struct cd_render *o, enum cd_severity s)
{
	if (s == CD_SEV_ERROR)
		fprintf(o->out, "%s✗%s", col(o, C_RED), col(o, C_OFF));
	else
		fprintf(o->out, "%s!%s", col(o, C_YEL), col(o, C_OFF));
}

static void ids(FILE *out, const struct plan_step *s)
{
	size_t i;

	for (i = 0; i < s->n_ids; i++)
		fprintf(out, "%s%s", i ? " " : "", s->ids[i]);
}

static void step_text(const struct cd_render *o, size_t n, const struct plan_step *s)
{
	size_t i;

	fprintf(o->out, "\n%zu. ", n);
	mark(o, s->severity);
	fprintf(o->out, " %s%s%s", col(o, C_BOLD), u(s->title), col(o, C_OFF));
	if (s->n_ids) {
		fprintf(o->out, "  %s[", col(o, C_DIM));
		ids(o->out, s);
		fprintf(o->out, "]%s", col(o, C_OFF));
	}
	fprintf(o->out, "\n");
	if (s->detail && o->verbose)
		fprintf(o->out, "     %s\n", s->detail);
	for (i = 0; i < s->n_cmds; i++)
		fprintf(o->out, "     %s%s%s%s\n", i ? col(o, C_DIM) : "", i ? "also: " : "",
			i ? col(o, C_OFF) : "", s->cmds[i]);
	for (i = 0; i < 2 && s->verify[i]; i++)
		fprintf(o->out, "   %scheck:%s %s\n", col(o, C_GRN), col(o, C_OFF), s->verify[i]);
	if (s->n_moves)
		fprintf(o->out, "   --apply: moves %zu item%s into a dated backup folder\n",
			s->n_moves, s->n_moves == 1 ? "" : "s");
	for (i = 0; i < s->n_env; i++)
		fprintf(o->out, "   --apply: writes `%s` into cuda-doctor.env\n", s->env[i]);
}

static const char *from_text(const char *from)
{
	if (!strcmp(from, "--torch"))
		return "asked with --torch";
	if (!strcmp(from, "--wheel"))
		return "the wheel given";
	if (!strcmp(from, "installed"))
		return "the installed one";
	if (!strcmp(from, "vLLM's pin"))
		return "the one the installed vLLM pins";
	if (!strcmp(from, "nvcc's CUDA"))
		return "the newest built with nvcc's CUDA";
	return "the newest cuda-doctor knows";
}

static void machine(const struct cd_render *o, const struct install_choice *c)
{
	char cuda[16] = "unknown";
	size_t i;

	if (c->driver_cuda > 0)
		snprintf(cuda, sizeof(cuda), "%d.%d", c->driver_cuda / 1000,
			 (c->driver_cuda % 1000) / 10);
	fprintf(o->out, "    driver %s%s%s%s, CUDA %s", u(c->driver), c->driver_source ? " (" : "",
		c->driver_source ? c->driver_source : "", c->driver_source ? ")" : "", cuda);
	if (!c->n_gpus) {
		fprintf(o->out, "; GPUs unknown: no variant is judged by its arch list\n");
		return;
	}
	fprintf(o->out, "; %zu GPU%s, lowest compute capability %d.%d (", c->n_gpus,
		c->n_gpus == 1 ? "" : "s", c->low_major, c->low_minor);
	for (i = 0; i < c->n_ccs; i++)
		fprintf(o->out, "%s%d.%d", i ? ", " : "", c->ccs[i] / 10, c->ccs[i] % 10);
	fprintf(o->out, ")\n");
}

static void variants(const struct cd_render *o, const struct install_pick *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct install_variant *v = &p->variants[i];
		int chosen = (int)i == p->chosen;
		fprintf(o->out, "    %s%s%s %-6s CUDA %-7s %s%s: %s\n", chosen ? col(o, C_GRN) : "",
			chosen ? "→" : " ", chosen ? col(o, C_OFF) : "", v->v.variant, v->v.cuda,
			v->v.pypi_default ? "(PyPI's default) " : "",
			install_verdict_name(v->verdict), u(v->why));
		if (v->archs && o->verbose)
			fprintf(o->out, "             holds %s (%s)\n", v->archs, u(v->arch_from));
	}
}

static void install_text(const struct cd_render *o, const struct install_choice *c)
{
	fprintf(o->out, "\n%sThe torch for this machine%s\n", col(o, C_BOLD), col(o, C_OFF));
	machine(o, c);
	fprintf(o->out, "    release %s (%s): torch %s, installer %s\n", c->pick.release,
		from_text(c->release_from), c->pick.patch.torch, install_tool_name(c->tool));
	variants(o, &c->pick);
	if (c->status == INSTALL_NEEDS_DRIVER)
		fprintf(o->out,
			"    no variant runs on this driver: upgrade it to %s or newer for %s\n",
			c->driver_needed, c->pick.variants[c->pick.chosen].v.variant);
	else if (c->status == INSTALL_NO_VARIANT)
		fprintf(o->out, "    no variant of %s has kernels for every GPU\n",
			c->pick.release);
	if (c->line && c->status == INSTALL_CHOSEN && c->pick.chosen == c->pick.installed)
		fprintf(o->out, "  the installed torch is this build; to reinstall it: %s\n",
			c->line);
	else if (c->line)
		fprintf(o->out, "  install: %s\n", c->line);
	if (c->label)
		fprintf(o->out, "    %s%s%s\n", col(o, C_YEL), c->label, col(o, C_OFF));
	if (c->alt_line && c->alt.chosen >= 0)
		fprintf(o->out, "  %s: %s   # torch %s %s, the newest release that runs here\n",
			c->status == INSTALL_NO_VARIANT ? "install" : "or, on this driver",
			c->alt_line, c->alt.patch.torch, c->alt.variants[c->alt.chosen].v.variant);
}

void fix_text(const struct cd_render *o, const struct fix_report *r)
{
	const struct cd_plan *p = r->plan;
	size_t i;

	fprintf(o->out, "cuda-doctor %s fix%s\n", CD_VERSION,
		r->f->root.is_host ? "" : "  (--root)");
	if (!p->n)
		fprintf(o->out, "\nNothing to fix: no finding at warning or error severity.\n");
	else
		fprintf(o->out, "\nPlan: %zu step%s, in this order\n", p->n, p->n == 1 ? "" : "s");
	for (i = 0; i < p->n; i++)
		step_text(o, i + 1, &p->steps[i]);
	if (p->dropped)
		fprintf(o->out, "\n(%zu more steps not listed)\n", p->dropped);
	if (r->wheel)
		fprintf(o->out, "\n--wheel %s: torch %s%s%s%s%s\n", r->wheel->path,
			u(r->wheel->version), r->wheel->variant ? " " : "",
			r->wheel->variant ? r->wheel->variant : "", r->wheel->error ? "; " : "",
			r->wheel->error ? r->wheel->error : "");
	if (r->install)
		install_text(o, r->install);
	if (r->jax_line)
		fprintf(o->out, "\n%sJAX for this machine%s\n  install: %s\n", col(o, C_BOLD),
			col(o, C_OFF), r->jax_line);
}

void fix_markdown(const struct cd_render *o, const struct fix_report *r)
{
	const struct cd_plan *p = r->plan;
	size_t i, k;

	fprintf(o->out, "### cuda-doctor %s fix\n\n", CD_VERSION);
	if (!p->n)
		fprintf(o->out, "Nothing to fix.\n");
	for (i = 0; i < p->n; i++) {
		const struct plan_step *s = &p->steps[i];
		fprintf(o->out, "%zu. %s **%s**", i + 1,
			s->severity == CD_SEV_ERROR ? ":x:" : ":warning:", u(s->title));
		for (k = 0; k < s->n_ids; k++)
			fprintf(o->out, " `%s`", s->ids[k]);
		fprintf(o->out, "\n\n   ```sh\n");
		for (k = 0; k < s->n_cmds; k++)
			fprintf(o->out, "   %s\n", s->cmds[k]);
		fprintf(o->out, "   ```\n");
		for (k = 0; k < 2 && s->verify[k]; k++)
			fprintf(o->out, "   check: `%s`\n", s->verify[k]);
		fprintf(o->out, "\n");
	}
	if (r->install && r->install->line)
		fprintf(o->out, "\n#### torch for this machine\n\n```sh\n%s\n```\n",
			r->install->line);
}

void fix_first_step(const struct cd_render *o, const struct cd_plan *plan)
{
	const struct plan_step *s;
	if (!plan || !plan->n)
		return;
	s = &plan->steps[0];
	if (!s->n_cmds)
		return;
	if (o->format == CD_FMT_MARKDOWN) {
		fprintf(o->out, "\n#### First step (1 of %zu, `cuda-doctor fix` for the plan)\n\n",
			plan->n);
		fprintf(o->out, "%s\n\n```sh\n%s\n```\n", u(s->title), s->cmds[0]);
		return;
	}
	fprintf(o->out, "\n%sFirst step%s (1 of %zu, `cuda-doctor fix` for the plan): %s\n",
		col(o, C_BOLD), col(o, C_OFF), plan->n, u(s->title));
	fprintf(o->out, "    %s\n", s->cmds[0]);
}
