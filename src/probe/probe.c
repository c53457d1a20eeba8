/* probe: runs the probes in dependency order (see probe.h). The isolated
 * driver queries are started first and collected last: NVML's initialisation
 * (about 10 to 30 ms on a real GPU) then overlaps the file probes instead of
 * adding to them. */
#include "probe/probe.h"

void probe_all(struct cd_facts *f)
{
	struct driver_pending *drv = driver_probe_start(f);

	host_probe(f);
	container_probe(f);
	env_probe(f);
	image_probe(f);
	toolkit_probe(f);
	stack_probe(f);
	driver_probe_finish(f, drv);
}
