/* http: HTTP(S) GETs through libcurl loaded at run time (dlopen of
 * libcurl.so.4 by its SONAME, one table of the symbols used; never linked, so
 * the binary stays glibc-only). Call it only inside an isolated child
 * (isolate.h): loading runs libcurl's and its TLS library's constructors.
 * Proxies are libcurl's own variables (https_proxy, HTTPS_PROXY, http_proxy,
 * ALL_PROXY, no_proxy). A response body belongs to the caller (http_resp_free);
 * http_get fails only when no HTTP response came (the reason in r->error). */
#ifndef CD_HTTP_H
#define CD_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

struct http_client;

struct http_resp {
	long status;		 /* the last response's status (after redirects) */
	struct cd_buf body;	 /* at most the cap given to http_get */
	int capped;		 /* the body went on past the cap: the transfer was stopped */
	int64_t total;		 /* Content-Range's complete length, else a 200's length, else -1 */
	char error_code[64];	 /* X-Error-Code (RepoNotFound, GatedRepo, ...) */
	char error_message[256]; /* X-Error-Message */
	char error[256];	 /* why no response came: resolve, connect, TLS, timeout */
};

/* Load libcurl (lib: NULL for "libcurl.so.4") and make one handle that every
 * request reuses (keep-alive). bearer, when set, is sent as "Authorization:
 * Bearer ..." and never stored elsewhere. CD_ENOENT when libcurl cannot be
 * loaded or lacks a symbol (err says which). */
CD_WUR int http_open(struct http_client **c, const char *lib, const char *bearer, int timeout_ms,
		     struct cd_err *err);
/* libcurl's version string ("libcurl/7.88.1 OpenSSL/3.0.17 ..."). */
const char *http_version(const struct http_client *c);
/* GET url, following redirects (http and https only, at most 10); with len > 0
 * the bytes [off, off + len) as a Range request (a server that sends the whole
 * file is cut at the cap). The body is capped at max bytes. */
CD_WUR int http_get(struct http_client *c, const char *url, uint64_t off, uint64_t len, size_t max,
		    struct http_resp *r);
void http_resp_free(struct http_resp *r);
void http_close(struct http_client *c);

#endif
