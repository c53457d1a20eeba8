/* Unit tests for check/arch_list: the one TORCH_CUDA_ARCH_LIST rule
 * (torch-arch-list-invalid) from hand-built inputs, as check and jit call it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "check/arch_list.h"

static struct cd_arena A;
static struct cd_findings F;
static struct arch_list_input in;
static const struct arch_list_gpu h100[] = {{9, 0}}, orin_a100[] = {{8, 7}, {8, 0}};

static int setup(void **state)
{
	(void)state;
	arena_init(&A);
	findings_init(&F, &A);
	memset(&in, 0, sizeof(in));
	in.torch_version = "2.11.0+cu130";
	in.nvcc_version = "13.0.88";
	in.nvcc_major = 13;
	in.nvcc_minor = 0;
	in.gpus = h100;
	in.n_gpus = 1;
	in.gpus_known = 1;
	in.section = "toolkit";
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	arena_free(&A);
	return 0;
}

static const struct cd_finding *run(const char *value)
{
	findings_init(&F, &A);
	in.value = value;
	arch_list_check(&in, &F);
	assert_true(F.n <= 1);
	return F.n ? F.items[0] : NULL;
}

static int has(const char *const *lines, size_t n, const char *needle)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strstr(lines[i], needle))
			return 1;
	return 0;
}

static void rejected(void **state)
{
	const struct cd_finding *x;

	(void)state;
	x = run("sm_90;8.0;12.0f;;10.1");
	assert_string_equal(x->id, "torch-arch-list-invalid");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->section, "toolkit");
	assert_string_equal(x->title, "TORCH_CUDA_ARCH_LIST has 4 entries torch 2.11.0+cu130 "
				      "rejects: Unknown CUDA arch (sm_90)");
	assert_int_equal(x->n_evidence, 5);
	assert_true(has(x->evidence, x->n_evidence,
			"'10.1': accepted by torch 2.7-2.8 only; CUDA 13 renamed sm_101 to "
			"sm_110; use '11.0'"));
	assert_string_equal(x->fix[0], "export TORCH_CUDA_ARCH_LIST=\"9.0;8.0;12.0;11.0\"");
	assert_non_null(strstr(x->fix[1], "unset TORCH_CUDA_ARCH_LIST"));
	assert_non_null(strstr(x->detail, "Judged by the tables of torch 2.11."));
	/* nothing to keep: the GPUs */
	x = run("garbage");
	assert_string_equal(x->fix[0], "export TORCH_CUDA_ARCH_LIST=\"9.0\"");
	/* torch unknown: the newest tables, and the title says no version */
	in.torch_version = NULL;
	x = run("garbage");
	assert_string_equal(
		x->title,
		"TORCH_CUDA_ARCH_LIST has 1 entry torch rejects: Unknown CUDA arch (garbage)");
	assert_non_null(strstr(x->detail, "judged by the newest tables, torch 2.9 and later"));
}

static void per_release(void **state)
{
	const struct cd_finding *x;

	(void)state;
	in.torch_version = "2.5.1+cu124";
	in.nvcc_version = NULL;
	x = run("9.0;12.0;Blackwell");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(has(x->evidence, x->n_evidence,
			"'12.0': accepted from torch 2.7 on; this torch is 2.5"));
	assert_true(has(x->evidence, x->n_evidence,
			"'Blackwell': not an architecture torch's cpp_extension knows"));
	assert_string_equal(x->fix[0], "export TORCH_CUDA_ARCH_LIST=\"9.0\"");
	in.torch_version = "2.8.0+cu128";
	in.gpus_known = 0; /* the H100 is no Thor: leave coverage out */
	assert_null(run("10.1;Blackwell+Tegra"));
	in.torch_version = "2.9.0";
	assert_non_null(run("10.1"));
	/* torch 1.2 did not read the variable: nothing to say */
	in.torch_version = "1.2.0";
	assert_null(run("garbage"));
}

