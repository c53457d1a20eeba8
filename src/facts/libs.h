/* facts/libs: what `import torch` will really load, as the library probe
 * (probe/stack/libs.h) learned it from files alone: every library with the
 * loader rule that found it, its version, owner and other copies on disk, the
 * ones that cannot be found, torch's and the extensions' device code, the
 * extensions' ABI against libtorch, JAX and TensorFlow builds. Everything
 * lives in the facts' arena; unknown stays NULL. */
#ifndef CD_FACTS_LIBS_H
#define CD_FACTS_LIBS_H

#include <stddef.h>
#include <stdint.h>

#include "facts/facts.h"
#include "facts/stack.h"

/* How a library entered the process. */
enum libs_how {
	LIBS_HOW_PROGRAM = 0, /* the Python program itself */
	LIBS_HOW_NEEDED,      /* DT_NEEDED of an object already loaded */
	LIBS_HOW_LD_PRELOAD,  /* LD_PRELOAD or /etc/ld.so.preload */
	LIBS_HOW_IMPORT,      /* loaded by path by torch/__init__.py (global deps, _C) */
	LIBS_HOW_PRELOAD,     /* torch/__init__.py's preload of a site-packages copy */
	LIBS_HOW_DLOPEN	      /* dlopen at run time (data/dlopen_libs.tsv) */
};

const char *libs_how_name(enum libs_how h);

struct cd_lib_copy {
	const char *path;	    /* in-root, links resolved */
	const char *version;	    /* NULL when unknown */
	const char *version_source; /* "file-name" | "wheel" */
	const char *owner;	    /* "nvidia-cudnn-cu13 9.19.0.56", "torch 2.11.0", NULL */
};

struct cd_lib_item {
	const char *name;     /* as requested: "libcudnn.so.9", or a path */
	const char *soname;   /* DT_SONAME, NULL if none */
	const char *path;     /* as the loader names it */
	const char *realpath; /* links resolved; NULL when unknown */
	const char *rule;     /* ldr_rule_name(): "rpath", "runpath", "ld_library_path", ... */
	enum libs_how how;
	const char *requested_by; /* path of the requesting object; NULL for the program */
	const char *tag_from;	  /* rpath/runpath: the object whose tag matched */
	const char *when;	  /* run-time loads: what triggers them */
	int cuda;		  /* an NVIDIA library: version, owner and copies are looked up */
	const char *version, *version_source, *owner;
	size_t n_copies;
	struct cd_lib_copy *copies; /* other copies on disk, not the one loaded */
	/* Set when another file won over the copy the requester ships with. */
	const char *intended;	      /* that copy; NULL when the loaded one is intended */
	const char *intended_version; /* its version */
	const char *intended_by;      /* "RUNPATH of /x/libcudnn.so.9", "the caller's directory" */
	const char *shadow_by;	      /* what made the loaded one win */
	const char *shadow_entry;     /* the LD_LIBRARY_PATH entry that won, else NULL */
	int mixed; /* a sub-library from outside its caller's directory (same_dir rows) */
	const char *caller_version; /* for mixed: the caller's version */
};

struct cd_lib_missing {
	const char *name;
	const char *requested_by;
	enum libs_how how;
	const char *error;
	const char *when;
	int optional; /* the caller copes without it */
	int driver;   /* libcuda.so.1, libnvidia-*: the driver checks own them */
	size_t n_copies;
	struct cd_lib_copy *copies; /* copies on disk that no rule of the loader reaches */
};

/* Device code of one file: FATBIN_KEYs (arch * 4 + variant), sorted. */
struct cd_archset {
	int known; /* a .nv_fatbin was read (0: none, or unreadable) */
	size_t n_sass, n_ptx;
	uint32_t *sass, *ptx;
	uint64_t containers; /* fatbin containers in the section */
	uint64_t sampled;    /* containers whose entries were read */
	const char *error;   /* the walk stopped early (what was read stays) */
};

/* A torch wheel read without installing it (`fix --wheel FILE`,
 * probe/stack/wheel.c): its version and the device code of its
 * torch/lib/libtorch_cuda.so. */
struct cd_torch_wheel {
	const char *path;
	const char *version; /* "2.11.0+cu130": the wheel's METADATA, else its file name */
	const char *variant; /* "cu130": the local version; NULL for a wheel without one */
	const char *member;  /* the zip member whose fatbin was read */
	struct cd_archset arch;
	const char *error; /* why the wheel or its fatbin could not be read */
};

#define LIBS_ABI_SHOWN 8

struct cd_ext {
	const char *path;    /* in-root path of the .so */
	const char *package; /* owning distribution (PEP 503 name), NULL when unknown */
	const char *version;
	int links_torch; /* DT_NEEDED names libtorch* / libc10* */
	int has_fatbin;
	struct cd_archset arch;
	int abi_checked;
	size_t n_torch_imports; /* undefined torch symbols it imports */
	size_t n_missing;	/* of those, not exported by the installed torch */
	const char *missing[LIBS_ABI_SHOWN];
	const char *error; /* unreadable ELF, ... */
};

struct cd_jax_plugin {
	const char *name, *version;
	int cuda_major; /* 12 for jax-cuda12-plugin; 0 unknown */
	size_t n_pins;
	const char **pins; /* its nvidia-* Requires-Dist */
};

struct cd_jax_facts {
	int installed;
	const char *jax, *jaxlib;
	int cuda_major; /* of the plugins (or jaxlib's +cudaNN local version); 0 unknown */
	size_t n_plugins;
	struct cd_jax_plugin *plugins;
};

struct cd_tf_facts {
	int installed;
	const char *package; /* "tensorflow", "tensorflow-cpu", "tf-nightly" */
	const char *version;
	const char *build_info; /* path of build_info.py, NULL when missing */
	const char *cuda_version, *cudnn_version;
	enum cd_tri is_cuda_build;
	size_t n_caps;
	const char **caps;
	size_t n_pins;
	const char **pins;
	const char *problem;
};

#define LIBS_EXT_MAX 128

struct cd_libs_facts {
	int torch;		   /* torch is installed: the sections below are meaningful */
	const char *resolved_from; /* torch/_C*.so */
	const char *program;	   /* the Python executable used as the program; NULL: _C itself */
	const char *problem;	   /* why nothing was resolved */
	const char *ld_library_path, *ld_preload; /* as used (NULL unset) */
	size_t n_items;
	struct cd_lib_item *items;
	size_t n_missing;
	struct cd_lib_missing *missing;
	int truncated; /* a loader cap was hit */
	/* What torch will really load (from the resolved files). */
	const struct cd_lib_item *cudnn, *nccl, *cudart;
	/* torch's device code: libtorch_cuda.so's fatbin */
	const char *torch_cuda_lib;
	struct cd_archset torch_arch;
	/* CUDA extensions in site-packages */
	size_t n_ext;
	struct cd_ext *ext;
	size_t ext_files; /* .so files examined */
	int ext_truncated;
	struct cd_jax_facts jax;
	struct cd_tf_facts tf;
	int deep; /* check --deep: full fatbin walks, no caps on extensions */
	int64_t us_load, us_copies, us_arch, us_ext, us_abi; /* not in JSON */
	/* Peak resident set in KB after each stage (VmHWM, cumulative); CD_UNK
	 * where /proc/self cannot say. Not in JSON: printed with -v. */
	int64_t kb_load, kb_copies, kb_arch, kb_ext, kb_abi;
};

/* The library facts, or NULL when not probed. */
const struct cd_libs_facts *libs_facts(const struct cd_facts *f);

#endif
