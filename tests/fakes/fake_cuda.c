/* fake_cuda: a libcuda.so.1 for tests; behaviour chosen by CD_FAKE_MODE
 * (fake_common.h). Signatures are those of cuda.h. The driver API `probe`
 * uses is emulated on the host: device memory is host memory, work runs at
 * the call (so an event is complete once recorded, unless the mode says the
 * GPU hangs), and the three kernels of the probe's PTX are computed in C.
 * CUDA_VISIBLE_DEVICES is honoured (indices, GPU- and MIG- UUID prefixes).
 * cuInit and cuDeviceGetCount also let a test prove `check` never calls them
 * (CD_FAKE_TRACE). */
#include "fake_common.h"

#include <signal.h>
#include <stdio.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_STUB_LIBRARY = 34,
	CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
	CUDA_ERROR_UNKNOWN = 999
};

#define DEVS_MAX 8

/* A device as CUDA shows it after CUDA_VISIBLE_DEVICES. */
struct fdev {
	const char *name, *uuid;
	int cc_major, cc_minor, sm_count, mig;
	unsigned bus;
	unsigned long long total_mib;
	int hangs; /* onebad: this one's kernels never finish */
};

static int inited;
static struct fdev devs[DEVS_MAX];
static int n_devs;
static int stuck, failed; /* the stream's state after a bad launch */
static double clock_ms;	  /* simulated GPU time, for cuEventElapsedTime */

struct fevent {
	double at;
	int recorded;
	int stuck, failed;
};

/* ---- devices ------------------------------------------------------------- */

static void add(const char *name, const char *uuid, int maj, int min, int sm, unsigned bus,
		unsigned long long mib, int mig, int hangs)
{
	if (n_devs < DEVS_MAX)
		devs[n_devs++] = (struct fdev){name, uuid, maj, min, sm, mig, bus, mib, hangs};
}

static int sms(const struct fake_gpu *g)
{
	return g->cc_major >= 9 ? 132 : g->cc_major == 8 ? 108 : g->cc_major == 7 ? 80 : 20;
}

static void add_gpu(unsigned i)
{
	const struct fake_box *b = fake_box();
	const struct fake_gpu *g = &b->gpu[i];
	unsigned k;

	if (g->mig == 1) {
		for (k = 0; fake_mode() == FM_MIG && k < sizeof(fake_migs) / sizeof(fake_migs[0]);
		     k++)
			add(fake_migs[k].name, fake_migs[k].uuid, g->cc_major, g->cc_minor,
			    fake_migs[k].sm_count, g->bus, fake_migs[k].total_mib, 1, 0);
		return;
	}
	add(g->name, g->uuid, g->cc_major, g->cc_minor, sms(g), g->bus, g->total_mib, 0,
	    fake_mode() == FM_ONEBAD && i == 2);
}

/* One CUDA_VISIBLE_DEVICES entry; 0 when it named a device. */
static int add_entry(const char *e, size_t len)
{
	const struct fake_box *b = fake_box();
	unsigned i, k;

	if (len && e[0] >= '0' && e[0] <= '9') {
		unsigned v = (unsigned)strtoul(e, NULL, 10);
		if (v >= b->n)
			return -1;
		add_gpu(v);
		return 0;
	}
	for (i = 0; i < b->n && len > 4; i++)
		if (!strncmp(e, b->gpu[i].uuid, len)) {
			add_gpu(i);
			return 0;
		}
	for (k = 0; k < sizeof(fake_migs) / sizeof(fake_migs[0]) && len > 4; k++)
		if (fake_mode() == FM_MIG && !strncmp(e, fake_migs[k].uuid, len)) {
			add(fake_migs[k].name, fake_migs[k].uuid, 8, 0, fake_migs[k].sm_count, 0x07,
			    fake_migs[k].total_mib, 1, 0);
			return 0;
		}
	return -1;
}

static void enumerate(void)
{
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	unsigned i;

	n_devs = 0;
	if (!cvd) {
		for (i = 0; i < fake_box()->n; i++)
			add_gpu(i);
		return;
	}
	while (*cvd) {
		size_t len = strcspn(cvd, ",");
		if (add_entry(cvd, len))
			return; /* the runtime stops at the first entry that names nothing */
		cvd += len + (cvd[len] == ',');
	}
}

static const struct fdev *dev(int d)
{
	return d >= 0 && d < n_devs ? &devs[d] : NULL;
}

/* ---- what check uses ------------------------------------------------------- */

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
	case FM_CUINIT999: return CUDA_ERROR_UNKNOWN;
	case FM_HANG:
	case FM_HANGALL:
	case FM_HANGINIT: fake_hang(); break;
	case FM_CRASH: fake_crash(); break;
	default: break;
	}
	enumerate();
	if (!n_devs)
		return CUDA_ERROR_NO_DEVICE;
	inited = 1;
	return CUDA_SUCCESS;
}

