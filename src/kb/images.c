/* images: see images.h. The base-image rows are read and their tag patterns
 * compiled once (POSIX extended regular expressions, glibc's regcomp); the
 * other tables are scanned per lookup, which a lint does a few times. */
#include "kb/images.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

#define BASE_ROWS_MAX 32
#define REQ_ROWS_MAX  64

struct base_row {
	char repo[256]; /* comma-separated names */
	regex_t re;
	int pinned, gpu, has_torch;
	char cuda[16], flavor[32], torch[16], env[32];
	char *source;
};

static struct base_row base[BASE_ROWS_MAX];
static size_t n_base;
static int base_loaded;

static struct kb_tsv *tsv_open(const char *name)
{
	struct kb_tsv *t = malloc(sizeof(*t)); /* 33 KiB of line buffers: not on the stack */

	if (t && kb_tsv_open(t, name) != 0) {
		free(t);
		t = NULL;
	}
	return t;
}

static void load_base(void)
{
	struct kb_tsv *t;

	if (base_loaded)
		return;
	base_loaded = 1;
	if (!(t = tsv_open("base_images.tsv")))
		return;
	while (kb_tsv_next(t) && n_base < BASE_ROWS_MAX) {
		struct base_row *r = &base[n_base];
		const char *tag = kb_tsv_get(t, "tag");
		if (!tag || regcomp(&r->re, tag, REG_EXTENDED) != 0)
			continue;
		str_copy(r->repo, sizeof(r->repo), kb_tsv_get(t, "repo"));
		str_copy(r->cuda, sizeof(r->cuda), kb_tsv_get(t, "cuda"));
		str_copy(r->flavor, sizeof(r->flavor), kb_tsv_get(t, "flavor"));
		str_copy(r->torch, sizeof(r->torch), kb_tsv_get(t, "torch"));
		str_copy(r->env, sizeof(r->env), kb_tsv_get(t, "env"));
		r->pinned = !strcmp(kb_tsv_get(t, "pinned"), "yes");
		r->gpu = !strcmp(kb_tsv_get(t, "gpu"), "yes");
		r->has_torch = !strcmp(kb_tsv_get(t, "has_torch"), "yes");
		r->source = strdup(kb_tsv_get(t, "source"));
		n_base++;
	}
	free(t);
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

int images_parse_ref(const char *ref, struct img_ref *out)
{
	char buf[512], *at, *slash, *colon, *path;

	memset(out, 0, sizeof(*out));
	if (!ref || !*ref || str_copy(buf, sizeof(buf), ref) >= sizeof(buf))
		return CD_EFORMAT;
	if ((at = strchr(buf, '@'))) {
		*at = '\0';
		str_copy(out->digest, sizeof(out->digest), at + 1);
	}
	slash = strrchr(buf, '/');
	colon = strrchr(buf, ':');
	if (colon && (!slash || colon > slash)) {
		*colon = '\0';
		str_copy(out->tag, sizeof(out->tag), colon + 1);
	}
	path = buf;
	slash = strchr(buf, '/');
	if (slash && (memchr(buf, '.', (size_t)(slash - buf)) ||
		      memchr(buf, ':', (size_t)(slash - buf)) || !strncmp(buf, "localhost/", 10))) {
		*slash = '\0';
		str_copy(out->registry, sizeof(out->registry), buf);
		lower(out->registry);
		path = slash + 1;
	}
	if (!strcmp(out->registry, "docker.io") || !strcmp(out->registry, "index.docker.io") ||
	    !strcmp(out->registry, "registry-1.docker.io"))
		out->registry[0] = '\0';
	if (!out->registry[0] && !strncmp(path, "library/", 8))
		path += 8;
	if (!*path)
		return CD_EFORMAT;
	str_copy(out->repo, sizeof(out->repo), path);
	lower(out->repo);
	return 0;
}

static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, name, n))
			return 1;
		p += k;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* A template with \N group references, filled from the tag's match. */
static void fill(char *out, size_t cap, const char *tmpl, const char *tag, const regmatch_t *m)
{
	size_t k = 0;

	for (; *tmpl && k + 1 < cap; tmpl++) {
		if (tmpl[0] == '\\' && tmpl[1] >= '1' && tmpl[1] <= '9') {
			const regmatch_t *g = &m[tmpl[1] - '0'];
			regoff_t i;
			for (i = g->rm_so; g->rm_so >= 0 && i < g->rm_eo && k + 1 < cap; i++)
				out[k++] = tag[i];
			tmpl++;
			continue;
		}
		out[k++] = *tmpl;
	}
	out[k] = '\0';
}

int images_lookup(const char *ref, struct img_info *out)
{
	struct img_ref r;
	char name[260];
	regmatch_t m[10];
	size_t i;

	memset(out, 0, sizeof(*out));
	if (images_parse_ref(ref, &r))
		return CD_ENOENT;
	load_base();
	snprintf(name, sizeof(name), "%s%s%s", r.registry, r.registry[0] ? "/" : "", r.repo);
	out->pinned = r.digest[0] != '\0';
	out->latest = !r.tag[0] || !strcmp(r.tag, "latest");
	for (i = 0; i < n_base; i++) {
		const struct base_row *b = &base[i];
		if (!listed(b->repo, name))
			continue;
		if (!out->known) {
			out->known = 1;
			out->gpu = b->gpu;
			str_copy(out->repo, sizeof(out->repo), name);
			out->source = b->source;
		}
		if (out->latest || regexec(&b->re, r.tag, 10, m, 0) != 0)
			continue;
		out->matched = 1;
		out->pinned |= b->pinned;
		out->gpu = b->gpu;
		out->has_torch = b->has_torch;
		out->source = b->source;
		fill(out->cuda, sizeof(out->cuda), b->cuda, r.tag, m);
		fill(out->flavor, sizeof(out->flavor), b->flavor, r.tag, m);
		fill(out->torch, sizeof(out->torch), b->torch, r.tag, m);
		fill(out->env_set, sizeof(out->env_set), b->env, r.tag, m);
		break;
	}
	return out->known ? 0 : CD_ENOENT;
}

