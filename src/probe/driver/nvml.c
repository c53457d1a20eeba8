/* nvml: see nvml.h. Only the NVML types and functions called here are
 * declared, with the layouts of nvml.h (NVML API version 12); old drivers
 * lacking a versioned entry point fall back to the older name when its
 * signature is the same, and optional queries that are absent or answer
 * NVML_ERROR_NOT_SUPPORTED leave the fact unknown. */
#include "probe/driver/nvml.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "kb/images.h"
#include "probe/dlib.h"

/* ---- the NVML ABI we use ------------------------------------------------- */

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlReturn_t; /* an enum in nvml.h: int-sized */

/* nvmlPciInfo_t: busIdLegacy[16], domain, bus, device, pciDeviceId,
 * pciSubSystemId, busId[32]. The v1 layout has busId[16] first and the same
 * three integers after it, so domain/bus/device sit at the same offsets. */
struct nvml_pci_info {
	char bus_id_legacy[16];
	unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
	char bus_id[32];
	char spare[64]; /* slack for a library that writes a longer struct */
};

struct nvml_memory { /* nvmlMemory_t: used includes reserved memory */
	unsigned long long total, free, used;
};

struct nvml_memory_v2 { /* nvmlMemory_v2_t: used excludes reserved memory */
	unsigned int version;
	unsigned long long total, reserved, free, used;
};

/* NVML_STRUCT_VERSION(Memory, 2) */
#define NVML_MEMORY_V2 ((unsigned int)(sizeof(struct nvml_memory_v2) | (2u << 24)))

#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define NVML_VOLATILE_ECC		   0
#define NVML_AGGREGATE_ECC		   1
#define NVML_BUFFER			   96 /* NVML_DEVICE_{NAME,UUID}_V2_BUFFER_SIZE */

enum {
	F_INIT,
	F_ERRSTR,
	F_DRIVER_VERSION,
	F_NVML_VERSION,
	F_CUDA_VERSION,
	F_COUNT,
	F_HANDLE,
	F_NAME,
	F_UUID,
	F_PCI,
	F_CC,
	F_MEM2,
	F_MEM,
	F_MIG,
	F_PERSIST,
	F_COMPUTE,
	F_ECC_MODE,
	F_ECC_TOTAL,
	F_RETIRED,
	F_REMAP,
	F_BRAND,
	F_N
};

