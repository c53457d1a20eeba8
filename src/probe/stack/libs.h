/* libs: what `import torch` will really load, learned from files alone.
 * The loader session of ldresolve.h replays torch's import: the Python
 * program, torch/lib/libtorch_global_deps.so, torch/__init__.py's preloads
 * from site-packages, torch/_C*.so and its DT_NEEDED tree, then the
 * libraries opened at run time (data/dlopen_libs.tsv: cuDNN's sub-libraries,
 * NVRTC, libcuda.so.1) under the caller's rules. Each library gets its
 * version, owner and the other copies on disk; torch's fatbin gives its
 * arch list; CUDA extensions in site-packages get their archs and an ABI
 * check of the torch symbols they import; JAX and TensorFlow their builds.
 * libs_probe hangs one struct cd_libs_facts on st->libraries; everything
 * lives in f->arena. Unknown stays NULL; nothing is loaded or executed. */
#ifndef CD_LIBS_H
#define CD_LIBS_H

#include <stddef.h>
#include <stdint.h>

#include "probe/stack/stack.h"
#include "facts/libs.h"

/* Run after the package probe (stack.c calls it). */
void libs_probe(struct cd_facts *f, struct cd_stack_facts *st);

#endif
