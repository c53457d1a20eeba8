/* torcharch: what torch.utils.cpp_extension accepts in TORCH_CUDA_ARCH_LIST,
 * per torch release: the named architectures and what each expands to
 * (data/torch_arch_names.tsv) and the supported entries
 * (data/torch_arch_list.tsv), each row with its source, as the rules
 * format/archlist.h parses with. The tables are read from the embedded files on
 * first use into static storage (not thread-safe, like the rest of a run);
 * strings a lookup returns point into it and stay valid for the run. Lookups
 * return 0, or CD_ENOENT when the data has no answer. */
#ifndef CD_TORCHARCH_H
#define CD_TORCHARCH_H

#include <stddef.h>

#include "core/err.h"
#include "format/archlist.h"

#define TORCHARCH_MAX 64 /* names, entries and renames of one release */

struct torcharch_rules {
	struct archlist_rules rules; /* points into the arrays below */
	char release[16];	     /* the torch release judged for: "2.11" */
	int newest;		     /* torch unknown: the newest tables of the data */
	struct archlist_name names[TORCHARCH_MAX];
	const char *arches[TORCHARCH_MAX];
	struct archlist_name renames[TORCHARCH_MAX];
};

/* The rules of the release of torch_version ("2.5.1+cu124", "2.11.0a0+git");
 * NULL or a version that is not one: the newest rules of the tables.
 * CD_ENOENT when that torch predates every row (cpp_extension did not read
 * TORCH_CUDA_ARCH_LIST then). */
CD_WUR int torcharch_rules(const char *torch_version, struct torcharch_rules *out);

/* The releases of torch that accept an entry (without "+PTX"). */
struct torcharch_span {
	const char *first;	/* "2.7" */
	const char *last;	/* "2.8"; "" while it is still accepted */
	const char *renamed_to; /* "11.0", or "" */
	const char *notes;	/* "CUDA 13 renamed sm_101 to sm_110", or "" */
	const char *source;
};

/* The latest span of arch in the tables; CD_ENOENT when no release has it. */
CD_WUR int torcharch_span(const char *arch, struct torcharch_span *out);

#endif
