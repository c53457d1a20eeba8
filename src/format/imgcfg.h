/* imgcfg: the environment an image's containers start with, from its
 * configuration as `docker inspect` / `podman inspect` print it (an array
 * of objects with Config.Env), as an OCI image config holds it
 * (config.Env), or as an OCI runtime bundle's config.json does
 * (process.env). Untrusted bytes: at most IMGCFG_INPUT_MAX, IMGCFG_ENV_MAX
 * entries of at most IMGCFG_VAR_MAX bytes; strings are copied into the
 * caller's arena. CD_EFORMAT when it is none of these shapes, CD_ERANGE over
 * a cap, CD_ENOMEM. */
#ifndef CD_IMGCFG_H
#define CD_IMGCFG_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define IMGCFG_INPUT_MAX ((size_t)16 << 20)
#define IMGCFG_ENV_MAX	 4096
#define IMGCFG_VAR_MAX	 ((size_t)64 << 10)

struct imgcfg {
	const char *kind; /* "docker-inspect", "oci-image", "oci-runtime" */
	size_t n_env;
	char **env;	  /* "NAME=VALUE", then a NULL (an envp) */
	const char *arch; /* "amd64", "arm64"; NULL when not said */
};

CD_WUR int imgcfg_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct imgcfg *out,
			struct cd_err *err);

#endif
