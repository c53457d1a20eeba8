/* facts/live: what `cuda-doctor probe` learned by running the real CUDA path
 * on each GPU (probe/live/): every step's result with its CUresult, timings,
 * bandwidths, the JIT log, the peer matrix, NCCL, MIG instances, Xid events
 * and recovery state. Everything lives in the facts' arena; f->live is NULL
 * when nothing was probed. Unknown numbers are CD_UNK, unknown strings NULL. */
#ifndef CD_FACTS_LIVE_H
#define CD_FACTS_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "facts/facts.h"

/* How one step ended. hung and failed are different results. */
enum cd_live_result {
	CD_LIVE_NOT_RUN = 0, /* not reached: an earlier step failed, or the time ran out */
	CD_LIVE_PASSED,
	CD_LIVE_FAILED,	 /* an error code, or wrong data */
	CD_LIVE_HUNG,	 /* no end within its deadline: the child was killed */
	CD_LIVE_SKIPPED, /* not supported here, or not asked for */
	CD_LIVE_CRASHED	 /* the child died from a signal during the step */
};

const char *live_result_name(enum cd_live_result r);
/* How bad a result is: passed and skipped 0, not-run 1, failed 2, hung 3,
 * crashed 4. */
int live_result_rank(enum cd_live_result r);

/* The steps of one device's probe, in the order they run. */
enum cd_live_step_id {
	CD_LSTEP_LOAD = 0,  /* dlopen libcuda.so.1 */
	CD_LSTEP_INIT,	    /* cuInit */
	CD_LSTEP_DEVICE,    /* cuDeviceGet and the device's attributes */
	CD_LSTEP_CONTEXT,   /* the primary context */
	CD_LSTEP_MEMINFO,   /* cuMemGetInfo */
	CD_LSTEP_ALLOC,	    /* device and pinned host buffers, a stream, events */
	CD_LSTEP_COPY,	    /* a pattern written, read back and compared byte for byte */
	CD_LSTEP_MODULE,    /* the embedded PTX JIT-compiled by the driver */
	CD_LSTEP_LAUNCH,    /* kernels launched, their output verified */
	CD_LSTEP_BANDWIDTH, /* pinned host <-> device copies timed */
	CD_LSTEP_MEMTEST,   /* --full: a pattern over a large share of free memory */
	CD_LSTEP_COMPUTE,   /* --full: an integer loop on every SM, verified */
	CD_LSTEP_N
};

/* "load", "init", ... (the record keys and JSON names) */
const char *live_step_name(enum cd_live_step_id s);
/* the main driver call of a step, for people: "cuInit" */
const char *live_step_call(enum cd_live_step_id s);
/* the id of a name, or -1 */
int live_step_id(const char *name);

struct cd_live_step {
	enum cd_live_result result;
	int64_t rc;	     /* the CUresult (or NCCL result) when one was returned; CD_UNK */
	const char *rc_name; /* "CUDA_ERROR_NO_DEVICE" */
	const char *error;   /* the library's text, or what was wrong with the data */
	const char *call;    /* the call that failed, or that was running when it hung */
	int64_t us;	     /* how long it took (until killed, for hung); CD_UNK */
	int64_t signal;	     /* crashed: the signal; CD_UNK */
};

/* One device probed by one child: a whole GPU or a MIG instance. */
struct cd_live_device {
	const char *label;    /* "GPU 0", "GPU 0 MIG 1" */
	int64_t ordinal;      /* the device number a CUDA program here sees */
	const char *uuid;     /* NVML's GPU- or MIG- UUID it was chosen by; NULL */
	const char *cvd;      /* CUDA_VISIBLE_DEVICES in its child; NULL when inherited */
	int64_t nvml_index;   /* the physical GPU in NVML's order; CD_UNK */
	int is_mig;	      /* a MIG instance */
	int64_t gi, ci;	      /* MIG: GPU and compute instance ids; CD_UNK */
	const char *lib_path; /* the libcuda its child loaded */
	size_t n_absent;
	const char **absent; /* optional driver API functions that library lacks */
	/* what the driver API says */
	const char *name, *cuda_uuid, *pci_bus_id;
	int64_t cc_major, cc_minor, sm_count, clock_khz, mem_clock_khz, bus_width_bits;
	int64_t compute_mode, ecc_enabled;
	int64_t total_bytes, free_bytes;
	/* the steps and their measurements */
	struct cd_live_step steps[CD_LSTEP_N];
	enum cd_live_result result; /* the worst of its steps */
	const char *stage;	    /* the last step the child announced */
	int64_t wall_us;	    /* fork to exit of the child */
	int killed_at_timeout;	    /* killed at the probe's --timeout, not a step's own deadline */
	int64_t alloc_bytes;	    /* the quick test's buffers */
	int64_t jit_wall_us;	    /* CU_JIT_WALL_TIME as the driver measured it */
	int64_t kernel_rtt_us;	    /* best launch-to-completion of a one-block kernel */
	int64_t launch_us;	    /* the verified fill over alloc_bytes */
	int64_t h2d_bps, d2h_bps;   /* pinned copies, bytes per second */
	int64_t memtest_bytes, memtest_bps, memtest_errors;
	int64_t compute_iters, compute_threads, compute_us;
	size_t n_jit_log;
	const char **jit_log; /* the driver's JIT info and error log, line by line */
};

