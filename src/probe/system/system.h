/* system: the probes of the machine around the GPU stack, read from files
 * under the facts' root: the host (OS, kernel, glibc, /dev nodes, /dev/shm),
 * the container it runs in, and the environment variables that change what
 * loads (LD_LIBRARY_PATH entry by entry). Each fills its part of struct
 * cd_facts, never prints and never fails as a whole: what it cannot read
 * stays unknown. */
#ifndef CD_PROBE_SYSTEM_H
#define CD_PROBE_SYSTEM_H

#include "facts/facts.h"

void host_probe(struct cd_facts *f);	  /* host.c: OS, kernel, glibc, /dev, /dev/shm */
void container_probe(struct cd_facts *f); /* container.c */
void env_probe(struct cd_facts *f);	  /* env.c: variables, LD_LIBRARY_PATH */
/* image.c: under --root with check --host-driver or --image-config, the image's
 * driver libraries, cuda-compat libraries and the toolkit's variables. */
void image_probe(struct cd_facts *f);

#endif
