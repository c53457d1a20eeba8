/* facts/jit: what `cuda-doctor jit` learned about building a CUDA extension
 * here (probe/jit/jit.h): the toolkit torch would pick and its files, the
 * host compilers, ninja, the Python environment (Python.h, torch, DeepSpeed),
 * TORCH_CUDA_ARCH_LIST and the GPUs, the torch extensions cache, and the
 * smoke build of --compile. Strings live in the facts' arena; unknown is
 * NULL / CD_TRI_UNKNOWN / -1. */
#ifndef CD_FACTS_JIT_H
#define CD_FACTS_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "facts/facts.h"
#include "format/archlist.h"
#include "format/jitparse.h"

#define JIT_ELSEWHERE_MAX 8
#define JIT_FILES_MAX	  32
#define JIT_GPUS_MAX	  64
#define JIT_CACHE_MAX	  64
#define JIT_DS_OPS_MAX	  64
#define JIT_OTHERS_MAX	  8

/* A header or link library a build of the ops needs from the toolkit: a view
 * of the toolkit probe's inventory (struct cd_header of the selected toolkit
 * and of the other places), filled by probe/jit/jit_toolkit.c. */
struct jit_file {
	const char *name; /* "cusparse.h", "libcurand.so" */
	int is_lib;
	enum cd_tri present;
	const char *path; /* in-root path where the build will find it */
	const char *note; /* e.g. only the versioned libcurand.so.10 exists */
	size_t n_elsewhere;
	const char *elsewhere[JIT_ELSEWHERE_MAX]; /* its copy in each other place on disk */
};

struct jit_toolkit {
	const char *cuda_home; /* torch's CUDA_HOME (the toolkit probe's choice); NULL: None */
	const char *via;       /* its found_via: CUDA_HOME | CUDA_PATH | PATH | default; "none"
				  without a CUDA_HOME; NULL for one that is no toolkit directory */
	const char *reason;    /* the toolkit probe's selected_reason */
	const char *nvcc_on_path;
	enum cd_tri home_exists;
	const char *nvcc; /* CUDA_HOME/bin/nvcc when it exists */
	const char *nvcc_version;
	const char *nvcc_version_source; /* version.json | version.txt | dist-info | cuda.h | nvcc
					    --version */
	int nvcc_major, nvcc_minor;
	const char *include_dir; /* CUDA_HOME/include */
	const char *lib_dir;	 /* CUDA_HOME/lib64, else lib (torch's rule) */
	size_t n_files;
	struct jit_file files[JIT_FILES_MAX];
	size_t n_others;
	const char *others[JIT_OTHERS_MAX]; /* other toolkit roots on disk (with bin/nvcc) */
	const char *others_version[JIT_OTHERS_MAX];
};

struct jit_compiler {
	const char *role;    /* "nvcc host compiler" | "C++ compiler" */
	const char *command; /* as configured: the CC value, "gcc", "c++" */
	const char *via; /* CC | NVCC_PREPEND_FLAGS | NVCC_APPEND_FLAGS | NVCC_CCBIN | PATH | CXX */
	const char *path;   /* resolved in-root path; NULL when not found */
	const char *family; /* gcc | clang | NULL */
	const char *version;
	const char *version_source; /* -dumpfullversion | file name */
	int major;
};

struct jit_ds_op {
	const char *name;
	int installed; /* prebuilt into the wheel (installed_ops) */
};

/* The stack probe's facts (f->stack->python, ->torch) as a build needs them. */
struct jit_python {
	const char *prefix;
	const char *kind; /* python.kind: venv | uv | conda | system */
	const char *via;  /* python.found_via: --env | VIRTUAL_ENV | CONDA_PREFIX | PATH | pyenv */
	const char *version; /* python.version_short: "3.12" */
	const char *version_source;
	const char *site_packages; /* the site directory torch imports from, else the env's */
	const char *python_h;
	size_t n_searched;
	const char *const *searched; /* python.python_h_searched */
	enum cd_tri torch_present;
	const char *torch_version;
	const char *torch_cuda; /* torch.version.cuda; NULL with torch_cpu_only */
	int torch_cpu_only;
	const char *torch_include; /* torch/include when ATen/cuda/CUDAContext.h is there */
	int64_t torch_mtime;	   /* of torch/version.py (when torch was installed); CD_UNK */
	enum cd_tri ds_present;
	const char *ds_version;
	const char *ds_torch_cuda;    /* torch_info['cuda_version'] of prebuilt ops */
	const char *ds_torch_version; /* torch_info['version'] */
	size_t n_ds_ops;
	struct jit_ds_op ds_ops[JIT_DS_OPS_MAX];
	int ds_minor_ok_known;
	uint32_t ds_minor_ok_majors; /* bit N: cuda_minor_mismatch_ok has major N */
	enum cd_tri ninja_module;    /* the `ninja` Python package DeepSpeed imports */
	enum cd_tri cutlass_library; /* nvidia-cutlass (DS_USE_CUTLASS_PYTHON_BINDINGS) */
};

