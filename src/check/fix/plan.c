/* plan: see plan.h. Commands are compared without their trailing comment
 * ("cmd   # why"), as a person would paste them. */
#include "check/fix/plan.h"

#include <stdio.h>
#include <string.h>

#include "check/stack_check.h"
#include "core/buf.h"
#include "kb/fixkb.h"

static const char *const env_vars[] = {"LD_LIBRARY_PATH", "CUDA_HOME", "TORCH_CUDA_ARCH_LIST"};

/* The length of cmd without its "   # comment". */
static size_t bare_len(const char *cmd)
{
	const char *c = strstr(cmd, "   #");

	if (cmd[0] == '#')
		return strlen(cmd); /* a comment line is its own command */
	while (c && c > cmd && c[-1] == ' ')
		c--;
	return c ? (size_t)(c - cmd) : strlen(cmd);
}

static int same_cmd(const char *x, const char *y)
{
	size_t n = bare_len(x);

	return n == bare_len(y) && !strncmp(x, y, n);
}

static int has_id(const struct plan_step *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->n_ids; i++)
		if (!strcmp(s->ids[i], id))
			return 1;
	return 0;
}

static void add_id(struct plan_step *s, const char *id, enum cd_severity sev)
{
	if (!has_id(s, id) && s->n_ids < PLAN_IDS_MAX)
		s->ids[s->n_ids++] = id;
	if (sev > s->severity)
		s->severity = sev;
}

static void add_cmd(struct plan_step *s, const char *cmd)
{
	size_t i;

	for (i = 0; i < s->n_cmds; i++)
		if (same_cmd(s->cmds[i], cmd))
			return;
	if (s->n_cmds < CD_FINDING_LINES_MAX)
		s->cmds[s->n_cmds++] = cmd;
}

/* check and jit raise some ids both (toolkit-missing, ...): one problem,
 * and jit's finding (the build's view) is the one kept. */
static int jit_has(const struct cd_findings *fs, const struct cd_finding *x)
{
	size_t i;

	if (x->section && !strcmp(x->section, "jit"))
		return 0;
	for (i = 0; i < fs->n; i++)
		if (fs->items[i]->section && !strcmp(fs->items[i]->section, "jit") &&
		    !strcmp(fs->items[i]->id, x->id))
			return 1;
	return 0;
}

/* The findings as steps, merging those whose first command is the same. */
static void from_findings(const struct cd_findings *fs, struct cd_plan *p)
{
	size_t i, k, j;

	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		struct plan_step *s = NULL;
		if (x->severity < CD_SEV_WARNING || jit_has(fs, x))
			continue;
		for (k = 0; x->n_fix && k < p->n && !s; k++)
			if (p->steps[k].n_cmds && same_cmd(p->steps[k].cmds[0], x->fix[0]))
				s = &p->steps[k];
		if (!s && p->n == PLAN_STEPS_MAX) {
			p->dropped++;
			continue;
		}
		if (!s) {
			s = &p->steps[p->n++];
			memset(s, 0, sizeof(*s));
			s->title = x->title;
			s->detail = x->detail;
			s->section = x->section;
			s->severity = x->severity;
		}
		add_id(s, x->id, x->severity);
		for (j = 0; j < x->n_fix; j++)
			add_cmd(s, x->fix[j]);
	}
}

static int step_causes(const struct plan_step *a, const struct plan_step *b)
{
	size_t i, k;

	for (i = 0; i < a->n_ids; i++)
		for (k = 0; k < b->n_ids; k++)
			if (fixkb_causes(a->ids[i], b->ids[k]))
				return 1;
	return 0;
}

/* Step i, after the steps that cause it (those first, depth first). */
static void emit(struct cd_plan *p, size_t i, int *state, struct plan_step *out, size_t *n)
{
	size_t k;

	state[i] = 1; /* being placed: a cycle stops here */
	for (k = 0; k < p->n; k++)
		if (!state[k] && step_causes(&p->steps[k], &p->steps[i]))
			emit(p, k, state, out, n);
	state[i] = 2;
	out[(*n)++] = p->steps[i];
}

/* Errors before warnings, otherwise as found; a step's causes just before it. */
static void order(struct cd_plan *p, struct cd_arena *a)
{
	struct plan_step *tmp = arena_calloc(a, PLAN_STEPS_MAX, sizeof(*tmp));
	int state[PLAN_STEPS_MAX] = {0};
	size_t n = 0, i, k;

	if (!tmp)
		return;
	for (i = 1; i < p->n; i++) /* stable insertion sort by severity */
		for (k = i; k > 0 && p->steps[k - 1].severity < p->steps[k].severity; k--) {
			struct plan_step t = p->steps[k];
			p->steps[k] = p->steps[k - 1];
			p->steps[k - 1] = t;
		}
	for (i = 0; i < p->n; i++)
		if (!state[i])
			emit(p, i, state, tmp, &n);
	memcpy(p->steps, tmp, p->n * sizeof(*tmp));
}

/* A command an earlier step gives is not repeated; a step left with none
 * is that earlier step's too. */
static void dedup(struct cd_plan *p)
{
	size_t i, k, j, c, to;

	for (i = 1; i < p->n; i++) {
		struct plan_step *s = &p->steps[i];
		size_t owner = i;
		for (c = 0; c < s->n_cmds;) {
			for (k = 0, j = i; k < i && j == i; k++)
				for (to = 0; to < p->steps[k].n_cmds && j == i; to++)
					if (same_cmd(p->steps[k].cmds[to], s->cmds[c]))
						j = k;
			if (j == i) {
				c++;
				continue;
			}
			owner = owner == i ? j : owner;
			memmove(&s->cmds[c], &s->cmds[c + 1],
				(s->n_cmds - c - 1) * sizeof(s->cmds[0]));
			s->n_cmds--;
		}
		if (s->n_cmds || owner == i)
			continue;
		for (k = 0; k < s->n_ids; k++)
			add_id(&p->steps[owner], s->ids[k], s->severity);
		memmove(s, s + 1, (p->n - i - 1) * sizeof(*s));
		p->n--;
		i--;
	}
}

