/* fake_nvml: a libnvidia-ml.so.1 for tests; the machine it describes is
 * chosen by CD_FAKE_MODE (fake_common.h). Signatures and struct layouts are
 * those of nvml.h; only the functions cuda-doctor calls are provided. */
#include "fake_common.h"

#include <stdio.h>

typedef int nvmlReturn_t;
typedef const struct fake_gpu *nvmlDevice_t;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25
};

typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;

#define nvmlMemory_v2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

static int inited;

#define ENTER()                                                                                    \
	do {                                                                                       \
		fake_trace(__func__);                                                              \
		if (!inited)                                                                       \
			return NVML_ERROR_UNINITIALIZED;                                           \
	} while (0)

/* A MIG instance's handle points into fake_migs[]. */
static const struct fake_mig *mig_of(nvmlDevice_t d)
{
	const void *p = d;
	const struct fake_mig *m = p;

	return fake_mode() == FM_MIG && m >= fake_migs &&
			       m < fake_migs + sizeof(fake_migs) / sizeof(fake_migs[0])
		       ? m
		       : NULL;
}

static nvmlReturn_t dev_ok(nvmlDevice_t d)
{
	const struct fake_box *b = fake_box();

	return d && b->gpu && d >= b->gpu && d < b->gpu + b->n ? NVML_SUCCESS
							       : NVML_ERROR_INVALID_ARGUMENT;
}

static nvmlReturn_t put_str(char *out, unsigned int len, const char *s)
{
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(s) + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(out, s, strlen(s) + 1);
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	fake_trace(__func__);
	switch (fake_mode()) {
	case FM_INITFAIL: return NVML_ERROR_DRIVER_NOT_LOADED;
	case FM_MISMATCH: return NVML_ERROR_LIB_RM_VERSION_MISMATCH;
	case FM_HANG:
	case FM_HANGALL: fake_hang(); break;
	case FM_CRASH: fake_crash(); break;
	default: break;
	}
	inited = 1;
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlInit(void)
{
	return nvmlInit_v2();
}

FAKE_EXPORT nvmlReturn_t nvmlShutdown(void)
{
	ENTER();
	inited = 0;
	return NVML_SUCCESS;
}

FAKE_EXPORT const char *nvmlErrorString(nvmlReturn_t rc)
{
	fake_trace(__func__);
	switch (rc) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "Driver/library version mismatch";
	default: return "Unknown Error";
	}
}

/* Answers without nvmlInit, so a failed init still tells the library's version. */
FAKE_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
	fake_trace(__func__);
	return put_str(version, length, fake_box()->nvml);
}

FAKE_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	ENTER();
	return put_str(version, length, fake_box()->driver);
}

