/* inflate: see inflate.h. Canonical Huffman codes are decoded through one
 * lookup table per code, indexed by the next `bits` input bits (bits = the
 * longest code length in use, at most 15), each entry holding the symbol
 * and its code length. The output goes to a 64 KiB ring: the half just
 * completed is handed to the sink while the other half keeps the 32 KiB of
 * history a back-reference may reach. */
#include "format/inflate.h"

#include <stdlib.h>
#include <string.h>

#define MAXBITS	 15
#define NLITLEN	 288
#define NDIST	 32
#define RING	 (2u * INFLATE_CHUNK)
#define RINGMASK (RING - 1u)

struct huff {
	uint16_t table[1u << MAXBITS]; /* symbol << 4 | length; 0: no code */
	unsigned bits;		       /* the longest code */
};

struct state {
	const uint8_t *in;
	size_t n, pos;
	uint64_t bitbuf;
	unsigned bitcnt;
	uint8_t ring[RING];
	uint64_t out, flushed, max_out;
	inflate_sink sink;
	void *ctx;
	struct huff lit, dist;
	struct cd_err *err;
};

static const uint16_t len_base[29] = {3,  4,  5,  6,   7,   8,	 9,   10,  11, 13,
				      15, 17, 19, 23,  27,  31,	 35,  43,  51, 59,
				      67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
				      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
	1,   2,	  3,   4,   5,	 7,    9,    13,   17,	 25,   33,   49,   65,	  97,	 129,
	193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,	3,  3,	4,  4,	5,  5,	6,
				       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* Make at least n (<= 32) bits available; 0 or CD_ERANGE past the input. */
static int need(struct state *s, unsigned n)
{
	while (s->bitcnt < n) {
		if (s->pos >= s->n)
			return err_set(s->err, CD_ERANGE, "deflate stream ends early at %zu",
				       s->pos);
		s->bitbuf |= (uint64_t)s->in[s->pos++] << s->bitcnt;
		s->bitcnt += 8;
	}
	return 0;
}

/* Up to 56 bits, as many as there are near the end of the input. */
static void fill(struct state *s)
{
	while (s->bitcnt <= 56 && s->pos < s->n) {
		s->bitbuf |= (uint64_t)s->in[s->pos++] << s->bitcnt;
		s->bitcnt += 8;
	}
}

static int bits(struct state *s, unsigned n, unsigned *v)
{
	int rc = need(s, n);

	if (rc)
		return rc;
	*v = (unsigned)(s->bitbuf & ((1ull << n) - 1));
	s->bitbuf >>= n;
	s->bitcnt -= n;
	return 0;
}

static int flush(struct state *s)
{
	while (s->flushed < s->out) {
		uint64_t at = s->flushed & RINGMASK, len = s->out - s->flushed;
		int rc;
		if (len > RING - at)
			len = RING - at;
		if (len > INFLATE_CHUNK)
			len = INFLATE_CHUNK;
		if (s->sink && (rc = s->sink(s->ring + at, (size_t)len, s->ctx)) != 0)
			return rc;
		s->flushed += len;
	}
	return 0;
}

/* One byte out; the completed half goes to the sink. */
static int put(struct state *s, uint8_t c)
{
	if (s->out >= s->max_out)
		return err_set(s->err, CD_ERANGE, "deflate output exceeds %llu bytes",
			       (unsigned long long)s->max_out);
	s->ring[s->out++ & RINGMASK] = c;
	return (s->out & (INFLATE_CHUNK - 1)) ? 0 : flush(s);
}

/* The table of a canonical code from its lengths (RFC 1951 §3.2.2). An
 * over-subscribed set is an error; an incomplete one is allowed (a lone
 * distance code), its unused entries stay 0 and fail when met. */
static int build(struct huff *h, const uint8_t *len, unsigned n, struct cd_err *err)
{
	unsigned count[MAXBITS + 1] = {0}, next[MAXBITS + 2], sym, l, code = 0, max = 0;
	int left = 1;

	for (sym = 0; sym < n; sym++)
		count[len[sym]]++;
	for (l = 1; l <= MAXBITS; l++) {
		left = left * 2 - (int)count[l];
		if (left < 0)
			return err_set(err, CD_EFORMAT, "deflate: over-subscribed Huffman code");
		if (count[l])
			max = l;
	}
	h->bits = max ? max : 1;
	memset(h->table, 0, sizeof(h->table[0]) << h->bits);
	count[0] = 0;
	for (l = 1; l <= MAXBITS; l++) {
		code = (code + count[l - 1]) << 1;
		next[l] = code;
	}
	for (sym = 0; sym < n; sym++) {
		unsigned rev = 0, c, i;
		if (!(l = len[sym]))
			continue;
		c = next[l]++;
		for (i = 0; i < l; i++)
			rev |= ((c >> i) & 1u) << (l - 1 - i);
		for (i = rev; i < (1u << h->bits); i += 1u << l)
			h->table[i] = (uint16_t)(sym << 4 | l);
	}
	return 0;
}

static int decode(struct state *s, const struct huff *h, unsigned *sym)
{
	unsigned e, l;

	fill(s);
	e = h->table[s->bitbuf & ((1ull << h->bits) - 1)];
	l = e & 15u;
	if (!l || l > s->bitcnt)
		return err_set(s->err, l ? CD_ERANGE : CD_EFORMAT, "deflate: bad code at %zu",
			       s->pos);
	s->bitbuf >>= l;
	s->bitcnt -= l;
	*sym = e >> 4;
	return 0;
}

static int stored(struct state *s)
{
	unsigned len, nlen;
	int rc;

	s->bitbuf >>= s->bitcnt & 7u; /* to a byte boundary */
	s->bitcnt -= s->bitcnt & 7u;
	if ((rc = bits(s, 16, &len)) || (rc = bits(s, 16, &nlen)))
		return rc;
	if (len != (~nlen & 0xffffu))
		return err_set(s->err, CD_EFORMAT, "deflate: stored block length check fails");
	while (len && s->bitcnt >= 8) { /* bytes already in the bit buffer */
		unsigned c;
		if ((rc = bits(s, 8, &c)) || (rc = put(s, (uint8_t)c)))
			return rc;
		len--;
	}
	if (len > s->n - s->pos)
		return err_set(s->err, CD_ERANGE, "deflate: stored block runs past the input");
	for (; len; len--)
		if ((rc = put(s, s->in[s->pos++])))
			return rc;
	return 0;
}

static int copy(struct state *s, unsigned len, unsigned dist)
{
	int rc;

	if (dist > s->out || dist > INFLATE_CHUNK)
		return err_set(s->err, CD_EFORMAT, "deflate: distance %u before the start", dist);
	while (len--)
		if ((rc = put(s, s->ring[(s->out - dist) & RINGMASK])))
			return rc;
	return 0;
}

static int codes(struct state *s)
{
	unsigned sym, extra, len, dist;
	int rc;

	for (;;) {
		if ((rc = decode(s, &s->lit, &sym)))
			return rc;
		if (sym < 256) {
			if ((rc = put(s, (uint8_t)sym)))
				return rc;
			continue;
		}
		if (sym == 256)
			return 0;
		sym -= 257;
		if (sym >= 29)
			return err_set(s->err, CD_EFORMAT, "deflate: bad length symbol");
		if ((rc = bits(s, len_extra[sym], &extra)))
			return rc;
		len = len_base[sym] + extra;
		if ((rc = decode(s, &s->dist, &sym)))
			return rc;
		if (sym >= 30)
			return err_set(s->err, CD_EFORMAT, "deflate: bad distance symbol");
		if ((rc = bits(s, dist_extra[sym], &extra)))
			return rc;
		dist = dist_base[sym] + extra;
		if ((rc = copy(s, len, dist)))
			return rc;
	}
}

static int fixed(struct state *s)
{
	uint8_t len[NLITLEN];
	int rc;

	memset(len, 8, 144);
	memset(len + 144, 9, 112);
	memset(len + 256, 7, 24);
	memset(len + 280, 8, 8);
	if ((rc = build(&s->lit, len, NLITLEN, s->err)))
		return rc;
	memset(len, 5, NDIST);
	if ((rc = build(&s->dist, len, NDIST, s->err)))
		return rc;
	return codes(s);
}

/* The code lengths of a dynamic block, themselves Huffman-coded. */
static int lengths(struct state *s, uint8_t *len, unsigned total)
{
	static const uint8_t order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
					  11, 4,  12, 3, 13, 2, 14, 1, 15};
	uint8_t cl[19] = {0};
	unsigned ncode, i, sym, rep, v;
	int rc;

	if ((rc = bits(s, 4, &ncode)))
		return rc;
	for (i = 0; i < ncode + 4; i++) {
		if ((rc = bits(s, 3, &v)))
			return rc;
		cl[order[i]] = (uint8_t)v;
	}
	if ((rc = build(&s->lit, cl, 19, s->err)))
		return rc;
	for (i = 0; i < total;) {
		if ((rc = decode(s, &s->lit, &sym)))
			return rc;
		if (sym < 16) {
			len[i++] = (uint8_t)sym;
			continue;
		}
		if (sym == 16 && !i)
			return err_set(s->err, CD_EFORMAT, "deflate: repeat with no length");
		v = sym == 16 ? len[i - 1] : 0;
		if ((rc = bits(s, sym == 16 ? 2 : sym == 17 ? 3 : 7, &rep)))
			return rc;
		rep += sym == 16 ? 3 : sym == 17 ? 3 : 11;
		if (i + rep > total)
			return err_set(s->err, CD_EFORMAT, "deflate: code lengths overflow");
		while (rep--)
			len[i++] = (uint8_t)v;
	}
	return 0;
}

