/* df_int: what the Dockerfile checks learn of each stage (df_scan.c reads
 * the instructions and the commands of every RUN; df_cmd.c recognises pip,
 * conda, apt and build commands, df_pip.c reads pip's arguments), shared by
 * the rule files. Private to
 * check/dockerfile/. Everything is in the findings' arena. */
#ifndef CD_DF_INT_H
#define CD_DF_INT_H

#include "core/err.h"

#include "check/dockerfile/dockerfile.h"
#include "format/pep508.h"
#include "format/shcmd.h"
#include "kb/cudabuild.h"

#define DFC_TORCH_MAX	8
#define DFC_BUILD_MAX	16
#define DFC_INSTALL_MAX 8
#define DFC_VARIANT_MAX 16

/* A torch install (pip or conda). */
struct dfc_torch {
	const struct df_instr *in;
	const char *spec; /* the requirement as the command has it */
	char version[32]; /* X.Y.Z of an exact pin (== or conda =), local label removed */
	char local[DFC_VARIANT_MAX]; /* "cu121", "cpu", "" */
	int pinned;		     /* an exact version */
	int conda;		     /* conda / mamba install */
	char conda_cuda[16];	     /* pytorch-cuda=X.Y or cudatoolkit=X.Y beside it */
	int conda_cpu;		     /* cpuonly beside it */
	const char *index_url, *extra_url, *find_links;
	char index_variant[DFC_VARIANT_MAX], extra_variant[DFC_VARIANT_MAX],
		find_variant[DFC_VARIANT_MAX];
	int stage; /* where it is installed */
};

/* A step that compiles CUDA code. */
struct dfc_build {
	const struct df_instr *in;
	const struct cudabuild_row *row;
	char what[192];	   /* the command, shortened */
	int arch_list_set; /* TORCH_CUDA_ARCH_LIST has a value for it */
	int cuda_home_set; /* CUDA_HOME or CUDA_PATH has a value */
};

enum dfc_tk_kind {
	DFC_TK_APT = 0, /* NVIDIA's cuda-* packages: /usr/local/cuda-X.Y */
	DFC_TK_RUNFILE,
	DFC_TK_DISTRO,	      /* Debian / Ubuntu's nvidia-cuda-toolkit: /usr/bin/nvcc */
	DFC_TK_CONDA,	      /* conda cuda-nvcc / cuda-toolkit / cudatoolkit-dev */
	DFC_TK_CONDA_RUNTIME, /* conda cudatoolkit: runtime libraries only */
	DFC_TK_PIP	      /* nvidia-cuda-nvcc-cu12 and the like: not on PATH */
};

/* A CUDA toolkit (or runtime) installed by the Dockerfile. */
struct dfc_install {
	const struct df_instr *in;
	enum dfc_tk_kind kind;
	char what[96];
	char cuda[16]; /* X.Y, "" unknown */
	int nvcc;
};

struct dfc_stage {
	const struct df_stage *st;
	struct img_info img; /* the root image */
	int img_known;	     /* listed in data/base_images.tsv */
	char cuda[16];	     /* the root image's CUDA (its tag), "" unknown */
	int devel;	     /* the root image has nvcc */
	int no_cuda;	     /* the root image is known to have no CUDA at all */
	size_t n_installs;
	struct dfc_install installs[DFC_INSTALL_MAX]; /* its own and its parents' */
	size_t n_own_installs;			      /* the first n_inherited are the parents' */
	size_t n_inherited;
	size_t n_torch;
	struct dfc_torch torch[DFC_TORCH_MAX]; /* its own */
	size_t n_builds;
	struct dfc_build builds[DFC_BUILD_MAX]; /* its own */
	const struct df_instr *ldconfig;	/* its last ldconfig */
	const struct df_instr *libs_after;	/* a library installed after it */
	char libs_what[160];
	const struct df_instr *trains; /* a CMD / ENTRYPOINT that trains */
	const struct df_instr *jit;    /* installs a package that JIT-compiles CUDA ops when run */
	const struct df_instr *source; /* builds something from source (pip of a path or VCS URL,
					* setup.py, make, cmake): it may use nvcc */
	struct dfenv *end_env;	       /* the image environment at its end */
	const char *ld_library_path;   /* LD_LIBRARY_PATH at its end (build env) */
	int children_build;	       /* a stage built on it compiles CUDA code */
};

