/* hub_fetch: the child half of the Hub probe (see hub_int.h). The requests
 * are huggingface_hub's: GET {endpoint}/api/models/{repo}/revision/{rev}
 * ?blobs=true (model_info with files_metadata: the file list with sizes), and
 * {endpoint}/{repo}/resolve/{commit}/{file} for each file (hf_hub_url: the
 * revision quoted with safe='', the file name with safe='/'), following the
 * redirect to the CDN. The weight files are chosen in transformers' order
 * (model.safetensors.index.json, model.safetensors, the pickle index,
 * pytorch_model.bin, else the first *.gguf by name), as model_weights.c
 * chooses them on disk; of a weight file only its header is fetched. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/arena.h"
#include "core/span.h"
#include "core/str.h"
#include "format/gguf.h"
#include "format/stindex.h"
#include "probe/http.h"
#include "probe/model/hub_int.h"

struct fetch {
	struct iso_out *o;
	struct http_client *c;
	const struct hub_req *q;
	struct cd_buf base; /* {endpoint}/{repo}/resolve/{commit}/ */
	json_t *siblings;   /* rfilename -> size (or null) */
	size_t requests;
	uint64_t bytes;
	int stop;
};

static void write_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void frame(struct fetch *x, const char *kind, long status, int64_t total, const char *code,
		  const char *name, const void *p, size_t n)
{
	char head[1200];
	int k = snprintf(head, sizeof(head), "%s %ld %lld %zu %s %s\n", kind, status,
			 (long long)total, n, code && *code ? code : "-", name ? name : "-");

	if (k < 0 || (size_t)k >= sizeof(head))
		return;
	write_all(x->o->fd, head, (size_t)k);
	write_all(x->o->fd, p, n);
}

/* Percent-encode s into b, keeping unreserved characters (and '/' when
 * keep_slash), as urllib.parse.quote does; 0 or the first append's error. */
static int quote(struct cd_buf *b, const char *s, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
			rc = buf_putc(b, (char)c);
		} else {
			rc = buf_putc(b, '%');
			if (!rc)
				rc = buf_putc(b, hex[c >> 4]);
			if (!rc)
				rc = buf_putc(b, hex[c & 15]);
		}
	}
	return rc;
}

/* One GET under the bounds; 0 with r filled (any status), -1 when no
 * response came (an "err" frame is written), a bound stopped it, or the URL
 * could not be built (url NULL: nothing is asked). */
static int get(struct fetch *x, const char *what, const char *url, uint64_t off, uint64_t len,
	       size_t max, struct http_resp *r)
{
	uint64_t want = len ? len : max;

	memset(r, 0, sizeof(*r));
	if (x->stop || !url)
		return -1;
	if (x->requests >= HUB_REQUESTS_MAX || x->bytes + want > HUB_BYTES_MAX) {
		frame(x, "limit", 0, -1, NULL, what, "a bound on requests or bytes", 27);
		x->stop = 1;
		return -1;
	}
	x->requests++;
	if (http_get(x->c, url, off, len, max, r)) {
		frame(x, "err", 0, -1, NULL, what, r->error, strlen(r->error));
		http_resp_free(r);
		x->stop = !strcmp(what, "api");
		return -1;
	}
	x->bytes += r->body.len;
	return 0;
}

static int listed(const struct fetch *x, const char *name)
{
	return json_object_get(x->siblings, name) != NULL;
}

/* The file's URL in u, NULL when it does not fit (a URL cut short would ask
 * for another file). */
static const char *file_url(struct fetch *x, struct cd_buf *u, const char *name)
{
	buf_reset(u);
	if (buf_append(u, x->base.p, x->base.len) || quote(u, name, 1))
		return NULL;
	return u->p;
}

/* The whole of a small file; the response stays in r for the caller (free it). */
static int fetch_whole(struct fetch *x, const char *name, size_t max, struct http_resp *r)
{
	struct cd_buf u;
	int rc;

	buf_init(&u, 1 << 16);
	rc = get(x, name, file_url(x, &u, name), 0, 0, max, r);
	buf_free(&u);
	if (rc)
		return -1;
	frame(x, "file", r->status, r->total, r->error_code, name, r->body.p, r->body.len);
	return r->status == 200 ? 0 : -1;
}