static const struct dlib_sym syms[F_N] = {
	/* int nvmlInit_v2(void); nvmlInit on drivers before R319 */
	[F_INIT] = {"nvmlInit_v2", "nvmlInit", 1},
	/* const char *nvmlErrorString(nvmlReturn_t) */
	[F_ERRSTR] = {"nvmlErrorString", NULL, 0},
	/* (char *version, unsigned int length) */
	[F_DRIVER_VERSION] = {"nvmlSystemGetDriverVersion", NULL, 0},
	[F_NVML_VERSION] = {"nvmlSystemGetNVMLVersion", NULL, 0},
	/* (int *cudaDriverVersion): 13000 for CUDA 13.0 */
	[F_CUDA_VERSION] = {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion",
			    0},
	/* (unsigned int *deviceCount) */
	[F_COUNT] = {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", 1},
	/* (unsigned int index, nvmlDevice_t *device) */
	[F_HANDLE] = {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", 1},
	/* (nvmlDevice_t, char *, unsigned int length) */
	[F_NAME] = {"nvmlDeviceGetName", NULL, 0},
	[F_UUID] = {"nvmlDeviceGetUUID", NULL, 0},
	/* (nvmlDevice_t, nvmlPciInfo_t *) */
	[F_PCI] = {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", 0},
	/* (nvmlDevice_t, int *major, int *minor) */
	[F_CC] = {"nvmlDeviceGetCudaComputeCapability", NULL, 0},
	/* (nvmlDevice_t, nvmlMemory_v2_t *): the numbers nvidia-smi prints */
	[F_MEM2] = {"nvmlDeviceGetMemoryInfo_v2", NULL, 0},
	/* (nvmlDevice_t, nvmlMemory_t *) */
	[F_MEM] = {"nvmlDeviceGetMemoryInfo", NULL, 0},
	/* (nvmlDevice_t, unsigned int *current, unsigned int *pending) */
	[F_MIG] = {"nvmlDeviceGetMigMode", NULL, 0},
	/* (nvmlDevice_t, nvmlEnableState_t *) */
	[F_PERSIST] = {"nvmlDeviceGetPersistenceMode", NULL, 0},
	/* (nvmlDevice_t, nvmlComputeMode_t *) */
	[F_COMPUTE] = {"nvmlDeviceGetComputeMode", NULL, 0},
	/* (nvmlDevice_t, nvmlEnableState_t *current, nvmlEnableState_t *pending) */
	[F_ECC_MODE] = {"nvmlDeviceGetEccMode", NULL, 0},
	/* (nvmlDevice_t, nvmlMemoryErrorType_t, nvmlEccCounterType_t, unsigned long long *) */
	[F_ECC_TOTAL] = {"nvmlDeviceGetTotalEccErrors", NULL, 0},
	/* (nvmlDevice_t, nvmlEnableState_t *isPending): pre-Ampere page retirement */
	[F_RETIRED] = {"nvmlDeviceGetRetiredPagesPendingStatus", NULL, 0},
	/* (nvmlDevice_t, unsigned *corr, unsigned *unc, unsigned *pending, unsigned *failed) */
	[F_REMAP] = {"nvmlDeviceGetRemappedRows", NULL, 0},
	/* nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t, nvmlBrandType_t *) */
	[F_BRAND] = {"nvmlDeviceGetBrand", NULL, 0},
};

typedef nvmlReturn_t (*fn_void)(void);
typedef const char *(*fn_errstr)(nvmlReturn_t);
typedef nvmlReturn_t (*fn_str)(char *, unsigned int);
typedef nvmlReturn_t (*fn_int)(int *);
typedef nvmlReturn_t (*fn_uint)(unsigned int *);
typedef nvmlReturn_t (*fn_handle)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_dev_str)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*fn_dev_pci)(nvmlDevice_t, struct nvml_pci_info *);
typedef nvmlReturn_t (*fn_dev_2int)(nvmlDevice_t, int *, int *);
typedef nvmlReturn_t (*fn_dev_mem2)(nvmlDevice_t, struct nvml_memory_v2 *);
typedef nvmlReturn_t (*fn_dev_mem)(nvmlDevice_t, struct nvml_memory *);
typedef nvmlReturn_t (*fn_dev_2uint)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_dev_uint)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*fn_dev_ecc)(nvmlDevice_t, int, int, unsigned long long *);
typedef nvmlReturn_t (*fn_dev_remap)(nvmlDevice_t, unsigned int *, unsigned int *, unsigned int *,
				     unsigned int *);

/* ---- child side ---------------------------------------------------------- */

