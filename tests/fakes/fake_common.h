/* fake_common: the machines the fake driver libraries pretend to be.
 * CD_FAKE_MODE picks one (default "ok"); CD_FAKE_TRACE, when set, names a
 * file each fake function appends its own name to, so tests can assert what
 * was (and was not) called. Deterministic: no clocks, no randomness. Modes:
 *   ok        2 x NVIDIA H100 80GB HBM3, driver 570.124.06, CUDA 12.8
 *   h200      1 x NVIDIA H200, driver 580.159.04, CUDA 13.0, 143771 MiB
 *   old       1 x Tesla T4, driver 470.256.02, CUDA 11.4 (no MemoryInfo_v2)
 *   nogpu     NVML initialises, 0 devices
 *   initfail  nvmlInit: NVML_ERROR_DRIVER_NOT_LOADED; cuInit: CUDA_ERROR_NO_DEVICE
 *   mismatch  nvmlInit: NVML_ERROR_LIB_RM_VERSION_MISMATCH (user space 570.124.06)
 *   hang      nvmlInit and cuInit block forever
 *   hangall   also cuDriverGetVersion blocks forever
 *   crash     nvmlInit and cuInit die of SIGSEGV
 *   ecc       2 x Tesla V100-SXM2-32GB, GPU 1 with uncorrectable ECC errors
 *             and retired pages pending
 *   stub      NVML as "ok"; libcuda answers CUDA_ERROR_STUB_LIBRARY (34)
 *   geforce   1 x NVIDIA GeForce RTX 4090, driver 535.104.05, CUDA 12.2
 * and for `probe` (the driver API of fake_cuda.c; NVML as h200 unless said):
 *   cuinit999   cuInit: CUDA_ERROR_UNKNOWN (999)
 *   hanginit    cuInit blocks forever (NVML answers)
 *   hanglaunch  a launched kernel never completes (cuEventQuery: not ready)
 *   hangcopy    cuMemcpyHtoDAsync_v2 blocks forever
 *   launchfail  the fill kernel ends with CUDA_ERROR_LAUNCH_FAILED (719)
 *   badcopy     device-to-host copies return one wrong byte
 *   crashlaunch cuLaunchKernel dies of SIGSEGV
 *   nojit       cuModuleLoadDataEx: CUDA_ERROR_JIT_COMPILER_NOT_FOUND (221)
 *   busy        cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE (46)
 *   onebad      4 x A100, the third (index 2) hangs in its launch
 *   mig         1 x A100 with MIG enabled and two instances (MIG-... UUIDs)
 *   nopeer      as ok (2 x H100) without peer access between them
 *   badpeer     as ok, and each peer copy flips a bit
 *   migempty    as mig, with no MIG instance created
 *   ncclhang    as ok; libnccl's ncclCommInitAll blocks forever (fake_nccl.c)
 *   ncclfail    as ok; ncclCommInitAll answers ncclSystemError (2)
 *   ncclwrong   as ok; the all-reduce gets one element wrong
 * and for `fix` (driver versions and GPUs as uv and the install line see them):
 *   h100-550  1 x NVIDIA H100 80GB HBM3, driver 550.54.15, CUDA 12.4
 *   pascal    1 x NVIDIA GeForce GTX 1080 Ti (6.1), driver 580.95.05, CUDA 13.0
 *   mixed     NVIDIA H100 80GB HBM3 (9.0) + NVIDIA A40 (8.6), driver 580.95.05,
 *             CUDA 13.0
 * Every GPU has an NVML brand (nvmlDeviceGetBrand): NVIDIA (14) for H100, H200,
 * A100 and A40, Tesla (2) for T4 and V100, GeForce (5) for the RTX 4090 and the
 * GTX 1080 Ti.
 * No driver at all is no library: tests name --nvml-lib / --cuda-lib paths
 * that do not exist (dlopen fails as it does without the driver).
 * CD_FAKE_FREE_MIB sets the free memory cuMemGetInfo reports (default 192). */
