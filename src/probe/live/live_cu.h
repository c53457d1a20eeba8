/* live_cu: the CUDA driver API `probe` calls, bound at run time from
 * libcuda.so.1 inside a probe child (never in the tool's own process): one
 * table of symbols with the signatures of cuda.h, a missing optional symbol
 * recorded as a fact. Also the child-side helpers every probe child shares:
 * result records, polling an event (never a blocking synchronise), timing. */
#ifndef CD_LIVE_CU_H
#define CD_LIVE_CU_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "probe/dlib.h"
#include "probe/isolate.h"

typedef int CUresult; /* enums in cuda.h: int-sized */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;

/* cuda.h values the probe needs */
#define LIVE_CU_OK			  0
#define LIVE_CU_ERROR_NOT_READY		  600
#define LIVE_CU_ERROR_NOT_FOUND		  500
#define LIVE_CU_ERROR_NO_DEVICE		  100
#define LIVE_CU_STREAM_NON_BLOCKING	  1
#define LIVE_CU_EVENT_DEFAULT		  0
#define LIVE_CU_ATTR_MAX_THREADS_PER_SM	  39
#define LIVE_CU_P2P_PERFORMANCE_RANK	  1
#define LIVE_CU_P2P_ACCESS_SUPPORTED	  2
#define LIVE_CU_P2P_NATIVE_ATOMIC	  3
#define LIVE_CU_JIT_WALL_TIME		  2
#define LIVE_CU_JIT_INFO_LOG_BUFFER	  3
#define LIVE_CU_JIT_INFO_LOG_BUFFER_BYTES 4
#define LIVE_CU_JIT_ERROR_LOG_BUFFER	  5
#define LIVE_CU_JIT_ERROR_LOG_BYTES	  6
#define LIVE_CU_JIT_LOG_VERBOSE		  12

struct live_cu {
	struct dlib lib;
	CUresult (*init)(unsigned int flags);
	CUresult (*driver_version)(int *v);
	CUresult (*device_count)(int *n);
	CUresult (*device_get)(CUdevice *d, int ordinal);
	CUresult (*device_name)(char *name, int len, CUdevice d);
	CUresult (*device_uuid)(unsigned char uuid[16], CUdevice d);
	CUresult (*device_total_mem)(size_t *bytes, CUdevice d);
	CUresult (*device_attr)(int *v, int attr, CUdevice d);
	CUresult (*device_pci)(char *bus_id, int len, CUdevice d);
	CUresult (*primary_retain)(CUcontext *c, CUdevice d);
	CUresult (*ctx_set)(CUcontext c);
	CUresult (*mem_info)(size_t *free_b, size_t *total_b);
	CUresult (*mem_alloc)(CUdeviceptr *p, size_t bytes);
	CUresult (*mem_alloc_host)(void **p, size_t bytes);
	CUresult (*stream_create)(CUstream *s, unsigned int flags);
	CUresult (*event_create)(CUevent *e, unsigned int flags);
	CUresult (*event_record)(CUevent e, CUstream s);
	CUresult (*event_query)(CUevent e);
	CUresult (*event_elapsed)(float *ms, CUevent start, CUevent end);
	CUresult (*htod_async)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
	CUresult (*dtoh_async)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
	CUresult (*module_load)(CUmodule *m, const void *image, unsigned int n, int *options,
				void **values);
	CUresult (*module_function)(CUfunction *f, CUmodule m, const char *name);
	CUresult (*launch)(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
			   unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
			   CUstream s, void **params, void **extra);
	CUresult (*can_access_peer)(int *can, CUdevice d, CUdevice peer);
	CUresult (*p2p_attr)(int *v, int attr, CUdevice src, CUdevice dst);
	CUresult (*peer_enable)(CUcontext peer, unsigned int flags);
	CUresult (*peer_copy_async)(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
				    CUcontext sctx, size_t bytes, CUstream s);
	CUresult (*error_name)(CUresult rc, const char **s);
	CUresult (*error_string)(CUresult rc, const char **s);
};

/* Load and bind libcuda in a child (stage "dlopen", the dlib records, then
 * "load.rc" / "load.us"): 0, or -1 after "load.fail" when it cannot be used. */
CD_WUR int live_cu_load(struct iso_out *o, struct live_cu *cu, const char *lib);

/* Records of a failed driver call: "<step>.rc", ".name", ".error", ".call". */
void live_cu_fail(struct iso_out *o, const struct live_cu *cu, const char *step, CUresult rc,
		  const char *call);
/* "<step>.rc=0" and "<step>.us" for a step that passed. */
void live_cu_pass(struct iso_out *o, const char *step, int64_t t0_us);
/* Record the call about to be made ("call=NAME", flushed), so a parent that
 * kills a hung child knows which call it hung in. */
void live_cu_call(struct iso_out *o, const char *name);
/* Poll cuEventQuery until the event completes (spinning first, then short
 * sleeps); the parent's deadline bounds it. The event's final result. */
CUresult live_cu_wait(const struct live_cu *cu, CUevent e);
/* Milliseconds between two completed events, or -1 when not measurable. */
double live_cu_elapsed_ms(const struct live_cu *cu, CUevent a, CUevent b);
/* "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6" from cuDeviceGetUuid's bytes. */
void live_cu_uuid_str(const unsigned char u[16], const char *prefix, char *out, size_t cap);

#endif