/* The require strings, kept for the process: each lookup hands out a pointer. */
static char *req_text[REQ_ROWS_MAX], *req_cuda[REQ_ROWS_MAX], *req_arch[REQ_ROWS_MAX],
	*req_src[REQ_ROWS_MAX];
static size_t n_req;
static int req_loaded;

static void load_req(void)
{
	struct kb_tsv *t;

	if (req_loaded)
		return;
	req_loaded = 1;
	if (!(t = tsv_open("cuda_images.tsv")))
		return;
	while (kb_tsv_next(t) && n_req < REQ_ROWS_MAX) {
		req_cuda[n_req] = strdup(kb_tsv_get(t, "cuda"));
		req_arch[n_req] = strdup(kb_tsv_get(t, "arch"));
		req_text[n_req] = strdup(kb_tsv_get(t, "require_cuda"));
		req_src[n_req] = strdup(kb_tsv_get(t, "source"));
		if (req_cuda[n_req] && req_arch[n_req] && req_text[n_req] && req_src[n_req])
			n_req++;
	}
	free(t);
}

/* "12.4.1" and "12.4" share X.Y. */
static int same_minor(const char *a, const char *b)
{
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");
	const char *ma = a + la, *mb = b + lb;

	if (la != lb || strncmp(a, b, la) || *ma != '.' || *mb != '.')
		return 0;
	ma++, mb++;
	la = strcspn(ma, ".");
	lb = strcspn(mb, ".");
	return la == lb && !strncmp(ma, mb, la);
}

int images_require_cuda(const char *cuda, const char *arch, const char **req, const char **row,
			const char **source)
{
	size_t i, best = (size_t)-1;

	load_req();
	if (!cuda || !*cuda)
		return CD_ENOENT;
	if (!arch)
		arch = "amd64";
	for (i = 0; i < n_req; i++) {
		if (strcmp(req_arch[i], arch))
			continue;
		if (!strcmp(req_cuda[i], cuda)) {
			best = i;
			break;
		}
		if (same_minor(req_cuda[i], cuda) &&
		    (best == (size_t)-1 || ver_cmp(req_cuda[i], req_cuda[best]) > 0))
			best = i;
	}
	if (best == (size_t)-1)
		return CD_ENOENT;
	*req = req_text[best];
	if (row)
		*row = req_cuda[best];
	if (source)
		*source = req_src[best];
	return 0;
}

/* {cuda_full}, {require_cuda}, {torch} in a value; NULL when one is unknown. */
static const char *subst(const char *v, const struct img_info *info, const char *arch,
			 struct cd_arena *a)
{
	const char *req = NULL;

	if (!strcmp(v, "{cuda_full}"))
		return info->cuda[0] ? arena_strdup(a, info->cuda) : NULL;
	if (!strcmp(v, "{torch}"))
		return info->torch[0] ? arena_strdup(a, info->torch) : NULL;
	if (!strcmp(v, "{require_cuda}"))
		return images_require_cuda(info->cuda, arch, &req, NULL, NULL) ? NULL : req;
	return arena_strdup(a, v);
}

int images_env(const struct img_info *info, const char *arch, struct dfenv *env, struct cd_arena *a)
{
	struct kb_tsv *t;
	int rc = 0;

	if (!info->env_set[0])
		return 0;
	if (!(t = tsv_open("base_image_env.tsv")))
		return 0;
	while (!rc && kb_tsv_next(t)) {
		const char *v, *n;
		if (strcmp(kb_tsv_get(t, "set"), info->env_set))
			continue;
		v = subst(kb_tsv_get(t, "value"), info, arch, a);
		n = arena_strdup(a, kb_tsv_get(t, "name"));
		if (v && n)
			rc = dfenv_set(env, n, v);
	}
	free(t);
	return rc;
}

static char brand_tok[32][24], brand_cls[32][16];
static int brand_val[32];
static size_t n_brand;
static int brand_loaded;

static void load_brands(void)
{
	struct kb_tsv *t;

	if (brand_loaded)
		return;
	brand_loaded = 1;
	if (!(t = tsv_open("nvml_brands.tsv")))
		return;
	while (kb_tsv_next(t) && n_brand < 32) {
		int v;
		if (str_to_int(kb_tsv_get(t, "nvml"), 0, 1000, &v))
			continue;
		brand_val[n_brand] = v;
		str_copy(brand_tok[n_brand], sizeof(brand_tok[0]), kb_tsv_get(t, "token"));
		str_copy(brand_cls[n_brand], sizeof(brand_cls[0]), kb_tsv_get(t, "class"));
		n_brand++;
	}
	free(t);
}

const char *images_brand_token(int nvml_brand)
{
	size_t i;

	load_brands();
	for (i = 0; i < n_brand; i++)
		if (brand_val[i] == nvml_brand)
			return brand_tok[i];
	return NULL;
}

const char *images_brand_class(const char *token)
{
	size_t i;

	load_brands();
	for (i = 0; token && i < n_brand; i++)
		if (!strcasecmp(brand_tok[i], token))
			return brand_cls[i];
	return NULL;
}
