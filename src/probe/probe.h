/* probe: the fact gatherers. Each fills its part of struct cd_facts, never
 * prints and never exits; what it cannot learn stays unknown. Live driver
 * queries run in an isolated child (isolate.h) bounded by --timeout. */
#ifndef CD_PROBE_H
#define CD_PROBE_H

#include "report/facts.h"

void host_probe(struct cd_facts *f);	  /* host.c: OS, kernel, glibc, /dev, /dev/shm */
void container_probe(struct cd_facts *f); /* container.c */
void env_probe(struct cd_facts *f);	  /* env.c: variables, LD_LIBRARY_PATH */
void driver_probe(struct cd_facts *f);	  /* driver.c: NVML + CUDA driver, GPUs */
/* The driver probe in two halves: _start forks the isolated queries, which
 * then run while the file probes work; _finish collects them. */
struct driver_pending;
struct driver_pending *driver_probe_start(struct cd_facts *f);
void driver_probe_finish(struct cd_facts *f, struct driver_pending *p);
void toolkit_probe(struct cd_facts *f); /* toolkit.c: CUDA toolkits on disk */
void stack_probe(struct cd_facts *f);	/* stack.c: Python env, packages, torch */

/* Everything `check` needs, in dependency order. */
void probe_all(struct cd_facts *f);

#endif
