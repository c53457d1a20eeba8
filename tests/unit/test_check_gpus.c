/* Unit tests for src/check/gpus: no GPU, an inaccessible GPU, ECC errors,
 * pending retirement/remapping, and CUDA_VISIBLE_DEVICES against the GPUs
 * NVML sees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check_helpers.h"

static void healthy_is_quiet(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 2);
	ctx_env(&c, "CUDA_VISIBLE_DEVICES", "1,0");
	check_gpus(&c.f, &c.fs);
	assert_int_equal(c.fs.n, 0);
	ctx_free(&c);
}

static void none_visible(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 0);
	ctx_env(&c, "CUDA_VISIBLE_DEVICES", "0"); /* not reported on top */
	check_gpus(&c.f, &c.fs);
	x = only(&c, "gpu-none-visible");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(has_fix(x, "lspci"));
	ctx_free(&c);

	ctx_init(&c);
	ctx_healthy(&c, 0);
	c.f.container.kind = "docker";
	c.f.container.nvidia_visible_devices = "void";
	check_gpus(&c.f, &c.fs);
	x = only(&c, "gpu-none-visible");
	assert_true(has_evidence(x, "NVIDIA_VISIBLE_DEVICES=void"));
	assert_true(has_fix(x, "--gpus all"));
	ctx_free(&c);

	/* unknown GPUs (NVML failed): nothing to say here */
	ctx_init(&c);
	c.f.driver.nvml.status = CD_PROBE_INIT_FAILED;
	check_gpus(&c.f, &c.fs);
	assert_int_equal(c.fs.n, 0);
	ctx_free(&c);
}

static void inaccessible(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 2);
	c.f.gpus[1].error = "nvmlDeviceGetHandleByIndex_v2: GPU is lost (15)";
	check_gpus(&c.f, &c.fs);
	x = only(&c, "gpu-inaccessible");
	assert_true(has_evidence(x, "GPU 1: nvmlDeviceGetHandleByIndex_v2: GPU is lost"));
	assert_true(has_fix(x, "nvidia-smi -q -i 1"));
	ctx_free(&c);
}

static void ecc(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	/* lifetime errors only: a warning */
	ctx_init(&c);
	ctx_healthy(&c, 2);
	c.f.gpus[0].ecc_aggregate_uncorrected = 3;
	check_gpus(&c.f, &c.fs);
	x = only(&c, "gpu-ecc-errors");
	assert_int_equal(x->severity, CD_SEV_WARNING);
	ctx_free(&c);

	/* errors since the last reset: an error, one finding for all GPUs */
	ctx_init(&c);
	ctx_healthy(&c, 2);
	c.f.gpus[0].ecc_aggregate_uncorrected = 3;
	c.f.gpus[1].ecc_volatile_uncorrected = 2;
	check_gpus(&c.f, &c.fs);
	x = only(&c, "gpu-ecc-errors");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_int_equal(x->n_evidence, 2);
	assert_true(has_evidence(x, "GPU 1 NVIDIA H100 80GB HBM3 (GPU-c81e2a47"));
	assert_true(has_fix(x, "-d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i 1"));
	ctx_free(&c);

	/* a failed row remap is an error on its own */
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.gpus[0].row_remap_failure = CD_TRI_YES;
	check_gpus(&c.f, &c.fs);
	x = only(&c, "gpu-ecc-errors");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(has_evidence(x, "row remapping FAILED"));
	ctx_free(&c);

	/* unknown counts say nothing */
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.gpus[0].ecc_volatile_uncorrected = CD_UNK;
	c.f.gpus[0].ecc_aggregate_uncorrected = CD_UNK;
	c.f.gpus[0].row_remap_failure = CD_TRI_UNKNOWN;
	check_gpus(&c.f, &c.fs);
	assert_int_equal(c.fs.n, 0);
	ctx_free(&c);
}

