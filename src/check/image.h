/* image: whether a container image starts and reaches CUDA under the NVIDIA
 * Container Toolkit, from the environment it starts with: NVIDIA_DISABLE_REQUIRE
 * (nvidia-disable-require), NVIDIA_DRIVER_CAPABILITIES (nvidia-capabilities-
 * no-compute) and, against a driver, NVIDIA_REQUIRE_* as libnvidia-container
 * evaluates it (image-cuda-refused, image-cuda-compat-only). The one owner of
 * these ids: `dockerfile`, Compose files and `check --host-driver` call these
 * builders and add their own location and evidence. Findings are allocated in
 * out->arena; NULL means no finding (or no memory). */
#ifndef CD_CHECK_IMAGE_H
#define CD_CHECK_IMAGE_H

#include "facts/finding.h"
#include "format/dfword.h"

#define IMAGE_REQ_MAX 8

struct image_host {
	const char *driver; /* "545.29.06" */
	const char *cuda;   /* the CUDA it supports: "12.3" */
	const char *brand;  /* NVIDIA_REQUIRE_CUDA's token ("tesla", "geforce"); NULL unknown */
	const char *source; /* "--host-driver 545.29.06", "this host's driver (NVML)" */
};

/* The variables of an image's environment the toolkit reads. */
struct image_env {
	size_t n_require;
	const char *require[IMAGE_REQ_MAX]; /* NVIDIA_REQUIRE_* values but JETPACK */
	const char *require_name[IMAGE_REQ_MAX];
	const char *cuda_version;    /* CUDA_VERSION */
	const char *disable_require; /* NVIDIA_DISABLE_REQUIRE, as set */
	const char *capabilities;    /* NVIDIA_DRIVER_CAPABILITIES, as set */
	const char *visible_devices; /* NVIDIA_VISIBLE_DEVICES, as set */
};

void image_env_read(const struct dfenv *env, struct image_env *out);
/* Go's strconv.ParseBool true: 1 t T TRUE true True. */
int image_parse_bool(const char *v);

struct cd_finding *image_check_capabilities(const struct image_env *e, struct cd_findings *out);
/* h may be NULL; with it, the detail says what the requirement would have done. */
struct cd_finding *image_check_disable_require(const struct image_env *e,
					       const struct image_host *h, struct cd_findings *out);
struct cd_finding *image_check_require(const struct image_env *e, const struct image_host *h,
				       struct cd_findings *out);

#endif
