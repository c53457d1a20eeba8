/* facts: the one tree of facts that probes fill, checks read and the JSON
 * renderer prints. Every string and array lives in facts->arena and is freed
 * by facts_free; probes never print. Unknown is explicit: a NULL string, the
 * CD_UNK number, CD_TRI_UNKNOWN, or a NULL array with its `known` flag clear,
 * all of which render as JSON null. */
#ifndef CD_FACTS_H
#define CD_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/file.h"

#define CD_UNK INT64_MIN

enum cd_tri { CD_TRI_UNKNOWN = -1, CD_TRI_NO = 0, CD_TRI_YES = 1 };

/* How a live driver query ended. */
enum cd_probe_status {
	CD_PROBE_NOT_RUN = 0, /* not attempted (e.g. --root without --nvml-lib) */
	CD_PROBE_OK,
	CD_PROBE_LIB_MISSING, /* dlopen failed: no driver library */
	CD_PROBE_INIT_FAILED, /* library loaded, initialisation returned an error */
	CD_PROBE_TIMEOUT,     /* the isolated child did not answer in time */
	CD_PROBE_CRASHED      /* the isolated child died from a signal */
};

const char *probe_status_name(enum cd_probe_status s);

/* One driver library as it was loaded (or not). */
struct cd_driver_lib {
	const char *requested;	     /* soname or --nvml-lib/--cuda-lib path */
	const char *path;	     /* the file actually loaded; NULL if none */
	enum cd_probe_status status; /* of this library alone */
	int64_t rc;		     /* init/query return code, CD_UNK if none */
	const char *error;	     /* dlerror() or the library's error string */
	enum cd_tri is_stub;	     /* a toolkit stub (lib64/stubs) was loaded */
	const char *loaded_as;	     /* the name the loader found (link map l_name) */
	const char *file_version;    /* "580.159.04" from a file named lib*.so.580.159.04 */
	const char *stage;	     /* the call in progress when it timed out or crashed */
	size_t n_absent;
	const char **absent; /* optional symbols the library does not export */
	int64_t query_us;    /* wall time of the isolated query; CD_UNK; not in JSON */
};

struct cd_driver_facts {
	enum cd_probe_status status;	   /* overall: worst of the two libraries */
	const char *version;		   /* "580.159.04" (NVML) */
	const char *cuda_version;	   /* "13.0" (cuDriverGetVersion) */
	int64_t cuda_version_int;	   /* 13000 */
	const char *nvml_version;	   /* "13.580.159.04" */
	const char *kernel_module_version; /* from /proc/driver/nvidia/version */
	/* /sys/module/nvidia/version: the loaded module's version as the kernel
	 * states it (what uv reads first); not in JSON, version_source says
	 * "sys-module" when the driver version came from it. */
	const char *sys_module_version;
	struct cd_driver_lib nvml;
	struct cd_driver_lib cuda;
	int64_t timeout_ms;
	int64_t signal; /* signal that killed the child, CD_UNK if none */

	/* Provenance and context recorded by the driver probe. */
	const char *version_source;	 /* "nvml" | "sys-module" | "kernel-module" | ... */
	const char *cuda_version_source; /* "cuDriverGetVersion" | "nvml" */
	const char *kernel_module_type;	 /* "open" | "proprietary" (from /proc) */
	/* CUDA_VISIBLE_DEVICES as the driver probe saw it, for checks to fall
	 * back on when the env probe has not recorded it (not rendered). */
	const char *cuda_visible_devices;
	int cuda_visible_devices_set;
	const char *ld_library_path; /* likewise: the search path the loader used */
	int64_t gpu_count;	     /* what NVML reported, before any cap; CD_UNK */
};

struct cd_gpu {
	int64_t index;
	const char *name;
	const char *uuid;
	const char *pci_bus_id;
	const char *compute_capability; /* "9.0" */
	int64_t cc_major, cc_minor;
	int64_t memory_total_bytes;
	int64_t memory_free_bytes;
	int64_t memory_used_bytes;
	int64_t memory_reserved_bytes;
	const char *mig_mode;	      /* "enabled" | "disabled" | NULL */
	const char *persistence_mode; /* "enabled" | "disabled" | NULL */
	const char *compute_mode;     /* "default" | "exclusive_process" | "prohibited" */
	const char *ecc_mode;	      /* "enabled" | "disabled" | NULL */
	int64_t ecc_volatile_uncorrected;
	int64_t ecc_aggregate_uncorrected;
	enum cd_tri retired_pages_pending;
	enum cd_tri row_remap_pending;
	enum cd_tri row_remap_failure;
	const char *error; /* why the device could not be queried (GPU lost, ...) */
	/* NVML's brand as NVIDIA_REQUIRE_CUDA names it ("nvidia", "tesla",
	 * "geforce"); NULL unknown. Read by the image checks; not in check's JSON. */
	const char *brand;
};

