/* live_ptx: the kernels `probe` runs, as PTX embedded in the binary so the
 * driver's JIT compiler is exercised on every GPU. How it was produced:
 * the CUDA C below compiled with CUDA 13.0.88's
 *     nvcc -ptx -arch=compute_75 -O3 kernels.cu
 * then the header lowered to ".version 6.0" and ".target sm_50" (PTX ISA 6.0
 * is CUDA 9.0, driver R384), the generator comments dropped, and nothing else
 * changed: the code uses only instructions sm_50 and ISA 6.0 have (integer
 * mad/mul/xor/shift, ld/st.global, atom.global.add.u32, branches), so every
 * driver from Maxwell to Blackwell JIT-compiles it. Checked with ptxas for
 * sm_75, sm_80, sm_86, sm_90, sm_100 and sm_120 (`cuda-doctor probe
 * --print-ptx | ptxas -arch=sm_90 -`; tests/e2e/probe.bats runs it when a
 * ptxas is installed). The hash and the loop are mirrored on the host side in
 * live_dev.c (live_dev_hash, live_dev_lcg), which verifies every word.
 *
 *    __device__ __forceinline__ unsigned cd_hash(unsigned long long i, unsigned seed)
 *    {
 *    	unsigned h = seed ^ ((unsigned)(i >> 32) * 0x7F4A7C15u);
 *    	unsigned x = (unsigned)i * 0x9E3779B1u + h;
 *    	x ^= x >> 16;
 *    	x *= 0x85EBCA6Bu;
 *    	x ^= x >> 13;
 *    	return x;
 *    }
 *
 *    extern "C" __global__ void cd_fill(unsigned *out, unsigned long long n, unsigned seed)
 *    {
 *    	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *    	unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
 *    	for (; i < n; i += step)
 *    		out[i] = cd_hash(i, seed);
 *    }
 *
 *    extern "C" __global__ void cd_check(const unsigned *buf, unsigned long long n, unsigned seed,
 *    				    unsigned *errors)
 *    {
 *    	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
 *    	unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
 *    	for (; i < n; i += step)
 *    		if (buf[i] != cd_hash(i, seed))
 *    			atomicAdd(errors, 1u);
 *    }
 *
 *    extern "C" __global__ void cd_spin(unsigned *out, unsigned iters)
 *    {
 *    	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
 *    	unsigned x = t;
 *    #pragma unroll 1
 *    	for (unsigned k = 0; k < iters; k++)
 *    		x = x * 1664525u + 1013904223u;
 *    	out[t] = x;
 *    }
 */
#include "probe/live/live_int.h"