#define ENTER()                                                                                    \
	do {                                                                                       \
		fake_trace(__func__);                                                              \
		if (fake_mode() == FM_STUB)                                                        \
			return CUDA_ERROR_STUB_LIBRARY;                                            \
		if (!inited)                                                                       \
			return CUDA_ERROR_NOT_INITIALIZED;                                         \
	} while (0)

FAKE_EXPORT CUresult cuDeviceGetCount(int *count)
{
	ENTER();
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = n_devs;
	return CUDA_SUCCESS;
}

/* Like the toolkit's stub, a stub cannot even name its errors. */
static CUresult text(CUresult e, const char **s, int name)
{
	static const struct {
		int rc;
		const char *name, *text;
	} t[] = {
		{CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
		{CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
		{CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
		 "CUDA-capable device(s) is/are busy or unavailable"},
		{CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
		 "no CUDA-capable device is detected"},
		{CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
		{CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
		 "PTX JIT compiler library not found"},
		{CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED",
		 "unspecified launch failure"},
		{CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
		 "system has unsupported display driver / cuda driver combination"},
		{CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
	};
	size_t i;

	fake_trace(name ? "cuGetErrorName" : "cuGetErrorString");
	if (fake_mode() == FM_STUB)
		return CUDA_ERROR_STUB_LIBRARY;
	if (!s)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].rc == e) {
			*s = name ? t[i].name : t[i].text;
			return CUDA_SUCCESS;
		}
	*s = NULL;
	return CUDA_ERROR_INVALID_VALUE;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult e, const char **s)
{
	return text(e, s, 1);
}

FAKE_EXPORT CUresult cuGetErrorString(CUresult e, const char **s)
{
	return text(e, s, 0);
}

/* ---- the device ------------------------------------------------------------ */

FAKE_EXPORT CUresult cuDeviceGet(int *d, int ordinal)
{
	ENTER();
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	if (!dev(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*d = ordinal;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int len, int d)
{
	ENTER();
	if (!dev(d) || !name || len < 1)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "%s", dev(d)->name);
	return CUDA_SUCCESS;
}

/* "GPU-xxxxxxxx-xxxx-..." to its 16 bytes */
static void uuid_bytes(const char *s, unsigned char *u)
{
	int n = 0;

	s = strchr(s, '-') ? strchr(s, '-') + 1 : s;
	for (; *s && n < 32; s++) {
		int v = *s >= '0' && *s <= '9'	 ? *s - '0'
			: *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
						 : -1;
		if (v < 0)
			continue;
		if (n % 2 == 0)
			u[n / 2] = (unsigned char)(v << 4);
		else
			u[n / 2] |= (unsigned char)v;
		n++;
	}
}

FAKE_EXPORT CUresult cuDeviceGetUuid_v2(unsigned char *u, int d)
{
	ENTER();
	if (!dev(d) || !u)
		return CUDA_ERROR_INVALID_VALUE;
	memset(u, 0, 16);
	uuid_bytes(dev(d)->uuid, u);
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetUuid(unsigned char *u, int d)
{
	return cuDeviceGetUuid_v2(u, d);
}

FAKE_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, int d)
{
	ENTER();
	if (!dev(d) || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = (size_t)(dev(d)->total_mib * MIB);
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, int d)
{
	const struct fdev *x = dev(d);

	ENTER();
	if (!x || !v)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case 75: *v = x->cc_major; break;
	case 76: *v = x->cc_minor; break;
	case 16: *v = x->sm_count; break;
	case 13: *v = 1980000; break;
	case 36: *v = 3201000; break;
	case 37: *v = 5120; break;
	case 20: *v = 0; break;
	case 32: *v = 1; break;
	case 39: *v = 2048; break;
	default: *v = 0; break;
	}
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetPCIBusId(char *s, int len, int d)
{
	ENTER();
	if (!dev(d) || !s || len < 1)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(s, (size_t)len, "00000000:%02X:00.0", dev(d)->bus);
	return CUDA_SUCCESS;
}

static int ctx_of[DEVS_MAX];
static int current = -1;

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(void **c, int d)
{
	ENTER();
	if (!dev(d) || !c)
		return CUDA_ERROR_INVALID_VALUE;
	if (fake_mode() == FM_BUSY)
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	*c = &ctx_of[d];
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(void *c)
{
	ENTER();
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	current = (int)((int *)c - ctx_of);
	return CUDA_SUCCESS;
}

/* ---- memory ---------------------------------------------------------------- */

static unsigned long long free_bytes(void)
{
	const char *e = getenv("CD_FAKE_FREE_MIB");
	unsigned long long mib = e ? strtoull(e, NULL, 10) : 192;

	return mib * MIB;
}

static unsigned long long allocated;

FAKE_EXPORT CUresult cuMemGetInfo_v2(size_t *fr, size_t *total)
{
	ENTER();
	if (!fr || !total || !dev(current))
		return CUDA_ERROR_INVALID_VALUE;
	*total = (size_t)(dev(current)->total_mib * MIB);
	*fr = (size_t)(free_bytes() > allocated ? free_bytes() - allocated : 0);
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	void *m;

	ENTER();
	if (!p || !bytes)
		return CUDA_ERROR_INVALID_VALUE;
	if (allocated + bytes > free_bytes() || !(m = calloc(1, bytes)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	allocated += bytes;
	*p = (CUdeviceptr)(uintptr_t)m;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAllocHost_v2(void **p, size_t bytes)
{
	ENTER();
	if (!p || !(*p = calloc(1, bytes ? bytes : 1)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	return CUDA_SUCCESS;
}

/* ---- streams and events ---------------------------------------------------- */

FAKE_EXPORT CUresult cuStreamCreate(void **s, unsigned int flags)
{
	static int stream;

	ENTER();
	(void)flags;
	if (!s)
		return CUDA_ERROR_INVALID_VALUE;
	*s = &stream;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventCreate(struct fevent **e, unsigned int flags)
{
	ENTER();
	(void)flags;
	if (!e || !(*e = calloc(1, sizeof(**e))))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventRecord(struct fevent *e, void *s)
{
	ENTER();
	(void)s;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	e->at = clock_ms;
	e->recorded = 1;
	e->stuck = stuck;
	e->failed = failed;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventQuery(struct fevent *e)
{
	ENTER();
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	if (e->stuck)
		return CUDA_ERROR_NOT_READY;
	return e->failed ? CUDA_ERROR_LAUNCH_FAILED : CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventElapsedTime_v2(float *ms, struct fevent *a, struct fevent *b)
{
	ENTER();
	if (!ms || !a || !b || !a->recorded || !b->recorded)
		return CUDA_ERROR_INVALID_HANDLE;
	*ms = (float)(b->at - a->at);
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventElapsedTime(float *ms, struct fevent *a, struct fevent *b)
{
	return cuEventElapsedTime_v2(ms, a, b);
}

/* ---- copies: 25 GB/s of simulated time --------------------------------- */

FAKE_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s)
{
	ENTER();
	(void)s;
	if (fake_mode() == FM_HANGCOPY)
		fake_hang();
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy((void *)(uintptr_t)dst, src, n);
	clock_ms += (double)n / 25e6;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s)
{
	ENTER();
	(void)s;
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	if (fake_mode() == FM_BADCOPY && n > 4096)
		((unsigned char *)dst)[4096] ^= 0x10; /* one bit flipped in transit */
	clock_ms += (double)n / 25e6;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dctx, CUdeviceptr src, void *sctx,
				       size_t n, void *s)
{
	ENTER();
	(void)dctx;
	(void)sctx;
	(void)s;
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	if (fake_mode() == FM_BADPEER && n > 100)
		((unsigned char *)(uintptr_t)dst)[100] ^= 0x01;
	clock_ms += (double)n / 200e6;
	return CUDA_SUCCESS;
}

/* ---- peers --------------------------------------------------------------- */

FAKE_EXPORT CUresult cuDeviceCanAccessPeer(int *can, int d, int peer)
{
	ENTER();
	if (!can || !dev(d) || !dev(peer))
		return CUDA_ERROR_INVALID_DEVICE;
	*can = d != peer && !dev(d)->mig && !dev(peer)->mig && fake_mode() != FM_NOPEER;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetP2PAttribute(int *v, int attr, int src, int dst)
{
	int can = 0;

	ENTER();
	if (!v || cuDeviceCanAccessPeer(&can, src, dst))
		return CUDA_ERROR_INVALID_DEVICE;
	*v = attr == 1 ? 0 : can; /* performance rank 0 (NVLink); access; atomics */
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxEnablePeerAccess(void *peer, unsigned int flags)
{
	ENTER();
	(void)flags;
	return peer ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- modules and kernels --------------------------------------------------- */

static uint32_t hash(uint64_t i, uint32_t seed)
{
	uint32_t h = seed ^ ((uint32_t)(i >> 32) * 0x7F4A7C15u);
	uint32_t x = (uint32_t)i * 0x9E3779B1u + h;

	x ^= x >> 16;
	x *= 0x85EBCA6Bu;
	x ^= x >> 13;
	return x;
}

static uint32_t lcg(uint32_t x, uint32_t iters)
{
	uint32_t a = 1664525u, c = 1013904223u, ra = 1, rc = 0;

	for (; iters; iters >>= 1) {
		if (iters & 1) {
			ra *= a;
			rc = rc * a + c;
		}
		c = c * a + c;
		a *= a;
	}
	return ra * x + rc;
}

static int functions[3] = {1, 2, 3}; /* cd_fill, cd_check, cd_spin */

/* CU_JIT option values are in optionValues; 3/4 info log, 5/6 error log,
 * 2 the wall time (a float written into the slot). */
static void jit_options(unsigned n, const int *opt, void **val, const char *info, const char *err)
{
	unsigned i;
	float ms = 1.5f;

	for (i = 0; i < n && opt && val; i++) {
		if (opt[i] == 3 && val[i] && i + 1 < n && opt[i + 1] == 4)
			snprintf(val[i], (size_t)(uintptr_t)val[i + 1], "%s", info);
		if (opt[i] == 5 && val[i] && i + 1 < n && opt[i + 1] == 6)
			snprintf(val[i], (size_t)(uintptr_t)val[i + 1], "%s", err);
		if (opt[i] == 2)
			memcpy(&val[i], &ms, sizeof(ms));
	}
}

FAKE_EXPORT CUresult cuModuleLoadDataEx(void **m, const char *image, unsigned n, int *opt,
					void **val)
{
	static int module;

	ENTER();
	if (!m || !image)
		return CUDA_ERROR_INVALID_VALUE;
	if (fake_mode() == FM_NOJIT) {
		jit_options(
			n, opt, val, "",
			"error   : JIT compiler library libnvidia-ptxjitcompiler.so.1 not found");
		return CUDA_ERROR_JIT_COMPILER_NOT_FOUND;
	}
	if (!strstr(image, ".entry cd_fill") || !strstr(image, ".entry cd_check") ||
	    !strstr(image, ".entry cd_spin") || !strstr(image, ".target sm_50"))
		return CUDA_ERROR_INVALID_IMAGE;
	jit_options(n, opt, val, "ptxas info    : 0 bytes gmem\nptxas info    : Used 12 registers",
		    "");
	*m = &module;
	return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleGetFunction(int **f, void *m, const char *name)
{
	ENTER();
	if (!f || !m || !name)
		return CUDA_ERROR_INVALID_VALUE;
	*f = !strcmp(name, "cd_fill")	 ? &functions[0]
	     : !strcmp(name, "cd_check") ? &functions[1]
	     : !strcmp(name, "cd_spin")	 ? &functions[2]
					 : NULL;
	return *f ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

static void run_kernel(int f, unsigned threads, void **p)
{
	uint64_t i, n;
	uint32_t *buf = (uint32_t *)(uintptr_t)(*(CUdeviceptr *)p[0]), seed;

	if (f == 3) {
		uint32_t iters = *(uint32_t *)p[1];
		for (i = 0; i < threads; i++)
			buf[i] = lcg((uint32_t)i, iters);
		clock_ms += 0.5;
		return;
	}
	n = *(unsigned long long *)p[1];
	seed = *(uint32_t *)p[2];
	if (f == 1) {
		for (i = 0; i < n; i++)
			buf[i] = hash(i, seed);
	} else {
		uint32_t *errs = (uint32_t *)(uintptr_t)(*(CUdeviceptr *)p[3]);
		for (i = 0; i < n; i++)
			*errs += buf[i] != hash(i, seed);
	}
	clock_ms += (double)n * 4 / 3e9 + 0.005;
}

FAKE_EXPORT CUresult cuLaunchKernel(int *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
				    unsigned by, unsigned bz, unsigned shmem, void *s, void **p,
				    void **extra)
{
	ENTER();
	(void)s;
	(void)shmem;
	(void)extra;
	if (!f || !p || *f < 1 || *f > 3)
		return CUDA_ERROR_INVALID_HANDLE;
	if (fake_mode() == FM_CRASHLAUNCH)
		fake_crash();
	if (fake_mode() == FM_HANGLAUNCH || (dev(current) && dev(current)->hangs)) {
		stuck = 1; /* the kernel never ends: what follows on the stream waits */
		return CUDA_SUCCESS;
	}
	if (fake_mode() == FM_LAUNCHFAIL && *f == 1 && gx > 1) {
		failed = 1; /* the big fill faults; the small round-trip launches do not */
		return CUDA_SUCCESS;
	}
	run_kernel(*f, gx * gy * gz * bx * by * bz, p);
	return CUDA_SUCCESS;
}