static const char *with_python(const struct cd_facts *f, const char *cmd, struct cd_arena *a)
{
	const char *at = strstr(cmd, "{python}"), *py = f->stack ? stack_python(f) : "python3";
	struct cd_buf b;
	const char *s;
	int rc = 0;

	if (!at)
		return cmd;
	buf_init(&b, 4096);
	while (!rc && at) {
		rc = buf_append(&b, cmd, (size_t)(at - cmd));
		if (!rc)
			rc = buf_puts(&b, py);
		cmd = at + 8;
		at = strstr(cmd, "{python}");
	}
	if (!rc)
		rc = buf_puts(&b, cmd);
	/* A command cut short would run something else: none instead. */
	s = b.p && !rc ? arena_strdup(a, b.p) : NULL;
	buf_free(&b);
	return s;
}

static void verify(const struct cd_facts *f, struct plan_step *s, struct cd_arena *a)
{
	const char *v = s->n_ids ? fixkb_verify(s->ids[0]) : NULL;
	int jit = s->section && !strcmp(s->section, "jit");

	if (v)
		s->verify[0] = with_python(f, v, a);
	s->verify[v ? 1 : 0] = jit ? "cuda-doctor jit" : "cuda-doctor check";
}

/* The variables a step sets, for cuda-doctor.env: the first line that sets
 * each, across the whole plan. */
static void env_lines(struct cd_plan *p, struct cd_arena *a)
{
	int seen[3] = {0, 0, 0};
	size_t i, c, v;

	for (i = 0; i < p->n; i++)
		for (c = 0; c < p->steps[i].n_cmds; c++) {
			const char *cmd = p->steps[i].cmds[c], *name;
			if (!strncmp(cmd, "export ", 7))
				name = cmd + 7;
			else if (!strncmp(cmd, "unset ", 6))
				name = cmd + 6;
			else
				continue;
			for (v = 0; v < 3; v++) {
				size_t l = strlen(env_vars[v]);
				if (seen[v] || strncmp(name, env_vars[v], l) ||
				    (name[l] != '=' && name[l] != ' ' && name[l] != '\0'))
					continue;
				seen[v] = 1;
				if (p->steps[i].n_env < PLAN_ENV_MAX)
					p->steps[i].env[p->steps[i].n_env++] =
						arena_strndup(a, cmd, bare_len(cmd));
			}
		}
}

/* The cache folders and stale locks the jit-cache steps move aside. */
static void moves(const struct cd_jit_facts *jf, struct cd_plan *p)
{
	size_t i, k;

	for (i = 0; jf && i < p->n; i++) {
		struct plan_step *s = &p->steps[i];
		int stale = has_id(s, "jit-cache-stale"), lock = has_id(s, "jit-cache-lock");
		for (k = 0; k < jf->cache.n && (stale || lock); k++) {
			const struct jit_cache_item *it = &jf->cache.items[k];
			int take = lock ? jit_lock_stale(it) : 0;
			take |= stale && (it->kind == JIT_C_HALF_BUILT ||
					  it->kind == JIT_C_FOREIGN || it->kind == JIT_C_OLDER);
			if (take && s->n_moves < PLAN_MOVES_MAX)
				s->moves[s->n_moves++] = (struct plan_move){
					it->path, it->detail && *it->detail ? it->detail
						  : it->kind == JIT_C_LOCK_DIR
							  ? "a lock directory"
							  : "a lock left behind"};
		}
	}
}

static void install(const struct cd_facts *f, const struct install_choice *c, struct cd_plan *p,
		    struct cd_arena *a)
{
	const struct install_pick *k = c->pick.chosen >= 0 && c->line ? &c->pick : &c->alt;
	const char *line = k == &c->pick ? c->line : c->alt_line;
	struct plan_step *s;

	if (!line || k->chosen < 0 || p->n == PLAN_STEPS_MAX)
		return;
	s = &p->steps[p->n++];
	memset(s, 0, sizeof(*s));
	s->severity = CD_SEV_WARNING;
	s->section = "python";
	s->title = arena_printf(a, "Install torch %s (%s) for this machine", k->patch.torch,
				k->variants[k->chosen].v.variant);
	if (c->status == INSTALL_NEEDS_DRIVER && k == &c->pick)
		s->cmds[s->n_cmds++] = arena_printf(
			a, "# first upgrade the NVIDIA driver to %s or newer", c->driver_needed);
	s->cmds[s->n_cmds++] = line;
	if ((s->verify[0] = fixkb_verify("arch-unsupported")))
		s->verify[0] = with_python(f, s->verify[0], a);
	s->verify[s->verify[0] ? 1 : 0] = "cuda-doctor check";
}

void plan_build(const struct cd_facts *f, const struct plan_input *in, struct cd_arena *a,
		struct cd_plan *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (in->fs)
		from_findings(in->fs, out);
	order(out, a);
	if (in->install_step && in->install && (in->install->line || in->install->alt_line))
		install(f, in->install, out, a);
	dedup(out);
	for (i = 0; i < out->n; i++)
		if (!out->steps[i].verify[0])
			verify(f, &out->steps[i], a);
	env_lines(out, a);
	moves(in->jf, out);
}

void plan_of_findings(const struct cd_facts *f, const struct cd_findings *fs, struct cd_arena *a,
		      struct cd_plan *out)
{
	struct plan_input in = {fs, NULL, NULL, 0};

	plan_build(f, &in, a, out);
}
