/* live_peer: the peer child of `probe` (live_int.h). */
#include "probe/live/live_int.h"

void live_peers(struct cd_facts *f, struct cd_live_facts *lf, int64_t end_us)
{
	(void)f;
	(void)end_us;
	lf->peers.step.result = CD_LIVE_SKIPPED;
	lf->peers.step.error = "not asked for (--full)";
}
