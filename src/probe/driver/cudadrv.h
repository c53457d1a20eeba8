/* cudadrv: the CUDA driver API library (libcuda.so.1), loaded at run time.
 * cudadrv_query runs inside an isolated child (isolate.h) and asks only
 * cuDriverGetVersion, which needs no cuInit and creates no context; it
 * writes kv records. cudadrv_apply turns one record into facts in the
 * parent (strings in f->arena). Record keys are listed in docs/driver.md. */
#ifndef CD_CUDADRV_H
#define CD_CUDADRV_H

#include "probe/isolate.h"
#include "facts/facts.h"

#define CUDA_SONAME "libcuda.so.1"

/* CUresult values the checks need (cuda.h). */
#define CD_CUDA_SUCCESS		   0
#define CD_CUDA_ERROR_STUB_LIBRARY 34

/* Child side; arg is the library name or path (const char *). */
void cudadrv_query(struct iso_out *o, void *arg);
/* Parent side: apply one record to f->driver. */
void cudadrv_apply(struct cd_facts *f, const char *key, const char *val);
/* "CUDA_ERROR_STUB_LIBRARY" for 34; NULL for codes it does not know. */
const char *cudadrv_error_name(int64_t rc);

#endif
