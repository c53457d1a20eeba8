/* Unit tests for the pure logic of the library probe: versions in file names,
 * copies of a SONAME, torch's preload globs, LD_LIBRARY_PATH without the
 * entries that shadow (probe/libs_util), GPU arch coverage and the torch
 * wheel that covers a GPU (kb/archcov), and the readers of RECORD and
 * TensorFlow's build_info.py (format/record, format/buildinfo). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/arena.h"
#include "format/buildinfo.h"
#include "format/elf.h"
#include "format/elfhash.h"
#include "format/fatbin.h"
#include "format/record.h"
#include "kb/archcov.h"
#include "core/fmap.h"
#include "probe/stack/libs_util.h"

static void file_versions(void **state)
{
	char v[64];

	(void)state;
	assert_int_equal(libs_file_version("libcudnn.so.9.19.0", v, sizeof(v)), 3);
	assert_string_equal(v, "9.19.0");
	assert_int_equal(libs_file_version("libcudnn.so.9", v, sizeof(v)), 1);
	assert_int_equal(libs_file_version("libcuda.so.580.159.04", v, sizeof(v)), 3);
	assert_string_equal(v, "580.159.04");
	assert_int_equal(libs_file_version("libnvrtc-builtins.so.13.0", v, sizeof(v)), 2);
	assert_int_equal(libs_file_version("libcudnn.so", v, sizeof(v)), 0);
	assert_int_equal(libs_file_version("libfoo.so.1.x", v, sizeof(v)), 0);
	assert_int_equal(libs_file_version("libfoo.so.1.", v, sizeof(v)), 0);
	assert_int_equal(libs_file_version("libfoo.so..1", v, sizeof(v)), 0);
	assert_int_equal(libs_file_version(NULL, v, sizeof(v)), 0);
}

static void versions_differ(void **state)
{
	(void)state;
	assert_false(libs_versions_differ("9.19.0", "9.19.0.56"));
	assert_true(libs_versions_differ("9.14.0", "9.19.0.56"));
	assert_true(libs_versions_differ("2.28.3", "2.28.9"));
	assert_false(libs_versions_differ("9", "9.19"));
	assert_true(libs_versions_differ("12", "13"));
	assert_false(libs_versions_differ("09.1", "9.1.2"));
	assert_false(libs_versions_differ(NULL, "9.1"));
	assert_false(libs_versions_differ("x", "9.1"));
}

static void cuda_names(void **state)
{
	(void)state;
	assert_true(libs_is_cuda_name("libcudnn_graph.so.9"));
	assert_true(libs_is_cuda_name("libcuda.so.1"));
	assert_true(libs_is_cuda_name("libnvJitLink.so.13"));
	assert_false(libs_is_cuda_name("libc.so.6"));
	assert_false(libs_is_cuda_name("libtorch_cuda.so"));
	assert_false(libs_is_cuda_name(NULL));
}

static void copies(void **state)
{
	(void)state;
	assert_true(libs_copy_matches("libcudnn.so.9", "libcudnn.so.9"));
	assert_true(libs_copy_matches("libcudnn.so.9", "libcudnn.so.9.14.0"));
	assert_false(libs_copy_matches("libcudnn.so.9", "libcudnn.so.8"));
	assert_false(libs_copy_matches("libcudnn.so.9", "libcudnn.so"));
	assert_false(libs_copy_matches("libcudnn.so.9", "libcudnn_ops.so.9"));
	assert_false(libs_copy_matches("libcudnn.so.9", "libcudnn.so.90"));
	assert_true(libs_copy_matches("libcudart.so.13", "libcudart.faf08d9a.so.13"));
	assert_true(libs_copy_matches("libcudart.so.13", "libcudart-faf08d9a.so.13"));
	assert_false(libs_copy_matches("libcudart.so.13", "libcudart.faf08d9a.so.12"));
	assert_false(libs_copy_matches("libcudart.so.13", "libcudart.nothex00.so.13"));
	assert_false(libs_copy_matches("libnvrtc.so.13", "libnvrtc-builtins.so.13.0"));
	assert_false(libs_copy_matches("nodot", "nodot"));
}

static void globs(void **state)
{
	(void)state;
	assert_true(libs_glob("libcublasLt.so.*[0-9]", "libcublasLt.so.13"));
	assert_true(libs_glob("libcudnn.so.*[0-9]", "libcudnn.so.9.19.0"));
	assert_false(libs_glob("libcudnn.so.*[0-9]", "libcudnn.so.9.x"));
	assert_false(libs_glob("libcudnn.so.*[0-9]", "libcudnn.so."));
	assert_false(libs_glob("libcublas.so.*[0-9]", "libcublasLt.so.13"));
	assert_true(libs_glob("libnvrtc-builtins.so.*[0-9]", "libnvrtc-builtins.so.13.0"));
	assert_false(libs_glob("libnvrtc.so.*[0-9]", "libnvrtc-builtins.so.13.0"));
	assert_true(libs_glob("lib*", "libx"));
	assert_true(libs_glob("a*b*c", "aXbYbc"));
}

static void ldpath(void **state)
{
	const char *drop[] = {"/usr/lib/x86_64-linux-gnu", "/opt/cuda-11.8/lib64"};
	char out[256];

	(void)state;
	assert_int_equal(libs_ldpath_without("/usr/lib/x86_64-linux-gnu:/usr/local/nvidia/lib64",
					     drop, 2, out, sizeof(out)),
			 strlen("/usr/local/nvidia/lib64"));
	assert_string_equal(out, "/usr/local/nvidia/lib64");
	/* trailing slashes compare equal; order and other entries kept */
	libs_ldpath_without("/a:/opt/cuda-11.8/lib64/:/b", drop, 2, out, sizeof(out));
	assert_string_equal(out, "/a:/b");
	assert_int_equal(
		libs_ldpath_without("/usr/lib/x86_64-linux-gnu", drop, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	libs_ldpath_without(NULL, drop, 2, out, sizeof(out));
	assert_string_equal(out, "");
	/* does not overflow a small buffer */
	libs_ldpath_without("/aaaaaaaa:/bbbbbbbb:/cccccccc", drop, 2, out, 12);
	assert_true(strlen(out) < 12);
}

static void dist_names(void **state)
{
	char n[64];

	(void)state;
	libs_dist_name("flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so", n, sizeof(n));
	assert_string_equal(n, "flash-attn-2-cuda");
	libs_dist_name("torchvision.libs", n, sizeof(n));
	assert_string_equal(n, "torchvision");
	libs_dist_name("Apex_C.so", n, 3);
	assert_string_equal(n, "ap");
}

#define K(a, v) FATBIN_KEY(a, v)

static void coverage(void **state)
{
	const uint32_t torch[] = {K(75, 0), K(80, 0), K(86, 0), K(90, 0), K(100, 0), K(120, 0)};
	const uint32_t var[] = {K(90, FATBIN_VAR_A), K(100, FATBIN_VAR_F)};
	const uint32_t ptx80[] = {K(80, 0)};
	const uint32_t tegra[] = {K(86, 0)};
	uint32_t via = 0;

	(void)state;
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 9, 0, &via), ARCHCOV_SASS);
	assert_int_equal(via, K(90, 0));
	/* 8.9 (L40) runs the sm_86 cubin; 7.0 (V100) runs nothing */
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 8, 9, &via), ARCHCOV_SASS);
	assert_int_equal(via, K(86, 0));
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 7, 0, NULL), ARCHCOV_NONE);
	/* 10.3 (B300) runs sm_100, 12.1 runs sm_120, 11.0 (Thor, Tegra) none */
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 10, 3, NULL), ARCHCOV_SASS);
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 12, 1, NULL), ARCHCOV_SASS);
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 11, 0, NULL), ARCHCOV_NONE);
	/* sm_90a only on 9.0; sm_100f on 10.0 and 10.3, not 12.0 */
	assert_int_equal(archcov_covers(var, 2, NULL, 0, 9, 0, NULL), ARCHCOV_SASS);
	assert_int_equal(archcov_covers(var, 1, NULL, 0, 10, 0, NULL), ARCHCOV_NONE);
	assert_int_equal(archcov_covers(var, 2, NULL, 0, 10, 3, NULL), ARCHCOV_SASS);
	assert_int_equal(archcov_covers(var, 2, NULL, 0, 12, 0, NULL), ARCHCOV_NONE);
	/* PTX compiles forward, across majors; not backward */
	assert_int_equal(archcov_covers(NULL, 0, ptx80, 1, 12, 0, &via), ARCHCOV_PTX);
	assert_int_equal(archcov_covers(NULL, 0, ptx80, 1, 7, 5, NULL), ARCHCOV_NONE);
	/* a `a` PTX only on its arch */
	assert_int_equal(archcov_covers(NULL, 0, var, 1, 9, 0, NULL), ARCHCOV_PTX);
	assert_int_equal(archcov_covers(NULL, 0, var, 1, 10, 0, NULL), ARCHCOV_NONE);
	/* Tegra 8.7 (Orin) does not run sm_86 */
	assert_int_equal(archcov_covers(tegra, 1, NULL, 0, 8, 7, NULL), ARCHCOV_NONE);
	/* nonsense compute capabilities */
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 0, 0, NULL), ARCHCOV_NONE);
	assert_int_equal(archcov_covers(torch, 6, NULL, 0, 9, 12, NULL), ARCHCOV_NONE);
}

