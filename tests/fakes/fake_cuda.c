/* fake_cuda: a libcuda.so.1 for tests (placeholder). */
#include "fake_common.h"
int cuDriverGetVersion(int *v);
int cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}
