/* archcov: will a binary's device code run on a GPU of compute capability
 * X.Y, by NVIDIA's rules (shared/data/rules_arch_compat.md, from the CUDA
 * Programming Guide §6.1 and the PTX ISA's .target section): a plain cubin
 * sm_AB runs on the same major with a minor >= B (Tegra parts need the exact
 * one); an `a` cubin only on exactly A.B; an `f` cubin within its family at
 * >= A.B; PTX compute_AB is JIT-compiled for any CC >= A.B (`a` PTX exactly,
 * `f` PTX within the family). And which official torch wheel covers a CC,
 * from data/torch_cuda.tsv's arch lists (read through kb/torchrel.h; the
 * install line of `fix` is check/install.h's), and which compute capabilities an
 * nvcc can build for (data/gpu_arch.tsv). Pure functions; nothing allocates;
 * the table is read on each call into caller storage. */
#ifndef CD_ARCHCOV_H
#define CD_ARCHCOV_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

enum archcov { ARCHCOV_NONE = 0, ARCHCOV_PTX, ARCHCOV_SASS };

/* Keys are FATBIN_KEY(arch, variant) (arch 90 = 9.0, 100 = 10.0). *via
 * (optional) gets the key that covers: the SASS one when both could. */
enum archcov archcov_covers(const uint32_t *sass, size_t n_sass, const uint32_t *ptx, size_t n_ptx,
			    int cc_major, int cc_minor, uint32_t *via);

/* A torch arch list as data/torch_cuda.tsv writes it ("7.5;8.0;12.0+PTX
 * (notes)"): SASS keys for every X.Y, PTX keys for X.Y+PTX. Parsing stops at
 * the first character that is not part of the list. Returns the count of
 * X.Y entries read. */
size_t archcov_parse_list(const char *s, uint32_t *sass, size_t *n_sass, uint32_t *ptx,
			  size_t *n_ptx, size_t cap);

/* Can nvcc X.Y build device code for compute capability cc10 (major * 10 +
 * minor), by data/gpu_arch.tsv's first and last toolkit of each architecture?
 * 1 yes, 0 no, -1 unknown; why gets "sm_70 was last supported by CUDA 12.9" /
 * "sm_120 needs CUDA 12.8 or newer". */
int archcov_nvcc_builds(int nvcc_major, int nvcc_minor, int cc10, char *why, size_t cap);

/* The torch wheel to install for a GPU of CC X.Y. */
struct archcov_pick {
	char torch[16];	  /* "2.11" (a torch_version of the table) */
	char variant[16]; /* "cu126" */
	char cuda[16];	  /* "12.6.3" */
	int same_release; /* torch's installed minor release */
	int driver_ok;	  /* 2 the driver supports its CUDA (or unknown), 1 through
			   * minor-version compatibility, 0 not */
	char archs[128];  /* the row's arch list as written, up to the first space */
};

/* torch_version: installed torch ("2.11.0+cu130"), or NULL; driver_cuda:
 * cudaDriverGetVersion-style (13000), <= 0 unknown. Prefers the installed
 * release, then variants the driver supports, then the newest CUDA; else the
 * newest release that covers the CC. CD_ENOENT when no row covers it. */
CD_WUR int archcov_pick_torch(const char *torch_version, int cc_major, int cc_minor,
			      int driver_cuda, struct archcov_pick *out);
/* The newest variant of torch_version's release whose CUDA the driver
 * supports (for driver-too-old); CD_ENOENT when none. */
CD_WUR int archcov_pick_for_driver(const char *torch_version, int driver_cuda,
				   struct archcov_pick *out);

#endif