static void emit_gpu(struct iso_out *o, unsigned i, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void emit_gpu(struct iso_out *o, unsigned i, const char *field, const char *fmt, ...)
{
	char key[48], v[256];
	va_list ap;

	snprintf(key, sizeof(key), "gpu.%u.%s", i, field);
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	iso_emit(o, key, v);
}

static void gpu_strings(struct iso_out *o, void **fn, nvmlDevice_t dev, unsigned i)
{
	char s[NVML_BUFFER + 32];
	struct nvml_pci_info pci;

	memset(s, 0, sizeof(s));
	if (fn[F_NAME] && ((fn_dev_str)fn[F_NAME])(dev, s, NVML_BUFFER) == 0 && s[0])
		emit_gpu(o, i, "name", "%.*s", NVML_BUFFER, s);
	memset(s, 0, sizeof(s));
	if (fn[F_UUID] && ((fn_dev_str)fn[F_UUID])(dev, s, NVML_BUFFER) == 0 && s[0])
		emit_gpu(o, i, "uuid", "%.*s", NVML_BUFFER, s);
	memset(&pci, 0, sizeof(pci));
	/* NVML_DEVICE_PCI_BUS_ID_FMT, the form nvidia-smi prints */
	if (fn[F_PCI] && ((fn_dev_pci)fn[F_PCI])(dev, &pci) == 0)
		emit_gpu(o, i, "pci_bus_id", "%08X:%02X:%02X.0", pci.domain, pci.bus & 0xff,
			 pci.device & 0x1f);
}

static void gpu_memory(struct iso_out *o, void **fn, nvmlDevice_t dev, unsigned i)
{
	struct nvml_memory_v2 m2;
	struct nvml_memory m1;

	memset(&m2, 0, sizeof(m2));
	m2.version = NVML_MEMORY_V2;
	if (fn[F_MEM2] && ((fn_dev_mem2)fn[F_MEM2])(dev, &m2) == 0) {
		emit_gpu(o, i, "mem_total", "%llu", m2.total);
		emit_gpu(o, i, "mem_reserved", "%llu", m2.reserved);
		emit_gpu(o, i, "mem_free", "%llu", m2.free);
		emit_gpu(o, i, "mem_used", "%llu", m2.used);
		return;
	}
	memset(&m1, 0, sizeof(m1));
	if (fn[F_MEM] && ((fn_dev_mem)fn[F_MEM])(dev, &m1) == 0) {
		emit_gpu(o, i, "mem_total", "%llu", m1.total);
		emit_gpu(o, i, "mem_free", "%llu", m1.free);
		emit_gpu(o, i, "mem_used", "%llu", m1.used);
	}
}

/* The health queries: ECC mode and uncorrected counts, retired pages and row
 * remapping pending (check's gpu-* findings). */
static void gpu_health(struct iso_out *o, void **fn, nvmlDevice_t dev, unsigned i)
{
	unsigned int a = 0, b = 0, c = 0, d = 0;
	unsigned long long n = 0;

	if (fn[F_ECC_MODE] && ((fn_dev_2uint)fn[F_ECC_MODE])(dev, &a, &b) == 0)
		emit_gpu(o, i, "ecc_mode", "%u", a);
	if (fn[F_ECC_TOTAL] &&
	    ((fn_dev_ecc)fn[F_ECC_TOTAL])(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
					  NVML_VOLATILE_ECC, &n) == 0)
		emit_gpu(o, i, "ecc_volatile_uncorrected", "%llu", n);
	if (fn[F_ECC_TOTAL] &&
	    ((fn_dev_ecc)fn[F_ECC_TOTAL])(dev, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
					  NVML_AGGREGATE_ECC, &n) == 0)
		emit_gpu(o, i, "ecc_aggregate_uncorrected", "%llu", n);
	if (fn[F_RETIRED] && ((fn_dev_uint)fn[F_RETIRED])(dev, &a) == 0)
		emit_gpu(o, i, "retired_pages_pending", "%u", a);
	if (fn[F_REMAP] && ((fn_dev_remap)fn[F_REMAP])(dev, &a, &b, &c, &d) == 0) {
		emit_gpu(o, i, "row_remap_pending", "%u", c);
		emit_gpu(o, i, "row_remap_failure", "%u", d);
	}
}

static void gpu_modes(struct iso_out *o, void **fn, nvmlDevice_t dev, unsigned i, int health)
{
	unsigned int a = 0, b = 0;
	int x = 0, y = 0;

	if (fn[F_CC] && ((fn_dev_2int)fn[F_CC])(dev, &x, &y) == 0) {
		emit_gpu(o, i, "cc_major", "%d", x);
		emit_gpu(o, i, "cc_minor", "%d", y);
	}
	if (fn[F_MIG] && ((fn_dev_2uint)fn[F_MIG])(dev, &a, &b) == 0)
		emit_gpu(o, i, "mig_mode", "%u", a);
	if (fn[F_PERSIST] && ((fn_dev_uint)fn[F_PERSIST])(dev, &a) == 0)
		emit_gpu(o, i, "persistence_mode", "%u", a);
	if (fn[F_COMPUTE] && ((fn_dev_uint)fn[F_COMPUTE])(dev, &a) == 0)
		emit_gpu(o, i, "compute_mode", "%u", a);
	if (health)
		gpu_health(o, fn, dev, i);
	if (fn[F_BRAND] && ((fn_dev_uint)fn[F_BRAND])(dev, &a) == 0) /* an enum: int-sized */
		emit_gpu(o, i, "brand", "%u", a);
}

static const char *errstr(void **fn, int rc)
{
	const char *s = fn[F_ERRSTR] ? ((fn_errstr)fn[F_ERRSTR])(rc) : NULL;

	return s ? s : "";
}

static void query_gpu(struct iso_out *o, void **fn, unsigned i, int health)
{
	nvmlDevice_t dev = NULL;
	char stage[32];
	int rc;

	snprintf(stage, sizeof(stage), "gpu %u", i);
	iso_stage(o, stage);
	rc = ((fn_handle)fn[F_HANDLE])(i, &dev);
	if (rc != 0) {
		emit_gpu(o, i, "error", "%s: %s (%d)", syms[F_HANDLE].name, errstr(fn, rc), rc);
		return;
	}
	gpu_strings(o, fn, dev, i);
	gpu_memory(o, fn, dev, i);
	gpu_modes(o, fn, dev, i, health);
}

static void nvml_version(struct iso_out *o, void **fn)
{
	char s[128];

	memset(s, 0, sizeof(s));
	if (fn[F_NVML_VERSION] && ((fn_str)fn[F_NVML_VERSION])(s, 80) == 0 && s[0])
		iso_emitf(o, "nvml_version", "%.80s", s);
}

static void versions(struct iso_out *o, void **fn)
{
	char s[128];
	int v = 0;

	nvml_version(o, fn);
	memset(s, 0, sizeof(s));
	if (fn[F_DRIVER_VERSION] && ((fn_str)fn[F_DRIVER_VERSION])(s, 80) == 0 && s[0])
		iso_emitf(o, "driver_version", "%.80s", s);
	if (fn[F_CUDA_VERSION] && ((fn_int)fn[F_CUDA_VERSION])(&v) == 0)
		iso_emitf(o, "cuda_version", "%d", v);
}

void nvml_query(struct iso_out *o, void *arg)
{
	const struct nvml_arg *q = arg;
	void *fn[F_N];
	struct dlib d;
	unsigned int count = 0, i;
	int rc;

	if (dlib_load_emit(o, &d, q->lib, syms, F_N, fn))
		return;
	iso_stage(o, syms[F_INIT].name);
	rc = ((fn_void)fn[F_INIT])();
	iso_emitf(o, "init_rc", "%d", rc);
	if (rc != 0) {
		iso_emit(o, "init_error", errstr(fn, rc));
		/* The library's own version still tells a mismatch's other half. */
		iso_stage(o, syms[F_NVML_VERSION].name);
		nvml_version(o, fn);
		return;
	}
	iso_stage(o, "versions");
	versions(o, fn);
	iso_stage(o, syms[F_COUNT].name);
	rc = ((fn_uint)fn[F_COUNT])(&count);
	if (rc != 0) {
		iso_emitf(o, "count_rc", "%d", rc);
		iso_emit(o, "count_error", errstr(fn, rc));
		return;
	}
	iso_emitf(o, "count", "%u", count);
	for (i = 0; i < count && i < NVML_GPUS_MAX; i++)
		query_gpu(o, fn, i, q->health);
	/* No nvmlShutdown: the child exits next, which releases everything, and
	 * a shutdown that hung would turn a complete answer into a timeout. */
	iso_emit(o, "done", "1");
}

/* ---- parent side --------------------------------------------------------- */

const char *nvml_error_name(int64_t rc)
{
	/* nvmlReturn_t (nvml.h) */
	static const char *const names[] = {
		[0] = "NVML_SUCCESS",
		[1] = "NVML_ERROR_UNINITIALIZED",
		[2] = "NVML_ERROR_INVALID_ARGUMENT",
		[3] = "NVML_ERROR_NOT_SUPPORTED",
		[4] = "NVML_ERROR_NO_PERMISSION",
		[5] = "NVML_ERROR_ALREADY_INITIALIZED",
		[6] = "NVML_ERROR_NOT_FOUND",
		[7] = "NVML_ERROR_INSUFFICIENT_SIZE",
		[8] = "NVML_ERROR_INSUFFICIENT_POWER",
		[9] = "NVML_ERROR_DRIVER_NOT_LOADED",
		[10] = "NVML_ERROR_TIMEOUT",
		[11] = "NVML_ERROR_IRQ_ISSUE",
		[12] = "NVML_ERROR_LIBRARY_NOT_FOUND",
		[13] = "NVML_ERROR_FUNCTION_NOT_FOUND",
		[14] = "NVML_ERROR_CORRUPTED_INFOROM",
		[15] = "NVML_ERROR_GPU_IS_LOST",
		[16] = "NVML_ERROR_RESET_REQUIRED",
		[17] = "NVML_ERROR_OPERATING_SYSTEM",
		[18] = "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
		[19] = "NVML_ERROR_IN_USE",
		[20] = "NVML_ERROR_MEMORY",
		[21] = "NVML_ERROR_NO_DATA",
		[22] = "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
		[23] = "NVML_ERROR_INSUFFICIENT_RESOURCES",
		[24] = "NVML_ERROR_FREQ_NOT_SUPPORTED",
		[25] = "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
		[26] = "NVML_ERROR_DEPRECATED",
		[27] = "NVML_ERROR_NOT_READY",
		[28] = "NVML_ERROR_GPU_NOT_FOUND",
		[29] = "NVML_ERROR_INVALID_STATE",
	};

	if (rc == 999)
		return "NVML_ERROR_UNKNOWN";
	if (rc < 0 || rc >= (int64_t)(sizeof(names) / sizeof(names[0])))
		return NULL;
	return names[rc];
}

static int to_i64(const char *v, int64_t max, int64_t *out)
{
	uint64_t u;

	if (str_to_u64(v, &u) || u > (uint64_t)max)
		return -1;
	*out = (int64_t)u;
	return 0;
}

static void gpu_init(struct cd_gpu *g, size_t i)
{
	memset(g, 0, sizeof(*g));
	g->index = (int64_t)i;
	g->cc_major = g->cc_minor = CD_UNK;
	g->memory_total_bytes = g->memory_free_bytes = CD_UNK;
	g->memory_used_bytes = g->memory_reserved_bytes = CD_UNK;
	g->ecc_volatile_uncorrected = g->ecc_aggregate_uncorrected = CD_UNK;
	g->retired_pages_pending = g->row_remap_pending = g->row_remap_failure = CD_TRI_UNKNOWN;
}

static void set_count(struct cd_facts *f, const char *val)
{
	int64_t n;
	size_t i;

	if (f->gpus_known || to_i64(val, 1 << 20, &n))
		return;
	f->driver.gpu_count = n;
	if (n > NVML_GPUS_MAX)
		n = NVML_GPUS_MAX;
	f->gpus = n ? arena_calloc(&f->arena, (size_t)n, sizeof(*f->gpus)) : NULL;
	if (n && !f->gpus)
		return;
	for (i = 0; i < (size_t)n; i++)
		gpu_init(&f->gpus[i], i);
	f->n_gpus = (size_t)n;
	f->gpus_known = 1;
}

static const char *enabled(int64_t v)
{
	return v == 1 ? "enabled" : v == 0 ? "disabled" : NULL;
}

static const char *compute_mode(int64_t v)
{
	/* nvmlComputeMode_t; 1 (exclusive thread) was removed in CUDA 8 */
	static const char *const m[] = {"default", "exclusive_thread", "prohibited",
					"exclusive_process"};

	return v >= 0 && v < 4 ? m[v] : NULL;
}

static enum cd_tri tri(int64_t v)
{
	return v == 0 ? CD_TRI_NO : v == 1 ? CD_TRI_YES : CD_TRI_UNKNOWN;
}

/* Integer fields of struct cd_gpu, each a record "gpu.N.<key>". */
static const struct {
	const char *key;
	size_t off;
} gpu_ints[] = {
	{"cc_major", offsetof(struct cd_gpu, cc_major)},
	{"cc_minor", offsetof(struct cd_gpu, cc_minor)},
	{"mem_total", offsetof(struct cd_gpu, memory_total_bytes)},
	{"mem_free", offsetof(struct cd_gpu, memory_free_bytes)},
	{"mem_used", offsetof(struct cd_gpu, memory_used_bytes)},
	{"mem_reserved", offsetof(struct cd_gpu, memory_reserved_bytes)},
	{"ecc_volatile_uncorrected", offsetof(struct cd_gpu, ecc_volatile_uncorrected)},
	{"ecc_aggregate_uncorrected", offsetof(struct cd_gpu, ecc_aggregate_uncorrected)},
};

static void gpu_field(struct cd_facts *f, struct cd_gpu *g, const char *k, const char *v)
{
	int64_t n = CD_UNK;
	size_t i;

	for (i = 0; i < sizeof(gpu_ints) / sizeof(gpu_ints[0]); i++)
		if (!strcmp(k, gpu_ints[i].key)) {
			if (!to_i64(v, INT64_MAX - 1, &n))
				*(int64_t *)((char *)g + gpu_ints[i].off) = n;
			return;
		}
	if (!strcmp(k, "name"))
		g->name = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "uuid"))
		g->uuid = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "pci_bus_id"))
		g->pci_bus_id = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "error"))
		g->error = arena_strdup(&f->arena, v);
	else if (to_i64(v, 1 << 30, &n))
		return;
	else if (!strcmp(k, "mig_mode"))
		g->mig_mode = enabled(n);
	else if (!strcmp(k, "persistence_mode"))
		g->persistence_mode = enabled(n);
	else if (!strcmp(k, "ecc_mode"))
		g->ecc_mode = enabled(n);
	else if (!strcmp(k, "compute_mode"))
		g->compute_mode = compute_mode(n);
	else if (!strcmp(k, "retired_pages_pending"))
		g->retired_pages_pending = tri(n);
	else if (!strcmp(k, "row_remap_pending"))
		g->row_remap_pending = tri(n ? 1 : 0);
	else if (!strcmp(k, "row_remap_failure"))
		g->row_remap_failure = tri(n ? 1 : 0);
	else if (!strcmp(k, "brand"))
		g->brand = images_brand_token((int)n); /* NULL for a value the table lacks */
}