struct dfc {
	const struct df_model *m;
	const struct dfc_opts *o;
	struct cd_findings *out;
	struct cd_arena *a;
	size_t n;
	struct dfc_stage *stages;
};

/* df_scan.c */
CD_WUR int dfc_scan(struct dfc *c);
/* Place a finding (from findings_add, so that scripts/finding-ids.sh reads
 * its id where it is raised) at an instruction; returns it. */
struct cd_finding *dfc_at(struct dfc *c, const struct df_instr *in, struct cd_finding *x);
/* The instruction as the evidence line "FILE:LINE: RUN ...", shortened. */
void dfc_evidence_instr(struct dfc *c, struct cd_finding *x, const struct df_instr *in);
/* The rule's documented behaviour and source, as evidence. */
void dfc_evidence_rule(struct dfc *c, struct cd_finding *x, const char *id);
/* Does the stage (or one of its parents) have nvcc: 1, 0, -1 unknown. */
int dfc_has_nvcc(const struct dfc_stage *s);
/* The CUDA X.Y a stage's toolkit has: the root image's, else the newest
 * install's with a version; NULL unknown. */
const char *dfc_stage_cuda(const struct dfc_stage *s);
/* Is the ENV of the stage's root image known (so that a variable it does not
 * set is unset)? NGC images and images not in data/base_images.tsv: no. */
int dfc_env_known(const struct dfc_stage *s);
/* Is torch in the stage already: its image's, or installed by it or a parent. */
int dfc_has_torch(const struct dfc *c, const struct dfc_stage *s);
/* Does a command line (CMD, ENTRYPOINT, a Compose command) start training:
 * torchrun, deepspeed, accelerate launch, torch.distributed, train*.py? */
int dfc_trains(const char *cmdline);
/* The ENV instruction of a stage or its parents that last set name, or NULL. */
const struct df_instr *dfc_env_line(const struct dfc *c, size_t stage, const char *name);

/* df_cmd.c: what one simple command does to the stage. */
struct dfc_ctx {
	struct dfc *c;
	struct dfc_stage *s;
	const struct df_instr *in;
	struct dfenv *env; /* the build env with this RUN's exports and prefixes */
};
CD_WUR int dfc_command(struct dfc_ctx *x, const struct sh_cmd *cmd);
/* The torch wheel index variant a URL names ("cu121", "cpu", "rocm6.1"), or "". */
void dfc_url_variant(const char *url, char *out, size_t cap);

/* df_pip.c: a requirement of pip install, as pip reads it. */
#define DFC_PIP_REQS_MAX 128
struct dfc_req {
	const char *text;
	char name[PEP508_NAME_MAX]; /* PEP 503 normalised; "" unknown (a local path) */
	int source;		    /* a path, a VCS URL or an sdist: setup.py runs */
	int wheel;		    /* a .whl file or URL */
	char version[32];	    /* exact pin */
	char local[DFC_VARIANT_MAX];
	int pinned;
};
void dfc_req_classify(const char *text, struct dfc_req *r);

/* df_pip.c: pip install's arguments: indexes, requirements (-e marked). */
struct dfc_pipargs {
	const char *index, *extra, *find;
	int upgrade; /* -U, --upgrade, --force-reinstall, -I: an installed package is replaced */
	size_t n_req;
	const char *req[DFC_PIP_REQS_MAX];
	int editable[DFC_PIP_REQS_MAX];
};
void dfc_pip_args(const char *const *argv, size_t argc, struct dfc_pipargs *p);
/* df_cmd.c: the last component of a path or command word. */
const char *dfc_base(const char *w);

/* Rules. */
/* df_image.c: "nvidia/cuda:X.Y.Z-FLAVOR-ubuntu22.04" for the newest release of
 * CUDA X.Y that data/cuda_images.tsv lists, in buf; NULL when none is. */
const char *dfc_cuda_image(const char *cuda, const char *flavor, char *buf, size_t cap);
void dfc_rules_image(struct dfc *c);  /* df_image.c */
void dfc_rules_torch(struct dfc *c);  /* df_torch.c */
void dfc_rules_build(struct dfc *c);  /* df_build.c */
void dfc_rules_nvidia(struct dfc *c); /* df_nvidia.c */

#endif
