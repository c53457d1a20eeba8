/* gpuarch: what a GPU of compute capability X.Y runs: bf16 and FP8 in hardware
 * (data/gpu_arch.tsv; its source states floors, so below the first "yes" row the
 * answer is no, and above it a missing row or a blank cell is unknown, never a
 * guess) and the lowest compute capability of GPU kernels (data/kernel_arch.tsv).
 * Parsed on first use into static storage (returned strings live there; not
 * thread-safe); a missing table answers unknown, NULL or CD_ENOENT. */
#ifndef CD_GPUARCH_H
#define CD_GPUARCH_H

#include "core/err.h"
enum gpuarch_feature { GPUARCH_BF16 = 0, GPUARCH_FP8 };

enum gpuarch_answer { GPUARCH_UNKNOWN = -1, GPUARCH_NO = 0, GPUARCH_YES = 1 };

/* Does compute capability major.minor have the feature in hardware? */
enum gpuarch_answer gpuarch_has(int major, int minor, enum gpuarch_feature f);
/* The lowest compute capability whose row says yes, as the table writes it
 * ("8.0" for bf16, "8.9" for FP8); NULL when no row does. */
const char *gpuarch_first(enum gpuarch_feature f);

/* The lowest compute capability kernel runs on ("flash_attention_2" -> 8, 0)
 * and the error its package raises below it (NULL when the table has none).
 * 0, or CD_ENOENT when the kernel has no row. */
CD_WUR int gpuarch_kernel_floor(const char *kernel, int *major, int *minor, const char **error);

#endif