/* A file a CUDA extension build may need from a toolkit: a header, or a link
 * library (-l<name> needs the unversioned lib<name>.so). One per row of
 * data/cuda_dev_files.tsv, in its order, for every toolkit. */
struct cd_header {
	const char *name;    /* "cusparse.h", "libcurand.so" */
	int is_lib;	     /* a link library */
	enum cd_tri present; /* where a torch build sees it: scope include (headers), lib or
			      * linker (libraries) */
	int required;	     /* `check` judges it (the table's check column: required) */
	int listed;	     /* `check` reports it (check column required or info) */
	const char *path;    /* where it was found, NULL if absent */
	/* Where path (or, for a library with no unversioned copy, versioned) is.
	 * Headers: "include" (ROOT/include: every compiler of a torch build sees
	 * it), "targets" (ROOT/targets/<arch>/include: nvcc alone searches it),
	 * "wheel" (another nvidia-* wheel's include: neither does). Libraries:
	 * "lib" (the directory torch links with -L: ROOT/lib64, else ROOT/lib),
	 * "targets" (ROOT/targets/<arch>/lib), "wheel" (a wheel's lib), "linker"
	 * (LIBRARY_PATH or the linker's default directories; the selected
	 * toolkit only). NULL when absent. */
	const char *scope;
	const char *versioned; /* libraries: lib<x>.so.N when no unversioned copy exists */
};

struct cd_toolkit {
	const char *root; /* in-root path, e.g. "/usr/local/cuda-13.0" */
	const char *
		found_via; /* "CUDA_HOME", "CUDA_PATH", "PATH", "default", "glob", "conda", "pip" */
	const char *kind;  /* "system" | "conda" | "pip" */
	const char *version;	    /* "13.0.88" */
	const char *version_source; /* "version.json", "version.txt", "cuda.h" */
	const char *nvcc_path;	    /* in-root path of bin/nvcc, NULL if absent */
	const char *nvcc_version;   /* "13.0.88" (from version.json's cuda_nvcc) */
	const char
		*nvcc_version_source; /* "version.json", "version.txt", "dist-info",
				       * "conda-meta", "dpkg", else the toolkit version's source */
	size_t n_headers;
	struct cd_header *headers; /* the inventory: every file of data/cuda_dev_files.tsv */
	enum cd_tri exists;	   /* the root is a directory (CUDA_HOME may name a missing one) */
	const char *realpath;	   /* canonical in-root path, links resolved; NULL if missing */
	const char *nvcc_target;   /* the nvcc that bin/nvcc links to or a wrapper script execs */
	const char *lib_dir;	   /* ROOT/lib64, else ROOT/lib when only it exists: torch's -L */
	/* Headers asked about besides the inventory (toolkit_probe_headers:
	 * `explain` asks for those its log names), found as the inventory's
	 * are; NULL until asked; not in JSON. */
	size_t n_asked;
	struct cd_header *asked;
};

struct cd_toolkit_facts {
	size_t n;
	struct cd_toolkit *items;
	int64_t selected;	     /* index torch.utils.cpp_extension would use, CD_UNK if none */
	const char *selected_reason; /* why that one */
	const char *cuda_home;	     /* root of the selected toolkit */
	const char *nvcc_version;    /* nvcc version of the selected toolkit */
};

struct cd_host_facts {
	const char *hostname;
	const char *os_id;	/* ID= from os-release */
	const char *os_version; /* VERSION_ID= */
	const char *os_pretty;	/* PRETTY_NAME= */
	const char *kernel;	/* uname release, or /proc/sys/kernel/osrelease */
	const char *arch;	/* "x86_64" */
	const char *glibc_version;
	size_t n_dev_nodes;
	const char **dev_nodes; /* "/dev/nvidia0", "/dev/nvidiactl", ... */
	int dev_nodes_known;
	int64_t shm_size_bytes; /* size of /dev/shm, CD_UNK if unknown */
};

