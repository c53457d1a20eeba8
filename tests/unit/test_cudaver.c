/* Unit tests for format/cudaver: CUDA toolkit versions read from files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/cudaver.h"

static char v[CUDAVER_MAX];

#define B(s) (const uint8_t *)(s), strlen(s)

static void version_json(void **state)
{
	static const char real[] =
		"{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : "
		"\"12.4.1\"\n   },\n   \"cuda_cccl\" : {\n      \"name\" : \"CUDA C++ Core "
		"Compute Libraries\",\n      \"version\" : \"12.4.127\"\n   },\n   "
		"\"cuda_nvcc\" : {\n      \"name\" : \"CUDA NVCC\",\n      \"version\" : "
		"\"12.4.131\"\n   }\n}\n";

	(void)state;
	assert_int_equal(cudaver_json(B(real), "cuda", v, sizeof(v)), 0);
	assert_string_equal(v, "12.4.1");
	assert_int_equal(cudaver_json(B(real), "cuda_nvcc", v, sizeof(v)), 0);
	assert_string_equal(v, "12.4.131");
	assert_int_equal(cudaver_json(B(real), "cuda_nvrtc", v, sizeof(v)), CD_ENOENT);
	assert_int_equal(cudaver_json(B("{\"cuda\": {\"version\": 12}}"), "cuda", v, sizeof(v)),
			 CD_EFORMAT);
	assert_int_equal(cudaver_json(B("{\"cuda\": [1]}"), "cuda", v, sizeof(v)), CD_EFORMAT);
	assert_int_equal(cudaver_json(B("{\"cuda\": {\"version\": \"12.4; rm -rf /\"}}"), "cuda", v,
				      sizeof(v)),
			 CD_EFORMAT);
	assert_int_equal(
		cudaver_json(B("{\"cuda\": {\"version\": \"12.4\"}"), "cuda", v, sizeof(v)),
		CD_EFORMAT); /* truncated */
	assert_int_equal(cudaver_json(B("{\"cuda\": {\"version\": \"1\"}, \"cuda\": {}}"), "cuda",
				      v, sizeof(v)),
			 CD_EFORMAT); /* duplicate keys */
	assert_int_equal(cudaver_json(B("[]"), "cuda", v, sizeof(v)), CD_ENOENT);
	assert_int_equal(cudaver_json((const uint8_t *)"", 0, "cuda", v, sizeof(v)), CD_EFORMAT);
	assert_int_equal(cudaver_json(B(real), "cuda", v, 4), CD_ERANGE);
}

static void version_txt(void **state)
{
	(void)state;
	assert_int_equal(cudaver_txt(B("CUDA Version 10.2.89\n"), v, sizeof(v)), 0);
	assert_string_equal(v, "10.2.89");
	assert_int_equal(cudaver_txt(B("\n  CUDA Version 11.0.221"), v, sizeof(v)), 0);
	assert_string_equal(v, "11.0.221");
	assert_int_equal(cudaver_txt(B("CUDA Version \n"), v, sizeof(v)), CD_EFORMAT);
	assert_int_equal(cudaver_txt(B("CUDA Version 10..2"), v, sizeof(v)), CD_EFORMAT);
	assert_int_equal(cudaver_txt(B("Cuda 10.2"), v, sizeof(v)), CD_EFORMAT);
	assert_int_equal(cudaver_txt(B("CUDA Vers"), v, sizeof(v)), CD_EFORMAT);
}

static void cuda_h(void **state)
{
	int iv = 0;

	(void)state;
	assert_int_equal(cudaver_header(B("/* x */\n#define CUDA_VERSION 12040\n"), &iv), 0);
	assert_int_equal(iv, 12040);
	assert_int_equal(cudaver_header(B("#  define   CUDA_VERSION\t11080"), &iv), 0);
	assert_int_equal(iv, 11080);
	assert_int_equal(cudaver_header(B("#define CUDA_VERSION_MAJOR 12\n#define CUDA_VERSION "
					  "13000\n"),
					&iv),
			 0);
	assert_int_equal(iv, 13000);
	assert_int_equal(cudaver_header(B("/* CUDA_VERSION 9000 */"), &iv), CD_ENOENT);
	assert_int_equal(cudaver_header(B("#define CUDA_VERSION\n"), &iv), CD_ENOENT);
	assert_int_equal(cudaver_header(B("#define XCUDA_VERSION 1000"), &iv), CD_ENOENT);
	assert_int_equal(cudaver_header(B("#define CUDA_VERSION 99999999"), &iv), CD_EFORMAT);
	assert_int_equal(cudaver_header(B("#define CUDA_VERSION 12"), &iv), CD_EFORMAT);
	assert_int_equal(cudaver_header(B("CUDA_VERSION"), &iv), CD_ENOENT);
}

