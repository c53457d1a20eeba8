/* tkscan: inspect one CUDA toolkit directory for the toolkit probe: its
 * layout (system, conda prefix, pip wheels), version, nvcc, and the one
 * inventory of the files a build needs from it (every row of
 * data/cuda_dev_files.tsv: headers and link libraries). The version is read
 * from files only (version.json, version.txt, conda-meta records, wheel
 * metadata names, the CUDA_VERSION macro of cuda.h); nothing is ever run.
 * Results are allocated from f->arena; what cannot be read stays NULL /
 * CD_TRI_UNKNOWN. */
#ifndef CD_TKSCAN_H
#define CD_TKSCAN_H

#include "facts/facts.h"

/* Fill t for the toolkit at root (an in-root path, possibly missing). */
void tkscan_fill(struct cd_facts *f, const char *root, const char *found_via, struct cd_toolkit *t);
/* The nvidia-* wheels of one site directory (SITE/nvidia/<wheel>/include and
 * lib, every wheel, nvidia/cu13 included, in name order) as one inventory,
 * each file where the first wheel has it, scope "wheel". */
void tkscan_wheels(struct cd_facts *f, const char *site, struct cd_toolkit *t);
/* The libraries of t (the selected toolkit) that its -L directory lacks, as
 * the linker finds them: LIBRARY_PATH, the multiarch and default library
 * directories (scope "linker", present then). */
void tkscan_linker(struct cd_facts *f, struct cd_toolkit *t);
/* Fill t->asked with the n headers named (relative paths such as
 * "cuda_bf16.h" or "cub/cub.cuh"; an absolute one or one with a ".."
 * component is recorded as unknown), looked for in t's include directories
 * as the inventory's headers are. */
void tkscan_headers(struct cd_facts *f, struct cd_toolkit *t, const char *const *names, size_t n);

#endif
