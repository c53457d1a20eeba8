/* live_cu: see live_cu.h. Only the driver API functions the probe calls are
 * declared, with the signatures of cuda.h; where CUDA renamed an entry point
 * with the same signature (cuDeviceGetUuid_v2, cuEventElapsedTime_v2) the
 * older name is the fallback, so drivers from before the rename still load. */
#include "probe/live/live_cu.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/str.h"

enum {
	F_INIT,
	F_VERSION,
	F_COUNT,
	F_GET,
	F_NAME,
	F_UUID,
	F_TOTAL,
	F_ATTR,
	F_PCI,
	F_RETAIN,
	F_CTX_SET,
	F_MEMINFO,
	F_ALLOC,
	F_ALLOC_HOST,
	F_STREAM,
	F_EVENT,
	F_RECORD,
	F_QUERY,
	F_ELAPSED,
	F_HTOD,
	F_DTOH,
	F_MODULE,
	F_FUNCTION,
	F_LAUNCH,
	F_CAN_PEER,
	F_P2P_ATTR,
	F_PEER_ENABLE,
	F_PEER_COPY,
	F_ERRNAME,
	F_ERRSTR,
	F_N
};

static const struct dlib_sym syms[F_N] = {
	[F_INIT] = {"cuInit", NULL, 1},
	[F_VERSION] = {"cuDriverGetVersion", NULL, 0},
	[F_COUNT] = {"cuDeviceGetCount", NULL, 1},
	[F_GET] = {"cuDeviceGet", NULL, 1},
	[F_NAME] = {"cuDeviceGetName", NULL, 0},
	/* (CUuuid *, CUdevice); _v2 (CUDA 11.4) also names MIG instances right */
	[F_UUID] = {"cuDeviceGetUuid_v2", "cuDeviceGetUuid", 0},
	[F_TOTAL] = {"cuDeviceTotalMem_v2", NULL, 0},
	[F_ATTR] = {"cuDeviceGetAttribute", NULL, 0},
	[F_PCI] = {"cuDeviceGetPCIBusId", NULL, 0},
	[F_RETAIN] = {"cuDevicePrimaryCtxRetain", NULL, 1},
	[F_CTX_SET] = {"cuCtxSetCurrent", NULL, 1},
	[F_MEMINFO] = {"cuMemGetInfo_v2", NULL, 1},
	[F_ALLOC] = {"cuMemAlloc_v2", NULL, 1},
	[F_ALLOC_HOST] = {"cuMemAllocHost_v2", NULL, 1},
	[F_STREAM] = {"cuStreamCreate", NULL, 1},
	[F_EVENT] = {"cuEventCreate", NULL, 1},
	[F_RECORD] = {"cuEventRecord", NULL, 1},
	[F_QUERY] = {"cuEventQuery", NULL, 1},
	/* (float *ms, CUevent, CUevent); _v2 from CUDA 12.8 */
	[F_ELAPSED] = {"cuEventElapsedTime_v2", "cuEventElapsedTime", 0},
	[F_HTOD] = {"cuMemcpyHtoDAsync_v2", NULL, 1},
	[F_DTOH] = {"cuMemcpyDtoHAsync_v2", NULL, 1},
	[F_MODULE] = {"cuModuleLoadDataEx", NULL, 1},
	[F_FUNCTION] = {"cuModuleGetFunction", NULL, 1},
	[F_LAUNCH] = {"cuLaunchKernel", NULL, 1},
	[F_CAN_PEER] = {"cuDeviceCanAccessPeer", NULL, 0},
	[F_P2P_ATTR] = {"cuDeviceGetP2PAttribute", NULL, 0},
	[F_PEER_ENABLE] = {"cuCtxEnablePeerAccess", NULL, 0},
	[F_PEER_COPY] = {"cuMemcpyPeerAsync", NULL, 0},
	[F_ERRNAME] = {"cuGetErrorName", NULL, 0},
	[F_ERRSTR] = {"cuGetErrorString", NULL, 0},
};

