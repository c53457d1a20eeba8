/* bundle_log: each --log, read once: the bytes go to the redaction stream
 * (the member), and what comes out of it to explain's scanner, so the
 * explanation is of exactly the redacted text the bundle keeps: an excerpt
 * explain cuts from a long line cannot carry half a token, or a value
 * without the name that made it secret. A log longer than BUNDLE_HEAD +
 * BUNDLE_TAIL keeps its head up to the last line break and its tail from the
 * first, with one line between that says how much was left out: memory and
 * time do not depend on its size. Unreadable, not regular or binary: named
 * in the README, not collected, not fatal. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/str.h"
#include "explain/scan.h"
#include "explain/xcheck.h"
#include "probe/toolkit/toolkit.h"
#include "report/bundle_int.h"
#include "report/explain_render.h"

#define LOG_PIECE   ((size_t)64 << 10)
#define LOG_OUT_MAX ((size_t)40 << 20) /* the kept 8 MiB, however much redaction grows it */

/* A member name from the log's base name: redacted, then only [A-Za-z0-9._-]. */
static void member_name(struct bundle_ctx *c, struct bundle_log *l, size_t index)
{
	const char *base = strrchr(l->path, '/') ? strrchr(l->path, '/') + 1 : l->path;
	struct cd_buf red;
	char safe[64];
	size_t i, n;

	buf_init(&red, 4096);
	/* a base that does not fit leaves red empty: the member is "N-log" */
	if (!c->set || rd_text(c->set, c->readme, base, strlen(base), &red, NULL))
		buf_reset(&red), (void)!buf_puts(&red, c->set ? "log" : base);
	n = red.len < sizeof(safe) - 1 ? red.len : sizeof(safe) - 1;
	for (i = 0; i < n; i++) {
		char ch = red.p[i];
		safe[i] = isalnum((unsigned char)ch) || ch == '.' || ch == '-' || ch == '_' ? ch
											    : '_';
	}
	safe[n] = '\0';
	snprintf(l->member, sizeof(l->member), "logs/%zu-%s", index + 1, n ? safe : "log");
	buf_free(&red);
}

