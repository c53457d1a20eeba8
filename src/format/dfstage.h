/* dfstage: the build stages of a parsed Dockerfile and the variables each
 * instruction sees, with BuildKit's rules (frontend/dockerfile/dockerfile2llb
 * convert.go): ARGs before the first FROM are global and only FROM sees them
 * (with the automatic TARGETARCH, BUILDPLATFORM, ... of the build platform);
 * an ARG in a stage takes its --build-arg, else its default (expanded with
 * the variables so far), else the global value, and then overrides, for the
 * build steps after it, an ENV of the same name, from the base image too (the
 * classic builder did not); an ENV set after an ARG wins. The image's own
 * environment (what a container starts with) is the base's plus ENV only.
 * A base image's ENV is known only through the caller's callback. Everything
 * is allocated from the caller's arena; CD_ENOMEM is the only failure. */
#ifndef CD_DFSTAGE_H
#define CD_DFSTAGE_H

#include "core/err.h"

#include <stddef.h>

#include "core/arena.h"
#include "format/dfword.h"
#include "format/dockerfile.h"

#define DFSTAGE_MAX	  128
#define DF_BUILD_ARGS_MAX 64

struct df_build_arg {
	const char *name;
	const char *value;
};

/* What the build is given: --build-arg values and the platform. */
struct df_build {
	size_t n_args;
	struct df_build_arg args[DF_BUILD_ARGS_MAX];
	const char *platform; /* "linux/amd64" when NULL */
	/* The ENV a base image brings (image as expanded); NULL: none known. */
	int (*base_env)(void *ctx, const char *image, struct dfenv *env, struct cd_arena *a);
	void *ctx;
};

struct df_stage {
	size_t index;
	const char *name;	/* AS name, lower case; NULL if none */
	const char *image_raw;	/* as written */
	const char *image;	/* expanded with the global ARGs */
	int image_unset;	/* the reference uses an ARG that has no value */
	int parent;		/* index of the stage it is built on, -1 for an image */
	const char *root;	/* the image at the bottom of the parent chain */
	const char *platform;	/* --platform, expanded; NULL if none */
	size_t from;		/* index of its FROM in the file */
	size_t last;		/* index of its last instruction */
	struct dfenv start_env; /* the image environment it starts from */
};

struct df_model {
	const struct df_file *file;
	struct dfenv global; /* the ARGs before the first FROM, with the automatic ones */
	size_t n_stages;
	struct df_stage *stages;
	size_t target; /* the last stage */
	const struct df_build *build;
	struct cd_arena *arena;
};

/* What dfstage_walk hands each instruction of a stage. */
struct df_step {
	const struct df_instr *in;
	const struct dfenv *build; /* what a RUN sees: image env + ARG values + ENV */
	const struct dfenv *image; /* the image's environment so far (ENV only) */
};

CD_WUR int dfstage_eval(const struct df_file *f, const struct df_build *b, struct cd_arena *a,
			struct df_model *out, struct cd_err *err);

/* Replay the instructions of stage s; fn returning non-zero stops the walk
 * (its value is returned). end_env (optional) gets the image env at the end. */
CD_WUR int dfstage_walk(const struct df_model *m, size_t s,
			int (*fn)(void *ctx, const struct df_step *st), void *ctx,
			struct dfenv *end_env);

/* Expand a raw value as BuildKit would with env (word processing: quotes
 * removed). NULL on a syntax error; *unset (optional) tells a variable
 * without value was used. */
CD_WUR const char *dfstage_expand(const struct df_model *m, const char *raw,
				  const struct dfenv *env, int *unset);
/* The same, keeping quotes and unset variables as written (RUN text for a
 * shell); the text as written when it does not parse (NULL only for NULL). */
CD_WUR const char *dfstage_expand_shell(const struct df_model *m, const char *raw,
					const struct dfenv *env);
/* The stage a name (or a number) refers to, or -1. */
int dfstage_find(const struct df_model *m, const char *ref, size_t before);

#endif
