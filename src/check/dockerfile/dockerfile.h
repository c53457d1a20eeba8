/* dockerfile: the findings of `cuda-doctor dockerfile` for a Dockerfile
 * (format/dfstage's model of it): base image tags, -devel vs -runtime,
 * torch's CUDA build against the image's, extension builds during docker
 * build, the NVIDIA container toolkit's variables, and with a host driver
 * whether the final image would start on it. Findings and the report live in
 * out->arena. Returns 0, or CD_ENOMEM. */
#ifndef CD_CHECK_DOCKERFILE_H
#define CD_CHECK_DOCKERFILE_H

#include "core/err.h"

#include <stdint.h>

#include "facts/finding.h"
#include "format/dfstage.h"
#include "kb/images.h"

/* The driver an image is judged against (--host-driver VER, or this host's). */
struct dfc_host {
	const char *driver;   /* "545.29.06" */
	const char *cuda;     /* the CUDA version it supports, "12.3" */
	const char *brand;    /* NVIDIA_REQUIRE_CUDA's name for the GPU brand; NULL unknown */
	const char *gpu_name; /* "NVIDIA H200"; NULL */
	int64_t n_gpus;	      /* CD_UNK when not queried */
	const char *source;   /* how it was learnt, for the evidence */
	const char *cuda_source;
};

struct dfc_opts {
	const char *path;	     /* the file as named, for locations */
	const struct dfc_host *host; /* NULL: judge against no driver */
	const char *arch;	     /* "amd64" (the build platform's architecture) */
};

/* What the report shows of each stage. */
struct dfc_stage_view {
	size_t index;
	const char *name;
	const char *image;   /* as FROM resolves it; NULL when an ARG has no value */
	int parent;	     /* the stage it builds on, -1 */
	struct img_info img; /* of the image at the bottom of its chain */
	const char *cuda;    /* the CUDA the stage's toolkit has, NULL unknown */
	int has_nvcc;	     /* 1 yes, 0 no, -1 unknown */
	const char *torch;   /* the last torch installed in it or its parents, as written */
	int final;
};

/* What the report shows of each Compose service. */
struct dfc_service_view {
	const char *name;
	unsigned line;
	const char *image; /* as interpolated; NULL none */
	const char *build; /* the build context; NULL none */
	const char *gpus;  /* "deploy: count 1", "gpus: all", "runtime: nvidia", NULL none */
	int gpu_image;	   /* data/base_images.tsv lists its image as a GPU image */
};

struct dfc_report {
	const char *path;
	int compose; /* a Compose file: services, no stages */
	size_t n_stages;
	struct dfc_stage_view *stages;
	size_t n_services;
	struct dfc_service_view *services;
	size_t n_ignored; /* findings dropped by ignore comments */
	const struct dfc_host *host;
};

CD_WUR int check_dockerfile(const struct df_model *m, const struct dfc_opts *o,
			    struct cd_findings *out, struct dfc_report *rep);
/* df_build's base_env callback: the ENV of known base images (kb/images). */
CD_WUR int check_dockerfile_base_env(void *ctx, const char *image, struct dfenv *env,
				     struct cd_arena *a);

#endif
