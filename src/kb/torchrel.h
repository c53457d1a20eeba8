/* torchrel: the torch releases cuda-doctor can install (data/torch_releases.tsv:
 * patches with their torchvision / torchaudio) and their CUDA variants
 * (data/torch_cuda.tsv: CUDA, PyPI's default, arch list). Read on first use
 * into static storage (not thread-safe, like the rest of a run); lookups copy
 * into the caller's. 0, or CD_ENOENT when the data has no answer. */
#ifndef CD_TORCHREL_H
#define CD_TORCHREL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define TORCHREL_VARIANTS_MAX 8
#define TORCHREL_ARCHS_MAX    32
#define TORCHREL_RELEASES_MAX 48

struct torchrel_variant {
	char release[8];  /* "2.14" */
	char variant[12]; /* "cu130" */
	char cuda[16];	  /* "13.0.2", as the table writes it */
	int cuda_int;	  /* 13000 */
	int pypi_default; /* the build `pip install torch` gets from PyPI */
	int arch_known;	  /* the table lists its TORCH_CUDA_ARCH_LIST */
	size_t n_sass, n_ptx;
	uint32_t sass[TORCHREL_ARCHS_MAX], ptx[TORCHREL_ARCHS_MAX]; /* FATBIN_KEYs */
	char archs[96]; /* "7.5;8.0;8.6;9.0;10.0;12.0+PTX", up to the first space */
};

struct torchrel_release {
	char torch[16]; /* "2.14.1" */
	char torchvision[16];
	char torchaudio[16];
};

/* The variants of release X.Y ("2.14", or a version whose X.Y is used), in
 * the table's order. */
CD_WUR int torchrel_variants(const char *release, struct torchrel_variant *out, size_t cap,
			     size_t *n);
/* "2.14.1": that release exactly; "2.14" (or "2.14.1+cu130" when 2.14.1 has
 * no row): the newest patch release of 2.14. */
CD_WUR int torchrel_patch(const char *version, struct torchrel_release *out);
/* The X.Y releases with a patch release and variants, oldest first. */
CD_WUR int torchrel_releases(char (*out)[8], size_t cap, size_t *n);
/* "2.14.1+cu130" -> "2.14" (digits.digits); "" when v does not start so. */
void torchrel_release_of(const char *v, char *out, size_t cap);

#endif
