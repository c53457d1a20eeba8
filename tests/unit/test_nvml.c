/* Unit tests for the parent side of src/probe/nvml and src/probe/cudadrv:
 * records from a child become facts; bad, out-of-range or surplus records
 * leave facts unknown instead of wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "probe/driver/cudadrv.h"
#include "probe/driver/nvml.h"
#include "facts/facts.h"

static void records_to_facts(void **state)
{
	struct cd_facts f;
	const struct cd_gpu *g;

	(void)state;
	facts_init(&f, NULL);
	nvml_apply(&f, "init_rc", "0");
	nvml_apply(&f, "driver_version", "580.159.04");
	nvml_apply(&f, "nvml_version", "13.580.159.04");
	nvml_apply(&f, "cuda_version", "13000");
	nvml_apply(&f, "gpu.0.name", "too early"); /* before the count: ignored */
	nvml_apply(&f, "count", "2");
	nvml_apply(&f, "count", "5"); /* a second count is ignored */
	nvml_apply(&f, "gpu.0.name", "NVIDIA H200");
	nvml_apply(&f, "gpu.0.uuid", "GPU-0e6b8f52-9a1c-4d37-b2e5-c4f81a7d0936");
	nvml_apply(&f, "gpu.0.pci_bus_id", "00000000:00:05.0");
	nvml_apply(&f, "gpu.0.cc_major", "9");
	nvml_apply(&f, "gpu.0.cc_minor", "0");
	nvml_apply(&f, "gpu.0.mem_total", "150754820096");
	nvml_apply(&f, "gpu.0.mem_reserved", "584056832");
	nvml_apply(&f, "gpu.0.mig_mode", "0");
	nvml_apply(&f, "gpu.0.persistence_mode", "1");
	nvml_apply(&f, "gpu.0.compute_mode", "3");
	nvml_apply(&f, "gpu.0.ecc_mode", "1");
	nvml_apply(&f, "gpu.0.ecc_volatile_uncorrected", "0");
	nvml_apply(&f, "gpu.0.retired_pages_pending", "1");
	nvml_apply(&f, "gpu.0.row_remap_pending", "0");
	nvml_apply(&f, "gpu.0.row_remap_failure", "1");
	/* values that must not become facts */
	nvml_apply(&f, "gpu.1.mem_total", "-5");
	nvml_apply(&f, "gpu.1.mem_free", "99999999999999999999999");
	nvml_apply(&f, "gpu.1.cc_major", "9x");
	nvml_apply(&f, "gpu.1.compute_mode", "7");
	nvml_apply(&f, "gpu.1.mig_mode", "2");
	nvml_apply(&f, "gpu.1.retired_pages_pending", "3");
	nvml_apply(&f, "gpu.2.name", "out of range");
	nvml_apply(&f, "gpu.01x.name", "bad index");
	nvml_apply(&f, "gpu..name", "bad index");
	nvml_apply(&f, "gpu.999999999999.name", "bad index");
	nvml_apply(&f, "gpu.1", "no field");
	nvml_apply(&f, "gpu.1.error", "nvmlDeviceGetHandleByIndex_v2: GPU is lost (15)");
	nvml_apply(&f, "unknown_key", "whatever");
	nvml_finish(&f);

	assert_string_equal(f.driver.version, "580.159.04");
	assert_string_equal(f.driver.nvml_version, "13.580.159.04");
	assert_int_equal(f.driver.cuda_version_int, 13000);
	assert_string_equal(f.driver.cuda_version_source, "nvml");
	assert_int_equal(f.driver.nvml.rc, 0);
	assert_int_equal(f.gpus_known, 1);
	assert_int_equal(f.n_gpus, 2);
	assert_int_equal(f.driver.gpu_count, 2);
	g = &f.gpus[0];
	assert_int_equal(g->index, 0);
	assert_string_equal(g->name, "NVIDIA H200");
	assert_string_equal(g->pci_bus_id, "00000000:00:05.0");
	assert_string_equal(g->compute_capability, "9.0");
	assert_int_equal(g->memory_total_bytes, 150754820096LL);
	assert_int_equal(g->memory_reserved_bytes, 584056832);
	assert_int_equal(g->memory_free_bytes, CD_UNK);
	assert_string_equal(g->mig_mode, "disabled");
	assert_string_equal(g->persistence_mode, "enabled");
	assert_string_equal(g->compute_mode, "exclusive_process");
	assert_string_equal(g->ecc_mode, "enabled");
	assert_int_equal(g->ecc_volatile_uncorrected, 0);
	assert_int_equal(g->ecc_aggregate_uncorrected, CD_UNK);
	assert_int_equal(g->retired_pages_pending, CD_TRI_YES);
	assert_int_equal(g->row_remap_pending, CD_TRI_NO);
	assert_int_equal(g->row_remap_failure, CD_TRI_YES);
	g = &f.gpus[1];
	assert_int_equal(g->index, 1);
	assert_null(g->name);
	assert_int_equal(g->memory_total_bytes, CD_UNK);
	assert_int_equal(g->memory_free_bytes, CD_UNK);
	assert_int_equal(g->cc_major, CD_UNK);
	assert_null(g->compute_capability);
	assert_null(g->compute_mode);
	assert_null(g->mig_mode);
	assert_int_equal(g->retired_pages_pending, CD_TRI_UNKNOWN);
	assert_string_equal(g->error, "nvmlDeviceGetHandleByIndex_v2: GPU is lost (15)");
	facts_free(&f);
}

