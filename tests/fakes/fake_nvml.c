/* fake_nvml: a libnvidia-ml.so.1 for tests (placeholder). */
#include "fake_common.h"
int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
	return 9;
}
