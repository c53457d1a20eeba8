/* probe: runs the probes in dependency order (see probe.h). */
#include "probe/probe.h"

void probe_all(struct cd_facts *f)
{
	host_probe(f);
	container_probe(f);
	env_probe(f);
	toolkit_probe(f);
	driver_probe(f);
	stack_probe(f);
}
