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

#endif
