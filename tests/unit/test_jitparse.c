/* Unit tests for src/format/jitparse.c and jitlog.c: the readers of
 * torch/version.py, DeepSpeed's git_version_info_installed.py and builder.py,
 * key = value files, tool versions and build logs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "format/jitparse.h"

#define B(s) (const uint8_t *)(s), strlen(s)

static void py_assign(void **state)
{
	/* torch 2.11.0+cu130 torch/version.py, as installed on the H200 box. */
	const char *v = "from typing import Optional\n\n"
			"__all__ = ['__version__', 'debug', 'cuda']\n"
			"__version__ = '2.11.0+cu130'\n"
			"debug = False\n"
			"cuda: Optional[str] = '13.0'\n"
			"hip: Optional[str] = None\n";
	char out[64];

	(void)state;
	assert_int_equal(jp_py_assign(B(v), "__version__", out, sizeof(out)), 0);
	assert_string_equal(out, "2.11.0+cu130");
	assert_int_equal(jp_py_assign(B(v), "cuda", out, sizeof(out)), 0);
	assert_string_equal(out, "13.0");
	assert_int_equal(jp_py_assign(B(v), "hip", out, sizeof(out)), JP_NONE);
	assert_int_equal(jp_py_assign(B(v), "rocm", out, sizeof(out)), CD_ENOENT);
	/* "__all__" mentions the names but is not their assignment; a prefix is not a name. */
	assert_int_equal(jp_py_assign(B("cudax = '1'\n"), "cuda", out, sizeof(out)), CD_ENOENT);
	/* Older torch: plain assignment, double quotes, CRLF. */
	assert_int_equal(jp_py_assign(B("cuda = \"11.8\"\r\n"), "cuda", out, sizeof(out)), 0);
	assert_string_equal(out, "11.8");
	/* Unterminated string, comparison, call: not a value. */
	assert_int_equal(jp_py_assign(B("cuda = '12.1\n"), "cuda", out, sizeof(out)), CD_EFORMAT);
	assert_int_equal(jp_py_assign(B("cuda == '12.1'\n"), "cuda", out, sizeof(out)), CD_ENOENT);
	assert_int_equal(jp_py_assign(B("cuda = get()\n"), "cuda", out, sizeof(out)), CD_EFORMAT);
	/* Truncation into a small buffer stays terminated. */
	assert_int_equal(jp_py_assign(B(v), "__version__", out, 4), 0);
	assert_string_equal(out, "2.1");
	/* No bytes at all. */
	assert_int_equal(jp_py_assign(NULL, 0, "cuda", out, sizeof(out)), CD_ENOENT);
}

struct seen {
	int n, trues;
	char last_key[64], cuda[16];
};

static int collect(const char *key, enum jp_pyval kind, const char *val, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	s->trues += kind == JP_V_TRUE || (kind == JP_V_NUM && !strcmp(val, "1"));
	str_copy(s->last_key, sizeof(s->last_key), key);
	if (!strcmp(key, "cuda_version") && kind == JP_V_STR)
		str_copy(s->cuda, sizeof(s->cuda), val);
	return 0;
}

