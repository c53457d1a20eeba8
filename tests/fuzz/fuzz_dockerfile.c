/* libFuzzer target: format/dockerfile, format/dfstage and format/dfword on
 * arbitrary bytes. The first byte picks build arguments and the platform so
 * both paths of the ARG rule run; every stage is walked and every RUN's text
 * expanded both ways. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/dfstage.h"
#include "format/dockerfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static int base_env(void *ctx, const char *image, struct dfenv *env, struct cd_arena *a)
{
	(void)ctx;
	(void)a;
	if (strstr(image, "cuda"))
		return dfenv_set(env, "CUDA_VERSION", "12.4.1");
	return 0;
}

static int step(void *ctx, const struct df_step *st)
{
	const struct df_model *m = ctx;
	size_t i;

	if (st->in->cmd == DF_RUN || st->in->cmd == DF_COPY) {
		if (!dfstage_expand_shell(m, st->in->args, st->build))
			__builtin_trap();
		(void)dfstage_expand(m, st->in->args, st->build, NULL);
	}
	for (i = 0; i < st->in->n_heredocs; i++)
		if (!st->in->heredocs[i].body || !st->in->heredocs[i].name)
			__builtin_trap();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct cd_arena a;
	struct df_file f;
	struct df_model m;
	struct df_build b = {0};
	struct cd_err e = {0};
	size_t s;

	if (!n)
		return 0;
	b.base_env = base_env;
	if (p[0] & 1) {
		b.n_args = 1;
		b.args[0].name = "CUDA";
		b.args[0].value = "11.8.0";
	}
	b.platform = (p[0] & 2) ? "linux/arm64/v8" : NULL;
	arena_init(&a);
	if (dockerfile_parse(p + 1, n - 1, &a, &f, &e) == 0 &&
	    dfstage_eval(&f, &b, &a, &m, &e) == 0)
		for (s = 0; s < m.n_stages; s++)
			if (dfstage_walk(&m, s, step, &m, NULL) == CD_EINTERNAL)
				__builtin_trap();
	arena_free(&a);
	return 0;
}
