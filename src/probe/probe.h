/* probe: the fact gatherers, one sub-folder per domain (driver/, system/,
 * toolkit/, loader/, stack/, jit/, model/). Each fills its part of struct
 * cd_facts, never prints and never exits; what it cannot learn stays
 * unknown. Live driver queries run in an isolated child (isolate.h) bounded
 * by --timeout. probe_all runs what `check` needs. */
#ifndef CD_PROBE_H
#define CD_PROBE_H

#include "facts/facts.h"
#include "probe/driver/driver.h"
#include "probe/stack/stack.h"
#include "probe/system/system.h"
#include "probe/toolkit/toolkit.h"

/* Everything `check` needs, in dependency order. */
void probe_all(struct cd_facts *f);
/* probe_all in two halves: probe_files starts the driver queries and runs
 * every file probe; probe_driver_wait collects the queries. Between them the
 * caller may run what reads no driver or GPU fact (check_early). */
struct driver_pending *probe_files(struct cd_facts *f);
void probe_driver_wait(struct cd_facts *f, struct driver_pending *p, int64_t since_us);

#endif