static void parse_list(void **state)
{
	uint32_t s[16], p[16];
	size_t ns, np;

	(void)state;
	assert_int_equal(archcov_parse_list("7.5;8.0;8.6;9.0;10.0;12.0+PTX (PTX on Linux only)", s,
					    &ns, p, &np, 16),
			 6);
	assert_int_equal(ns, 6);
	assert_int_equal(np, 1);
	assert_int_equal(s[4], K(100, 0));
	assert_int_equal(p[0], K(120, 0));
	assert_int_equal(archcov_parse_list("3.7;5.0", s, &ns, p, &np, 1), 2);
	assert_int_equal(ns, 1); /* capped */
	assert_int_equal(archcov_parse_list("", s, &ns, p, &np, 16), 0);
	assert_int_equal(archcov_parse_list("9", s, &ns, p, &np, 16), 0);
	assert_int_equal(archcov_parse_list("9.x", s, &ns, p, &np, 16), 0);
}

static void pick(void **state)
{
	struct archcov_pick p;

	(void)state;
	/* torch 2.11 cu130 on a 7.5 GPU: the cu130 wheel of 2.11 lists 7.5 */
	assert_int_equal(archcov_pick_torch("2.11.0+cu130", 7, 5, 13000, &p), 0);
	assert_string_equal(p.torch, "2.11");
	assert_string_equal(p.variant, "cu130");
	assert_true(p.same_release);
	/* a 7.0 GPU (V100): 2.11's cu126 still lists 7.0 */
	assert_int_equal(archcov_pick_torch("2.11.0+cu130", 7, 0, 12080, &p), 0);
	assert_string_equal(p.torch, "2.11");
	assert_string_equal(p.variant, "cu126");
	/* Maxwell 5.2 has a cu126 wheel of the installed release too */
	assert_int_equal(archcov_pick_torch("2.11.0", 5, 2, 0, &p), 0);
	assert_string_equal(p.variant, "cu126");
	/* Kepler: 3.5 is in no wheel (sm_37 needs 3.7); 3.7 only in old releases */
	assert_int_equal(archcov_pick_torch("2.11.0", 3, 5, 0, &p), -5);
	assert_int_equal(archcov_pick_torch("2.11.0", 3, 7, 0, &p), 0);
	assert_false(p.same_release);
	assert_string_equal(p.torch, "2.5");
	/* for the driver: 2.11 on a CUDA 12.8 driver is the cu128 wheel */
	assert_int_equal(archcov_pick_for_driver("2.11.0+cu130", 12080, &p), 0);
	assert_string_equal(p.variant, "cu128");
	assert_int_equal(archcov_pick_for_driver("2.11.0+cu130", 11040, &p), -5);
	assert_int_equal(archcov_pick_for_driver(NULL, 12080, &p), -5);
}