static int dynamic(struct state *s)
{
	uint8_t len[NLITLEN + NDIST];
	unsigned nlen, ndist;
	int rc;

	if ((rc = bits(s, 5, &nlen)) || (rc = bits(s, 5, &ndist)))
		return rc;
	nlen += 257;
	ndist += 1;
	if (nlen > 286 || ndist > 30)
		return err_set(s->err, CD_EFORMAT, "deflate: bad code counts");
	if ((rc = lengths(s, len, nlen + ndist)))
		return rc;
	if (!len[256])
		return err_set(s->err, CD_EFORMAT, "deflate: no end-of-block code");
	if ((rc = build(&s->lit, len, nlen, s->err)) ||
	    (rc = build(&s->dist, len + nlen, ndist, s->err)))
		return rc;
	return codes(s);
}

int inflate_raw(const uint8_t *in, size_t n, uint64_t max_out, inflate_sink sink, void *ctx,
		size_t *used, uint64_t *produced, struct cd_err *err)
{
	struct state *s = calloc(1, sizeof(*s)); /* 192 KiB: not on the stack */
	unsigned last = 0, type;
	int rc = 0;

	if (!s)
		return err_set(err, CD_ENOMEM, "deflate: out of memory");
	s->in = in;
	s->n = in ? n : 0;
	s->max_out = max_out;
	s->sink = sink;
	s->ctx = ctx;
	s->err = err;
	while (!last && !rc) {
		if ((rc = bits(s, 1, &last)) || (rc = bits(s, 2, &type)))
			break;
		if (type == 0)
			rc = stored(s);
		else if (type == 1)
			rc = fixed(s);
		else if (type == 2)
			rc = dynamic(s);
		else
			rc = err_set(err, CD_EFORMAT, "deflate: block type 3");
	}
	if (!rc)
		rc = flush(s);
	if (used)
		*used = s->pos - s->bitcnt / 8; /* whole bytes read ahead are not used */
	if (produced)
		*produced = s->out;
	free(s);
	return rc;
}
