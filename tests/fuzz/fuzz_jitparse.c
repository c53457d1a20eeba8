/* Fuzz target for src/format/jitparse.c and jitlog.c: every reader of the
 * files and tool outputs `cuda-doctor jit` parses gets the same bytes
 * (TORCH_CUDA_ARCH_LIST: fuzz_archlist.c). */
#include <stddef.h>
#include <stdint.h>

#include "format/jitparse.h"

static int sink(const char *key, enum jp_pyval kind, const char *val, void *ctx)
{
	(void)key;
	(void)val;
	(*(int *)ctx) += (int)kind;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	char out[256];
	struct jp_diag diags[8];
	uint32_t mask;
	int acc = 0;

	/* The parsers must not crash; what they return does not matter here. */
	(void)jp_py_assign(p, n, "__version__", out, sizeof(out));
	(void)jp_py_assign(p, n, "cuda", out, sizeof(out));
	(void)jp_py_dict(p, n, "installed_ops", sink, &acc);
	(void)jp_py_dict(p, n, "torch_info", sink, &acc);
	(void)jp_ds_minor_ok(p, n, &mask);
	(void)jp_kv(p, n, "version_info", '=', out, sizeof(out));
	(void)jp_kv(p, n, "nvcc", '=', out, 8);
	(void)jp_nvcc_version(p, n, out, sizeof(out));
	(void)jp_compiler_version(p, n, out, sizeof(out));
	(void)jp_find_python_version(p, n, out, sizeof(out));
	jp_build_log(p, n, diags, 8);
	return acc == -1;
}
