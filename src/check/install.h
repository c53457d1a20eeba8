/* install: which torch to install on this machine, and the command for the
 * environment's installer: every CUDA variant of the release judged against
 * every visible GPU (the fatbin on disk, else data/torch_cuda.tsv) and the
 * driver (kb/compat.h), each rejection with its reason (install.c says the
 * rules). Pure functions of the facts and the data; strings from the arena
 * given. install_choose: 0, or CD_ENOENT when the data has no such release. */
#ifndef CD_CHECK_INSTALL_H
#define CD_CHECK_INSTALL_H

#include <stddef.h>

#include "core/err.h"
#include "facts/facts.h"
#include "facts/libs.h"
#include "kb/compat.h"
#include "kb/torchrel.h"

enum install_verdict {
	INSTALL_DIRECT = 0,	  /* the driver supports its CUDA */
	INSTALL_MINOR,		  /* runs through minor-version compatibility only */
	INSTALL_DRIVER_UNKNOWN,	  /* no driver version to judge it by */
	INSTALL_REJ_DRIVER,	  /* the driver cannot run its CUDA */
	INSTALL_REJ_ARCH,	  /* a GPU has no kernels in it */
	INSTALL_REJ_PTX,	  /* a GPU has only PTX, which this driver cannot JIT */
	INSTALL_REJ_ARCH_UNKNOWN, /* its arch list is neither on disk nor in the data */
	INSTALL_REJ_CUDA	  /* not the CUDA asked for (nvcc's) */
};

enum install_status {
	INSTALL_CHOSEN = 0,   /* a variant runs here as things are */
	INSTALL_NEEDS_DRIVER, /* the chosen variant needs a newer driver (driver_needed) */
	INSTALL_NO_VARIANT    /* no variant of the release has kernels for every GPU */
};

enum install_tool {
	INSTALL_PIP = 0, /* pip of the environment's interpreter */
	INSTALL_UV,	 /* uv pip install --python (a uv venv) */
	INSTALL_UV_ADD,	 /* uv add in the uv project around the venv */
	INSTALL_CONDA,	 /* conda install -p PREFIX (torch from conda, or none yet) */
	INSTALL_PIXI	 /* pixi add in the pixi workspace */
};

struct install_variant {
	struct torchrel_variant v;
	enum install_verdict verdict;
	const char *arch_from;		     /* "the fatbin of FILE", "data/torch_cuda.tsv" */
	const char *archs;		     /* what it holds: "sm_75 sm_80 ... compute_120" */
	const char *why;		     /* the reason for the verdict, one clause */
	char min_driver[COMPAT_DRIVER_MAX];  /* its CUDA's own minimum, "" unknown */
	char minor_floor[COMPAT_DRIVER_MAX]; /* its major's minor-version floor, "" none */
};

/* What the chooser is asked. Every field may be zero. */
struct install_req {
	const char *torch;		    /* --torch 2.x[.y]; NULL: installed, else newest */
	const char *torch_from;		    /* who asked for torch (release_from); "--torch" */
	const struct cd_torch_wheel *wheel; /* --wheel FILE, read */
	int cuda_major, cuda_minor;	    /* > 0: only variants of this CUDA (nvcc's); the
					     * nearest lower minor of the major when none */
	int newest;			    /* ignore the installed release */
};

/* The torch of a release, judged on this machine. */
struct install_pick {
	char release[8];
	struct torchrel_release patch; /* torch, torchvision, torchaudio to pin */
	size_t n;
	struct install_variant variants[TORCHREL_VARIANTS_MAX];
	int chosen;    /* index into variants, -1 none */
	int installed; /* the variant of the installed torch, -1 none */
};

struct install_choice {
	enum install_status status;
	const char *release_from; /* "--torch", "--wheel", "installed", "newest" */
	struct install_pick pick;
	char driver_needed[COMPAT_DRIVER_MAX]; /* NEEDS_DRIVER: the chosen variant's minimum */
	/* Where the release asked cannot run here: the newest release that
	 * does (its chosen variant runs as things are); alt.chosen -1 when none. */
	struct install_pick alt;
	/* The machine as the chooser saw it. */
	const char *driver;	   /* version, NULL unknown */
	const char *driver_source; /* its fact source ("nvml", "sys-module", ...) */
	int driver_cuda;	   /* X.Y as 13000; -1 unknown */
	size_t n_gpus;		   /* visible GPUs judged (0: unknown or none) */
	int low_major, low_minor;  /* the lowest compute capability, as a pair */
	int ccs[16];		   /* distinct compute capabilities, major * 10 + minor */
	size_t n_ccs;
	enum install_tool tool;
	const char *python; /* the interpreter the command installs into */
	const char *line;   /* the command for the chosen variant; NULL none */
	const char *alt_line;
	const char *label; /* "runs through minor-version compatibility: ..." or NULL */
};

CD_WUR int install_choose(const struct cd_facts *f, const struct install_req *req,
			  struct cd_arena *a, struct install_choice *out);
/* install_cmd.c: the command that installs variant v of pick p with the environment's
 * installer (install_choose fills out->line with it). */
const char *install_cmd_line(const struct cd_facts *f, const struct install_choice *c,
			     const struct install_pick *p, const struct torchrel_variant *v,
			     struct cd_arena *a);
/* install_cmd.c: JAX's line for this machine (`--for jax`): jax[cudaNN] of the
 * CUDA major the driver supports (JAX JIT-compiles its kernels, so the
 * driver must support the wheels' CUDA itself), with the environment's pip
 * or uv; NULL when the driver's CUDA is unknown or older than 12. */
const char *install_cmd_jax(const struct cd_facts *f, struct cd_arena *a);
/* The torch version package (installed) pins with torch==X.Y.Z in its
 * Requires-Dist (vLLM does) into out; 0 when it pins none. */
int install_pin(const struct cd_facts *f, const char *package, char *out, size_t cap);
const char *install_verdict_name(enum install_verdict v);
const char *install_tool_name(enum install_tool t);

#endif