/* Which compute capabilities an nvcc can build for (data/gpu_arch.tsv). */
static void nvcc_targets(void **state)
{
	char why[96];

	(void)state;
	assert_int_equal(archcov_nvcc_builds(13, 0, 90, why, sizeof(why)), 1);
	assert_int_equal(archcov_nvcc_builds(13, 0, 70, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "12.9"));
	assert_int_equal(archcov_nvcc_builds(12, 4, 120, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "12.8"));
	assert_int_equal(archcov_nvcc_builds(12, 4, 99, why, sizeof(why)), -1);
	assert_int_equal(archcov_nvcc_builds(-1, 0, 90, why, sizeof(why)), -1);
}

struct rows {
	char got[8][64];
	size_t n;
};

static int keep(const char *path, size_t len, void *ctx)
{
	struct rows *r = ctx;

	assert_int_equal(strlen(path), len);
	if (r->n < 8)
		strncat(r->got[r->n++], path, 63);
	return 0;
}

static void records(void **state)
{
	const char *rec = "nvidia/cudnn/lib/libcudnn.so.9,sha256=abc,123\r\n"
			  "\"nvidia/a,b/lib/x.so\",sha256=x,1\n"
			  "\n"
			  "\"quote\"\"d\",,\n"
			  "nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD,,\n"
			  "\"unterminated";
	struct rows r;
	size_t skipped;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(record_each((const uint8_t *)rec, strlen(rec), keep, &r, &skipped), 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.got[0], "nvidia/cudnn/lib/libcudnn.so.9");
	assert_string_equal(r.got[1], "nvidia/a,b/lib/x.so");
	assert_string_equal(r.got[2], "quote\"d");
	assert_string_equal(r.got[3], "nvidia_cudnn_cu13-9.19.0.56.dist-info/RECORD");
	assert_int_equal(skipped, 1);
	memset(&r, 0, sizeof(r));
	assert_int_equal(record_each((const uint8_t *)"", 0, keep, &r, NULL), 0);
	assert_int_equal(r.n, 0);
}

