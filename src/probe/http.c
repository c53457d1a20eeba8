/* http: libcurl at run time (see http.h). The option and info numbers are
 * libcurl's ABI (curl/curl.h: CURLOPTTYPE_LONG 0, OBJECTPOINT and STRINGPOINT
 * 10000, FUNCTIONPOINT 20000; CURLINFO_LONG 0x200000), unchanged since 7.x,
 * so no curl header is needed to build. Headers are read for each response
 * of a redirect chain and reset at each status line, so what is kept belongs
 * to the final response. A custom Authorization header is not sent on to
 * another host after a redirect (libcurl 7.58 and newer), so the Hub's token
 * never reaches the CDN its files redirect to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/str.h"
#include "probe/dlib.h"
#include "probe/http.h"

#define CURL_GLOBAL_DEFAULT	  3L
#define CURLOPT_WRITEDATA	  10001
#define CURLOPT_URL		  10002
#define CURLOPT_RANGE		  10007
#define CURLOPT_ERRORBUFFER	  10010
#define CURLOPT_WRITEFUNCTION	  20011
#define CURLOPT_USERAGENT	  10018
#define CURLOPT_HTTPHEADER	  10023
#define CURLOPT_HEADERDATA	  10029
#define CURLOPT_FOLLOWLOCATION	  52
#define CURLOPT_MAXREDIRS	  68
#define CURLOPT_HEADERFUNCTION	  20079
#define CURLOPT_NOSIGNAL	  99
#define CURLOPT_HTTPGET		  80
#define CURLOPT_TIMEOUT_MS	  155
#define CURLOPT_CONNECTTIMEOUT_MS 156
#define CURLOPT_PROTOCOLS	  181
#define CURLOPT_REDIR_PROTOCOLS	  182
#define CURLPROTO_HTTP_HTTPS	  3L
#define CURLINFO_RESPONSE_CODE	  0x200002
#define CURLE_OK		  0
#define CURLE_WRITE_ERROR	  23
#define CURL_ERROR_SIZE		  256

typedef void *(*fn_init)(void);
typedef int (*fn_global)(long);
typedef int (*fn_setopt)(void *, int, ...);
typedef int (*fn_perform)(void *);
typedef int (*fn_getinfo)(void *, int, ...);
typedef void (*fn_cleanup)(void *);
typedef const char *(*fn_strerror)(int);
typedef void *(*fn_slist_append)(void *, const char *);
typedef void (*fn_slist_free)(void *);
typedef const char *(*fn_version)(void);

enum {
	S_GLOBAL,
	S_INIT,
	S_SETOPT,
	S_PERFORM,
	S_GETINFO,
	S_CLEANUP,
	S_STRERROR,
	S_SLIST_APPEND,
	S_SLIST_FREE,
	S_VERSION,
	S_N
};

static const struct dlib_sym syms[S_N] = {
	{"curl_global_init", NULL, 1},	  {"curl_easy_init", NULL, 1},
	{"curl_easy_setopt", NULL, 1},	  {"curl_easy_perform", NULL, 1},
	{"curl_easy_getinfo", NULL, 1},	  {"curl_easy_cleanup", NULL, 1},
	{"curl_easy_strerror", NULL, 1},  {"curl_slist_append", NULL, 1},
	{"curl_slist_free_all", NULL, 1}, {"curl_version", NULL, 1},
};

struct http_client {
	struct dlib lib;
	void *fns[S_N];
	void *easy;
	void *headers; /* struct curl_slist *: the Authorization header */
	int timeout_ms;
	char errbuf[CURL_ERROR_SIZE];
};

#define FN(c, T, i) ((T)(c)->fns[i])

/* The transfer of one request: the body cap and the headers kept. */
struct xfer {
	struct http_resp *r;
	size_t max;
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct xfer *x = arg;
	size_t len = size * n, room = x->max - x->r->body.len;

	if (len > room) {
		x->r->capped = 1;
		/* what fits is kept; out of memory, what came before stays */
		(void)!buf_append(&x->r->body, p, room);
		return 0; /* stop: CURLE_WRITE_ERROR, the prefix is kept */
	}
	return buf_append(&x->r->body, p, len) ? 0 : len;
}

static void header_value(const char *p, size_t n, char *out, size_t cap)
{
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == '\r' || p[n - 1] == '\n' || p[n - 1] == ' '))
		n--;
	str_ncopy(out, cap, p, n);
}

static int header_is(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && p[k] == ':' && !strncasecmp(p, name, k);
}

/* Content-Range: bytes 0-16383/5000000 -> 5000000; Content-Length of a 200. */
static void total_from(struct http_resp *r, const char *v, int range)
{
	const char *num = v, *slash = strrchr(v, '/');
	uint64_t t;

	if (range)
		num = slash ? slash + 1 : NULL;
	if (num && !str_to_u64(num, &t) && t <= INT64_MAX)
		r->total = (int64_t)t;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct xfer *x = arg;
	struct http_resp *r = x->r;
	size_t len = size * n;
	char v[256];

	if (len > 5 && !strncmp(p, "HTTP/", 5)) { /* a new response of the chain */
		r->error_code[0] = r->error_message[0] = '\0';
		r->total = -1;
	} else if (header_is(p, len, "X-Error-Code")) {
		header_value(p + 13, len - 13, r->error_code, sizeof(r->error_code));
	} else if (header_is(p, len, "X-Error-Message")) {
		header_value(p + 16, len - 16, r->error_message, sizeof(r->error_message));
	} else if (header_is(p, len, "Content-Range")) {
		header_value(p + 14, len - 14, v, sizeof(v));
		total_from(r, v, 1);
	} else if (header_is(p, len, "Content-Length") && r->total < 0) {
		header_value(p + 15, len - 15, v, sizeof(v));
		total_from(r, v, 0);
	}
	return len;
}