static void nvcc_and_gpus(void **state)
{
	const struct cd_finding *x;

	(void)state;
	x = run("7.0 8.0;9.0");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->title, "nvcc 13.0.88 cannot build TORCH_CUDA_ARCH_LIST entry 7.0: "
				      "sm_70 was last supported by CUDA 12.9");
	assert_string_equal(x->fix[0], "export TORCH_CUDA_ARCH_LIST=\"8.0;9.0\"");
	/* no nvcc known: nothing to judge there */
	in.nvcc_version = NULL;
	in.nvcc_major = -1;
	x = run("7.0");
	assert_int_equal(x->severity, CD_SEV_WARNING); /* 7.0 does not run on the H100 */
	assert_string_equal(x->title,
			    "TORCH_CUDA_ARCH_LIST=\"7.0\" has no code for GPU 0 (compute 9.0)");
	assert_null(run("8.0+PTX"));
	assert_null(run("9.0a"));
	assert_non_null(run("8.6")); /* 8.6 SASS does not run on 9.0 */
	/* Orin (8.7) runs only its own SASS; the A100 is covered by 8.0 */
	in.gpus = orin_a100;
	in.n_gpus = 2;
	x = run("8.0");
	assert_non_null(x);
	assert_non_null(strstr(x->title, "GPU 0 (compute 8.7)"));
	assert_string_equal(x->fix[0], "export TORCH_CUDA_ARCH_LIST=\"8.7;8.0\"");
	assert_null(run("8.0;8.7"));
	/* GPUs unknown: coverage is not judged */
	in.gpus_known = 0;
	assert_null(run("7.5"));
}

static void unset(void **state)
{
	const struct cd_finding *x;

	(void)state;
	assert_null(run(NULL)); /* check: nothing says a build is intended */
	in.judge_unset = 1;
	assert_null(run(NULL));
	assert_null(run("native"));
	in.gpus = NULL;
	in.n_gpus = 0;
	in.no_gpu = 1;
	x = run(NULL);
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_non_null(strstr(x->title, "IndexError"));
	assert_int_equal(x->n_fix, 1);
	x = run("native");
	assert_int_equal(x->n_fix, 2); /* and unset it */
	in.no_gpu = 0;
	in.gpus = h100;
	in.n_gpus = 1;
	in.nvcc_version = "11.7.99";
	in.nvcc_major = 11;
	in.nvcc_minor = 7;
	x = run("");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->title, "nvcc 11.7.99 cannot build for the GPU (compute 9.0): sm_90 "
				      "needs CUDA 11.8 or newer");
}

static void too_long(void **state)
{
	static char big[5000];
	const struct cd_finding *x;

	(void)state;
	memset(big, '8', sizeof(big) - 1);
	x = run(big);
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_string_equal(x->title, "TORCH_CUDA_ARCH_LIST is 4999 bytes long");
	in.truncated = 1;
	x = run("8.0");
	assert_string_equal(x->title, "TORCH_CUDA_ARCH_LIST is over 3 bytes long");
}

static void blocker(void **state)
{
	(void)state;
	in.value = "garbage";
	assert_non_null(strstr(arch_list_blocker(&in, &A), "Unknown CUDA arch (garbage)"));
	in.value = "7.0";
	assert_non_null(strstr(arch_list_blocker(&in, &A), "cannot build"));
	in.value = "8.0"; /* builds; only misses the GPU */
	assert_null(arch_list_blocker(&in, &A));
	in.value = NULL;
	in.judge_unset = 1;
	in.no_gpu = 1;
	assert_non_null(strstr(arch_list_blocker(&in, &A), "IndexError"));
}

static void build_log(void **state)
{
	const struct cd_finding *x;

	(void)state;
	in.section = "jit";
	findings_init(&F, &A);
	x = arch_list_build_failed(&in, "nvcc fatal : Unsupported gpu architecture 'compute_70'",
				   &F);
	assert_int_equal(F.n, 1);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->section, "jit");
	assert_non_null(strstr(x->title, "The test build failed: nvcc fatal"));
	/* the static finding gets the build's line */
	run("7.0");
	x = arch_list_build_failed(&in, "nvcc fatal : Unsupported gpu architecture 'compute_70'",
				   &F);
	assert_int_equal(F.n, 1);
	assert_true(has(x->evidence, x->n_evidence, "the test build confirms it"));
	findings_init(&F, &A);
	x = arch_list_no_kernel(&in, "no kernel image is available", "", &F);
	assert_string_equal(x->evidence[0], "built with: nvcc's default arch");
	assert_string_equal(x->fix[0], "export TORCH_CUDA_ARCH_LIST=\"9.0\"");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(rejected), T(per_release), T(nvcc_and_gpus), T(unset),
		T(too_long), T(blocker),     T(build_log),
	};
	return cmocka_run_group_tests_name("arch_list", tests, NULL, NULL);
}