static void py_dict(void **state)
{
	/* Written by DeepSpeed's setup.py (fd.write(f"installed_ops={install_ops}")). */
	const char *g = "version='0.16.3'\ngit_hash='abc'\n"
			"installed_ops={'async_io': False, 'fused_adam': True, 'cpu_adam': 1,\n"
			"  'evoformer_attn': 0}\n"
			"torch_info={'version': '2.5', 'bf16_support': False, 'cuda_version': "
			"'12.4', 'nccl_version': [2, 21]}\n";
	struct seen s = {0};

	(void)state;
	assert_int_equal(jp_py_dict(B(g), "installed_ops", collect, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.trues, 2);
	assert_string_equal(s.last_key, "evoformer_attn");
	memset(&s, 0, sizeof(s));
	assert_int_equal(jp_py_dict(B(g), "torch_info", collect, &s), 0);
	assert_int_equal(s.n, 4); /* the nested list is skipped as one value */
	assert_string_equal(s.cuda, "12.4");
	assert_int_equal(jp_py_dict(B(g), "compatible_ops", collect, &s), CD_ENOENT);
	/* Malformed: unclosed, missing colon, key not a string. */
	assert_int_equal(jp_py_dict(B("d = {'a': True"), "d", collect, &s), CD_EFORMAT);
	assert_int_equal(jp_py_dict(B("d = {'a' True}"), "d", collect, &s), CD_EFORMAT);
	assert_int_equal(jp_py_dict(B("d = {a: True}"), "d", collect, &s), CD_EFORMAT);
	assert_int_equal(jp_py_dict(B("d = []"), "d", collect, &s), CD_EFORMAT);
	assert_int_equal(jp_py_dict(B("d = {}"), "d", NULL, NULL), 0);
}

static void ds_minor_ok(void **state)
{
	/* deepspeedai/DeepSpeed op_builder/builder.py */
	const char *b = "cuda_minor_mismatch_ok = {\n"
			"    10: [\"10.0\", \"10.1\", \"10.2\"],\n"
			"    11: [\"11.0\", \"11.8\"],\n"
			"    12: [\"12.0\", \"12.9\"],  # There is no CUDATk 12.7\n"
			"}\n";
	uint32_t m;

	(void)state;
	assert_int_equal(jp_ds_minor_ok(B(b), &m), 0);
	assert_int_equal(m, (1u << 10) | (1u << 11) | (1u << 12));
	assert_int_equal(jp_ds_minor_ok(B("x = 1\n"), &m), CD_ENOENT);
	assert_int_equal(jp_ds_minor_ok(B("cuda_minor_mismatch_ok = {\n 99: []\n"), &m), 0);
	assert_int_equal(m, 0);
}

static void kv_files(void **state)
{
	const char *cfg = "home = /usr/bin\nimplementation = CPython\nuv = 0.11.15\n"
			  "version_info = 3.12.3\ninclude-system-site-packages = false\n";
	const char *osr = "PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\nID=ubuntu\nID_LIKE=debian\n";
	const char *ninja = "ninja_required_version = 1.3\ncxx = c++\n"
			    "nvcc = /usr/local/cuda-11.8/bin/nvcc\n"
			    "cflags = -isystem /opt/venv/include/python3.10 -fPIC\n";
	char out[128];

	(void)state;
	assert_int_equal(jp_kv(B(cfg), "home", '=', out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/bin");
	assert_int_equal(jp_kv(B(cfg), "version_info", '=', out, sizeof(out)), 0);
	assert_string_equal(out, "3.12.3");
	assert_int_equal(jp_kv(B(cfg), "version", '=', out, sizeof(out)), CD_ENOENT);
	assert_int_equal(jp_kv(B(osr), "ID", '=', out, sizeof(out)), 0);
	assert_string_equal(out, "ubuntu");
	assert_int_equal(jp_kv(B(osr), "PRETTY_NAME", '=', out, sizeof(out)), 0);
	assert_string_equal(out, "Ubuntu 24.04.3 LTS");
	assert_int_equal(jp_kv(B(ninja), "nvcc", '=', out, sizeof(out)), 0);
	assert_string_equal(out, "/usr/local/cuda-11.8/bin/nvcc");
	assert_int_equal(jp_find_python_version(B(ninja), out, sizeof(out)), 0);
	assert_string_equal(out, "3.10");
	assert_int_equal(jp_find_python_version(B("python3.x python3"), out, sizeof(out)),
			 CD_ENOENT);
	assert_int_equal(jp_find_python_version(B("lib/python3.13t/"), out, sizeof(out)), 0);
	assert_string_equal(out, "3.13");
}

static void versions(void **state)
{
	/* nvcc --version of CUDA 13.0 (H200 ground truth, cpp_ext.txt). */
	const char *nv = "nvcc: NVIDIA (R) Cuda compiler driver\n"
			 "Copyright (c) 2005-2025 NVIDIA Corporation\n"
			 "Cuda compilation tools, release 13.0, V13.0.88\n";
	char out[64];

	(void)state;
	assert_int_equal(jp_nvcc_version(B(nv), out, sizeof(out)), 0);
	assert_string_equal(out, "13.0.88");
	assert_int_equal(jp_nvcc_version(B("release 11.8\n"), out, sizeof(out)), 0);
	assert_string_equal(out, "11.8");
	assert_int_equal(jp_nvcc_version(B("no version here\n"), out, sizeof(out)), CD_ENOENT);
	assert_int_equal(jp_compiler_version(B("12.2.0\n"), out, sizeof(out)), 0);
	assert_string_equal(out, "12.2.0");
	assert_int_equal(jp_compiler_version(B("\n"), out, sizeof(out)), CD_EFORMAT);
}

static void build_log(void **state)
{
	const char *log =
		"/tmp/x/smoke.cu:4:10: fatal error: cusparse.h: No such file or directory\n"
		"    4 | #include <cusparse.h>\n"
		"compilation terminated.\n"
		"/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU "
		"version! gcc versions later than 12 are not supported!\n"
		"nvcc fatal   : Unsupported gpu architecture 'compute_70'\n"
		"/usr/bin/ld: cannot find -lcurand: No such file or directory\n"
		"/usr/bin/ld: cannot find -lcurand\n"
		"catastrophic error: cannot open source file \"cublas_v2.h\"\n"
		"nvcc fatal   : Value 'sm_30' is not defined for option 'gpu-architecture'\n"
		"some.cpp:1: error: something else\n";
	struct jp_diag d[16];
	size_t n = jp_build_log(B(log), d, 16);

	(void)state;
	assert_int_equal(n, 7);
	assert_int_equal(d[0].kind, JP_D_HEADER);
	assert_string_equal(d[0].subject, "cusparse.h");
	assert_int_equal(d[1].kind, JP_D_COMPILER);
	assert_string_equal(d[1].subject, "gcc");
	assert_int_equal(d[2].kind, JP_D_ARCH);
	assert_string_equal(d[2].subject, "compute_70");
	assert_int_equal(d[3].kind, JP_D_LIBRARY);
	assert_string_equal(d[3].subject, "curand"); /* the second "-lcurand" is a duplicate */
	assert_int_equal(d[4].kind, JP_D_HEADER);
	assert_string_equal(d[4].subject, "cublas_v2.h");
	assert_int_equal(d[5].kind, JP_D_ARCH);
	assert_string_equal(d[5].subject, "sm_30");
	assert_int_equal(d[6].kind, JP_D_OTHER_ERROR);
	/* Near misses: an #include line, a warning. */
	assert_int_equal(jp_build_log(B("#include <cusparse.h>\nwarning: x\n"), d, 16), 0);
	/* The cap holds. */
	assert_int_equal(jp_build_log(B(log), d, 2), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(py_assign),   cmocka_unit_test(py_dict),
		cmocka_unit_test(ds_minor_ok), cmocka_unit_test(kv_files),
		cmocka_unit_test(versions),    cmocka_unit_test(build_log),
	};
	return cmocka_run_group_tests_name("jitparse", tests, NULL, NULL);
}
