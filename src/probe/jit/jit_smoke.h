/* jit_smoke: `cuda-doctor jit --compile`, a real build of a small CUDA
 * extension the way torch.utils.cpp_extension builds one: the same nvcc
 * (CUDA_HOME/bin/nvcc), host compiler (-ccbin $CC), -gencode flags, include
 * directories (CUDA_HOME/include, torch's headers when present) and link
 * (the C++ compiler, -shared, -L CUDA_HOME/lib64 -lcudart ...). The .so is
 * then loaded in a forked child (dlopen), and on a machine with a GPU its
 * kernel is run there, bounded by a deadline. Everything happens in a
 * private directory made with mkdtemp under $TMPDIR (nvcc's own temporary
 * files included) that is removed afterwards. Never used under --root. */
#ifndef CD_JIT_SMOKE_H
#define CD_JIT_SMOKE_H

#include "core/err.h"
#include "format/jitparse.h"
#include "probe/jit/jit.h"

/* Where the smoke build is: about to run a step, or done. */
enum jit_smoke_phase {
	JIT_SMOKE_COMPILE, /* about to run nvcc (tool: its path) */
	JIT_SMOKE_LINK,	   /* about to link (tool: the C++ compiler) */
	JIT_SMOKE_LOAD,	   /* about to load (and run) the test extension in a child */
	JIT_SMOKE_DONE	   /* ended: s->status and the step times are final (tool: NULL);
			      the private directory is removed after */
};

/* Told each phase as it comes; the probe itself never prints. */
typedef void (*jit_smoke_progress_fn)(void *ctx, enum jit_smoke_phase phase, const char *tool,
				      const struct jit_smoke *s);

struct jit_smoke_opts {
	int build_timeout_ms;		/* nvcc and the link, each */
	int load_timeout_ms;		/* the child that loads and runs the kernel */
	int run_kernel;			/* a GPU is present */
	jit_smoke_progress_fn progress; /* NULL: none */
	void *progress_ctx;
};

/* 0 when the smoke build ran (whatever its outcome, see s->status). */
int jit_smoke_run(struct cd_facts *f, const struct cd_jit_facts *jf, const struct jit_smoke_opts *o,
		  struct jit_smoke *s);

#endif
