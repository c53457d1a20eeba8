/* Unit tests for src/check/driver: each driver-* finding from hand-made
 * facts, with its severity and the commands it offers; and silence when
 * the driver is healthy or was not queried. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check_helpers.h"

static void quiet_when_healthy_or_not_run(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	check_driver(&c.f, &c.fs); /* --root without --nvml-lib: not run */
	assert_int_equal(c.fs.n, 0);
	ctx_healthy(&c, 2);
	check_driver(&c.f, &c.fs);
	assert_int_equal(c.fs.n, 0);
	ctx_free(&c);
}

static void missing_everything(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	c.f.driver.status = c.f.driver.nvml.status = c.f.driver.cuda.status = CD_PROBE_LIB_MISSING;
	c.f.driver.nvml.requested = "libnvidia-ml.so.1";
	c.f.driver.cuda.requested = "libcuda.so.1";
	c.f.driver.cuda.error = "libcuda.so.1: cannot open shared object file";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-missing");
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(has_evidence(x, "libcuda.so.1: cannot open shared object file"));
	assert_true(has_evidence(x, "/proc/driver/nvidia/version: absent"));
	assert_true(has_fix(x, "ubuntu-drivers"));
	ctx_free(&c);

	/* inside a container: ask for the GPUs instead */
	ctx_init(&c);
	c.f.container.kind = "docker";
	c.f.driver.status = c.f.driver.nvml.status = c.f.driver.cuda.status = CD_PROBE_LIB_MISSING;
	c.f.driver.nvml.requested = "libnvidia-ml.so.1";
	c.f.driver.cuda.requested = "libcuda.so.1";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-missing");
	assert_true(has_fix(x, "--gpus all"));
	assert_true(has_fix(x, "nvidia-ctk runtime configure"));
	assert_false(has_fix(x, "ubuntu-drivers"));
	ctx_free(&c);
}

static void missing_user_space_only(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.driver.nvml.status = CD_PROBE_LIB_MISSING;
	c.f.driver.nvml.path = NULL;
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-missing");
	assert_int_equal(x->severity, CD_SEV_WARNING); /* CUDA still works */
	assert_true(has_fix(x, "libnvidia-compute-570"));
	ctx_free(&c);
}

static void stub_on_ld_library_path(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.driver.cuda.status = CD_PROBE_INIT_FAILED;
	c.f.driver.cuda.rc = 34;
	c.f.driver.cuda.is_stub = CD_TRI_YES;
	c.f.driver.cuda.loaded_as = "/usr/local/cuda/lib64/stubs/libcuda.so.1";
	c.f.driver.cuda.path = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/stubs/libcuda.so";
	/* what the driver probe saw, superseded by what the env probe recorded */
	c.f.driver.ld_library_path = "/ignored";
	ctx_env(&c, "LD_LIBRARY_PATH", "/opt/a:/usr/local/cuda/lib64/stubs/:/opt/b:/x/stubs");
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-stub-library"); /* not also driver-init-failed */
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(has_fix(x, "export LD_LIBRARY_PATH=/opt/a:/opt/b"));
	assert_true(has_evidence(x, "cuDriverGetVersion returned 34"));
	ctx_free(&c);

	/* only the stub on the path: unset it */
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.driver.cuda.is_stub = CD_TRI_YES;
	c.f.driver.cuda.loaded_as = "/usr/local/cuda/lib64/stubs/libcuda.so.1";
	c.f.driver.ld_library_path = "/usr/local/cuda/lib64/stubs";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-stub-library");
	assert_true(has_fix(x, "unset LD_LIBRARY_PATH"));
	ctx_free(&c);

	/* not on LD_LIBRARY_PATH: the ld.so.conf line to delete */
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.driver.cuda.is_stub = CD_TRI_YES;
	c.f.driver.cuda.loaded_as = "/usr/local/cuda/lib64/stubs/libcuda.so.1";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-stub-library");
	assert_true(has_fix(x, "grep -rn '/usr/local/cuda/lib64/stubs' /etc/ld.so.conf"));
	ctx_free(&c);
}

