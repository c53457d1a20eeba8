/* jitparse: small readers of the files and tool outputs `cuda-doctor jit`
 * looks at: torch/version.py and DeepSpeed's git_version_info_installed.py
 * (Python assignments and dict literals), pyvenv.cfg / os-release / build.ninja
 * (key = value lines), nvcc --version, and the error lines of a failed nvcc /
 * linker run (TORCH_CUDA_ARCH_LIST is format/archlist.h's). Every parser takes (const uint8_t *p,
 * size_t n, ...) of untrusted bytes, writes only into caller buffers (always
 * NUL-terminated), allocates nothing and never reads past n. */
#ifndef CD_JITPARSE_H
#define CD_JITPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* Result of jp_py_assign beyond 0 (a string was found) and CD_ENOENT. */
#define JP_NONE 1 /* the name is assigned None */

/* A top-level `NAME = 'str'` or `NAME: Optional[str] = "str"` (or None). */
CD_WUR int jp_py_assign(const uint8_t *p, size_t n, const char *name, char *out, size_t cap);

enum jp_pyval { JP_V_STR, JP_V_TRUE, JP_V_FALSE, JP_V_NONE, JP_V_NUM, JP_V_OTHER };

#define JP_DICT_MAX_ITEMS 512

/* Walk the flat dict literal assigned to top-level VAR ({'k': v, ...});
 * nested values are reported as JP_V_OTHER. cb returns nonzero to stop.
 * 0 when the dict was found (even empty), CD_ENOENT when VAR is absent,
 * CD_EFORMAT when the literal is malformed (what was read is reported). */
CD_WUR int jp_py_dict(const uint8_t *p, size_t n, const char *var,
		      int (*cb)(const char *key, enum jp_pyval kind, const char *val, void *ctx),
		      void *ctx);

/* The first `KEY<sep>VALUE` line (spaces around sep trimmed, one level of
 * matching quotes removed). sep is '=' for pyvenv.cfg, os-release and
 * build.ninja. 0 or CD_ENOENT. */
CD_WUR int jp_kv(const uint8_t *p, size_t n, const char *key, char sep, char *out, size_t cap);

/* DeepSpeed op_builder/builder.py: the CUDA majors listed in
 * `cuda_minor_mismatch_ok = {10: [...], 11: [...], ...}` as a bit mask. */
CD_WUR int jp_ds_minor_ok(const uint8_t *p, size_t n, uint32_t *mask);

/* `nvcc --version`: "release 13.0, V13.0.88" -> "13.0.88" (or "13.0"). */
CD_WUR int jp_nvcc_version(const uint8_t *p, size_t n, char *out, size_t cap);
/* `gcc -dumpfullversion -dumpversion` output: the first "N[.N[.N]]". */
CD_WUR int jp_compiler_version(const uint8_t *p, size_t n, char *out, size_t cap);
/* "python3.12" somewhere in s (e.g. an -isystem path): "3.12". */
CD_WUR int jp_find_python_version(const uint8_t *p, size_t n, char *out, size_t cap);

/* What a failed nvcc / host compiler / linker run said. */
enum jp_diag_kind {
	JP_D_HEADER,	 /* fatal error: X: No such file or directory */
	JP_D_COMPILER,	 /* unsupported GNU / clang version */
	JP_D_ARCH,	 /* Unsupported gpu architecture 'compute_XX' */
	JP_D_LIBRARY,	 /* cannot find -lX */
	JP_D_NOT_FOUND,	 /* a tool could not be executed */
	JP_D_OTHER_ERROR /* some other "error" line */
};

struct jp_diag {
	enum jp_diag_kind kind;
	char subject[128]; /* header, library, arch or compiler family */
	char line[256];	   /* the line it was found on, trimmed */
};

/* Classify the lines of a build log; returns how many diagnostics were
 * stored (at most max; duplicates of a subject are kept once). */
size_t jp_build_log(const uint8_t *p, size_t n, struct jp_diag *out, size_t max);

#endif
