/* cudabuild: what compiles CUDA code during a docker build, from
 * data/cuda_builds.tsv (a pip requirement, a source build or a command, the
 * condition under which it compiles, whether torch's TORCH_CUDA_ARCH_LIST
 * picks its archs). Rows are read once into static storage for the process. */
#ifndef CD_KB_CUDABUILD_H
#define CD_KB_CUDABUILD_H

#include <stddef.h>

enum cudabuild_kind { CUDABUILD_PIP, CUDABUILD_SETUP, CUDABUILD_COMMAND };

struct cudabuild_row {
	enum cudabuild_kind kind;
	const char *name;      /* PEP 503 name, command, or "-" */
	const char *condition; /* see the table's header */
	int torch_archs;       /* arch_list = torch */
	const char *what;
	const char *source;
};

const struct cudabuild_row *cudabuild_rows(size_t *n);

#endif