static void timeout_and_crash(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 0);
	c.f.gpus_known = 0;
	c.f.driver.nvml.status = c.f.driver.status = CD_PROBE_TIMEOUT;
	c.f.driver.nvml.stage = "nvmlInit_v2";
	c.f.driver.timeout_ms = 2500;
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-timeout");
	assert_non_null(strstr(x->title, "2.5 s"));
	assert_non_null(strstr(x->detail, "nvmlInit_v2"));
	assert_true(has_fix(x, "Xid"));
	ctx_free(&c);

	ctx_init(&c);
	ctx_healthy(&c, 0);
	c.f.driver.cuda.status = c.f.driver.status = CD_PROBE_CRASHED;
	c.f.driver.cuda.stage = "cuDriverGetVersion";
	c.f.driver.cuda.error = "killed by SIGSEGV (11) in cuDriverGetVersion";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-crashed");
	assert_true(has_evidence(x, "SIGSEGV"));
	assert_true(has_fix(x, "dpkg -S /usr/lib/x86_64-linux-gnu/libcuda.so.570.124.06"));
	ctx_free(&c);
}

static void mismatch(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	/* NVML says so, with the library's own version */
	ctx_init(&c);
	ctx_healthy(&c, 0);
	c.f.gpus_known = 0;
	c.f.driver.nvml.status = c.f.driver.status = CD_PROBE_INIT_FAILED;
	c.f.driver.nvml.rc = 18;
	c.f.driver.version = "550.54.15";
	c.f.driver.version_source = "kernel-module";
	c.f.driver.kernel_module_version = "550.54.15";
	c.f.driver.nvml_version = "12.570.124.06";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-library-mismatch"); /* not also driver-init-failed */
	assert_non_null(strstr(x->title, "550.54.15"));
	assert_non_null(strstr(x->title, "570.124.06"));
	assert_true(has_fix(x, "sudo reboot"));
	assert_true(has_fix(x, "modprobe -r nvidia_drm nvidia_modeset nvidia_uvm nvidia"));
	ctx_free(&c);

	/* seen from the versions alone */
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.driver.kernel_module_version = "565.57.01";
	c.f.container.kind = "docker";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-library-mismatch");
	assert_true(has_fix(x, "apt-get purge"));
	assert_false(has_fix(x, "modprobe"));
	ctx_free(&c);
}

static void init_failed(void **state)
{
	const struct cd_finding *x;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 0);
	c.f.gpus_known = 0;
	c.f.driver.nvml.status = c.f.driver.status = CD_PROBE_INIT_FAILED;
	c.f.driver.nvml.rc = 9;
	c.f.driver.nvml.error = "Driver Not Loaded";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-init-failed");
	assert_non_null(strstr(x->title, "NVML_ERROR_DRIVER_NOT_LOADED"));
	assert_true(has_fix(x, "sudo modprobe nvidia"));
	ctx_free(&c);

	/* a library without the functions it must have */
	ctx_init(&c);
	ctx_healthy(&c, 0);
	c.f.driver.nvml.status = c.f.driver.status = CD_PROBE_INIT_FAILED;
	c.f.driver.nvml.rc = CD_UNK;
	c.f.driver.nvml.error = "required function nvmlInit_v2 is missing";
	check_driver(&c.f, &c.fs);
	x = only(&c, "driver-init-failed");
	assert_non_null(strstr(x->detail, "nvmlInit_v2 is missing"));
	ctx_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quiet_when_healthy_or_not_run),
		cmocka_unit_test(missing_everything),
		cmocka_unit_test(missing_user_space_only),
		cmocka_unit_test(stub_on_ld_library_path),
		cmocka_unit_test(timeout_and_crash),
		cmocka_unit_test(mismatch),
		cmocka_unit_test(init_failed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
