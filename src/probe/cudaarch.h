/* cudaarch: the CUDA device code inside a shared object or executable, read
 * from its .nv_fatbin section (and __nv_relfatbin of relocatable objects)
 * through a read-only mapping: only section headers and fatbin entry headers
 * are touched. Fills a caller-owned summary; allocates nothing. */
#ifndef CD_CUDAARCH_H
#define CD_CUDAARCH_H

#include "core/err.h"
#include "core/file.h"
#include "format/elf.h"
#include "format/fatbin.h"

struct cudaarch {
	int has_fatbin;	     /* a fatbin section exists */
	const char *section; /* its name (static string), NULL if none */
	uint64_t bytes;	     /* its size */
	struct fatbin_summary sum;
	int walk_rc;	      /* 0, or the CD_E* that stopped the walk */
	char walk_error[160]; /* its message; "" when walk_rc is 0 */
};

/* From a parsed ELF image. Only a file whose sections cannot be read fails;
 * a corrupt fatbin is reported in walk_rc / walk_error with what was read. */
int cudaarch_from_elf(const struct elf_file *e, struct cudaarch *out, struct cd_err *err);
/* Map path (in-root), parse it, and call cudaarch_from_elf. */
int cudaarch_read(const struct cd_root *r, const char *path, struct cudaarch *out,
		  struct cd_err *err);

#endif
