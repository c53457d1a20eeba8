/* check/live: findings of `cuda-doctor probe` from f->live (facts/live.h):
 * failed, hung and crashed steps (grouped when several devices end the same
 * way), wrong data, the PTX JIT, peers, NCCL, Xid events and recovery
 * actions, each explained from the data/ tables through kb/. Pure: reads
 * facts, appends findings allocated in out->arena; nothing when f->live is
 * NULL. */
#ifndef CD_CHECK_LIVE_H
#define CD_CHECK_LIVE_H

#include "facts/facts.h"
#include "facts/finding.h"

void check_live(const struct cd_facts *f, struct cd_findings *out);
/* live_health.c: peers, NCCL, Xid events, recovery actions, MIG (check_live
 * calls it). */
void check_live_health(const struct cd_facts *f, struct cd_findings *out);

#endif
