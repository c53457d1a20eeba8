/* jit: the facts `cuda-doctor jit` needs to say whether a CUDA extension
 * (torch.utils.cpp_extension, DeepSpeed's op builders) will JIT-compile here:
 * the toolkit torch would pick and its files, the host compilers, ninja, the
 * Python environment (Python.h, torch, DeepSpeed), TORCH_CUDA_ARCH_LIST and
 * the GPUs, the torch extensions cache, and (with --compile) a smoke build.
 * Strings live in the facts arena; unknown is NULL / CD_TRI_UNKNOWN / -1.
 * The probes never print. Nothing under --root is executed; on the real root
 * only the host compiler (-dumpfullversion) and, when no file states the
 * version, nvcc --version are run, each in a child with a deadline. */
#ifndef CD_PROBE_JIT_H
#define CD_PROBE_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "format/jitparse.h"
#include "facts/jit.h"

/* Options of the probe (from the command line). */
struct jit_probe_opts {
	const char *gpu_cc; /* --gpu-cc "9.0,8.0" or "none"; NULL: the driver's GPUs */
	int64_t now;	    /* seconds since the epoch, for cache ages (tests fix it) */
};

/* Fill jf from the filesystem (through f->root) and the environment. f's
 * probes (env, toolkit, driver) run first; jit_probe reads their facts. */
void jit_probe(struct cd_facts *f, struct cd_jit_facts *jf, const struct jit_probe_opts *o);
/* The GPU part (f->gpus or --gpu-cc, TORCH_CUDA_ARCH_LIST): after the driver
 * probe has finished; jit_probe itself may run while the driver query does. */
void jit_probe_gpus(struct cd_facts *f, struct cd_jit_facts *jf, const struct jit_probe_opts *o);

/* Parts, in the order jit_probe runs them (each in its own file). */
void jit_probe_python(struct cd_facts *f, struct cd_jit_facts *jf);
void jit_probe_toolkit(struct cd_facts *f, struct cd_jit_facts *jf);
void jit_probe_compilers(struct cd_facts *f, struct cd_jit_facts *jf);
void jit_probe_cache(struct cd_facts *f, struct cd_jit_facts *jf, int64_t now);

/* Helpers shared by the parts (jit_probe.c). */
/* Read a small file under the root; NULL when absent or unreadable. */
CD_WUR char *jit_slurp(struct cd_facts *f, const char *path, size_t max, size_t *len);
/* First executable NAME on the colon-separated in-root PATH; NULL if none. */
const char *jit_which(struct cd_facts *f, const char *path_var, const char *name);
/* TORCH_CUDA_ARCH_LIST (value, NULL when unset) into a as torch_version's
 * cpp_extension reads it (format/archlist with kb/torcharch's tables; NULL:
 * the newest tables). Allocates its work space from f's arena. */
void jit_arch_parse(struct cd_facts *f, struct jit_arch *a, const char *value,
		    const char *torch_version);
/* Parse "MAJOR.MINOR" leniently; 0 or -1. */
CD_WUR int jit_major_minor(const char *v, int *major, int *minor);

#endif
