/* mkzip: write a zip archive (a wheel) for tests: members stored, or
 * deflated by gzip (whose output is a raw DEFLATE stream between a 10-byte
 * header and its CRC-32 and size), so no zlib is needed.
 * Usage: mkzip OUT [-0|-z] NAME=FILE...   (-z: deflate the members after it) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mem {
	char *name;
	unsigned method;
	uint32_t crc;
	unsigned long size, csize, off;
};

static void put(FILE *f, uint64_t v, unsigned size)
{
	unsigned i;

	for (i = 0; i < size; i++)
		fputc((int)(v >> (8 * i) & 0xff), f);
}

static unsigned char *slurp(FILE *f, unsigned long *n)
{
	unsigned long cap = 1 << 16;
	unsigned char *p = malloc(cap);
	size_t r;

	*n = 0;
	while (p && (r = fread(p + *n, 1, cap - *n, f)) > 0) {
		*n += r;
		if (*n == cap)
			p = realloc(p, cap *= 2);
	}
	return p;
}

static uint32_t crc32(const unsigned char *p, unsigned long n)
{
	uint32_t c = 0xffffffffu;
	unsigned long i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
	}
	return ~c;
}

int main(int argc, char **argv)
{
	struct mem m[64];
	unsigned long nm = 0, i, cd, n, len;
	unsigned method = 0;
	unsigned char *data;
	FILE *out, *in;
	char cmd[4096];

	if (argc < 3 || !(out = fopen(argv[1], "wb")))
		return fprintf(stderr, "usage: mkzip OUT [-0|-z] NAME=FILE...\n"), 2;
	for (i = 2; i < (unsigned long)argc && nm < 64; i++) {
		char *eq = strchr(argv[i], '=');
		if (!strcmp(argv[i], "-z") || !strcmp(argv[i], "-0")) {
			method = argv[i][1] == 'z' ? 8 : 0;
			continue;
		}
		if (!eq)
			return fprintf(stderr, "mkzip: NAME=FILE expected: %s\n", argv[i]), 2;
		*eq = '\0';
		if (!(in = fopen(eq + 1, "rb")) || !(data = slurp(in, &n)))
			return perror(eq + 1), 1;
		fclose(in);
		m[nm] = (struct mem){argv[i], method, crc32(data, n),
				     n,	      n,      (unsigned long)ftell(out)};
		if (method == 8) {
			free(data);
			snprintf(cmd, sizeof(cmd), "gzip -9 -n -c < '%s'", eq + 1);
			if (!(in = popen(cmd, "r")) || !(data = slurp(in, &len)) || pclose(in) ||
			    len < 18 || data[0] != 0x1f || data[1] != 0x8b || data[3] != 0)
				return fprintf(stderr, "mkzip: gzip failed on %s\n", eq + 1), 1;
			m[nm].csize = len - 18;
			memmove(data, data + 10, len - 18);
		}
		put(out, 0x04034b50u, 4);
		put(out, 20, 2);
		put(out, 0, 2);
		put(out, m[nm].method, 2);
		put(out, 0, 4);
		put(out, m[nm].crc, 4);
		put(out, m[nm].csize, 4);
		put(out, m[nm].size, 4);
		put(out, strlen(m[nm].name), 2);
		put(out, 0, 2);
		fputs(m[nm].name, out);
		fwrite(data, 1, m[nm].csize, out);
		free(data);
		nm++;
	}
	cd = (unsigned long)ftell(out);
	for (i = 0; i < nm; i++) {
		put(out, 0x02014b50u, 4);
		put(out, 0x031e, 2);
		put(out, 20, 2);
		put(out, 0, 2);
		put(out, m[i].method, 2);
		put(out, 0, 4);
		put(out, m[i].crc, 4);
		put(out, m[i].csize, 4);
		put(out, m[i].size, 4);
		put(out, strlen(m[i].name), 2);
		put(out, 0, 6);
		put(out, 0, 2);
		put(out, 0, 4);
		put(out, m[i].off, 4);
		fputs(m[i].name, out);
	}
	n = (unsigned long)ftell(out) - cd;
	put(out, 0x06054b50u, 4);
	put(out, 0, 4);
	put(out, nm, 2);
	put(out, nm, 2);
	put(out, n, 4);
	put(out, cd, 4);
	put(out, 0, 2);
	return fclose(out) ? 1 : 0;
}