static void count_cap(void **state)
{
	struct cd_facts f;

	(void)state;
	facts_init(&f, NULL);
	nvml_apply(&f, "count", "1000");
	assert_int_equal(f.driver.gpu_count, 1000);
	assert_int_equal(f.n_gpus, NVML_GPUS_MAX);
	assert_int_equal(f.gpus[NVML_GPUS_MAX - 1].index, NVML_GPUS_MAX - 1);
	facts_free(&f);
	facts_init(&f, NULL);
	nvml_apply(&f, "count", "99999999999");
	assert_int_equal(f.gpus_known, 0);
	nvml_apply(&f, "count", "0");
	assert_int_equal(f.gpus_known, 1);
	assert_int_equal(f.n_gpus, 0);
	facts_free(&f);
}

static void cuda_records(void **state)
{
	struct cd_facts f;

	(void)state;
	facts_init(&f, NULL);
	cudadrv_apply(&f, "rc", "0");
	cudadrv_apply(&f, "version", "12080");
	nvml_apply(&f, "cuda_version", "12020"); /* cuDriverGetVersion's answer wins */
	assert_int_equal(f.driver.cuda.rc, 0);
	assert_int_equal(f.driver.cuda_version_int, 12080);
	assert_string_equal(f.driver.cuda_version_source, "cuDriverGetVersion");
	facts_free(&f);
	facts_init(&f, NULL);
	cudadrv_apply(&f, "rc", "34");
	cudadrv_apply(&f, "version", "12"); /* implausible: ignored */
	cudadrv_apply(&f, "error_name", "CUDA_ERROR_STUB_LIBRARY");
	cudadrv_apply(&f, "error", "CUDA driver is a stub library");
	assert_int_equal(f.driver.cuda.rc, 34);
	assert_int_equal(f.driver.cuda_version_int, CD_UNK);
	assert_string_equal(f.driver.cuda.error, "CUDA driver is a stub library");
	assert_string_equal(cudadrv_error_name(34), "CUDA_ERROR_STUB_LIBRARY");
	assert_null(cudadrv_error_name(12345));
	assert_string_equal(nvml_error_name(18), "NVML_ERROR_LIB_RM_VERSION_MISMATCH");
	assert_string_equal(nvml_error_name(999), "NVML_ERROR_UNKNOWN");
	assert_null(nvml_error_name(-1));
	assert_null(nvml_error_name(30));
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_to_facts),
		cmocka_unit_test(count_cap),
		cmocka_unit_test(cuda_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