struct jit_ninja {
	const char *path;    /* first ninja on PATH */
	const char *env_bin; /* <env>/bin/ninja when it exists */
};

struct jit_gpu {
	int major, minor;
	const char *name;
};

struct jit_arch {
	const char *raw; /* TORCH_CUDA_ARCH_LIST, NULL when unset */
	int use_gpus;	 /* unset, empty or "native": torch uses the visible GPUs */
	int rc;		 /* 0; CD_EFORMAT: torch rejects an entry; CD_ERANGE: too long to parse */
	char bad[ARCHLIST_ENTRY_MAX]; /* the first entry torch rejects */
	size_t n;
	struct archlist_entry entries[ARCHLIST_MAX_ENTRIES]; /* format/archlist, torch's tables */
	const char *gpus_via; /* driver | --gpu-cc | none | unknown */
	size_t n_gpus;
	struct jit_gpu gpus[JIT_GPUS_MAX];
};

enum jit_cache_kind {
	JIT_C_OTHER_BUILD, /* pyXY_cuZZZ folder for another Python or CUDA */
	JIT_C_HALF_BUILT,  /* build.ninja without the .so */
	JIT_C_LOCK,	   /* a lock file left behind */
	JIT_C_LOCK_DIR,	   /* `lock` is a directory: torch's baton can never be taken */
	JIT_C_FOREIGN,	   /* flat layout: build.ninja names another nvcc or Python */
	JIT_C_OLDER	   /* the .so predates the installed torch: may not load */
};

struct jit_cache_item {
	enum jit_cache_kind kind;
	const char *path;
	const char *detail;
	int64_t age_s; /* CD_UNK when unknown */
};

/* A lock older than this (or of unknown age, or a `lock` directory) was left
 * by a build that died; a younger one may belong to a build running now. */
#define JIT_LOCK_STALE_S (30 * 60)
static inline int jit_lock_stale(const struct jit_cache_item *it)
{
	return it->kind == JIT_C_LOCK_DIR ||
	       (it->kind == JIT_C_LOCK && (it->age_s == CD_UNK || it->age_s >= JIT_LOCK_STALE_S));
}

struct jit_cache {
	const char *root;
	const char *via;    /* TORCH_EXTENSIONS_DIR | XDG_CACHE_HOME | HOME */
	const char *active; /* the folder torch uses now */
	enum cd_tri exists;
	size_t n_builds; /* extension folders seen */
	size_t n;
	struct jit_cache_item items[JIT_CACHE_MAX];
	int truncated;
};

/* Variables that steer a JIT build, as the probe saw them (NULL: unset). */
struct jit_env {
	const char *cuda_home, *cuda_path, *cc, *cxx, *cudahostcxx, *nvcc_ccbin, *nvcc_prepend,
		*nvcc_append, *path, *arch_list, *ext_dir, *xdg_cache, *home, *cutlass_path,
		*ds_skip_cuda_check, *dont_check_abi, *library_path, *virtual_env, *conda_prefix,
		*tmpdir;
};

/* A versioned compiler found in /usr/bin or /usr/local/bin (gcc-13, clang-18). */
struct jit_alt_compiler {
	const char *path;
	const char *family;
	int major;
};

#define JIT_ALT_MAX 16

struct cd_jit_facts {
	struct jit_env env;
	struct jit_toolkit tk;
	struct jit_compiler host; /* the compiler nvcc runs (-ccbin) */
	struct jit_compiler cxx;  /* torch's C++ compiler for .cpp sources and linking */
	struct jit_python py;
	struct jit_ninja ninja;
	struct jit_arch arch;
	struct jit_cache cache;
	size_t n_alt;
	struct jit_alt_compiler alt[JIT_ALT_MAX];
	enum cd_tri cutlass_ok;	     /* evoformer_attn's CUTLASS_PATH check */
	const char *cutlass_note;    /* why not, or what was found */
	const char *os_id, *os_like; /* /etc/os-release, for package-manager fixes */
	const char *arch_triple;     /* "x86_64-linux" target folder name */
};

/* The smoke build of `jit --compile` (probe/jit/jit_smoke.h). */
#define JIT_SMOKE_DIAGS_MAX 8

struct jit_smoke {
	int ran;
	const char *status; /* ok | compile-failed | link-failed | load-failed | run-failed |
			       timeout | skipped | setup-failed */
	const char *stage;  /* compile | link | load | run: where it stopped */
	const char *detail; /* why it was skipped / what the child said */
	long compile_ms, link_ms, load_ms;
	const char *compile_cmd;
	const char *link_cmd;
	const char *arch_flags; /* the -gencode flags used, "" for nvcc's default */
	const char *arch_note;	/* why nvcc's default arch was used */
	int with_torch_headers;
	const char *log; /* the failing step's output (tail) */
	size_t n_diags;
	struct jp_diag diags[JIT_SMOKE_DIAGS_MAX];
	enum cd_tri loaded;
	enum cd_tri kernel_ran;
	const char *versions; /* "cudart 13000, cusparse 12.6.3, cublas 13.1.0, curand 10400" */
	const char *tmpdir;
	enum cd_tri cleaned;
};

#endif
