/* Unit tests for kb/gpuarch: bf16 and FP8 in hardware per compute capability
 * (data/gpu_arch.tsv) and the compute-capability floors of GPU kernels
 * (data/kernel_arch.tsv). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "kb/gpuarch.h"

static void bf16(void **state)
{
	(void)state;
	assert_int_equal(gpuarch_has(8, 0, GPUARCH_BF16), GPUARCH_YES); /* A100 */
	assert_int_equal(gpuarch_has(8, 6, GPUARCH_BF16), GPUARCH_YES);
	assert_int_equal(gpuarch_has(9, 0, GPUARCH_BF16), GPUARCH_YES);
	assert_int_equal(gpuarch_has(12, 0, GPUARCH_BF16), GPUARCH_YES);
	assert_int_equal(gpuarch_has(7, 5, GPUARCH_BF16), GPUARCH_NO); /* T4 */
	assert_int_equal(gpuarch_has(7, 0, GPUARCH_BF16), GPUARCH_NO);
	assert_int_equal(gpuarch_has(6, 1, GPUARCH_BF16), GPUARCH_NO);
	/* No row, below the source's floor: no. */
	assert_int_equal(gpuarch_has(3, 0, GPUARCH_BF16), GPUARCH_NO);
	assert_int_equal(gpuarch_has(7, 3, GPUARCH_BF16), GPUARCH_NO);
	/* Blank cells and missing rows above it stay unknown. */
	assert_int_equal(gpuarch_has(8, 8, GPUARCH_BF16), GPUARCH_UNKNOWN);
	assert_int_equal(gpuarch_has(11, 0, GPUARCH_BF16), GPUARCH_UNKNOWN);
	assert_int_equal(gpuarch_has(12, 1, GPUARCH_BF16), GPUARCH_UNKNOWN);
	assert_int_equal(gpuarch_has(13, 0, GPUARCH_BF16), GPUARCH_UNKNOWN);
	assert_int_equal(gpuarch_has(-1, 0, GPUARCH_BF16), GPUARCH_UNKNOWN);
	assert_string_equal(gpuarch_first(GPUARCH_BF16), "8.0");
}

static void fp8(void **state)
{
	(void)state;
	assert_int_equal(gpuarch_has(8, 9, GPUARCH_FP8), GPUARCH_YES); /* L4, L40S */
	assert_int_equal(gpuarch_has(9, 0, GPUARCH_FP8), GPUARCH_YES);
	assert_int_equal(gpuarch_has(10, 0, GPUARCH_FP8), GPUARCH_YES);
	assert_int_equal(gpuarch_has(8, 0, GPUARCH_FP8), GPUARCH_NO);
	assert_int_equal(gpuarch_has(8, 6, GPUARCH_FP8), GPUARCH_NO);
	assert_int_equal(gpuarch_has(8, 7, GPUARCH_FP8), GPUARCH_NO);
	/* 8.8's cell is blank, but it is below 8.9: the floor says no. */
	assert_int_equal(gpuarch_has(8, 8, GPUARCH_FP8), GPUARCH_NO);
	/* 10.1's cell is blank above the floor: unknown, not a guess. */
	assert_int_equal(gpuarch_has(10, 1, GPUARCH_FP8), GPUARCH_UNKNOWN);
	assert_int_equal(gpuarch_has(12, 1, GPUARCH_FP8), GPUARCH_UNKNOWN);
	assert_string_equal(gpuarch_first(GPUARCH_FP8), "8.9");
	assert_null(gpuarch_first((enum gpuarch_feature)7));
	assert_int_equal(gpuarch_has(9, 0, (enum gpuarch_feature)7), GPUARCH_UNKNOWN);
}

static void kernel_floors(void **state)
{
	const char *err = NULL;
	int maj = -1, min = -1;

	(void)state;
	assert_int_equal(gpuarch_kernel_floor("flash_attention_2", &maj, &min, &err), 0);
	assert_int_equal(maj, 8);
	assert_int_equal(min, 0);
	assert_string_equal(err, "FlashAttention only supports Ampere GPUs or newer.");
	assert_int_equal(gpuarch_kernel_floor("flash_attention_2", &maj, &min, NULL), 0);
	assert_int_equal(gpuarch_kernel_floor("sdpa", &maj, &min, &err), CD_ENOENT);
	assert_int_equal(gpuarch_kernel_floor(NULL, &maj, &min, &err), CD_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bf16),
		cmocka_unit_test(fp8),
		cmocka_unit_test(kernel_floors),
	};
	return cmocka_run_group_tests_name("gpuarch", tests, NULL, NULL);
}