static void build_info(void **state)
{
	const char *tf2 = "# auto-generated\nimport collections\n"
			  "build_info = collections.OrderedDict([])\n"
			  "build_info = {'cpu_compiler': '/usr/bin/clang-18', "
			  "'cuda_compute_capabilities': ['sm_60', 'sm_70', 'sm_80', 'sm_89', "
			  "'compute_90'], 'cuda_version': '12.5.1', 'cudnn_version': '9', "
			  "'is_cuda_build': True, 'is_rocm_build': False, 'is_tensorrt_build': "
			  "False}\n";
	const char *tf1 = "is_cuda_build = True\ncuda_version_number = '10.1'\n"
			  "cudnn_version_number = \"7\"\n";
	struct cd_arena a;
	struct buildinfo b;

	(void)state;
	arena_init(&a);
	assert_int_equal(buildinfo_parse((const uint8_t *)tf2, strlen(tf2), &a, &b), 0);
	assert_string_equal(b.cuda_version, "12.5.1");
	assert_string_equal(b.cudnn_version, "9");
	assert_int_equal(b.is_cuda_build, 1);
	assert_int_equal(b.is_rocm_build, 0);
	assert_int_equal(b.n_caps, 5);
	assert_string_equal(b.caps[4], "compute_90");
	assert_int_equal(buildinfo_parse((const uint8_t *)tf1, strlen(tf1), &a, &b), 0);
	assert_string_equal(b.cuda_version, "10.1");
	assert_string_equal(b.cudnn_version, "7");
	assert_int_equal(b.is_cuda_build, 1);
	assert_int_equal(buildinfo_parse((const uint8_t *)"x = 1\n", 6, &a, &b), -3);
	assert_int_equal(buildinfo_parse((const uint8_t *)"'cuda_version': '12", 19, &a, &b), -3);
	arena_free(&a);
}

/* Every defined .dynsym name of a real library is found through its own hash
 * table, and names it does not define are not. */
static void hash_file(const char *path, const char *must, size_t *checked)
{
	struct cd_fmap m;
	struct elf_file e;
	struct elfhash h;
	struct elf_sym *syms;
	struct cd_arena a;
	size_t n, i;

	memset(&m, 0, sizeof(m));
	if (fmap_open_host(path, (size_t)1 << 32, &m, NULL))
		return; /* not on this machine */
	arena_init(&a);
	assert_int_equal(elf_parse(m.p, m.n, &e, NULL), 0);
	assert_int_equal(elfhash_open(&e, &h, NULL), 0);
	assert_int_equal(elf_dynsyms(&e, &a, &syms, &n, NULL), 0);
	for (i = 0; i < n; i++) {
		if (!syms[i].name || !syms[i].name[0])
			continue;
		assert_int_equal(elfhash_defines(&h, syms[i].name), syms[i].defined ? 1 : 0);
		++*checked;
	}
	assert_true(elfhash_defines(&h, must));
	assert_false(elfhash_defines(&h, "cd_no_such_symbol_at_all"));
	assert_false(elfhash_defines(&h, ""));
	arena_free(&a);
	fmap_close(&m);
}

static void hash_lookups(void **state)
{
	size_t checked = 0;

	(void)state;
	assert_int_equal(elfhash_gnu(""), 5381);
	assert_int_equal(elfhash_gnu("printf"), 0x156b2bb8u);
	assert_int_equal(elfhash_sysv("printf"), 0x077905a6u);
	hash_file("tests/fuzz/corpus/elfhash/gcc_sysv.so", "THPVariable_Wrap", &checked);
	hash_file("tests/fuzz/corpus/elfhash/gcc_gnu.so", "cd_seed_a", &checked);
	assert_true(checked >= 6);
	hash_file("/lib/x86_64-linux-gnu/libc.so.6", "printf", &checked);
	hash_file("/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		  "_ZNSt6chrono3_V212system_clock3nowEv", &checked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_versions), cmocka_unit_test(versions_differ),
		cmocka_unit_test(cuda_names),	 cmocka_unit_test(copies),
		cmocka_unit_test(globs),	 cmocka_unit_test(ldpath),
		cmocka_unit_test(dist_names),	 cmocka_unit_test(coverage),
		cmocka_unit_test(parse_list),	 cmocka_unit_test(pick),
		cmocka_unit_test(nvcc_targets),	 cmocka_unit_test(records),
		cmocka_unit_test(build_info),	 cmocka_unit_test(hash_lookups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