static void pending(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 2);
	c.f.gpus[1].retired_pages_pending = CD_TRI_YES;
	c.f.gpus[0].row_remap_pending = CD_TRI_YES;
	check_gpus(&c.f, &c.fs);
	x = only(&c, "gpu-retired-pages-pending");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(has_evidence(x, "GPU 0"));
	assert_true(has_evidence(x, "GPU 1"));
	assert_true(has_fix(x, "sudo nvidia-smi -r -i 0"));
	assert_true(has_fix(x, "sudo nvidia-smi -r -i 1"));
	ctx_free(&c);
}

static const struct cd_finding *cvd(struct ctx *c, size_t n, const char *v)
{
	ctx_init(c);
	ctx_healthy(c, n);
	c->f.driver.cuda_visible_devices = v;
	c->f.driver.cuda_visible_devices_set = 1;
	check_gpus(&c->f, &c->fs);
	return c->fs.n ? c->fs.items[0] : NULL;
}

static void visible_devices(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	/* an index past the last GPU hides everything */
	x = cvd(&c, 2, "2");
	assert_string_equal(x->id, "cuda-visible-devices-invalid");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_non_null(strstr(x->detail, "out of range: there are 2 GPUs"));
	assert_true(has_fix(x, "unset CUDA_VISIBLE_DEVICES"));
	assert_true(has_evidence(x, "NVML GPU 1: NVIDIA H100 80GB HBM3 GPU-c81e2a47"));
	ctx_free(&c);
	/* the list is cut short: warning, and the value that works */
	x = cvd(&c, 2, "0,3,1");
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_non_null(strstr(x->title, "CUDA sees 1 device"));
	assert_true(has_fix(x, "export CUDA_VISIBLE_DEVICES=0,1"));
	ctx_free(&c);
	/* empty, and -1: nothing visible, with the CPU remark */
	x = cvd(&c, 2, "");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_non_null(strstr(x->detail, "meant to run on the CPU"));
	ctx_free(&c);
	x = cvd(&c, 2, "-1");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_non_null(strstr(x->detail, "is negative"));
	ctx_free(&c);
	/* a duplicate hides everything; the fix drops it */
	x = cvd(&c, 2, "1,1");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(has_fix(x, "export CUDA_VISIBLE_DEVICES=1"));
	ctx_free(&c);
	/* UUID prefixes */
	x = cvd(&c, 2, "GPU-c81e2a47,GPU-5a3f");
	assert_null(x);
	ctx_free(&c);
	x = cvd(&c, 2, "GPU-ffff");
	assert_non_null(strstr(x->detail, "start of no GPU's UUID"));
	ctx_free(&c);
	/* trailing junk after an index: works, but warn */
	x = cvd(&c, 2, "1gpu");
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_non_null(strstr(x->title, "is read as 1"));
	ctx_free(&c);
	/* MIG ids cannot be checked: no finding */
	x = cvd(&c, 2, "MIG-4f0c1a2b-1111-2222-3333-444455556666");
	assert_null(x);
	ctx_free(&c);
}

static void visible_devices_without_gpus(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	/* the driver was not queried: only the syntax, as a warning */
	ctx_init(&c);
	ctx_env(&c, "CUDA_VISIBLE_DEVICES", "");
	check_gpus(&c.f, &c.fs);
	x = only(&c, "cuda-visible-devices-invalid");
	assert_int_equal(x->severity, CD_SEV_WARNING);
	ctx_free(&c);
	ctx_init(&c);
	ctx_env(&c, "CUDA_VISIBLE_DEVICES", "5");
	check_gpus(&c.f, &c.fs);
	assert_int_equal(c.fs.n, 0);
	ctx_free(&c);
	/* the env probe's record wins over the driver probe's copy */
	ctx_init(&c);
	ctx_healthy(&c, 2);
	ctx_env(&c, "CUDA_VISIBLE_DEVICES", "0,1");
	c.f.driver.cuda_visible_devices = "7";
	c.f.driver.cuda_visible_devices_set = 1;
	check_gpus(&c.f, &c.fs);
	assert_int_equal(c.fs.n, 0);
	ctx_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_is_quiet),
		cmocka_unit_test(none_visible),
		cmocka_unit_test(inaccessible),
		cmocka_unit_test(ecc),
		cmocka_unit_test(pending),
		cmocka_unit_test(visible_devices),
		cmocka_unit_test(visible_devices_without_gpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
