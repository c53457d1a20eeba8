/* dfstage: see dfstage.h. The ARG rule is dispatchArg of convert.go: the
 * value is the --build-arg, else the default processed with the stage's
 * variables, else the global ARG's value; a value is then added to the build
 * state's environment (llb AddEnv), replacing any variable of that name. */
#include "format/dfstage.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"

static const char *expand(const struct df_model *m, const char *raw, const struct dfenv *env,
			  unsigned flags, int *unset)
{
	struct dfword_opts o = {m->file->escape, env, flags};
	struct cd_buf b;
	struct cd_err e = {0};
	unsigned met = 0;
	const char *r = NULL;

	if (unset)
		*unset = 0;
	if (!raw)
		return NULL;
	buf_init(&b, DFWORD_MAX + 1);
	if (dfword_expand(raw, strlen(raw), &o, &b, &met, &e) == 0)
		r = arena_strndup(m->arena, b.p ? b.p : "", b.len);
	buf_free(&b);
	if (unset)
		*unset = (met & DFWORD_UNSET) != 0;
	return r;
}

const char *dfstage_expand(const struct df_model *m, const char *raw, const struct dfenv *env,
			   int *unset)
{
	return expand(m, raw, env, 0, unset);
}

const char *dfstage_expand_shell(const struct df_model *m, const char *raw, const struct dfenv *env)
{
	const char *r = expand(m, raw, env, DFWORD_RAW | DFWORD_KEEP_UNSET, NULL);

	return r ? r : raw; /* the shell would still run it: read it as written */
}

static const char *build_arg(const struct df_build *b, const char *name)
{
	size_t i;

	for (i = 0; b && i < b->n_args; i++)
		if (!strcmp(b->args[i].name, name))
			return b->args[i].value;
	return NULL;
}