/* A safetensors file's 8-byte length and JSON header, by range requests. */
static void fetch_header(struct fetch *x, const char *name)
{
	struct http_resp r;
	struct cd_buf u;
	uint64_t need;

	buf_init(&u, 1 << 16);
	if (get(x, name, file_url(x, &u, name), 0, HUB_PREFIX_FIRST, HUB_PREFIX_FIRST, &r))
		goto out;
	need = r.body.len >= 8 ? span_le0((const uint8_t *)r.body.p, r.body.len, 0, 8) + 8 : 0;
	if ((r.status == 206 || r.status == 200) && need > r.body.len && need <= HUB_HEADER_MAX) {
		http_resp_free(&r);
		if (get(x, name, u.p, 0, need, (size_t)need, &r))
			goto out;
	}
	frame(x, "file", r.status, r.total, r.error_code, name, r.body.p, r.body.len);
	http_resp_free(&r);
out:
	buf_free(&u);
}

/* A GGUF header: read more until gguf_parse has all it needs (or the cap). */
static void fetch_gguf(struct fetch *x, const char *name)
{
	struct http_resp r;
	struct cd_buf u;
	uint64_t want = (uint64_t)1 << 20;

	buf_init(&u, 1 << 16);
	for (;;) {
		struct cd_arena a;
		struct gguf_file g;
		int rc;
		if (get(x, name, file_url(x, &u, name), 0, want, (size_t)want, &r))
			goto out;
		arena_init(&a);
		memset(&g, 0, sizeof(g));
		rc = gguf_parse((const uint8_t *)r.body.p, r.body.len,
				r.total > 0 ? (uint64_t)r.total : r.body.len, &a, &g, NULL);
		arena_free(&a);
		if (rc != CD_ERANGE || !g.need_more || want >= HUB_GGUF_MAX ||
		    (r.status != 206 && r.status != 200) || r.body.len < want)
			break;
		http_resp_free(&r);
		want *= 4;
	}
	frame(x, "file", r.status, r.total, r.error_code, name, r.body.p, r.body.len);
	http_resp_free(&r);
out:
	buf_free(&u);
}

static int cmp_shard(const void *a, const void *b)
{
	return strcmp((*(const struct stindex_shard *const *)a)->name,
		      (*(const struct stindex_shard *const *)b)->name);
}

/* The shards a safetensors index names, each once, in name order (none when
 * the index cannot be read or names more than STINDEX_SHARDS_MAX: the local
 * reader says why). */
static void fetch_shards(struct fetch *x, const struct http_resp *idx)
{
	struct cd_arena a;
	struct stindex ix;
	const struct stindex_shard **order = NULL;
	size_t n = 0, i;

	arena_init(&a);
	if (stindex_parse((const uint8_t *)idx->body.p, idx->body.len, &a, &ix, NULL) == 0)
		order = calloc(ix.n_shards + 1, sizeof(*order));
	for (i = 0; order && i < ix.n_shards; i++)
		if (ix.shards[i].n_tensors)
			order[n++] = &ix.shards[i];
	if (n > 1)
		qsort(order, n, sizeof(*order), cmp_shard);
	for (i = 0; order && i < n && !x->stop; i++)
		if (listed(x, order[i]->name) && !strstr(order[i]->name, ".."))
			fetch_header(x, order[i]->name);
	free(order);
	stindex_free(&ix);
	arena_free(&a);
}

static const char *first_gguf(const struct fetch *x)
{
	const char *k, *best = NULL;
	json_t *v;

	json_object_foreach(x->siblings, k, v) if (str_has_suffix(k, ".gguf") &&
						   (!best || strcmp(k, best) < 0)) best = k;
	return best;
}

