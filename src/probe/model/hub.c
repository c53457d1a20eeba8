/* hub: the Hub without a download (see hub_int.h). Asked when ORG/NAME is not
 * in the cache and the load would download it: not offline (HF_HUB_OFFLINE,
 * TRANSFORMERS_OFFLINE), and under --root only when HF_ENDPOINT names the Hub
 * explicitly, as the live driver is queried under --root only when asked. The
 * endpoint is HF_ENDPOINT, else https://huggingface.co; the token HF_TOKEN,
 * else HUGGING_FACE_HUB_TOKEN, else the token file (HF_TOKEN_PATH, else
 * $HF_HOME/token, else $XDG_CACHE_HOME/huggingface/token, else
 * ~/.cache/huggingface/token: huggingface_hub constants.py). The token goes to
 * the child only; the facts keep where it came from, never its value. The
 * answers map as huggingface_hub's hf_raise_for_status reads them: X-Error-Code
 * RepoNotFound / RevisionNotFound / EntryNotFound, GatedRepo, and a 401 with
 * no code for a repository that does not exist or is private. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/opts.h"
#include "core/str.h"
#include "probe/model/hub_int.h"
#include "probe/model/model.h"

#define HUB_DEADLINE_MS 120000
#define TOKEN_MAX	4096

static const char *token_file(struct cd_facts *f, const char **path)
{
	const char *p = facts_getenv(f, "HF_TOKEN_PATH"), *v;
	struct cd_buf b;
	const char *tok = NULL;

	if (!p || !*p) {
		if ((v = facts_getenv(f, "HF_HOME")) && *v)
			p = arena_printf(&f->arena, "%s/token", v);
		else if ((v = facts_getenv(f, "XDG_CACHE_HOME")) && *v)
			p = arena_printf(&f->arena, "%s/huggingface/token", v);
		else if ((v = facts_getenv(f, "HOME")) && *v)
			p = arena_printf(&f->arena, "%s/.cache/huggingface/token", v);
	}
	*path = p;
	if (!p || !file_is_reg(&f->root, p))
		return NULL;
	buf_init(&b, TOKEN_MAX);
	if (!file_read(&f->root, p, TOKEN_MAX, &b, NULL) && *str_trim(b.p))
		tok = strdup(b.p); /* freed by the caller; never in the arena */
	if (b.p)
		memset(b.p, 0, b.cap);
	buf_free(&b);
	return tok;
}

/* The token to send (malloc'ed, wiped and freed by the caller), and where it
 * came from in m->hub.token_source. */
