/* libFuzzer target: format/cudaver (version.json, version.txt, cuda.h,
 * package names, nvcc wrapper scripts) on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/cudaver.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	char v[CUDAVER_MAX], path[4096], *name;
	int iv;

	if (cudaver_json(p, n, "cuda", v, sizeof(v)) == 0 && !cudaver_valid(v))
		__builtin_trap();
	if (cudaver_json(p, n, "cuda_nvcc", v, sizeof(v)) == 0 && !cudaver_valid(v))
		__builtin_trap();
	if (cudaver_txt(p, n, v, sizeof(v)) == 0 && !cudaver_valid(v))
		__builtin_trap();
	if (cudaver_header(p, n, &iv) == 0 && (iv < 1000 || iv >= 1000000))
		__builtin_trap();
	if (cudaver_wrapper(p, n, path, sizeof(path)) == 0 && path[0] != '/')
		__builtin_trap();
	if (cudaver_dpkg(p, n, "cuda-nvcc-13-0", v, sizeof(v)) == 0 && !cudaver_valid(v))
		__builtin_trap();
	name = malloc(n + 1);
	if (!name)
		return 0;
	memcpy(name, p, n);
	name[n] = '\0';
	if (cudaver_pkgname(name, "nvidia_cuda_nvcc", v, sizeof(v)) == 0 && !cudaver_valid(v))
		__builtin_trap();
	if (cudaver_pkgname(name, "cuda-nvcc", v, sizeof(v)) == 0 && !cudaver_valid(v))
		__builtin_trap();
	cudaver_valid(name);
	free(name);
	return 0;
}
