/* Unit tests for kb/nvlibs: the NVIDIA library stems and the wheel that ships
 * each per CUDA major (data/nvidia_libs.tsv). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kb/nvlibs.h"

static void stems(void **state)
{
	(void)state;
	assert_true(nvlibs_is_nvidia("libcudnn_graph.so.9"));
	assert_true(nvlibs_is_nvidia("libcuda.so.1"));
	assert_true(nvlibs_is_nvidia("libnvidia-ml.so.1"));
	assert_true(nvlibs_is_nvidia("libnvidia-ptxjitcompiler.so.580.159.04"));
	assert_true(nvlibs_is_nvidia("libcusparseLt.so.0"));
	assert_true(nvlibs_is_nvidia("libnvperf_host.so"));
	assert_true(nvlibs_is_nvidia("libnvjpeg.so.12"));
	assert_true(nvlibs_is_nvidia("libnvshmem_host.so.3"));
	assert_false(nvlibs_is_nvidia("libcudadebugger.so.1")); /* "libcuda.so" is the stem */
	assert_false(nvlibs_is_nvidia("libnvidia-encode.so.1"));
	assert_false(nvlibs_is_nvidia("libtorch_cuda.so"));
	assert_false(nvlibs_is_nvidia("libc.so.6"));
	assert_false(nvlibs_is_nvidia(""));
	assert_false(nvlibs_is_nvidia(NULL));
}

/* The wheel of lib for CUDA major, or NULL. */
static const char *wheel(const char *lib, int major)
{
	struct nvlibs_wheel w[NVLIBS_WHEELS_MAX];
	size_t n = nvlibs_wheels(lib, w, NVLIBS_WHEELS_MAX), i;

	for (i = 0; i < n; i++)
		if (w[i].cuda_major == major)
			return w[i].name;
	return NULL;
}

static void wheels(void **state)
{
	struct nvlibs_wheel w[NVLIBS_WHEELS_MAX];

	(void)state;
	/* cuDNN, NCCL, NVSHMEM and cuSPARSELt keep the suffix on CUDA 13 ... */
	assert_string_equal(wheel("libcudnn_graph.so.9", 13), "nvidia-cudnn-cu13");
	assert_string_equal(wheel("libcudnn.so.9", 12), "nvidia-cudnn-cu12");
	assert_string_equal(wheel("libnccl.so.2", 13), "nvidia-nccl-cu13");
	assert_string_equal(wheel("libnvshmem_host.so.3", 13), "nvidia-nvshmem-cu13");
	assert_string_equal(wheel("libcusparseLt.so.0", 13), "nvidia-cusparselt-cu13");
	/* ... the toolkit's own libraries drop it. */
	assert_string_equal(wheel("libcudart.so.13", 13), "nvidia-cuda-runtime");
	assert_string_equal(wheel("libcudart.so.12", 12), "nvidia-cuda-runtime-cu12");
	assert_string_equal(wheel("libcudart.so.11.0", 11), "nvidia-cuda-runtime-cu11");
	assert_string_equal(wheel("libnvrtc-builtins.so.13.0", 13), "nvidia-cuda-nvrtc");
	assert_string_equal(wheel("libcublas.so.13", 13), "nvidia-cublas");
	assert_string_equal(wheel("libcublasLt.so.13", 13), "nvidia-cublas");
	assert_string_equal(wheel("libcublasLt.so.12", 12), "nvidia-cublas-cu12");
	assert_string_equal(wheel("libcusparse.so.12", 13), "nvidia-cusparse");
	assert_string_equal(wheel("libnvJitLink.so.13", 13), "nvidia-nvjitlink");
	assert_string_equal(wheel("libcupti.so.13", 13), "nvidia-cuda-cupti");
	assert_string_equal(wheel("libnvToolsExt.so.1", 12), "nvidia-nvtx-cu12");
	/* No wheel for a CUDA major without one, nor for the driver's libraries. */
	assert_null(wheel("libnvJitLink.so.11", 11));
	assert_null(wheel("libcudart.so.14", 14));
	assert_int_equal(nvlibs_wheels("libcuda.so.1", w, NVLIBS_WHEELS_MAX), 0);
	assert_int_equal(nvlibs_wheels("libnvidia-ml.so.1", w, NVLIBS_WHEELS_MAX), 0);
	/* A stem matches before '.', '_' or '-' only. */
	assert_int_equal(nvlibs_wheels("libcusparseLt.so.0", w, NVLIBS_WHEELS_MAX), 2);
	assert_string_equal(w[0].name, "nvidia-cusparselt-cu12");
	assert_int_equal(nvlibs_wheels("libcusparse.so.12", w, NVLIBS_WHEELS_MAX), 3);
	assert_int_equal(nvlibs_wheels("libcudnnx.so.9", w, NVLIBS_WHEELS_MAX), 0);
	assert_int_equal(nvlibs_wheels("libcudnn", w, NVLIBS_WHEELS_MAX), 0);
	assert_int_equal(nvlibs_wheels(NULL, w, NVLIBS_WHEELS_MAX), 0);
	/* cap is respected. */
	assert_int_equal(nvlibs_wheels("libcudnn.so.9", w, 1), 1);
	assert_int_equal(w[0].cuda_major, 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stems),
		cmocka_unit_test(wheels),
	};
	return cmocka_run_group_tests_name("nvlibs", tests, NULL, NULL);
}
