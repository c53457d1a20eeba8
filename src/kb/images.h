/* images: what cuda-doctor knows of container base images, from
 * data/base_images.tsv (which tags pin a release, the CUDA, flavor and torch a
 * tag names), data/cuda_images.tsv (the NVIDIA_REQUIRE_CUDA of each nvidia/cuda
 * release), data/base_image_env.tsv (the ENV a family brings) and
 * data/nvml_brands.tsv (NVML brands and their forward-compatibility class).
 * Results are copied into caller storage or point into static tables that
 * live for the process; lookups return 0, or CD_ENOENT when nothing is known. */
#ifndef CD_KB_IMAGES_H
#define CD_KB_IMAGES_H

#include "core/err.h"

#include <stddef.h>

#include "core/arena.h"
#include "format/dfword.h"

struct img_ref {
	char registry[64]; /* "" for Docker Hub */
	char repo[192];	   /* "nvidia/cuda", "library/ubuntu" shortened to "ubuntu" */
	char tag[128];	   /* "" when none */
	char digest[96];   /* "sha256:..." or "" */
};

struct img_info {
	int known;	    /* the repo is listed */
	int matched;	    /* one of its tag rows matched */
	int pinned;	    /* a digest, or a tag row that pins a release */
	int latest;	    /* no tag, or "latest" */
	int gpu;	    /* a CUDA / PyTorch / GPU serving image */
	char repo[192];	    /* the listed spelling ("nvidia/cuda") */
	char cuda[16];	    /* "12.4.1" or "12.1"; "" unknown */
	char flavor[16];    /* "devel", "runtime", "base"; "" unknown */
	char torch[32];	    /* torch in the image ("2.3.1"); "" none known */
	int has_torch;	    /* the image comes with torch (its version may be unknown) */
	char env_set[32];   /* the base_image_env.tsv set; "" none */
	const char *source; /* the row's source */
};

/* "registry/repo:tag@digest" into its parts; Docker Hub names normalised
 * ("docker.io/library/ubuntu" -> "ubuntu"). CD_EFORMAT on an empty name. */
CD_WUR int images_parse_ref(const char *ref, struct img_ref *out);
/* What the table says of an image reference (info->known 0: nothing). */
CD_WUR int images_lookup(const char *ref, struct img_info *out);
/* NVIDIA_REQUIRE_CUDA of nvidia/cuda release `cuda` (X.Y.Z, or X.Y) for arch
 * ("amd64", "arm64"). *row gets the release of the row used: an exact one,
 * else the newest row of the same X.Y (the brand clauses are per release, so
 * the caller says so). The string is static. */
CD_WUR int images_require_cuda(const char *cuda, const char *arch, const char **req,
			       const char **row, const char **source);
/* Fill env with the ENV of the image's family (info from images_lookup). */
CD_WUR int images_env(const struct img_info *info, const char *arch, struct dfenv *env,
		      struct cd_arena *a);
/* The NVIDIA_REQUIRE_CUDA token of an NVML brand value (14 -> "nvidia"), and
 * a token's class ("datacenter", "workstation", "geforce", "virtual",
 * "unknown"); NULL when not listed. */
const char *images_brand_token(int nvml_brand);
const char *images_brand_class(const char *token);

#endif
