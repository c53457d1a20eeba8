/* Unit tests for src/kb/errcodes and src/kb/xid: the data/ tables the probe
 * explains results with, looked up the way the checks do. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kb/errcodes.h"
#include "kb/xid.h"

static void driver_results(void **state)
{
	const struct errcodes_row *r = errcodes_find(ERRCODES_DRIVER, 999);

	(void)state;
	assert_non_null(r);
	assert_string_equal(r->name, "CUDA_ERROR_UNKNOWN");
	assert_string_equal(r->text, "unknown error");
	assert_non_null(strstr(r->meaning, "nvidia_uvm"));
	assert_true(r->n_fix >= 3);
	assert_string_equal(r->fix[1], "sudo modprobe nvidia_uvm");
	assert_non_null(strstr(r->source, "cuGetErrorString"));
	assert_string_equal(errcodes_name(ERRCODES_DRIVER, 221),
			    "CUDA_ERROR_JIT_COMPILER_NOT_FOUND");
	assert_string_equal(errcodes_name(ERRCODES_DRIVER, 46), "CUDA_ERROR_DEVICE_UNAVAILABLE");
	/* every driver code of CUDA 13.0 is there, with its text even without a meaning */
	r = errcodes_find(ERRCODES_DRIVER, 913);
	assert_non_null(r);
	assert_string_equal(r->name, "CUDA_ERROR_FUNCTION_NOT_LOADED");
	assert_string_equal(r->meaning, "");
	assert_int_equal(r->n_fix, 0);
	assert_null(errcodes_find(ERRCODES_DRIVER, 12345));
	assert_null(errcodes_find(ERRCODES_DRIVER, 35)); /* a runtime code only */
	assert_string_equal(errcodes_name(ERRCODES_RUNTIME, 35), "cudaErrorInsufficientDriver");
}

static void nccl_results(void **state)
{
	const struct errcodes_row *r = errcodes_find(ERRCODES_NCCL, 2);

	(void)state;
	assert_non_null(r);
	assert_string_equal(r->name, "ncclSystemError");
	assert_non_null(strstr(r->fix[0], "/dev/shm"));
	assert_string_equal(errcodes_name(ERRCODES_NCCL, 7), "ncclInProgress");
	assert_null(errcodes_find(ERRCODES_NCCL, 8));
}

static void xids(void **state)
{
	const struct xid_row *r = xid_find(79);

	(void)state;
	assert_non_null(r);
	assert_string_equal(r->name, "GPU has fallen off the bus");
	assert_string_equal(r->k8s, "unhealthy");
	assert_string_equal(r->dcgm, "fail");
	assert_string_equal(r->eks, "fatal");
	assert_string_equal(r->action, "RESTART_BM");
	assert_string_equal(r->severity, "error");
	/* where they disagree: the device plugin ignores 109, the EKS agent repairs */
	r = xid_find(109);
	assert_non_null(r);
	assert_string_equal(r->k8s, "ignored");
	assert_string_equal(r->eks, "fatal");
	assert_string_equal(r->dcgm, "silent");
	r = xid_find(13);
	assert_non_null(r);
	assert_string_equal(r->severity, "info");
	assert_non_null(strstr(r->notes, "earlier EKS agent releases"));
	assert_null(xid_find(1000));
}

static void recovery(void **state)
{
	const struct xid_recovery *r = xid_recovery_find(2);

	(void)state;
	assert_non_null(r);
	assert_string_equal(r->name, "NVML_GPU_RECOVERY_ACTION_NODE_REBOOT");
	assert_string_equal(r->severity, "error");
	assert_string_equal(r->fix, "sudo reboot");
	assert_string_equal(xid_recovery_find(4)->severity, "warning");
	assert_null(xid_recovery_find(99));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(driver_results),
		cmocka_unit_test(nccl_results),
		cmocka_unit_test(xids),
		cmocka_unit_test(recovery),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