const char live_ptx[] = ".version 6.0\n"
			".target sm_50\n"
			".address_size 64\n"
			"\n"
			"	// .globl	cd_fill\n"
			"\n"
			".visible .entry cd_fill(\n"
			"	.param .u64 cd_fill_param_0,\n"
			"	.param .u64 cd_fill_param_1,\n"
			"	.param .u32 cd_fill_param_2\n"
			")\n"
			"{\n"
			"	.reg .pred 	%p<3>;\n"
			"	.reg .b32 	%r<16>;\n"
			"	.reg .b64 	%rd<16>;\n"
			"\n"
			"\n"
			"	ld.param.u64 	%rd7, [cd_fill_param_0];\n"
			"	ld.param.u64 	%rd8, [cd_fill_param_1];\n"
			"	ld.param.u32 	%r1, [cd_fill_param_2];\n"
			"	mov.u32 	%r2, %ctaid.x;\n"
			"	mov.u32 	%r3, %ntid.x;\n"
			"	cvt.u64.u32 	%rd1, %r3;\n"
			"	mul.wide.u32 	%rd9, %r2, %r3;\n"
			"	mov.u32 	%r4, %tid.x;\n"
			"	cvt.u64.u32 	%rd10, %r4;\n"
			"	add.s64 	%rd15, %rd9, %rd10;\n"
			"	setp.ge.u64 	%p1, %rd15, %rd8;\n"
			"	@%p1 bra 	$L__BB0_3;\n"
			"\n"
			"	mov.u32 	%r5, %nctaid.x;\n"
			"	cvt.u64.u32 	%rd11, %r5;\n"
			"	mul.lo.s64 	%rd3, %rd11, %rd1;\n"
			"	cvta.to.global.u64 	%rd4, %rd7;\n"
			"\n"
			"$L__BB0_2:\n"
			"	shr.u64 	%rd12, %rd15, 32;\n"
			"	cvt.u32.u64 	%r6, %rd12;\n"
			"	mul.lo.s32 	%r7, %r6, 2135587861;\n"
			"	xor.b32  	%r8, %r7, %r1;\n"
			"	cvt.u32.u64 	%r9, %rd15;\n"
			"	mad.lo.s32 	%r10, %r9, -1640531535, %r8;\n"
			"	shr.u32 	%r11, %r10, 16;\n"
			"	xor.b32  	%r12, %r11, %r10;\n"
			"	mul.lo.s32 	%r13, %r12, -2048144789;\n"
			"	shr.u32 	%r14, %r13, 13;\n"
			"	xor.b32  	%r15, %r14, %r13;\n"
			"	shl.b64 	%rd13, %rd15, 2;\n"
			"	add.s64 	%rd14, %rd4, %rd13;\n"
			"	st.global.u32 	[%rd14], %r15;\n"
			"	add.s64 	%rd15, %rd15, %rd3;\n"
			"	setp.lt.u64 	%p2, %rd15, %rd8;\n"
			"	@%p2 bra 	$L__BB0_2;\n"
			"\n"
			"$L__BB0_3:\n"
			"	ret;\n"
			"\n"
			"}\n"
			"	// .globl	cd_check\n"
			".visible .entry cd_check(\n"
			"	.param .u64 cd_check_param_0,\n"
			"	.param .u64 cd_check_param_1,\n"
			"	.param .u32 cd_check_param_2,\n"
			"	.param .u64 cd_check_param_3\n"
			")\n"
			"{\n"
			"	.reg .pred 	%p<4>;\n"
			"	.reg .b32 	%r<18>;\n"
			"	.reg .b64 	%rd<18>;\n"
			"\n"
			"\n"
			"	ld.param.u64 	%rd8, [cd_check_param_0];\n"
			"	ld.param.u64 	%rd9, [cd_check_param_1];\n"
			"	ld.param.u32 	%r1, [cd_check_param_2];\n"
			"	ld.param.u64 	%rd10, [cd_check_param_3];\n"
			"	mov.u32 	%r2, %ctaid.x;\n"
			"	mov.u32 	%r3, %ntid.x;\n"
			"	cvt.u64.u32 	%rd1, %r3;\n"
			"	mul.wide.u32 	%rd11, %r2, %r3;\n"
			"	mov.u32 	%r4, %tid.x;\n"
			"	cvt.u64.u32 	%rd12, %r4;\n"
			"	add.s64 	%rd17, %rd11, %rd12;\n"
			"	setp.ge.u64 	%p1, %rd17, %rd9;\n"
			"	@%p1 bra 	$L__BB1_5;\n"
			"\n"
			"	mov.u32 	%r5, %nctaid.x;\n"
			"	cvt.u64.u32 	%rd13, %r5;\n"
			"	mul.lo.s64 	%rd3, %rd13, %rd1;\n"
			"	cvta.to.global.u64 	%rd4, %rd8;\n"
			"	cvta.to.global.u64 	%rd5, %rd10;\n"
			"\n"
			"$L__BB1_2:\n"
			"	shr.u64 	%rd14, %rd17, 32;\n"
			"	cvt.u32.u64 	%r6, %rd14;\n"
			"	mul.lo.s32 	%r7, %r6, 2135587861;\n"
			"	xor.b32  	%r8, %r7, %r1;\n"
			"	cvt.u32.u64 	%r9, %rd17;\n"
			"	mad.lo.s32 	%r10, %r9, -1640531535, %r8;\n"
			"	shr.u32 	%r11, %r10, 16;\n"
			"	xor.b32  	%r12, %r11, %r10;\n"
			"	mul.lo.s32 	%r13, %r12, -2048144789;\n"
			"	shr.u32 	%r14, %r13, 13;\n"
			"	xor.b32  	%r15, %r14, %r13;\n"
			"	shl.b64 	%rd15, %rd17, 2;\n"
			"	add.s64 	%rd16, %rd4, %rd15;\n"
			"	ld.global.u32 	%r16, [%rd16];\n"
			"	setp.eq.s32 	%p2, %r16, %r15;\n"
			"	@%p2 bra 	$L__BB1_4;\n"
			"\n"
			"	atom.global.add.u32 	%r17, [%rd5], 1;\n"
			"\n"
			"$L__BB1_4:\n"
			"	add.s64 	%rd17, %rd17, %rd3;\n"
			"	setp.lt.u64 	%p3, %rd17, %rd9;\n"
			"	@%p3 bra 	$L__BB1_2;\n"
			"\n"
			"$L__BB1_5:\n"
			"	ret;\n"
			"\n"
			"}\n"
			"	// .globl	cd_spin\n"
			".visible .entry cd_spin(\n"
			"	.param .u64 cd_spin_param_0,\n"
			"	.param .u32 cd_spin_param_1\n"
			")\n"
			"{\n"
			"	.reg .pred 	%p<3>;\n"
			"	.reg .b32 	%r<15>;\n"
			"	.reg .b64 	%rd<5>;\n"
			"\n"
			"\n"
			"	ld.param.u64 	%rd1, [cd_spin_param_0];\n"
			"	ld.param.u32 	%r7, [cd_spin_param_1];\n"
			"	mov.u32 	%r8, %ntid.x;\n"
			"	mov.u32 	%r9, %ctaid.x;\n"
			"	mov.u32 	%r10, %tid.x;\n"
			"	mad.lo.s32 	%r1, %r9, %r8, %r10;\n"
			"	setp.eq.s32 	%p1, %r7, 0;\n"
			"	mov.u32 	%r14, %r1;\n"
			"	@%p1 bra 	$L__BB2_3;\n"
			"\n"
			"	mov.u32 	%r12, 0;\n"
			"	mov.u32 	%r14, %r1;\n"
			"\n"
			"$L__BB2_2:\n"
			"	.pragma \"nounroll\";\n"
			"	mad.lo.s32 	%r14, %r14, 1664525, 1013904223;\n"
			"	add.s32 	%r12, %r12, 1;\n"
			"	setp.lt.u32 	%p2, %r12, %r7;\n"
			"	@%p2 bra 	$L__BB2_2;\n"
			"\n"
			"$L__BB2_3:\n"
			"	cvta.to.global.u64 	%rd2, %rd1;\n"
			"	mul.wide.u32 	%rd3, %r1, 4;\n"
			"	add.s64 	%rd4, %rd2, %rd3;\n"
			"	st.global.u32 	[%rd4], %r14;\n"
			"	ret;\n"
			"\n"
			"}\n";