/* Why the log cannot be collected, or NULL when it can. */
static const char *refusal(struct bundle_log *l, struct stat *st)
{
	char head[BUNDLE_BINARY_AT];
	ssize_t k;

	if (l->fd < 0)
		return strerror(errno);
	if (fstat(l->fd, st) || !S_ISREG(st->st_mode))
		return "not a regular file";
	do
		k = pread(l->fd, head, sizeof(head), 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return strerror(errno);
	if (k >= 2 && (((uint8_t)head[0] == 0xff && (uint8_t)head[1] == 0xfe) ||
		       ((uint8_t)head[0] == 0xfe && (uint8_t)head[1] == 0xff)))
		return "UTF-16 (convert it first: iconv -f UTF-16 -t UTF-8)";
	if (memchr(head, '\0', (size_t)k))
		return "binary (a NUL byte in its first 8 KiB)";
	return NULL;
}

void bundle_log_open(struct bundle_ctx *c, struct bundle_log *l, size_t index)
{
	struct stat st;
	const char *no;

	memset(l, 0, sizeof(*l));
	l->path = c->bo->logs[index];
	l->fd = open(l->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	member_name(c, l, index);
	no = refusal(l, &st);
	if (no) {
		str_copy(l->why, sizeof(l->why), no);
		return;
	}
	l->size = (uint64_t)st.st_size;
	l->cut = l->size > BUNDLE_HEAD + BUNDLE_TAIL;
	l->collected = 1;
}

void bundle_log_close(struct bundle_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

struct log_run {
	struct bundle_ctx *c;
	struct bundle_log *l;
	struct rd_stream st;
	struct cd_buf out;
	size_t fed; /* bytes of out explain has seen */
	struct xs_scanner *sc;
};

/* What the member gained since the last call goes to explain. Explain's part
 * is a best effort: a scan that broke keeps what it had found and its error,
 * and the member stands either way. */
static void to_explain(struct log_run *r)
{
	if (r->out.len > r->fed)
		(void)!xs_feed(r->sc, r->out.p + r->fed, r->out.len - r->fed);
	r->fed = r->out.len;
}

static int give(struct log_run *r, const char *p, size_t n, struct cd_err *err)
{
	int rc;

	if (!r->c->set)
		rc = buf_append(&r->out, p, n) ? err_set(err, CD_ENOMEM, "log too large") : 0;
	else
		rc = rd_stream_feed(&r->st, p, n, err);
	to_explain(r);
	return rc;
}

/* Up to limit bytes from the descriptor's offset; with skip, the bytes up to
 * the first line break (or NUL: a sparse hole) go first. */
static int pump(struct log_run *r, uint64_t limit, int skip, struct cd_err *err)
{
	char *buf = malloc(LOG_PIECE);
	uint64_t got = 0;
	int rc = 0;

	if (!buf)
		return err_set(err, CD_ENOMEM, "out of memory");
	while (!rc && got < limit) {
		size_t want = limit - got < LOG_PIECE ? (size_t)(limit - got) : LOG_PIECE, off = 0;
		ssize_t k = read(r->l->fd, buf, want);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			rc = err_set(err, CD_EIO, "%s: %s", r->l->path, strerror(errno));
		if (k <= 0)
			break;
		got += (uint64_t)k;
		while (skip && off < (size_t)k && !strchr("\n\r", buf[off]) && buf[off])
			off++;
		if (skip && off < (size_t)k)
			skip = 0, off += buf[off] != '\0';
		if (off < (size_t)k)
			rc = give(r, buf + off, (size_t)k - off, err);
	}
	free(buf);
	return rc;
}

/* The middle of a long log: the head's last partial line goes, one line says
 * how much is left out, the tail starts after its first line break. */
static int gap(struct log_run *r, struct cd_err *err)
{
	char note[160], size[32];
	uint64_t from = r->l->size - BUNDLE_TAIL;

	r->l->left_out = from - BUNDLE_HEAD;
	if (r->c->set)
		rd_stream_skip(&r->st); /* --no-redact keeps the bytes as they are */
	str_bytes(size, sizeof(size), (int64_t)r->l->left_out);
	snprintf(note, sizeof(note),
		 "%s[cuda-doctor bundle: %llu bytes (%s) of this log left out here; its first and "
		 "last 4 MiB are kept]\n",
		 r->out.len && r->out.p[r->out.len - 1] != '\n' ? "\n" : "",
		 (unsigned long long)r->l->left_out, size);
	if (buf_puts(&r->out, note))
		return err_set(err, CD_ENOMEM, "log too large");
	to_explain(r);
	if (lseek(r->l->fd, (off_t)from, SEEK_SET) < 0)
		return err_set(err, CD_EIO, "%s: %s", r->l->path, strerror(errno));
	return pump(r, BUNDLE_TAIL, 1, err);
}

static int read_log(struct log_run *r, struct cd_err *err)
{
	int rc;

	if (lseek(r->l->fd, 0, SEEK_SET) < 0)
		return err_set(err, CD_EIO, "%s: %s", r->l->path, strerror(errno));
	rc = pump(r, r->l->cut ? BUNDLE_HEAD : BUNDLE_HEAD + BUNDLE_TAIL, 0, err);
	if (!rc && r->l->cut)
		rc = gap(r, err);
	if (!rc && r->c->set) {
		rc = rd_stream_end(&r->st, err);
		r->l->nul_dropped = r->st.nul_dropped;
		r->l->lines_cut = r->st.lines_cut;
		to_explain(r);
	}
	(void)!xs_finish(r->sc); /* a broken scan: see to_explain */
	return rc;
}

/* explain's text and JSON of the scanned log, cross-checked with the facts. */
static int explanation(struct log_run *r, struct xs_result *res, enum cd_format fmt,
		       const char *suffix, struct cd_err *err)
{
	struct xr_opts ro = {fmt, 0, 0, 1, "explain", -1};
	char name[128], *p = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&p, &n);
	int rc;

	if (!fp)
		return err_set(err, CD_ENOMEM, "open_memstream failed");
	rc = xr_render(fp, res, &ro);
	if (fclose(fp) && !rc)
		rc = CD_ENOMEM;
	snprintf(name, sizeof(name), "%s%s", r->l->member, suffix);
	rc = rc ? err_set(err, rc, "%s: could not be rendered", name)
		: bundle_member(r->c, name, p ? p : "", n, err);
	free(p);
	return rc;
}

static int explain_log(struct log_run *r, struct xs_result *res, const struct xs_db *db,
		       struct cd_err *err)
{
	const char *hdrs[XC_HEADERS_MAX];
	int rc;

	xs_rank(res, db);
	toolkit_probe_headers(&r->c->f, hdrs, xc_headers(res, hdrs, XC_HEADERS_MAX));
	xc_check(res, &r->c->f);
	rc = explanation(r, res, CD_FMT_TEXT, ".explain.txt", err);
	if (!rc)
		rc = explanation(r, res, CD_FMT_JSON, ".explain.json", err);
	return rc;
}

int bundle_log_write(struct bundle_ctx *c, struct bundle_log *l, struct cd_err *err)
{
	struct log_run r = {c, l, {0}, {0}, 0, NULL};
	struct xs_db *db = NULL;
	struct xs_result *res = NULL;
	int rc, idx;

	buf_init(&r.out, LOG_OUT_MAX);
	if (c->set)
		rd_stream_init(&r.st, c->set, rd_member(c->set, l->member), &r.out);
	rc = xs_db_open(&db, err);
	if (!rc && !(res = xs_result_new()))
		rc = err_set(err, CD_ENOMEM, "out of memory");
	idx = res ? xs_result_input(res, l->path) : -1;
	if (!rc && idx < 0)
		rc = err_set(err, CD_EINTERNAL, "explain: no input slot");
	if (!rc)
		rc = xs_open(&r.sc, db, res, (uint32_t)idx, err);
	if (!rc)
		rc = read_log(&r, err);
	if (!rc)
		rc = bundle_put(c, l->member, &r.out, err);
	if (!rc)
		rc = explain_log(&r, res, db, err);
	xs_close(r.sc);
	xs_result_free(res);
	xs_db_close(db);
	rd_stream_free(&r.st);
	buf_free(&r.out);
	return rc;
}