/* One ordered pair of devices. */
struct cd_live_peer {
	size_t from, to;	  /* indices into cd_live_facts.devices */
	enum cd_tri access;	  /* cuDeviceCanAccessPeer */
	int64_t perf_rank;	  /* CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK */
	enum cd_tri atomics;	  /* CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED */
	struct cd_live_step copy; /* a verified peer copy, when access is reported */
	int64_t bps;
};

struct cd_live_peers {
	struct cd_live_step step; /* the peer child: skipped (why in .error) with one device */
	size_t n;
	struct cd_live_peer *pairs;
};

struct cd_live_nccl {
	int requested;
	const char *path;     /* the libnccl.so.2 loaded (or looked for) */
	const char *source;   /* "torch" (what import torch loads), "--nccl-lib", "loader" */
	const char *version;  /* "2.27.3" */
	int64_t version_code; /* ncclGetVersion: 22703 */
	struct cd_live_step load, init, allreduce;
	int64_t ranks, count; /* communicator size; int32 elements reduced */
	int64_t allreduce_us, bus_bps;
};

/* A MIG instance (a GPU instance with one compute instance) NVML lists. */
struct cd_live_mig {
	const char *uuid; /* "MIG-..." */
	const char *name; /* "NVIDIA A100-SXM4-80GB MIG 1g.10gb" */
	int64_t gi, ci, memory_bytes;
};

/* A physical GPU as NVML sees it, for MIG and the recovery state. */
struct cd_live_gpu {
	int64_t index;
	const char *uuid, *name, *pci_bus_id;
	enum cd_tri mig_enabled;
	size_t n_mig;
	struct cd_live_mig *migs;
	int64_t recovery_action; /* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION; CD_UNK */
	int64_t retired_sbe, retired_dbe;
	enum cd_tri retired_pending;
	int64_t remap_corr, remap_unc;
	enum cd_tri remap_pending, remap_failure;
};

/* One Xid line of the kernel log. */
struct cd_live_xid {
	int64_t xid;
	const char *pci;  /* "0000:18:00" as the driver printed it */
	const char *text; /* the rest of the line */
	int64_t ts_us;	  /* since boot; CD_UNK */
	int64_t gpu;	  /* index into cd_live_facts.gpus by PCI address; CD_UNK */
	int during_probe; /* logged while this probe ran */
};

struct cd_live_xids {
	const char *source; /* "/dev/kmsg" */
	int readable;
	const char *error; /* why it could not be read */
	int truncated;	   /* more lines than were kept */
	size_t n;
	struct cd_live_xid *items;
};

struct cd_live_facts {
	int full;		       /* --full */
	int64_t timeout_ms;	       /* the whole probe's bound */
	const char *devices_opt;       /* --devices */
	const char *cvd;	       /* CUDA_VISIBLE_DEVICES as given; NULL when unset */
	const char *cvd_note;	       /* how it was read (entries ignored, ...) */
	const char *enumerated_by;     /* "nvml" or "cuda" */
	struct cd_live_step nvml;      /* the NVML query for MIG and recovery state */
	struct cd_live_step enumerate; /* the CUDA enumeration child, when NVML could not */
	int64_t cuda_count;	       /* cuDeviceGetCount there; CD_UNK */
	size_t n_devices;
	struct cd_live_device *devices;
	size_t n_gpus;
	struct cd_live_gpu *gpus;
	struct cd_live_peers peers;
	struct cd_live_nccl nccl;
	struct cd_live_xids xids;
	int timed_out; /* the probe's --timeout ran out */
	int64_t wall_us;
	int64_t peak_rss_kb; /* of the parent; CD_UNK */
};

/* A zeroed live-facts tree with every number unknown, in f->arena; NULL
 * when memory runs out. */
CD_WUR struct cd_live_facts *live_facts_new(struct cd_arena *a);
void live_step_init(struct cd_live_step *s);
/* Set up n devices (numbers unknown, steps not run); -1 when out of memory. */
CD_WUR int live_devices_alloc(struct cd_live_facts *lf, struct cd_arena *a, size_t n);
/* The worst result among a device's steps. */
enum cd_live_result live_device_worst(const struct cd_live_device *d);

#endif
