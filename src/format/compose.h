/* compose: the services of a Compose file as `docker compose` reads the
 * parts that decide GPU access (format/yamltree gives the YAML; anchors and
 * merge keys are applied there). Values are interpolated as Compose does
 * ($$, $VAR, ${VAR}, ${VAR:-d}, ${VAR-d}, ${VAR:?e}, ${VAR?e}, ${VAR:+r},
 * ${VAR+r}) with no variable set: a default is taken, a variable without
 * one leaves the value unknown (the shell or a .env file may set it).
 * Bounded: services beyond CMP_SERVICES_MAX are CD_ERANGE; devices,
 * environment entries and list items beyond their caps are dropped and
 * counted in `truncated`. Everything lives in the caller's arena. */
#ifndef CD_COMPOSE_H
#define CD_COMPOSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define CMP_SERVICES_MAX 512
#define CMP_DEVICES_MAX	 8
#define CMP_ENV_MAX	 256
#define CMP_LIST_MAX	 32

/* A value as interpolated: v NULL when the key is absent (or null). */
struct cmp_str {
	const char *v;
	unsigned line;
	int unknown; /* a variable without a default: v is the text as written */
};

/* One GPU request: a deploy.resources.reservations.devices entry or a
 * gpus: entry. */
struct cmp_device {
	unsigned line;
	int from_gpus; /* the gpus: attribute (gpus: all is count all) */
	struct cmp_str driver, count;
	int caps_set; /* capabilities: present (a list, possibly empty) */
	size_t n_caps, n_ids;
	struct cmp_str caps[CMP_LIST_MAX], ids[CMP_LIST_MAX];
	int ids_set;
};

struct cmp_env {
	const char *name;
	struct cmp_str value; /* v NULL: "- NAME" or "NAME:" takes the shell's value */
};

struct cmp_service {
	const char *name;
	unsigned line;
	struct cmp_str image, runtime, shm_size, ipc, command, entrypoint;
	int has_build;
	struct cmp_str build_context, dockerfile;
	int env_file; /* env_file: lists files whose variables are not read */
	size_t n_devices;
	struct cmp_device devices[CMP_DEVICES_MAX];
	size_t n_env;
	struct cmp_env env[CMP_ENV_MAX];
	int extends; /* extends: (not followed) */
};

/* "# cuda-doctor ignore=ID[,ID]" on the comment lines above a line (that
 * line, or when it is a service's key the whole service), "# cuda-doctor
 * global ignore=ID" anywhere (line 0: the whole file). */
#define CMP_IGNORES_MAX 64
#define CMP_IGNORE_IDS	16
struct cmp_ignore {
	unsigned line;
	size_t n;
	const char *ids[CMP_IGNORE_IDS];
};

struct cmp_file {
	size_t n;
	struct cmp_service *services;
	size_t truncated; /* entries dropped at a cap */
	size_t n_ignores;
	struct cmp_ignore *ignores;
};

CD_WUR int compose_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct cmp_file *out,
			 struct cd_err *err);
/* Compose's interpolation of s with nothing set (see above); *unknown gets 1
 * when a variable had no default. NULL on no memory. */
CD_WUR char *compose_interpolate(const char *s, struct cd_arena *a, int *unknown);
/* Is id ignored at line (of service s, NULL for none)? */
int compose_ignored(const struct cmp_file *f, const struct cmp_service *s, unsigned line,
		    const char *id);
/* The environment entry of a service, or NULL. */
const struct cmp_env *compose_env(const struct cmp_service *s, const char *name);

#endif
