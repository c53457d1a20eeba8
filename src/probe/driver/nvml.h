/* nvml: the NVIDIA Management Library, loaded at run time.
 * nvml_query runs inside an isolated child (isolate.h): it loads the library,
 * initialises it, and writes what it learns as kv records; it never creates a
 * CUDA context. nvml_apply turns one record into facts in the parent (strings
 * in f->arena); unknown record keys are ignored, bad values leave facts unknown.
 * Record keys are listed in docs/driver.md. */
#ifndef CD_NVML_H
#define CD_NVML_H

#include "probe/isolate.h"
#include "facts/facts.h"

#define NVML_SONAME   "libnvidia-ml.so.1"
#define NVML_GPUS_MAX 64 /* devices queried; a larger count is recorded, not walked */

/* nvmlReturn_t values the checks need (nvml.h). */
#define CD_NVML_SUCCESS			      0
#define CD_NVML_ERROR_NOT_SUPPORTED	      3
#define CD_NVML_ERROR_DRIVER_NOT_LOADED	      9
#define CD_NVML_ERROR_LIB_RM_VERSION_MISMATCH 18

/* What the child is asked: the library name or path, and whether to ask the
 * health queries (ECC mode and counts, retired pages, row remapping: about
 * 5 ms on an H200, paid once per device before anything else answers). */
struct nvml_arg {
	const char *lib;
	int health;
};

/* Child side; arg is a const struct nvml_arg *. */
void nvml_query(struct iso_out *o, void *arg);
/* Parent side: apply one record to f (f->driver, f->gpus). */
void nvml_apply(struct cd_facts *f, const char *key, const char *val);
/* Derive what needs several records (compute capability strings). */
void nvml_finish(struct cd_facts *f);
/* "NVML_ERROR_DRIVER_NOT_LOADED" for 9; NULL for codes it does not know. */
const char *nvml_error_name(int64_t rc);

#endif
