/* df_scan: each stage's root image (kb/images), and what its instructions
 * do: every RUN is split into simple commands (format/shcmd) with the
 * variables BuildKit gives it, each handed to df_cmd.c; COPY and ADD into a
 * library directory, CMD and ENTRYPOINT that train are noted here. A stage
 * built on another starts from what its parent had. */
#include <stdio.h>
#include <string.h>

#include "check/dockerfile/df_int.h"
#include "core/buf.h"
#include "core/str.h"
#include "kb/dfrules.h"

struct cd_finding *dfc_at(struct dfc *c, const struct df_instr *in, struct cd_finding *x)
{
	if (x && in)
		finding_at(x, c->o->path, in->line, in->end_line);
	return x;
}

void dfc_evidence_instr(struct dfc *c, struct cd_finding *x, const struct df_instr *in)
{
	const char *a = in->args ? in->args : "";
	size_t n = strcspn(a, "\n");

	if (n > 160)
		n = 160;
	finding_evidence(x, c->a, "%s:%u: %s %.*s%s", c->o->path, in->line, in->keyword, (int)n, a,
			 n < strlen(a) ? " ..." : "");
}

void dfc_evidence_rule(struct dfc *c, struct cd_finding *x, const char *id)
{
	struct dfrule r;

	if (dfrules_find(id, &r) == 0)
		finding_evidence(x, c->a, "documented at: %s", r.source);
}

int dfc_has_nvcc(const struct dfc_stage *s)
{
	size_t i;

	if (s->devel)
		return 1;
	for (i = 0; i < s->n_installs; i++)
		if (s->installs[i].nvcc)
			return 1;
	if (s->img_known && s->img.matched && (s->img.flavor[0] || s->no_cuda))
		return 0;
	return -1;
}

int dfc_env_known(const struct dfc_stage *s)
{
	return s->img_known && s->img.matched &&
	       (!strcmp(s->img.env_set, "nvidia-cuda") || !strncmp(s->img.env_set, "pytorch-", 8) ||
		!strcmp(s->img.flavor, "none"));
}

int dfc_has_torch(const struct dfc *c, const struct dfc_stage *s)
{
	for (;;) {
		if (s->n_torch)
			return 1;
		if (s->st->parent < 0)
			return s->img_known && s->img.has_torch;
		s = &c->stages[s->st->parent];
	}
}

const char *dfc_stage_cuda(const struct dfc_stage *s)
{
	size_t i;

	if (s->cuda[0])
		return s->cuda;
	for (i = s->n_installs; i-- > 0;)
		if (s->installs[i].cuda[0])
			return s->installs[i].cuda;
	return NULL;
}

const struct df_instr *dfc_env_line(const struct dfc *c, size_t stage, const char *name)
{
	const struct df_stage *st = &c->m->stages[stage];
	size_t i, k;

	for (i = st->last + 1; i-- > st->from;) {
		const struct df_instr *in = &c->m->file->items[i];
		if (in->cmd != DF_ENV)
			continue;
		for (k = in->n_kv; k-- > 0;)
			if (!strcmp(in->kv[k].key, name))
				return in;
	}
	return st->parent >= 0 ? dfc_env_line(c, (size_t)st->parent, name) : NULL;
}

int check_dockerfile_base_env(void *ctx, const char *image, struct dfenv *env, struct cd_arena *a)
{
	const struct dfc_opts *o = ctx;
	struct img_info info;

	if (images_lookup(image, &info) || !info.matched)
		return 0;
	return images_env(&info, o && o->arch ? o->arch : "amd64", env, a);
}

/* ---- the instructions ---------------------------------------------------- */

struct walk {
	struct dfc *c;
	struct dfc_stage *s;
	struct dfenv *run_env; /* reused for each RUN */
	const char *ld_library_path;
};

/* Exec form as shell words: each argument single-quoted. NULL when it is
 * over the shell reader's cap (a cut-short command is not read). */