/* The typed pointers from the bound table (each the signature in live_cu.h). */
static void bind(struct live_cu *cu, void **fn)
{
	cu->init = (CUresult(*)(unsigned int))fn[F_INIT];
	cu->driver_version = (CUresult(*)(int *))fn[F_VERSION];
	cu->device_count = (CUresult(*)(int *))fn[F_COUNT];
	cu->device_get = (CUresult(*)(CUdevice *, int))fn[F_GET];
	cu->device_name = (CUresult(*)(char *, int, CUdevice))fn[F_NAME];
	cu->device_uuid = (CUresult(*)(unsigned char *, CUdevice))fn[F_UUID];
	cu->device_total_mem = (CUresult(*)(size_t *, CUdevice))fn[F_TOTAL];
	cu->device_attr = (CUresult(*)(int *, int, CUdevice))fn[F_ATTR];
	cu->device_pci = (CUresult(*)(char *, int, CUdevice))fn[F_PCI];
	cu->primary_retain = (CUresult(*)(CUcontext *, CUdevice))fn[F_RETAIN];
	cu->ctx_set = (CUresult(*)(CUcontext))fn[F_CTX_SET];
	cu->mem_info = (CUresult(*)(size_t *, size_t *))fn[F_MEMINFO];
	cu->mem_alloc = (CUresult(*)(CUdeviceptr *, size_t))fn[F_ALLOC];
	cu->mem_alloc_host = (CUresult(*)(void **, size_t))fn[F_ALLOC_HOST];
	cu->stream_create = (CUresult(*)(CUstream *, unsigned int))fn[F_STREAM];
	cu->event_create = (CUresult(*)(CUevent *, unsigned int))fn[F_EVENT];
	cu->event_record = (CUresult(*)(CUevent, CUstream))fn[F_RECORD];
	cu->event_query = (CUresult(*)(CUevent))fn[F_QUERY];
	cu->event_elapsed = (CUresult(*)(float *, CUevent, CUevent))fn[F_ELAPSED];
	cu->htod_async = (CUresult(*)(CUdeviceptr, const void *, size_t, CUstream))fn[F_HTOD];
	cu->dtoh_async = (CUresult(*)(void *, CUdeviceptr, size_t, CUstream))fn[F_DTOH];
	cu->module_load =
		(CUresult(*)(CUmodule *, const void *, unsigned int, int *, void **))fn[F_MODULE];
	cu->module_function = (CUresult(*)(CUfunction *, CUmodule, const char *))fn[F_FUNCTION];
	cu->launch = (CUresult(*)(CUfunction, unsigned int, unsigned int, unsigned int,
				  unsigned int, unsigned int, unsigned int, unsigned int, CUstream,
				  void **, void **))fn[F_LAUNCH];
	cu->can_access_peer = (CUresult(*)(int *, CUdevice, CUdevice))fn[F_CAN_PEER];
	cu->p2p_attr = (CUresult(*)(int *, int, CUdevice, CUdevice))fn[F_P2P_ATTR];
	cu->peer_enable = (CUresult(*)(CUcontext, unsigned int))fn[F_PEER_ENABLE];
	cu->peer_copy_async = (CUresult(*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t,
					   CUstream))fn[F_PEER_COPY];
	cu->error_name = (CUresult(*)(CUresult, const char **))fn[F_ERRNAME];
	cu->error_string = (CUresult(*)(CUresult, const char **))fn[F_ERRSTR];
}

int live_cu_load(struct iso_out *o, struct live_cu *cu, const char *lib)
{
	void *fn[F_N];
	int64_t t0 = iso_now_us();

	memset(cu, 0, sizeof(*cu));
	if (dlib_load_emit(o, &cu->lib, lib, syms, F_N, fn)) {
		iso_emit(o, "load.fail",
			 cu->lib.error[0] ? cu->lib.error : "a required function is missing");
		return -1;
	}
	bind(cu, fn);
	live_cu_pass(o, "load", t0);
	return 0;
}

static void emit_step(struct iso_out *o, const char *step, const char *field, const char *val)
{
	char key[64];

	snprintf(key, sizeof(key), "%s.%s", step, field);
	iso_emit(o, key, val);
}

void live_cu_fail(struct iso_out *o, const struct live_cu *cu, const char *step, CUresult rc,
		  const char *call)
{
	const char *s = NULL;
	char v[32];

	snprintf(v, sizeof(v), "%d", rc);
	emit_step(o, step, "rc", v);
	if (cu->error_name && cu->error_name(rc, &s) == LIVE_CU_OK && s)
		emit_step(o, step, "name", s);
	s = NULL;
	if (cu->error_string && cu->error_string(rc, &s) == LIVE_CU_OK && s)
		emit_step(o, step, "error", s);
	if (call)
		emit_step(o, step, "call", call);
	iso_flush(o);
}

void live_cu_pass(struct iso_out *o, const char *step, int64_t t0_us)
{
	char v[32];

	emit_step(o, step, "rc", "0");
	snprintf(v, sizeof(v), "%lld", (long long)(iso_now_us() - t0_us));
	emit_step(o, step, "us", v);
}

void live_cu_call(struct iso_out *o, const char *name)
{
	iso_emit(o, "call", name);
	iso_flush(o);
}

CUresult live_cu_wait(const struct live_cu *cu, CUevent e)
{
	struct timespec pause_ts = {0, 20000};
	unsigned long spins = 0;
	CUresult rc;

	/* Spin for the first tens of microseconds, where a small kernel ends,
	 * then sleep 20 us between queries; the parent kills a child that
	 * never sees the event complete. */
	while ((rc = cu->event_query(e)) == LIVE_CU_ERROR_NOT_READY)
		if (++spins > 20000)
			nanosleep(&pause_ts, NULL);
	return rc;
}

double live_cu_elapsed_ms(const struct live_cu *cu, CUevent a, CUevent b)
{
	float ms = -1.0f;

	if (!cu->event_elapsed || cu->event_elapsed(&ms, a, b) != LIVE_CU_OK)
		return -1.0;
	return ms >= 0.0f ? (double)ms : -1.0;
}

void live_cu_uuid_str(const unsigned char u[16], const char *prefix, char *out, size_t cap)
{
	snprintf(out, cap, "%s%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 prefix, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
}