struct cd_container_facts {
	const char *
		kind; /* "docker" | "podman" | "kubernetes" | "containerd" | "none"; NULL unknown */
	const char *evidence; /* what told us */
	const char *nvidia_require_cuda;
	const char *nvidia_visible_devices;
	const char *nvidia_driver_capabilities;
};

struct cd_env_var {
	const char *name;
	const char *value;
	int truncated; /* value longer than the cap; `value` holds its start */
};

struct cd_ldpath_entry {
	const char *path;
	enum cd_tri exists;
	size_t n_libs;
	const char **libs; /* CUDA-related sonames found there, sorted */
	size_t n_majors;
	int64_t *cuda_majors; /* CUDA majors those libraries belong to */
};

struct cd_env_facts {
	size_t n_vars;
	struct cd_env_var *vars; /* the variables that matter, set ones only, sorted */
	int ld_library_path_set;
	size_t n_ld_library_path;
	struct cd_ldpath_entry *ld_library_path;
	size_t n_ld_library_path_empty;	    /* empty entries (mean ".") */
	size_t n_ld_library_path_total;	    /* entries in the variable, empty ones included */
	size_t n_ld_library_path_duplicate; /* entries naming a directory already listed */
	int ld_library_path_truncated;	    /* entries past the scan cap were not examined */
};

/* An image under --root judged against this host (check --host-driver,
 * --image-config): filled by probe/system/image.c; probed 0 otherwise. */
#define CD_IMAGE_LIBS_MAX 16
#define CD_IMAGE_VARS_MAX 16
struct cd_image_lib {
	const char *path;    /* in the image: "/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05" */
	const char *version; /* from the file name: "535.104.05"; NULL unknown */
};

struct cd_image_facts {
	int probed;
	int host_driver;    /* this host's driver was queried for it */
	const char *config; /* --image-config FILE: its Env is the probes' environment */
	size_t n_vars;	    /* the toolkit's variables of the config's Env, in order */
	struct cd_env_var vars[CD_IMAGE_VARS_MAX];
	size_t n_libcuda; /* driver libraries the image brings on the loader's path */
	struct cd_image_lib libcuda[CD_IMAGE_LIBS_MAX];
	size_t n_compat; /* cuda-compat's libcuda.so.X.Y.Z under /usr/local/cuda*\/compat */
	struct cd_image_lib compat[CD_IMAGE_LIBS_MAX];
	const char *compat_forced;    /* where a compat directory is put on the loader's path */
	const char *compat_forced_by; /* "LD_LIBRARY_PATH", "/etc/ld.so.conf.d/x.conf" */
};

struct cd_opts;
struct cd_python_facts;
struct cd_stack_facts;
struct cd_live_facts;

/* How long one probe stage took: `check -v` prints them (not in JSON). */
#define CD_STAGES_MAX 16
struct cd_stage_time {
	const char *name; /* a literal */
	int64_t us;
};

struct cd_facts {
	struct cd_arena arena;
	struct cd_root root;
	const struct cd_opts *opts;
	struct cd_host_facts host;
	struct cd_container_facts container;
	struct cd_driver_facts driver;
	int gpus_known;
	size_t n_gpus;
	struct cd_gpu *gpus;
	struct cd_toolkit_facts toolkit;
	struct cd_env_facts env;
	struct cd_image_facts image;
	/* The Python / PyTorch stack: filled by the stack probes; NULL = not probed. */
	struct cd_stack_facts *stack;
	/* `cuda-doctor probe`'s live GPU test (facts/live.h); NULL = not probed. */
	struct cd_live_facts *live;
	size_t n_stages;
	struct cd_stage_time stages[CD_STAGES_MAX];
};

void facts_init(struct cd_facts *f, const struct cd_opts *opts);
void facts_free(struct cd_facts *f);
/* A variable as recorded in f->env by the env probe (checks use this: they
 * read facts, not the live environment). NULL when unset or not recorded. */
const char *facts_env_var(const struct cd_facts *f, const char *name);
/* Look up a variable of the process environment as the probes see it
 * (tests can inject an environment through opts). NULL when unset. */
const char *facts_getenv(const struct cd_facts *f, const char *name);
/* A monotonic clock in microseconds. */
int64_t facts_clock_us(void);
/* Records stage NAME (a literal) as having run from since_us to now;
 * returns now, the start of the next stage. Past CD_STAGES_MAX, dropped. */
int64_t facts_stage(struct cd_facts *f, const char *name, int64_t since_us);

#endif