static const char *exec_text(struct dfc *c, const struct df_instr *in)
{
	struct cd_buf b;
	const char *r;
	size_t i, k;
	int rc = 0;

	buf_init(&b, SHCMD_INPUT_MAX);
	for (i = 0; !rc && i < in->n_argv; i++) {
		rc = buf_puts(&b, i ? " '" : "'");
		for (k = 0; !rc && in->argv[i][k]; k++)
			rc = in->argv[i][k] == '\'' ? buf_puts(&b, "'\\''")
						    : buf_putc(&b, in->argv[i][k]);
		if (!rc)
			rc = buf_putc(&b, '\'');
	}
	r = rc ? NULL : arena_strndup(c->a, b.p ? b.p : "", b.len);
	buf_free(&b);
	return r;
}

static int is_shell(const char *w)
{
	const char *b = strrchr(w, '/');

	b = b ? b + 1 : w;
	return !strcmp(b, "sh") || !strcmp(b, "bash") || !strcmp(b, "dash");
}

static int run_script(struct walk *w, const struct df_instr *in, const char *text)
{
	struct sh_script sc;
	struct cd_err err = {0};
	struct dfc_ctx x = {w->c, w->s, in, w->run_env};
	size_t i;
	int rc;

	if (!text || shcmd_split(text, strlen(text), w->c->a, &sc, &err))
		return 0; /* too big to read: nothing is claimed about it */
	for (i = 0; i < sc.n; i++)
		if ((rc = dfc_command(&x, &sc.cmds[i])))
			return rc;
	return 0;
}

/* RUN <<EOF, RUN bash <<EOF: the heredoc is the script; python3 <<EOF is not. */
static int heredoc_is_script(struct walk *w, const char *args)
{
	struct sh_script sc;
	struct cd_err err = {0};

	if (shcmd_split(args, strlen(args), w->c->a, &sc, &err))
		return 0;
	return !sc.n || (sc.n == 1 && (!sc.cmds[0].argc ||
				       (is_shell(sc.cmds[0].argv[0]) && sc.cmds[0].argc <= 3)));
}

static int on_run(struct walk *w, const struct df_step *st)
{
	const struct df_instr *in = st->in;
	const struct df_model *m = w->c->m;
	size_t i;
	int rc;

	*w->run_env = *st->build;
	if (in->json)
		return run_script(w, in, exec_text(w->c, in));
	if (in->n_heredocs && heredoc_is_script(w, in->args)) {
		for (i = 0; i < in->n_heredocs; i++) {
			const struct df_heredoc *h = &in->heredocs[i];
			const char *t =
				h->expand ? dfstage_expand_shell(m, h->body, st->build) : h->body;
			if ((rc = run_script(w, in, t)))
				return rc;
		}
		return 0;
	}
	return run_script(w, in, dfstage_expand_shell(m, in->args, st->build));
}

static int lib_dir(const char *p)
{
	static const char *const dirs[] = {"/usr/local/lib", "/usr/lib", "/lib"};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (str_has_prefix(p, dirs[i]))
			return 1;
	return 0;
}

/* COPY / ADD of shared libraries into a directory only ld.so.cache serves. */
static void on_copy(struct walk *w, const struct df_step *st)
{
	const struct df_instr *in = st->in;
	const char *dst;
	size_t i;
	int libs = 0;

	if (in->n_argv < 2 || in->n_heredocs)
		return;
	dst = dfstage_expand(w->c->m, in->argv[in->n_argv - 1], st->build, NULL);
	if (!dst || !lib_dir(dst) || strstr(dst, "python"))
		return; /* Python's own directories are not the loader's */
	for (i = 0; i + 1 < in->n_argv; i++)
		libs |= str_has_suffix(in->argv[i], ".so") || strstr(in->argv[i], ".so.") != NULL ||
			str_has_suffix(in->argv[i], ".so*");
	if (libs && w->s->ldconfig && !w->s->libs_after) {
		w->s->libs_after = in;
		snprintf(w->s->libs_what, sizeof(w->s->libs_what), "%s into %s", in->keyword, dst);
	}
}

