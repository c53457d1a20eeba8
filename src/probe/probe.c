/* probe: runs the probes in dependency order (see probe.h). The isolated
 * driver queries are started first and collected last: NVML's initialisation
 * (about 10 to 30 ms on a real GPU) then overlaps the file probes instead of
 * adding to them; `check` also runs the checks that need no driver fact
 * before collecting them (probe_files, probe_driver_wait). */
#include "probe/probe.h"

struct driver_pending *probe_files(struct cd_facts *f)
{
	int64_t t = facts_clock_us();
	struct driver_pending *drv = driver_probe_start(f);

	t = facts_stage(f, "driver-start", t);
	host_probe(f);
	t = facts_stage(f, "host", t);
	container_probe(f);
	t = facts_stage(f, "container", t);
	env_probe(f);
	t = facts_stage(f, "env", t);
	image_probe(f);
	t = facts_stage(f, "image", t);
	toolkit_probe(f);
	t = facts_stage(f, "toolkit", t);
	stack_probe(f);
	(void)facts_stage(f, "stack", t);
	return drv;
}

void probe_driver_wait(struct cd_facts *f, struct driver_pending *p, int64_t since_us)
{
	driver_probe_finish(f, p);
	(void)facts_stage(f, "driver-wait", since_us);
}

void probe_all(struct cd_facts *f)
{
	struct driver_pending *p = probe_files(f);

	probe_driver_wait(f, p, facts_clock_us());
}
