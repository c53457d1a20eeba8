/* check: the registry of check families (see check.h). */
#include "check/check.h"

typedef void (*check_fn)(const struct cd_facts *, struct cd_findings *);

/* Families that read no f->driver, f->gpus or f->n_gpus: they may run before
 * the driver queries are collected. */
static const check_fn early[] = {
	check_env,	 /* nccl-transport-disabled, env sanity */
	check_container, /* shm-too-small */
	check_stack,	 /* package-*, wheel-pin-mismatch, python-* (stack.c) */
};

static const check_fn rest[] = {
	check_driver,	  /* driver-*, driver-too-old */
	check_gpus,	  /* gpu-*, cuda-visible-devices-invalid */
	check_toolkit,	  /* toolkit-*, torch-arch-list-invalid */
	check_compat,	  /* driver-too-old: the selected toolkit vs the driver */
	check_libs,	  /* lib-missing, lib-shadowed, lib-duplicate (libs.c) */
	check_arch,	  /* arch-unsupported, extension-abi-mismatch (arch.c) */
	check_image_host, /* image-*: the image under --root against this host */
};

void check_early(const struct cd_facts *f, struct cd_findings *out)
{
	size_t i;

	for (i = 0; i < sizeof(early) / sizeof(early[0]); i++)
		early[i](f, out);
}

void check_rest(const struct cd_facts *f, struct cd_findings *out)
{
	size_t i;

	for (i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		rest[i](f, out);
	findings_sort(out);
}

void check_all(const struct cd_facts *f, struct cd_findings *out)
{
	check_early(f, out);
	check_rest(f, out);
}
