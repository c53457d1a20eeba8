/* fuzz_fatbin: the fatbin container/entry walker, the embedded-container
 * scan (whole, and in windows of 4 to 259 bytes, which must find the same)
 * and the stream walk (fed in pieces of every size from 1 to 97 bytes) on
 * arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static int count(const struct fatbin_entry *e, void *ctx)
{
	uint64_t *c = ctx;

	*c += e->header_size;
	return 0;
}

static void stream(const uint8_t *p, size_t n, size_t chunk)
{
	static struct fatbin_stream st;
	size_t off;

	fatbin_stream_init(&st);
	for (off = 0; off < n; off += chunk)
		fatbin_stream_feed(&st, p + off, off + chunk <= n ? chunk : n - off);
	fatbin_stream_end(&st);
}

/* The scan in windows finds what the whole scan found. */
static void windows(const uint8_t *p, size_t n, const struct fatbin_summary *whole, uint64_t found)
{
	struct fatbin_summary s;
	struct fatbin_scanner sc;
	uint64_t w = n > 1 ? (uint64_t)p[1] + 4 : 4, prev;

	memset(&s, 0, sizeof(s));
	fatbin_scan_init(&sc);
	while (sc.off < n && !sc.stopped) {
		prev = sc.off;
		fatbin_scan_step(&sc, p, n, sc.off + w, NULL, NULL, &s);
		if (!sc.stopped && sc.off <= prev)
			__builtin_trap();
	}
	if (sc.found != found || memcmp(&s, whole, sizeof(s)) != 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	uint64_t found;
	struct fatbin_summary s;
	uint64_t c = 0;
	char name[32];
	size_t i;

	(void)fatbin_walk(p, n, count, &c, NULL, NULL);
	(void)fatbin_summarize(p, n, &s, NULL);
	memset(&s, 0, sizeof(s));
	found = fatbin_scan(p, n, count, &c, &s);
	windows(p, n, &s, found);
	for (i = 0; i < s.n_sass; i++)
		fatbin_arch_name(FATBIN_KIND_ELF, s.sass[i], name, sizeof(name));
	for (i = 0; i < s.n_ptx; i++)
		fatbin_arch_name(FATBIN_KIND_PTX, s.ptx[i], name, sizeof(name));
	stream(p, n, n ? (size_t)p[0] % 97 + 1 : 1);
	return 0;
}