/* A header value must not carry CR, LF or other controls (header injection). */
static int token_ok(const char *t)
{
	for (; *t; t++)
		if ((unsigned char)*t < 0x21 || (unsigned char)*t > 0x7e)
			return 0;
	return 1;
}

static int add_bearer(struct http_client *c, const char *bearer, struct cd_err *err)
{
	char line[4096];
	size_t n;

	if (!bearer || !*bearer)
		return 0;
	if (!token_ok(bearer))
		return err_set(err, CD_EFORMAT, "the token has characters a header cannot carry");
	n = str_copy(line, sizeof(line), "Authorization: Bearer ");
	if (n + strlen(bearer) >= sizeof(line))
		return err_set(err, CD_EFORMAT, "the token is too long");
	str_copy(line + n, sizeof(line) - n, bearer);
	c->headers = FN(c, fn_slist_append, S_SLIST_APPEND)(NULL, line);
	memset(line, 0, sizeof(line));
	return c->headers ? 0 : err_set(err, CD_ENOMEM, "curl_slist_append failed");
}

int http_open(struct http_client **out, const char *lib, const char *bearer, int timeout_ms,
	      struct cd_err *err)
{
	struct http_client *c = calloc(1, sizeof(*c));
	const char *missing = NULL;
	int rc;

	*out = NULL;
	if (!c)
		return err_set(err, CD_ENOMEM, "out of memory");
	if (dlib_open(&c->lib, lib ? lib : "libcurl.so.4")) {
		rc = err_set(err, CD_ENOENT, "%s", c->lib.error);
		goto out;
	}
	if (dlib_bind(&c->lib, syms, S_N, c->fns, &missing)) {
		rc = err_set(err, CD_ENOENT, "%s has no %s", c->lib.loaded_as, missing);
		goto out;
	}
	if (FN(c, fn_global, S_GLOBAL)(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
	    !(c->easy = FN(c, fn_init, S_INIT)())) {
		rc = err_set(err, CD_EIO, "libcurl could not be initialised");
		goto out;
	}
	rc = add_bearer(c, bearer, err);
	c->timeout_ms = timeout_ms;
out:
	if (rc)
		http_close(c);
	else
		*out = c;
	return rc;
}

const char *http_version(const struct http_client *c)
{
	return c ? FN(c, fn_version, S_VERSION)() : NULL;
}

static void set_options(struct http_client *c, const char *url, const char *range, struct xfer *x)
{
	fn_setopt set = FN(c, fn_setopt, S_SETOPT);
	long connect_ms = c->timeout_ms < 10000 ? c->timeout_ms : 10000;

	set(c->easy, CURLOPT_URL, url);
	set(c->easy, CURLOPT_HTTPGET, 1L);
	set(c->easy, CURLOPT_RANGE, range);
	set(c->easy, CURLOPT_FOLLOWLOCATION, 1L);
	set(c->easy, CURLOPT_MAXREDIRS, 10L);
	set(c->easy, CURLOPT_PROTOCOLS, CURLPROTO_HTTP_HTTPS);
	set(c->easy, CURLOPT_REDIR_PROTOCOLS, CURLPROTO_HTTP_HTTPS);
	set(c->easy, CURLOPT_NOSIGNAL, 1L);
	set(c->easy, CURLOPT_TIMEOUT_MS, (long)c->timeout_ms);
	set(c->easy, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	set(c->easy, CURLOPT_USERAGENT, "cuda-doctor/" CD_VERSION);
	set(c->easy, CURLOPT_HTTPHEADER, c->headers);
	set(c->easy, CURLOPT_ERRORBUFFER, c->errbuf);
	set(c->easy, CURLOPT_WRITEFUNCTION, on_body);
	set(c->easy, CURLOPT_WRITEDATA, x);
	set(c->easy, CURLOPT_HEADERFUNCTION, on_header);
	set(c->easy, CURLOPT_HEADERDATA, x);
}

int http_get(struct http_client *c, const char *url, uint64_t off, uint64_t len, size_t max,
	     struct http_resp *r)
{
	struct xfer x = {r, max};
	char range[64];
	int code;

	memset(r, 0, sizeof(*r));
	buf_init(&r->body, max + 1);
	r->total = -1;
	if (len)
		snprintf(range, sizeof(range), "%llu-%llu", (unsigned long long)off,
			 (unsigned long long)(off + len - 1));
	c->errbuf[0] = '\0';
	set_options(c, url, len ? range : NULL, &x);
	code = FN(c, fn_perform, S_PERFORM)(c->easy);
	FN(c, fn_getinfo, S_GETINFO)(c->easy, CURLINFO_RESPONSE_CODE, &r->status);
	if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && r->capped))
		return 0;
	str_copy(r->error, sizeof(r->error),
		 c->errbuf[0] ? c->errbuf : FN(c, fn_strerror, S_STRERROR)(code));
	return r->status ? 0 : CD_EIO;
}

void http_resp_free(struct http_resp *r)
{
	if (r)
		buf_free(&r->body);
}

void http_close(struct http_client *c)
{
	if (!c)
		return;
	if (c->headers)
		FN(c, fn_slist_free, S_SLIST_FREE)(c->headers);
	if (c->easy)
		FN(c, fn_cleanup, S_CLEANUP)(c->easy);
	free(c);
}