FAKE_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	ENTER();
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	*v = fake_box()->cuda;
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
	return nvmlSystemGetCudaDriverVersion_v2(v);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	ENTER();
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = fake_box()->n;
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	ENTER();
	if (!d || i >= fake_box()->n)
		return NVML_ERROR_INVALID_ARGUMENT;
	*d = &fake_box()->gpu[i];
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length)
{
	ENTER();
	if (mig_of(d))
		return put_str(name, length, mig_of(d)->name);
	return dev_ok(d) ? NVML_ERROR_INVALID_ARGUMENT : put_str(name, length, d->name);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length)
{
	ENTER();
	if (mig_of(d))
		return put_str(uuid, length, mig_of(d)->uuid);
	return dev_ok(d) ? NVML_ERROR_INVALID_ARGUMENT : put_str(uuid, length, d->uuid);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
	ENTER();
	if (dev_ok(d) || !pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	pci->domain = d->domain;
	pci->bus = d->bus;
	pci->device = d->device;
	pci->pciDeviceId = d->pci_id;
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", d->domain, d->bus,
		 d->device);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", d->domain, d->bus, d->device);
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t d, int *brand)
{
	ENTER();
	if (dev_ok(d) || !brand)
		return NVML_ERROR_INVALID_ARGUMENT;
	*brand = d->brand;
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor)
{
	ENTER();
	if (dev_ok(d) || !major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	*major = d->cc_major;
	*minor = d->cc_minor;
	return NVML_SUCCESS;
}

/* v2: used excludes the reserved memory, which is reported on its own. */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
	ENTER();
	if (!fake_box()->mem_v2)
		return NVML_ERROR_FUNCTION_NOT_FOUND; /* as an old driver's stub entry does */
	if (dev_ok(d) || !m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (m->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	m->total = d->total_mib * MIB;
	m->reserved = d->reserved_mib * MIB;
	m->used = d->used_mib * MIB;
	m->free = m->total - m->reserved - m->used;
	return NVML_SUCCESS;
}

/* v1: used includes the reserved memory. */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	ENTER();
	if (mig_of(d) && m) {
		m->total = mig_of(d)->total_mib * MIB;
		m->used = 0;
		m->free = m->total;
		return NVML_SUCCESS;
	}
	if (dev_ok(d) || !m)
		return NVML_ERROR_INVALID_ARGUMENT;
	m->total = d->total_mib * MIB;
	m->used = (d->reserved_mib + d->used_mib) * MIB;
	m->free = m->total - m->used;
	return NVML_SUCCESS;
}

static nvmlReturn_t put_mode(nvmlDevice_t d, int v, unsigned int *a, unsigned int *b)
{
	if (dev_ok(d) || !a)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (v == UNSUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	*a = (unsigned int)v;
	if (b)
		*b = (unsigned int)v;
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	ENTER();
	return put_mode(d, dev_ok(d) ? 0 : d->mig, cur, pend);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d, unsigned int *mode)
{
	ENTER();
	return put_mode(d, dev_ok(d) ? 0 : d->persistence, mode, NULL);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, unsigned int *mode)
{
	ENTER();
	return put_mode(d, dev_ok(d) ? 0 : d->compute_mode, mode, NULL);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	ENTER();
	return put_mode(d, dev_ok(d) ? 0 : d->ecc_mode, cur, pend);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter,
						     unsigned long long *n)
{
	ENTER();
	if (dev_ok(d) || !n || type < 0 || type > 1 || counter < 0 || counter > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->ecc_mode != 1)
		return NVML_ERROR_NOT_SUPPORTED;
	/* type 1: uncorrected; counter 0: volatile, 1: aggregate */
	*n = type == 0 ? 0
		       : (unsigned long long)(counter == 0 ? d->ecc_volatile : d->ecc_aggregate);
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, unsigned int *p)
{
	ENTER();
	return put_mode(d, dev_ok(d) ? 0 : d->retired_pending, p, NULL);
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr,
						   unsigned int *unc, unsigned int *pending,
						   unsigned int *failure)
{
	ENTER();
	if (dev_ok(d) || !corr || !unc || !pending || !failure)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->remap_pending == UNSUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	*corr = *unc = 0;
	*pending = (unsigned int)d->remap_pending;
	*failure = (unsigned int)d->remap_failure;
	return NVML_SUCCESS;
}

/* ---- MIG instances, the recovery action, retired pages (probe) -------- */

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count)
{
	ENTER();
	if (dev_ok(d) || !count)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->mig != 1)
		return NVML_ERROR_NOT_SUPPORTED;
	*count = 7;
	return NVML_SUCCESS;
}

/* Instances at indices 0 and 3: the gaps answer NVML_ERROR_NOT_FOUND. */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int i,
							     nvmlDevice_t *mig)
{
	const void *p;

	ENTER();
	if (dev_ok(d) || !mig || d->mig != 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((i != 0 && i != 3) || fake_mode() == FM_MIGEMPTY)
		return 6; /* NVML_ERROR_NOT_FOUND */
	p = &fake_migs[i == 0 ? 0 : 1];
	*mig = p;
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id)
{
	ENTER();
	if (!mig_of(d) || !id)
		return NVML_ERROR_INVALID_ARGUMENT;
	*id = mig_of(d)->gi;
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id)
{
	ENTER();
	if (!mig_of(d) || !id)
		return NVML_ERROR_INVALID_ARGUMENT;
	*id = mig_of(d)->ci;
	return NVML_SUCCESS;
}

typedef struct {
	unsigned int fieldId, scopeId;
	long long timestamp, latencyUsec;
	int valueType;
	nvmlReturn_t nvmlReturn;
	union {
		double d;
		unsigned int ui;
		unsigned long long ull;
	} value;
} nvmlFieldValue_t;

/* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (230): none, except "ecc"'s GPU 1,
 * which needs a reset. Other fields are not supported here. */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t *v)
{
	int i;

	ENTER();
	if (dev_ok(d) || !v || n < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < n; i++) {
		v[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
		if (v[i].fieldId != 230)
			continue;
		v[i].nvmlReturn = NVML_SUCCESS;
		v[i].valueType = 1;
		v[i].value.ui = d->ecc_aggregate > 0 ? 1 : 0;
	}
	return NVML_SUCCESS;
}

/* cause 0: multiple single-bit errors, 1: double-bit. Pages retire only
 * before Ampere: NOT_SUPPORTED elsewhere, like the real driver. */
FAKE_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int *count,
						   unsigned long long *addresses)
{
	unsigned int have;

	ENTER();
	if (dev_ok(d) || !count || cause < 0 || cause > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->retired_pending == UNSUPPORTED)
		return NVML_ERROR_NOT_SUPPORTED;
	have = cause == 1 ? (unsigned)d->ecc_aggregate : 0;
	if (*count < have) {
		*count = have;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = have;
	(void)addresses;
	return NVML_SUCCESS;
}