static char *find_token(struct cd_facts *f, struct md_hub *h)
{
	static const char *const vars[] = {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"};
	const char *v, *path;
	char *tok;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if ((v = facts_getenv(f, vars[i])) && *v) {
			h->token_source = vars[i];
			return strdup(v);
		}
	tok = (char *)token_file(f, &path);
	if (tok)
		h->token_source = arena_printf(&f->arena, "the token file %s", path);
	return tok;
}

static void wipe_free(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

static struct md_hub_file *hub_file(struct cd_facts *f, struct md_hub *h, const char *name)
{
	size_t i;

	for (i = 0; i < h->n_files; i++)
		if (!strcmp(h->files[i].name, name))
			return &h->files[i];
	return NULL;
}

/* The file list of the API's answer (the same rules as the child's). */
static void keep_siblings(struct cd_facts *f, struct md_hub *h, json_t *api)
{
	json_t *list = json_object_get(api, "siblings"), *s, *size;
	size_t i, n = json_array_size(list);

	h->files = arena_calloc(&f->arena, n ? n : 1, sizeof(*h->files));
	json_array_foreach(list, i, s)
	{
		const char *name = json_string_value(json_object_get(s, "rfilename"));
		struct md_hub_file *x;
		if (!name || !h->files)
			continue;
		x = &h->files[h->n_files++];
		x->name = arena_strdup(&f->arena, name);
		size = json_object_get(s, "size");
		if (!json_is_integer(size))
			size = json_object_get(json_object_get(s, "lfs"), "size");
		x->size = json_is_integer(size) && json_integer_value(size) >= 0
				  ? (int64_t)json_integer_value(size)
				  : CD_UNK;
		if (x->size != CD_UNK)
			h->download_bytes += (uint64_t)x->size;
	}
}

static void keep_api_params(struct cd_facts *f, struct md_hub *h, json_t *api)
{
	json_t *st = json_object_get(api, "safetensors"),
	       *params = json_object_get(st, "parameters");
	json_t *total = json_object_get(st, "total"), *v;
	const char *k;

	if (json_is_integer(total) && json_integer_value(total) > 0)
		h->api_parameters = (uint64_t)json_integer_value(total);
	if (!json_is_object(params) || !json_object_size(params) || json_object_size(params) > 64)
		return;
	h->api_dtypes = arena_calloc(&f->arena, json_object_size(params), sizeof(*h->api_dtypes));
	json_object_foreach(params, k, v)
	{
		if (!h->api_dtypes || !json_is_integer(v) || json_integer_value(v) < 0)
			continue;
		h->api_dtypes[h->n_api_dtypes].dtype = arena_strdup(&f->arena, k);
		h->api_dtypes[h->n_api_dtypes++].params = (uint64_t)json_integer_value(v);
	}
}

static void api_answer(struct cd_facts *f, struct md_hub *h, long status, const char *code,
		       const char *msg, const char *p, size_t n)
{
	json_t *api = status == 200 ? json_loadb(p, n, 0, NULL) : NULL, *g;

	h->status = (int)status;
	h->error_code = strcmp(code, "-") ? arena_strdup(&f->arena, code) : NULL;
	if (strcmp(msg, "-"))
		h->error = arena_strdup(&f->arena, msg);
	if (status == 200 && !json_is_object(api)) {
		h->state = MD_HUB_UNREACHABLE;
		h->error = "the Hub's answer is not a JSON object";
	} else if (status == 200) {
		h->state = MD_HUB_OK;
		h->sha = arena_strdup(&f->arena, json_string_value(json_object_get(api, "sha")));
		g = json_object_get(api, "gated");
		if (json_is_string(g))
			h->gated = arena_strdup(&f->arena, json_string_value(g));
		keep_siblings(f, h, api);
		keep_api_params(f, h, api);
	}
	json_decref(api);
}

static void file_answer(struct cd_facts *f, struct md_hub *h, long status, const char *code,
			const char *name, const char *p, size_t n)
{
	struct md_hub_file *x = hub_file(f, h, name);
	uint8_t *d;

	if (!x)
		return;
	x->status = (int)status;
	if (status == 200 || status == 206) {
		d = arena_alloc(&f->arena, n + 1);
		if (d)
			memcpy(d, p, n);
		x->data = d;
		x->len = d ? n : 0;
	} else {
		x->error =
			arena_printf(&f->arena, "the Hub answered HTTP %ld%s%s%s", status,
				     strcmp(code, "-") ? " (" : "", strcmp(code, "-") ? code : "",
				     strcmp(code, "-") ? ")" : "");
	}
	if ((status == 401 || status == 403) && !strcmp(name, "config.json")) {
		h->status = (int)status;
		h->error_code = strcmp(code, "-") ? arena_strdup(&f->arena, code) : NULL;
		h->state = !strcmp(code, "GatedRepo") || h->gated ? MD_HUB_GATED : MD_HUB_DENIED;
		h->error = "config.json could not be read";
	}
}

/* One frame: "KIND STATUS TOTAL LEN CODE NAME\n" then LEN bytes. Returns the
 * bytes used, 0 at a frame that does not parse or is cut short. */
static size_t one_frame(struct cd_facts *f, struct md_hub *h, const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n < 1400 ? n : 1400), *name, *data;
	char kind[16], code[64], line[1400];
	long status;
	long long total;
	size_t len;
	int used = 0;

	if (!nl)
		return 0;
	str_ncopy(line, sizeof(line), p, (size_t)(nl - p));
	if (sscanf(line, "%15s %ld %lld %zu %63s %n", kind, &status, &total, &len, code, &used) <
		    5 ||
	    !used || len > n - (size_t)(nl - p) - 1)
		return 0;
	name = line + used;
	data = nl + 1;
	if (!strcmp(kind, "nolib")) {
		h->state = MD_HUB_UNREACHABLE;
		h->error = arena_printf(&f->arena, "libcurl could not be loaded: %.*s", (int)len,
					data);
	} else if (!strcmp(kind, "curl")) {
		h->libcurl = arena_strndup(&f->arena, data, len);
	} else if (!strcmp(kind, "api")) {
		api_answer(f, h, status, code, name, data, len);
	} else if (!strcmp(kind, "file")) {
		file_answer(f, h, status, code, name, data, len);
	} else if (!strcmp(kind, "err") && !strcmp(name, "api")) {
		h->state = MD_HUB_UNREACHABLE;
		h->error = arena_printf(&f->arena, "the Hub could not be reached: %.*s", (int)len,
					data);
	} else if (!strcmp(kind, "err")) {
		struct md_hub_file *x = hub_file(f, h, name);
		if (x)
			x->error = arena_printf(&f->arena, "%.*s", (int)len, data);
	} else if (!strcmp(kind, "limit")) {
		h->limited = 1;
	} else if (!strcmp(kind, "end")) {
		unsigned long long b = 0;
		sscanf(data, "%zu %llu", &h->n_requests, &b);
		h->bytes_read = b;
	}
	return (size_t)(nl - p) + 1 + len;
}

/* What a non-200 answer of the API means (hf_raise_for_status). */
static void classify(struct cd_facts *f, struct md_hub *h, const struct cd_model_facts *m)
{
	const char *code = h->error_code ? h->error_code : "";

	if (h->state != MD_HUB_NOT_ASKED)
		return;
	if (!strcmp(code, "GatedRepo"))
		h->state = MD_HUB_GATED;
	else if (h->status == 404 || !strcmp(code, "RepoNotFound") ||
		 !strcmp(code, "RevisionNotFound") || (h->status == 401 && !h->token_source))
		h->state = MD_HUB_NOT_FOUND;
	else if (h->status == 401 || h->status == 403)
		h->state = MD_HUB_DENIED;
	else
		h->state = MD_HUB_UNREACHABLE;
	if (h->state == MD_HUB_UNREACHABLE && !h->status) {
		h->error = "the Hub reader gave no answer";
		return;
	}
	if (h->state == MD_HUB_NOT_FOUND)
		h->error =
			!strcmp(code, "RevisionNotFound")
				? arena_printf(&f->arena, "revision '%s' of %s is not on the Hub",
					       m->revision, m->spec)
			: h->status == 401
				? arena_printf(&f->arena,
					       "%s is not on the Hub, or it is private and no "
					       "token was sent",
					       m->spec)
				: arena_printf(&f->arena, "%s is not on the Hub", m->spec);
	else if (h->state == MD_HUB_UNREACHABLE)
		h->error = arena_printf(&f->arena, "the Hub answered HTTP %d%s%s", h->status,
					h->error ? ": " : "", h->error ? h->error : "");
}

static void run_child(struct cd_facts *f, struct md_hub *h, struct hub_req *q)
{
	struct iso_job j;
	size_t off = 0, used;

	memset(&j, 0, sizeof(j));
	j.fn = hub_fetch_child;
	j.arg = q;
	j.output = ISO_RECORDS;
	if (isolate_run(&j, 1, HUB_DEADLINE_MS, (size_t)HUB_BYTES_MAX + (1 << 20), NULL) ||
	    j.status == ISO_NOT_RUN) {
		h->state = MD_HUB_UNREACHABLE;
		h->error = "the Hub reader could not be started";
		iso_job_free(&j);
		return;
	}
	while (j.out.p && off < j.out.len &&
	       (used = one_frame(f, h, j.out.p + off, j.out.len - off)))
		off += used;
	if (j.status == ISO_TIMEOUT || j.status == ISO_CRASHED || j.status == ISO_OVERFLOW) {
		h->limited = 1;
		if (h->state == MD_HUB_NOT_ASKED || !h->status)
			h->state = MD_HUB_UNREACHABLE;
		if (h->state == MD_HUB_UNREACHABLE)
			h->error = j.status == ISO_TIMEOUT
					   ? arena_printf(&f->arena,
							  "the Hub did not answer within %d s",
							  HUB_DEADLINE_MS / 1000)
					   : "the Hub reader stopped (crashed or wrote too much)";
	}
	iso_job_free(&j);
}

void hub_probe(struct cd_facts *f, struct cd_model_facts *m)
{
	struct md_hub *h = &m->hub;
	const char *ep = facts_getenv(f, "HF_ENDPOINT");
	struct hub_req q;
	char *token;
	size_t n;

	if (!m->not_cached || m->found_in || m->offline == CD_TRI_YES ||
	    (!f->root.is_host && (!ep || !*ep)))
		return;
	if (!ep || !*ep)
		ep = "https://huggingface.co";
	for (n = strlen(ep); n > 1 && ep[n - 1] == '/'; n--)
		;
	h->endpoint = arena_strndup(&f->arena, ep, n);
	h->url = arena_printf(&f->arena, "%s/%s", h->endpoint, m->spec);
	token = find_token(f, h);
	memset(&q, 0, sizeof(q));
	q.endpoint = h->endpoint;
	q.repo = m->spec;
	q.revision = m->revision;
	q.token = token;
	q.timeout_ms = f->opts && f->opts->timeout_ms > 0 ? f->opts->timeout_ms : 10000;
	run_child(f, h, &q);
	wipe_free(token);
	classify(f, h, m);
	if (h->state != MD_HUB_OK)
		return;
	m->source = MD_SRC_HUB;
	m->commit = h->sha;
	m->dir = arena_printf(&f->arena, "%s/resolve/%s", h->url, h->sha ? h->sha : m->revision);
	m->not_found = NULL;
}

const struct md_hub_file *hub_file_at(const struct cd_model_facts *m, const char *path)
{
	size_t n = m->dir ? strlen(m->dir) : 0, i;

	if (m->source != MD_SRC_HUB || strncmp(path, m->dir, n) || path[n] != '/')
		return NULL;
	for (i = 0; i < m->hub.n_files; i++)
		if (!strcmp(m->hub.files[i].name, path + n + 1))
			return &m->hub.files[i];
	return NULL;
}
