/* live_nccl: the NCCL child of `probe` (live_int.h). */
#include "probe/live/live.h"
#include "probe/live/live_int.h"

void live_nccl(struct cd_facts *f, struct cd_live_facts *lf, const struct live_opts *o,
	       int64_t end_us)
{
	(void)f;
	(void)o;
	(void)end_us;
	lf->nccl.load.result = CD_LIVE_SKIPPED;
	lf->nccl.load.error = "not asked for (--nccl)";
}