/* BUILDPLATFORM, TARGETARCH, ... from "os/arch[/variant]". */
static int platform_args(struct df_model *m, const char *platform)
{
	static const char *const pre[] = {"BUILD", "TARGET"};
	const char *s1 = strchr(platform, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	const char *os, *arch, *variant;
	char name[32];
	size_t i;
	int rc = 0;

	os = arena_strndup(m->arena, platform, s1 ? (size_t)(s1 - platform) : strlen(platform));
	arch = s1 ? arena_strndup(m->arena, s1 + 1, s2 ? (size_t)(s2 - s1 - 1) : strlen(s1 + 1))
		  : "";
	variant = s2 ? s2 + 1 : "";
	if (!os || !arch)
		return CD_ENOMEM;
	for (i = 0; i < 2 && !rc; i++) {
		const char *n;
		snprintf(name, sizeof(name), "%sPLATFORM", pre[i]);
		rc = (n = arena_strdup(m->arena, name)) ? dfenv_set(&m->global, n, platform)
							: CD_ENOMEM;
		snprintf(name, sizeof(name), "%sOS", pre[i]);
		rc = rc					  ? rc
		     : (n = arena_strdup(m->arena, name)) ? dfenv_set(&m->global, n, os)
							  : CD_ENOMEM;
		snprintf(name, sizeof(name), "%sARCH", pre[i]);
		rc = rc					  ? rc
		     : (n = arena_strdup(m->arena, name)) ? dfenv_set(&m->global, n, arch)
							  : CD_ENOMEM;
		snprintf(name, sizeof(name), "%sVARIANT", pre[i]);
		rc = rc					  ? rc
		     : (n = arena_strdup(m->arena, name)) ? dfenv_set(&m->global, n, variant)
							  : CD_ENOMEM;
	}
	return rc;
}

/* The value an ARG takes in env (the stage's variables, or the global ones). */
static const char *arg_value(const struct df_model *m, const struct df_kv *kv,
			     const struct dfenv *env, int global)
{
	const char *v = build_arg(m->build, kv->key);

	if (v)
		return v;
	if (kv->value)
		return expand(m, kv->value, env, 0, NULL);
	return global ? NULL : dfenv_get(&m->global, kv->key);
}

static int global_args(struct df_model *m, const struct df_instr *in)
{
	size_t i;
	int rc;

	for (i = 0; i < in->n_kv; i++) {
		const char *v = arg_value(m, &in->kv[i], &m->global, 1);
		if (v && (rc = dfenv_set(&m->global, in->kv[i].key, v)))
			return rc;
	}
	return 0;
}

int dfstage_find(const struct df_model *m, const char *ref, size_t before)
{
	size_t i;
	char *end;
	unsigned long k;

	if (!ref || !*ref)
		return -1;
	for (i = 0; i < before && i < m->n_stages; i++)
		if (m->stages[i].name && !strcasecmp(m->stages[i].name, ref))
			return (int)i;
	if (isdigit((unsigned char)ref[0])) {
		k = strtoul(ref, &end, 10);
		if (!*end && k < before && k < m->n_stages)
			return (int)k;
	}
	return -1;
}

static int apply(const struct df_model *m, const struct df_instr *in, struct dfenv *build,
		 struct dfenv *image)
{
	size_t i;
	int rc;

	for (i = 0; i < in->n_kv; i++) {
		const struct df_kv *kv = &in->kv[i];
		const char *v;
		if (in->cmd == DF_ARG) {
			v = arg_value(m, kv, build, 0);
			if (v && (rc = dfenv_set(build, kv->key, v)))
				return rc;
		} else if (in->cmd == DF_ENV) {
			v = kv->value ? expand(m, kv->value, build, 0, NULL) : "";
			if (!v)
				v = kv->value;
			if ((rc = dfenv_set(build, kv->key, v)) ||
			    (rc = dfenv_set(image, kv->key, v)))
				return rc;
		}
	}
	return 0;
}

int dfstage_walk(const struct df_model *m, size_t s, int (*fn)(void *ctx, const struct df_step *st),
		 void *ctx, struct dfenv *end_env)
{
	const struct df_stage *st = &m->stages[s];
	struct dfenv *build = arena_alloc(m->arena, sizeof(*build));
	struct dfenv *image = arena_alloc(m->arena, sizeof(*image));
	struct df_step step;
	size_t i;
	int rc;

	if (!build || !image)
		return CD_ENOMEM;
	*build = st->start_env;
	*image = st->start_env;
	for (i = st->from; i <= st->last; i++) {
		const struct df_instr *in = &m->file->items[i];
		if (i > st->from && (in->cmd == DF_ARG || in->cmd == DF_ENV) &&
		    (rc = apply(m, in, build, image)))
			return rc;
		step.in = in;
		step.build = build;
		step.image = image;
		if (fn && (rc = fn(ctx, &step)))
			return rc;
	}
	if (end_env)
		*end_env = *image;
	return 0;
}

/* FROM [--platform=P] image [AS name] */
static int new_stage(struct df_model *m, size_t idx)
{
	const struct df_instr *in = &m->file->items[idx];
	struct df_stage *st = &m->stages[m->n_stages];
	const char *plat = dockerfile_flag(in, "platform", NULL);
	int rc;

	memset(st, 0, sizeof(*st));
	st->index = m->n_stages;
	st->from = idx;
	st->last = idx;
	st->parent = -1;
	st->image_raw = in->n_argv ? in->argv[0] : "";
	st->image = expand(m, st->image_raw, &m->global, 0, &st->image_unset);
	if (plat)
		st->platform = expand(m, plat, &m->global, 0, NULL);
	if (in->n_argv >= 3 && !strcasecmp(in->argv[1], "as")) {
		char *name = arena_strdup(m->arena, in->argv[2]);
		size_t k;
		for (k = 0; name && name[k]; k++)
			name[k] = (char)tolower((unsigned char)name[k]);
		st->name = name;
	}
	st->parent = dfstage_find(m, st->image, m->n_stages);
	dfenv_init(&st->start_env);
	if (st->parent >= 0) {
		st->root = m->stages[st->parent].root;
		rc = dfstage_walk(m, (size_t)st->parent, NULL, NULL, &st->start_env);
		if (rc)
			return rc;
	} else {
		st->root = st->image;
		if (m->build && m->build->base_env && st->image && !st->image_unset &&
		    (rc = m->build->base_env(m->build->ctx, st->image, &st->start_env, m->arena)))
			return rc;
	}
	m->n_stages++;
	return 0;
}

int dfstage_eval(const struct df_file *f, const struct df_build *b, struct cd_arena *a,
		 struct df_model *out, struct cd_err *err)
{
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->file = f;
	out->build = b;
	out->arena = a;
	dfenv_init(&out->global);
	out->stages = arena_calloc(a, DFSTAGE_MAX, sizeof(*out->stages));
	if (!out->stages || platform_args(out, b && b->platform ? b->platform : "linux/amd64"))
		return err_set(err, CD_ENOMEM, "out of memory");
	for (i = 0; i < f->n && !rc; i++) {
		const struct df_instr *in = &f->items[i];
		if (in->cmd == DF_FROM) {
			if (out->n_stages == DFSTAGE_MAX)
				return err_set(err, CD_ERANGE, "more than %d stages", DFSTAGE_MAX);
			rc = new_stage(out, i);
		} else if (!out->n_stages) {
			if (in->cmd == DF_ARG)
				rc = global_args(out, in);
		} else {
			out->stages[out->n_stages - 1].last = i;
		}
	}
	if (rc)
		return err_set(err, rc, "out of memory");
	out->target = out->n_stages ? out->n_stages - 1 : 0;
	return 0;
}
