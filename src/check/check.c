/* check: the registry of check families (see check.h). */
#include "check/check.h"

typedef void (*check_fn)(const struct cd_facts *, struct cd_findings *);

static const check_fn families[] = {
	check_driver,	  /* driver-*, driver-too-old */
	check_gpus,	  /* gpu-*, cuda-visible-devices-invalid */
	check_toolkit,	  /* toolkit-*, torch-arch-list-invalid */
	check_env,	  /* nccl-transport-disabled, env sanity */
	check_container,  /* shm-too-small */
	check_stack,	  /* package-*, wheel-pin-mismatch, python-* (stack.c) */
	check_compat,	  /* driver-too-old: the selected toolkit vs the driver */
	check_libs,	  /* lib-missing, lib-shadowed, lib-duplicate (libs.c) */
	check_arch,	  /* arch-unsupported, extension-abi-mismatch (arch.c) */
	check_image_host, /* image-*: the image under --root against this host */
};

void check_all(const struct cd_facts *f, struct cd_findings *out)
{
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		families[i](f, out);
	findings_sort(out);
}
