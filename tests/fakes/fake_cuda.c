/* fake_cuda: a libcuda.so.1 for tests; behaviour chosen by CD_FAKE_MODE
 * (fake_common.h). Signatures are those of cuda.h. cuInit and
 * cuDeviceGetCount exist so a test can prove `check` never calls them
 * (CD_FAKE_TRACE). */
#include "fake_common.h"

typedef int CUresult;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_STUB_LIBRARY = 34,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803
};

static int inited;

FAKE_EXPORT CUresult cuDriverGetVersion(int *v)
{
	fake_trace(__func__);
	if (fake_mode() == FM_HANGALL)
		fake_hang();
	if (fake_mode() == FM_STUB)
		return CUDA_ERROR_STUB_LIBRARY;
	if (!v)
		return CUDA_ERROR_INVALID_VALUE;
	*v = fake_box()->cuda;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuInit(unsigned int flags)
{
	fake_trace(__func__);
	(void)flags;
	switch (fake_mode()) {
	case FM_STUB: return CUDA_ERROR_STUB_LIBRARY;
	case FM_INITFAIL: return CUDA_ERROR_NO_DEVICE;
	case FM_MISMATCH: return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	case FM_NOGPU: return CUDA_ERROR_NO_DEVICE;
	case FM_HANG:
	case FM_HANGALL: fake_hang(); break;
	case FM_CRASH: fake_crash(); break;
	default: break;
	}
	inited = 1;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count)
{
	fake_trace(__func__);
	if (fake_mode() == FM_STUB)
		return CUDA_ERROR_STUB_LIBRARY;
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = (int)fake_box()->n;
	return CUDA_SUCCESS;
}

/* Like the toolkit's stub, a stub cannot even name its errors. */
static CUresult text(CUresult e, const char **s, int name)
{
	fake_trace(name ? "cuGetErrorName" : "cuGetErrorString");
	if (fake_mode() == FM_STUB)
		return CUDA_ERROR_STUB_LIBRARY;
	if (!s)
		return CUDA_ERROR_INVALID_VALUE;
	switch (e) {
	case CUDA_SUCCESS: *s = name ? "CUDA_SUCCESS" : "no error"; break;
	case CUDA_ERROR_NO_DEVICE:
		*s = name ? "CUDA_ERROR_NO_DEVICE" : "no CUDA-capable device is detected";
		break;
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
		*s = name ? "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"
			  : "system has unsupported display driver / cuda driver combination";
		break;
	default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult e, const char **s)
{
	return text(e, s, 1);
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult e, const char **s)
{
	return text(e, s, 0);
}
