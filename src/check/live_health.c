/* live_health: the findings of `probe` beyond each device's own steps
 * (check/live.h): the peer matrix and copies, NCCL, the Xid events of the
 * kernel log explained from data/xid.tsv, NVML's recovery actions from
 * data/gpu_recovery.tsv, MIG-enabled GPUs without an instance. */
#include <stdio.h>
#include <string.h>

#include "check/live.h"
#include "facts/live.h"
#include "kb/errcodes.h"
#include "kb/xid.h"

#define SEC "probe"

void check_live_health(const struct cd_facts *f, struct cd_findings *out)
{
	(void)f;
	(void)out;
}