static void fetch_weights(struct fetch *x)
{
	struct http_resp r;
	const char *g;

	if (listed(x, "model.safetensors.index.json")) {
		if (!fetch_whole(x, "model.safetensors.index.json", HUB_INDEX_MAX, &r))
			fetch_shards(x, &r);
		http_resp_free(&r);
	} else if (listed(x, "model.safetensors")) {
		fetch_header(x, "model.safetensors");
	} else if (listed(x, "pytorch_model.bin.index.json")) {
		fetch_whole(x, "pytorch_model.bin.index.json", HUB_INDEX_MAX, &r);
		http_resp_free(&r);
	} else if (!listed(x, "pytorch_model.bin") && (g = first_gguf(x))) {
		fetch_gguf(x, g);
	}
}

/* The file list: rfilename -> size (blobs=true gives "size"; an LFS file's
 * "lfs.size" is the same). */
static json_t *siblings_of(json_t *api)
{
	json_t *out = json_object(), *s, *size;
	size_t i;

	json_array_foreach(json_object_get(api, "siblings"), i, s)
	{
		const char *name = json_string_value(json_object_get(s, "rfilename"));
		if (!name)
			continue;
		size = json_object_get(s, "size");
		if (!json_is_integer(size))
			size = json_object_get(json_object_get(s, "lfs"), "size");
		json_object_set_new(out, name,
				    json_is_integer(size) ? json_copy(size) : json_null());
	}
	return out;
}

static int ask_api(struct fetch *x, json_t **api)
{
	struct http_resp r;
	struct cd_buf u;
	int rc;

	buf_init(&u, 1 << 16);
	rc = buf_printf(&u, "%s/api/models/%s/revision/", x->q->endpoint, x->q->repo);
	if (!rc)
		rc = quote(&u, x->q->revision, 0);
	if (!rc)
		rc = buf_puts(&u, "?blobs=true");
	/* a URL cut short would ask for another revision: nothing is asked */
	rc = rc ? -1 : get(x, "api", u.p, 0, 0, HUB_JSON_MAX, &r);
	buf_free(&u);
	if (rc)
		return -1;
	frame(x, "api", r.status, r.total, r.error_code, r.error_message[0] ? r.error_message : "-",
	      r.body.p, r.body.len);
	*api = r.status == 200 ? json_loadb(r.body.p, r.body.len, 0, NULL) : NULL;
	http_resp_free(&r);
	return *api ? 0 : -1;
}

void hub_fetch_child(struct iso_out *o, void *arg)
{
	struct fetch x;
	struct cd_err err = {0};
	struct http_resp r;
	json_t *api = NULL;
	const char *sha;
	char end[64];

	memset(&x, 0, sizeof(x));
	x.o = o;
	x.q = arg;
	if (http_open(&x.c, NULL, x.q->token, x.q->timeout_ms, &err)) {
		frame(&x, "nolib", 0, -1, NULL, "libcurl", err.msg, strlen(err.msg));
		return;
	}
	frame(&x, "curl", 0, -1, NULL, "libcurl", http_version(x.c), strlen(http_version(x.c)));
	buf_init(&x.base, 1 << 16);
	if (ask_api(&x, &api))
		goto out;
	x.siblings = siblings_of(api);
	sha = json_string_value(json_object_get(api, "sha"));
	/* a base cut short would name other files: nothing more is asked */
	if (buf_printf(&x.base, "%s/%s/resolve/", x.q->endpoint, x.q->repo) ||
	    quote(&x.base, sha ? sha : x.q->revision, 0) || buf_putc(&x.base, '/'))
		goto out;
	/* config.json first: a gated repository answers 401/403 here, and nothing
	 * more is asked. */
	if (listed(&x, "config.json")) {
		int denied = fetch_whole(&x, "config.json", HUB_JSON_MAX, &r) &&
			     (r.status == 401 || r.status == 403);
		http_resp_free(&r);
		if (denied)
			goto out;
	}
	if (listed(&x, "tokenizer_config.json")) {
		fetch_whole(&x, "tokenizer_config.json", HUB_JSON_MAX, &r);
		http_resp_free(&r);
	}
	fetch_weights(&x);
out:
	snprintf(end, sizeof(end), "%zu %llu", x.requests, (unsigned long long)x.bytes);
	frame(&x, "end", 0, -1, NULL, "-", end, strlen(end));
	json_decref(x.siblings);
	json_decref(api);
	buf_free(&x.base);
	http_close(x.c);
}