int dfc_trains(const char *t)
{
	static const char *const words[] = {"torchrun",
					    "accelerate launch",
					    "torch.distributed.run",
					    "torch.distributed.launch",
					    "deepspeed ",
					    "llamafactory-cli train",
					    "tune run"};
	const char *p;
	size_t i;

	if (!t)
		return 0;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if ((p = strstr(t, words[i])) &&
		    (p == t || p[-1] == ' ' || p[-1] == '\'' || p[-1] == '/' || p[-1] == '"'))
			return 1;
	for (p = t; (p = strstr(p, ".py")); p += 3) {
		const char *b = p;
		while (b > t && b[-1] != ' ' && b[-1] != '/' && b[-1] != '\'' && b[-1] != '"')
			b--;
		if (!strncmp(b, "train", 5) || !strncmp(b, "finetune", 8) ||
		    (p - b >= 6 && !strncmp(p - 6, "_train", 6)))
			return 1;
	}
	return 0;
}

static int step(void *ctx, const struct df_step *st)
{
	struct walk *w = ctx;
	const struct df_instr *in = st->in;

	w->ld_library_path = dfenv_get(st->build, "LD_LIBRARY_PATH");
	switch (in->cmd) {
	case DF_RUN: return on_run(w, st);
	case DF_COPY:
	case DF_ADD: on_copy(w, st); break;
	case DF_CMD:
	case DF_ENTRYPOINT:
		if (dfc_trains(in->json ? exec_text(w->c, in) : in->args))
			w->s->trains = in;
		break;
	default: break;
	}
	return 0;
}

static void root_image(struct dfc_stage *s)
{
	const char *img = s->st->image;

	if (!img || s->st->image_unset || !strcmp(img, "scratch"))
		return;
	s->img_known = images_lookup(img, &s->img) == 0;
	if (!s->img_known || !s->img.matched)
		return;
	str_copy(s->cuda, sizeof(s->cuda), s->img.cuda);
	s->devel = !strcmp(s->img.flavor, "devel");
	s->no_cuda = !s->img.gpu && !strcmp(s->img.flavor, "none");
}

static int scan_stage(struct dfc *c, size_t i, struct dfenv *run_env)
{
	struct dfc_stage *s = &c->stages[i];
	struct walk w = {c, s, run_env, NULL};
	int rc;

	s->st = &c->m->stages[i];
	if (s->st->parent >= 0) {
		const struct dfc_stage *p = &c->stages[s->st->parent];
		s->img = p->img;
		s->img_known = p->img_known;
		memcpy(s->cuda, p->cuda, sizeof(s->cuda));
		s->devel = p->devel;
		s->no_cuda = p->no_cuda;
		s->n_installs = p->n_installs;
		memcpy(s->installs, p->installs, sizeof(s->installs));
		s->ldconfig = p->ldconfig;
	} else {
		root_image(s);
	}
	s->n_inherited = s->n_installs;
	s->end_env = arena_alloc(c->a, sizeof(*s->end_env));
	if (!s->end_env)
		return CD_ENOMEM;
	rc = dfstage_walk(c->m, i, step, &w, s->end_env);
	s->ld_library_path = w.ld_library_path;
	return rc;
}

int dfc_scan(struct dfc *c)
{
	struct dfenv *run_env = arena_alloc(c->a, sizeof(*run_env));
	size_t i;
	int rc;

	c->n = c->m->n_stages;
	c->stages = arena_calloc(c->a, c->n ? c->n : 1, sizeof(*c->stages));
	if (!c->stages || !run_env)
		return CD_ENOMEM;
	for (i = 0; i < c->n; i++)
		if ((rc = scan_stage(c, i, run_env)))
			return rc;
	for (i = 0; i < c->n; i++) {
		int p = c->stages[i].st->parent;
		if (!c->stages[i].n_builds)
			continue;
		while (p >= 0) {
			c->stages[p].children_build = 1;
			p = c->stages[p].st->parent;
		}
	}
	return 0;
}
