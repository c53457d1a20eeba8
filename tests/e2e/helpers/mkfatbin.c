/* mkfatbin: write fatbin containers for chosen archs, as nvcc's fatbinary
 * lays them out (the layout src/format/fatbin.c reads): N containers, one
 * entry per arch in each (sm_XY[a|f] an ELF cubin, compute_XY[a|f] PTX),
 * a 64-byte entry header, a payload of pseudo-random bytes. For tests on
 * machines without nvcc.
 * Usage: mkfatbin OUT CONTAINERS PAYLOAD_BYTES ARCH... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(FILE *f, uint64_t v, unsigned size)
{
	unsigned i;

	for (i = 0; i < size; i++)
		fputc((int)(v >> (8 * i) & 0xff), f);
}

static int parse(const char *a, unsigned *kind, unsigned *arch, uint64_t *flags)
{
	const char *d;
	char *end;

	if (!strncmp(a, "sm_", 3))
		*kind = 2, d = a + 3;
	else if (!strncmp(a, "compute_", 8))
		*kind = 1, d = a + 8;
	else
		return -1;
	*arch = (unsigned)strtoul(d, &end, 10);
	*flags = 0x11; /* 64-bit, Linux */
	if (*end == 'a')
		*flags |= 0x100000, end++;
	else if (*end == 'f')
		*flags |= 0x200000, end++;
	return *arch && !*end ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long n, plen, c, i, k;
	uint32_t x = 12345;
	FILE *f;

	if (argc < 5)
		return fprintf(stderr, "usage: mkfatbin OUT CONTAINERS PAYLOAD ARCH...\n"), 2;
	n = strtoul(argv[2], NULL, 10);
	plen = strtoul(argv[3], NULL, 10) & ~7ul;
	if (!(f = fopen(argv[1], "wb")))
		return perror(argv[1]), 1;
	for (c = 0; c < n; c++) {
		put(f, 0xBA55ED50u, 4);
		put(f, 1, 2);
		put(f, 16, 2);
		put(f, (uint64_t)(argc - 4) * (64 + plen), 8);
		for (i = 4; i < (unsigned long)argc; i++) {
			unsigned kind, arch;
			uint64_t flags;
			if (parse(argv[i], &kind, &arch, &flags))
				return fprintf(stderr, "mkfatbin: bad arch %s\n", argv[i]), 2;
			put(f, kind, 2);
			put(f, 0x0101, 2);
			put(f, 64, 4);
			put(f, plen, 8);
			put(f, 0, 8);
			put(f, kind == 2 ? 8 : 9, 2); /* minor */
			put(f, kind == 2 ? 1 : 7, 2); /* major */
			put(f, arch, 4);
			put(f, 0, 8);
			put(f, flags, 8);
			put(f, 0, 16);
			for (k = 0; k < plen; k++) {
				x = x * 1103515245u + 12345u;
				fputc((int)(x >> 24), f);
			}
		}
		put(f, 0, 8); /* the 8-byte gap nvcc leaves between containers */
	}
	return fclose(f) ? 1 : 0;
}