#ifndef CD_FAKE_COMMON_H
#define CD_FAKE_COMMON_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

enum fake_mode {
	FM_OK,
	FM_H200,
	FM_OLD,
	FM_NOGPU,
	FM_INITFAIL,
	FM_MISMATCH,
	FM_HANG,
	FM_HANGALL,
	FM_CRASH,
	FM_ECC,
	FM_STUB,
	FM_CUINIT999,
	FM_HANGINIT,
	FM_HANGLAUNCH,
	FM_HANGCOPY,
	FM_LAUNCHFAIL,
	FM_BADCOPY,
	FM_CRASHLAUNCH,
	FM_NOJIT,
	FM_BUSY,
	FM_ONEBAD,
	FM_MIG,
	FM_NOPEER,
	FM_BADPEER,
	FM_MIGEMPTY,
	FM_NCCLHANG,
	FM_NCCLFAIL,
	FM_NCCLWRONG,
	FM_H100_550,
	FM_PASCAL,
	FM_MIXED,
	FM_GEFORCE
};

#define MIB	    (1024ULL * 1024ULL)
#define UNSUPPORTED (-1)

struct fake_gpu {
	const char *name, *uuid;
	unsigned domain, bus, device, pci_id;
	int cc_major, cc_minor;
	unsigned long long total_mib, reserved_mib, used_mib;
	int mig, persistence, compute_mode, ecc_mode; /* UNSUPPORTED or a value */
	int ecc_volatile, ecc_aggregate;	      /* uncorrected counts */
	int retired_pending;			      /* UNSUPPORTED, 0, 1 */
	int remap_pending, remap_failure;	      /* UNSUPPORTED (both) or 0/1 */
	int brand;				      /* nvmlBrandType_t */
};

struct fake_box {
	const char *driver, *nvml;
	int cuda;
	int mem_v2; /* the driver has nvmlDeviceGetMemoryInfo_v2 */
	unsigned n;
	const struct fake_gpu *gpu;
};

