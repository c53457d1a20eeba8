/* driver: the live driver probe. NVML and libcuda are loaded and asked in
 * isolated children (probe/isolate.h) under --timeout, never in the tool's
 * own process, and never with cuInit or a context; the kernel module's
 * /proc/driver/nvidia/version is read from files. Fills f->driver and
 * f->gpus; a hung, crashing or missing driver is a fact, not a failure. */
#ifndef CD_PROBE_DRIVER_H
#define CD_PROBE_DRIVER_H

#include "core/err.h"
#include "facts/facts.h"

void driver_probe(struct cd_facts *f); /* driver.c: NVML + CUDA driver, GPUs */
/* The driver probe in two halves: _start forks the isolated queries, which
 * then run while the file probes work; _finish collects them. */
struct driver_pending;
CD_WUR struct driver_pending *driver_probe_start(struct cd_facts *f);
/* The same without the GPUs' health queries (ECC, retired pages, row
 * remapping: their facts stay unknown), for commands that need a GPU's
 * name, capability and memory only (model, jit). */
CD_WUR struct driver_pending *driver_probe_start_basic(struct cd_facts *f);
void driver_probe_finish(struct cd_facts *f, struct driver_pending *p);

#endif