static void package_names(void **state)
{
	(void)state;
	assert_int_equal(cudaver_pkgname("nvidia_cuda_nvcc-13.0.88.dist-info", "nvidia_cuda_nvcc",
					 v, sizeof(v)),
			 0);
	assert_string_equal(v, "13.0.88");
	assert_int_equal(cudaver_pkgname("nvidia_cuda_nvcc_cu12-12.4.131.dist-info",
					 "nvidia_cuda_nvcc", v, sizeof(v)),
			 0);
	assert_string_equal(v, "12.4.131");
	assert_int_equal(
		cudaver_pkgname("cuda-nvcc-12.4.131-h2d2c4d0_0.json", "cuda-nvcc", v, sizeof(v)),
		0);
	assert_string_equal(v, "12.4.131");
	assert_int_equal(
		cudaver_pkgname("cuda-version-12.4-h3060b56_3.json", "cuda-version", v, sizeof(v)),
		0);
	assert_string_equal(v, "12.4");
	assert_int_equal(cudaver_pkgname("cuda-nvcc-dev_linux-64-12.4.131-0.json", "cuda-nvcc", v,
					 sizeof(v)),
			 CD_ENOENT);
	assert_int_equal(cudaver_pkgname("cuda-nvcc-12..4-0.json", "cuda-nvcc", v, sizeof(v)),
			 CD_EFORMAT);
	assert_int_equal(cudaver_pkgname("nvidia_cuda_nvcc_cu12-12.4.131.dist", "nvidia_cuda_nvcc",
					 v, sizeof(v)),
			 CD_ENOENT);
	assert_int_equal(
		cudaver_pkgname("nvidia_cuda_nvccx-1.dist-info", "nvidia_cuda_nvcc", v, sizeof(v)),
		CD_ENOENT);
	assert_int_equal(cudaver_pkgname("nvidia_cuda_nvcc_cu-1.dist-info", "nvidia_cuda_nvcc", v,
					 sizeof(v)),
			 CD_ENOENT);
}

static void wrappers(void **state)
{
	char p[256];

	(void)state;
	assert_int_equal(cudaver_wrapper(B("#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "
					   "\"$@\"\n"),
					 p, sizeof(p)),
			 0);
	assert_string_equal(p, "/usr/local/cuda-13.0/bin/nvcc");
	assert_int_equal(
		cudaver_wrapper(B("#!/bin/bash\nexec \"/opt/cuda/bin/nvcc\" \"$@\""), p, sizeof(p)),
		0);
	assert_string_equal(p, "/opt/cuda/bin/nvcc");
	assert_int_equal(cudaver_wrapper(B("#!/bin/sh\nexec \"${CUDA_HOME}/bin/nvcc\" \"$@\""), p,
					 sizeof(p)),
			 CD_ENOENT);
	assert_int_equal(cudaver_wrapper(B("#!/bin/sh\nexec $CUDA_HOME/bin/nvcc"), p, sizeof(p)),
			 CD_ENOENT);
	assert_int_equal(cudaver_wrapper(B("#!/bin/sh\ncat /x/bin/nvcc.profile"), p, sizeof(p)),
			 CD_ENOENT);
	assert_int_equal(cudaver_wrapper(B("\177ELF/usr/bin/nvcc"), p, sizeof(p)), CD_EFORMAT);
	assert_int_equal(cudaver_wrapper(B("#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc"), p, 8),
			 CD_ERANGE);
}

static void dpkg_status(void **state)
{
	static const char st[] = "Package: cuda-nvcc-13-0-dev\nVersion: 1.0-1\n\n"
				 "Package: cuda-nvcc-13-0\nStatus: install ok installed\n"
				 "Version: 13.0.88-1\n\nPackage: x\nVersion: 2:1.2.3-4\n\n"
				 "Package: cuda-nvcc-12-4\n\nVersion: 12.4.131-1\n";

	(void)state;
	assert_int_equal(cudaver_dpkg(B(st), "cuda-nvcc-13-0", v, sizeof(v)), 0);
	assert_string_equal(v, "13.0.88");
	assert_int_equal(cudaver_dpkg(B(st), "x", v, sizeof(v)), 0); /* epoch dropped */
	assert_string_equal(v, "1.2.3");
	/* The Version line belongs to another paragraph. */
	assert_int_equal(cudaver_dpkg(B(st), "cuda-nvcc-12-4", v, sizeof(v)), CD_ENOENT);
	assert_int_equal(cudaver_dpkg(B(st), "cuda-nvcc-13", v, sizeof(v)), CD_ENOENT);
	assert_int_equal(cudaver_dpkg(B("Package: a\nVersion: x1\n"), "a", v, sizeof(v)),
			 CD_EFORMAT);
}

static void validity(void **state)
{
	(void)state;
	assert_true(cudaver_valid("12.4"));
	assert_true(cudaver_valid("13.0.88"));
	assert_false(cudaver_valid(""));
	assert_false(cudaver_valid("12..4"));
	assert_false(cudaver_valid(".12"));
	assert_false(cudaver_valid("12."));
	assert_false(cudaver_valid("12.4a"));
	assert_false(cudaver_valid("1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(version_json), cmocka_unit_test(version_txt),
		cmocka_unit_test(cuda_h),	cmocka_unit_test(package_names),
		cmocka_unit_test(wrappers),	cmocka_unit_test(validity),
		cmocka_unit_test(dpkg_status),
	};
	return cmocka_run_group_tests_name("cudaver", tests, NULL, NULL);
}