/* "gpu.<index>.<field>" with index below the number of GPUs recorded. */
static void gpu_record(struct cd_facts *f, const char *key, const char *val)
{
	const char *p = key + 4, *dot = strchr(p, '.');
	char num[8];
	int i;

	if (!dot || dot == p || (size_t)(dot - p) >= sizeof(num))
		return;
	str_ncopy(num, sizeof(num), p, (size_t)(dot - p));
	if (str_to_int(num, 0, NVML_GPUS_MAX - 1, &i) || (size_t)i >= f->n_gpus)
		return;
	gpu_field(f, &f->gpus[i], dot + 1, val);
}

void nvml_apply(struct cd_facts *f, const char *key, const char *val)
{
	struct cd_driver_lib *l = &f->driver.nvml;
	int64_t n;
	int rc;

	if (str_has_prefix(key, "gpu."))
		gpu_record(f, key, val);
	else if (!strcmp(key, "init_rc") && !str_to_int(val, -1000000, 1000000, &rc))
		l->rc = rc;
	else if (!strcmp(key, "init_error") || !strcmp(key, "count_error"))
		l->error = val[0] ? arena_strdup(&f->arena, val) : l->error;
	else if (!strcmp(key, "driver_version"))
		f->driver.version = arena_strdup(&f->arena, val);
	else if (!strcmp(key, "nvml_version"))
		f->driver.nvml_version = arena_strdup(&f->arena, val);
	else if (!strcmp(key, "cuda_version") && !to_i64(val, 1000000, &n) && n >= 1000 &&
		 f->driver.cuda_version_int == CD_UNK) {
		f->driver.cuda_version_int = n;
		f->driver.cuda_version_source = "nvml";
	} else if (!strcmp(key, "count")) {
		set_count(f, val);
	} else if (!strcmp(key, "count_rc") && !str_to_int(val, -1000000, 1000000, &rc))
		l->rc = rc;
}

void nvml_finish(struct cd_facts *f)
{
	size_t i;

	for (i = 0; i < f->n_gpus; i++) {
		struct cd_gpu *g = &f->gpus[i];
		if (g->cc_major != CD_UNK && g->cc_minor != CD_UNK && g->cc_major < 1000 &&
		    g->cc_minor < 1000)
			g->compute_capability =
				arena_printf(&f->arena, "%lld.%lld", (long long)g->cc_major,
					     (long long)g->cc_minor);
	}
}
