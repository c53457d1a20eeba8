/* libFuzzer target: format/fleetrep on arbitrary bytes: the head reader, the
 * stream splitter fed in two pieces (it must find the same boundaries as in
 * one), and the whole-report parser. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/fleetrep.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

/* Boundaries found feeding p in pieces of at most step bytes. */
static uint64_t boundaries(const uint8_t *p, size_t n, size_t step)
{
	struct fleetrep_split s;
	uint64_t sum = 0;
	size_t pos = 0;

	fleetrep_split_init(&s);
	while (pos < n) {
		size_t len = n - pos < step ? n - pos : step, used;
		int ev = fleetrep_split_feed(&s, p + pos, len, &used);
		if (used == 0 || used > len)
			__builtin_trap();
		pos += used;
		if (ev != FLEETREP_MORE)
			sum = sum * 31 + s.offset * (uint64_t)ev;
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct fleetrep_head h;
	struct cd_err err;
	json_t *j;

	if (fleetrep_head(p, n, &h) == 0 &&
	    (!memchr(h.schema, 0, sizeof(h.schema)) || !memchr(h.hostname, 0, sizeof(h.hostname)) ||
	     !memchr(h.fingerprint, 0, sizeof(h.fingerprint))))
		__builtin_trap();
	if (boundaries(p, n, n ? n : 1) != boundaries(p, n, 7))
		__builtin_trap();
	if (fleetrep_parse(p, n, &j, &err) == 0) {
		if (!json_is_object(j))
			__builtin_trap();
		json_decref(j);
	}
	return 0;
}