/* One GPU per row, fields in struct order. */
/* clang-format off */
static const struct fake_gpu fake_h100[] = {
	{"NVIDIA H100 80GB HBM3", "GPU-5a3f9c1e-7b2d-4e8a-9c61-0f2b8d4e7a13", 0, 0x18, 0, 0x233010de,
	 9, 0, 81559, 329, 1, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
	{"NVIDIA H100 80GB HBM3", "GPU-c81e2a47-3d95-4b0f-8e26-71a9f5d0b3c4", 0, 0x2a, 0, 0x233010de,
	 9, 0, 81559, 329, 1, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
};

static const struct fake_gpu fake_h200[] = {
	{"NVIDIA H200", "GPU-0e6b8f52-9a1c-4d37-b2e5-c4f81a7d0936", 0, 0x00, 5, 0x233510de, 9, 0,
	 143771, 557, 0, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
};

static const struct fake_gpu fake_t4[] = {
	{"Tesla T4", "GPU-3f0d7c2a-61b8-4e95-a0d4-8c2e5b7f1a69", 0, 0x00, 0x1e, 0x1eb810de, 7, 5,
	 15109, 0, 0, UNSUPPORTED, 0, 0, 1, 0, 0, 0, UNSUPPORTED, UNSUPPORTED, 2},
};

static const struct fake_gpu fake_a100[] = {
	{"NVIDIA A100-SXM4-80GB", "GPU-1a2b3c4d-0000-4000-8000-00000000a100", 0, 0x07, 0, 0x20b210de,
	 8, 0, 81920, 551, 0, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
	{"NVIDIA A100-SXM4-80GB", "GPU-1a2b3c4d-0000-4000-8000-00000000a101", 0, 0x0f, 0, 0x20b210de,
	 8, 0, 81920, 551, 0, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
	{"NVIDIA A100-SXM4-80GB", "GPU-1a2b3c4d-0000-4000-8000-00000000a102", 0, 0x47, 0, 0x20b210de,
	 8, 0, 81920, 551, 0, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
	{"NVIDIA A100-SXM4-80GB", "GPU-1a2b3c4d-0000-4000-8000-00000000a103", 0, 0x4e, 0, 0x20b210de,
	 8, 0, 81920, 551, 0, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
};

/* MIG enabled (mig = 1): its instances are fake_migs[]. */
static const struct fake_gpu fake_a100_mig[] = {
	{"NVIDIA A100-SXM4-80GB", "GPU-7c1d9e2f-3a4b-4c5d-8e6f-708192a3b4c5", 0, 0x07, 0, 0x20b210de,
	 8, 0, 81920, 551, 0, 1, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
};

struct fake_mig {
	const char *name, *uuid;
	unsigned gi, ci;
	unsigned long long total_mib;
	int sm_count;
};

static const struct fake_mig fake_migs[] = {
	{"NVIDIA A100-SXM4-80GB MIG 3g.40gb", "MIG-5b8e1c2d-4f3a-5e6b-9c7d-8e9fa0b1c2d3", 1, 0, 40192, 42},
	{"NVIDIA A100-SXM4-80GB MIG 3g.40gb", "MIG-6c9f2d3e-5a4b-5f7c-8d9e-9fa0b1c2d3e4", 2, 0, 40192, 42},
};

static const struct fake_gpu fake_v100[] = {
	{"Tesla V100-SXM2-32GB", "GPU-9b1c4e7d-2f60-4a83-b5d9-e07c3a68f214", 0, 0x06, 0, 0x1db510de,
	 7, 0, 32768, 253, 0, UNSUPPORTED, 1, 0, 1, 0, 0, 0, UNSUPPORTED, UNSUPPORTED, 2},
	{"Tesla V100-SXM2-32GB", "GPU-41d7a0e3-8c25-4f19-9e6b-2a5d0c71b8f6", 0, 0x07, 0, 0x1db510de,
	 7, 0, 32768, 253, 0, UNSUPPORTED, 1, 0, 1, 2, 7, 1, UNSUPPORTED, UNSUPPORTED, 2},
};

static const struct fake_gpu fake_rtx4090[] = {
	{"NVIDIA GeForce RTX 4090", "GPU-7c2e9a41-0b6d-4f38-a1e5-93d4c8b2f067", 0, 0x01, 0, 0x268410de,
	 8, 9, 24564, 306, 0, UNSUPPORTED, 0, 0, 0, 0, 0, UNSUPPORTED, UNSUPPORTED, UNSUPPORTED, 5},
};
static const struct fake_gpu fake_gtx1080ti[] = {
	{"NVIDIA GeForce GTX 1080 Ti", "GPU-7c2e9a41-0b6d-4f38-a5e1-93d0c4b8f276", 0, 0x01, 0, 0x1b0610de,
	 6, 1, 11264, 0, 0, UNSUPPORTED, 0, 0, UNSUPPORTED, 0, 0, UNSUPPORTED, UNSUPPORTED,
	 UNSUPPORTED, 5},
};

static const struct fake_gpu fake_mixed[] = {
	{"NVIDIA H100 80GB HBM3", "GPU-5a3f9c1e-7b2d-4e8a-9c61-0f2b8d4e7a13", 0, 0x18, 0, 0x233010de,
	 9, 0, 81559, 329, 1, 0, 1, 0, 1, 0, 0, UNSUPPORTED, 0, 0, 14},
	{"NVIDIA A40", "GPU-2d8b5f60-4e1a-4c97-8b3e-6a0f7d2c9e15", 0, 0x3b, 0, 0x223510de, 8, 6,
	 46068, 0, 0, UNSUPPORTED, 1, 0, 1, 0, 0, 0, 0, 0, 14},
};
/* clang-format on */

static inline enum fake_mode fake_mode(void)
{
	static const char *const names[] = {
		"ok",	    "h200",	  "old",      "nogpu",	    "initfail", "mismatch",
		"hang",	    "hangall",	  "crash",    "ecc",	    "stub",	"cuinit999",
		"hanginit", "hanglaunch", "hangcopy", "launchfail", "badcopy",	"crashlaunch",
		"nojit",    "busy",	  "onebad",   "mig",	    "nopeer",	"badpeer",
		"migempty", "ncclhang",	  "ncclfail", "ncclwrong",  "h100-550", "pascal",
		"mixed",    "geforce"};
	const char *m = getenv("CD_FAKE_MODE");
	unsigned i;

	for (i = 0; m && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(m, names[i]))
			return (enum fake_mode)i;
	return FM_OK;
}

static inline const struct fake_box *fake_box(void)
{
	static const struct fake_box ok = {"570.124.06", "12.570.124.06", 12080, 1, 2, fake_h100};
	static const struct fake_box h200 = {"580.159.04", "13.580.159.04", 13000, 1, 1, fake_h200};
	static const struct fake_box old = {"470.256.02", "11.470.256.02", 11040, 0, 1, fake_t4};
	static const struct fake_box nogpu = {"570.124.06", "12.570.124.06", 12080, 1, 0, NULL};
	static const struct fake_box ecc = {"535.183.01", "12.535.183.01", 12020, 1, 2, fake_v100};
	static const struct fake_box a100 = {"570.124.06", "12.570.124.06", 12080, 1, 4, fake_a100};
	static const struct fake_box mig = {"570.124.06", "12.570.124.06", 12080, 1, 1,
					    fake_a100_mig};
	static const struct fake_box h100 = {"550.54.15", "12.550.54.15", 12040, 1, 1, fake_h100};
	static const struct fake_box pascal = {"580.95.05", "13.580.95.05", 13000, 1,
					       1,	    fake_gtx1080ti};
	static const struct fake_box mixed = {"580.95.05", "13.580.95.05", 13000, 1, 2, fake_mixed};
	static const struct fake_box geforce = {"535.104.05", "12.535.104.05", 12020, 1, 1,
						fake_rtx4090};

	switch (fake_mode()) {
	case FM_OK:
	case FM_NOPEER:
	case FM_BADPEER:
	case FM_NCCLHANG:
	case FM_NCCLFAIL:
	case FM_NCCLWRONG:
	case FM_INITFAIL:
	case FM_MISMATCH:
	case FM_HANG:
	case FM_HANGALL:
	case FM_CRASH:
	case FM_STUB: return &ok;
	case FM_OLD: return &old;
	case FM_NOGPU: return &nogpu;
	case FM_ECC: return &ecc;
	case FM_ONEBAD: return &a100;
	case FM_MIG:
	case FM_MIGEMPTY: return &mig;
	case FM_H100_550: return &h100;
	case FM_PASCAL: return &pascal;
	case FM_MIXED: return &mixed;
	case FM_GEFORCE: return &geforce;
	default: return &h200;
	}
}

/* Append the caller's name to $CD_FAKE_TRACE: one write per line, so the
 * lines of the two libraries, queried at the same time, never interleave. */
static inline void fake_trace(const char *fn)
{
	const char *t = getenv("CD_FAKE_TRACE");
	char line[128];
	size_t n = strlen(fn);
	int fd;

	if (!t || !*t || n + 1 >= sizeof(line))
		return;
	memcpy(line, fn, n);
	line[n++] = '\n';
	fd = open(t, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, n) < 0) {
		/* nothing to do: tracing is best effort */
	}
	close(fd);
}

static inline void fake_hang(void)
{
	for (;;)
		pause();
}

static inline void fake_crash(void)
{
	/* A real invalid write, not raise(): the address comes from a volatile
	 * so the compiler cannot turn it into a trap instruction. */
	volatile uintptr_t addr = 16;

	*(volatile int *)addr = 1;
}

#endif
