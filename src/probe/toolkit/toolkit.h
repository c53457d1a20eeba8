/* toolkit: every CUDA toolkit on disk (runfile, distribution packages, conda
 * prefix, pip nvidia-* wheels), read from files only, and the one
 * torch.utils.cpp_extension would use as CUDA_HOME, with the reason. Fills
 * f->toolkit; nothing found is executed. */
#ifndef CD_PROBE_TOOLKIT_H
#define CD_PROBE_TOOLKIT_H

#include "facts/facts.h"

void toolkit_probe(struct cd_facts *f); /* toolkit.c: CUDA toolkits on disk */
/* After toolkit_probe: look for n more headers in every toolkit found (each
 * toolkit's `asked`), as its inventory's headers are looked for. */
void toolkit_probe_headers(struct cd_facts *f, const char *const *names, size_t n);

#endif
