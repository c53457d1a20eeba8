/* wheel: see wheel.h. A wheel is a zip archive (PEP 427); format/zip.h finds
 * the members, format/inflate.h decodes DEFLATE ones. The libtorch_cuda.so
 * member is never held in memory: stored, it is walked in the mapping;
 * deflated, each inflated piece goes straight to the fatbin stream. */
#include "probe/stack/wheel.h"

#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/fmap.h"
#include "core/str.h"
#include "format/distinfo.h"
#include "format/fatbin.h"
#include "format/inflate.h"
#include "format/zip.h"

#define WHEEL_MAX	((size_t)1 << 36)
#define SMALL_MAX	((size_t)1 << 20) /* METADATA, version.py */
#define LIB_MAX		((uint64_t)1 << 36)
#define MEMBER_NAME_MAX 512

static int to_buf(const uint8_t *p, size_t n, void *ctx)
{
	return buf_append(ctx, p, n);
}

/* A small member's bytes into b (inflated when it has to be). */
static int small(const struct cd_fmap *m, const struct zip_member *z, struct cd_buf *b,
		 struct cd_err *err)
{
	if (z->size > SMALL_MAX)
		return err_set(err, CD_ENOMEM, "member of %llu bytes", (unsigned long long)z->size);
	if (z->method == ZIP_METHOD_STORED)
		return buf_append(b, m->p + z->data_off, (size_t)z->comp_size);
	if (z->method != ZIP_METHOD_DEFLATE)
		return err_set(err, CD_EFORMAT, "compression method %u", z->method);
	return inflate_raw(m->p + z->data_off, (size_t)z->comp_size, z->size, to_buf, b, NULL, NULL,
			   err);
}

/* "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl" -> "2.11.0+cu130". */
static const char *version_from_name(struct cd_arena *a, const char *path)
{
	const char *b = strrchr(path, '/'), *v, *e;

	b = b ? b + 1 : path;
	if (!str_has_prefix(b, "torch-") || !str_has_suffix(b, ".whl"))
		return NULL;
	v = b + 6;
	e = strchr(v, '-');
	return e && e > v ? arena_strndup(a, v, (size_t)(e - v)) : NULL;
}

static void metadata(struct cd_facts *f, const struct cd_fmap *m, struct cd_torch_wheel *w)
{
	char name[MEMBER_NAME_MAX];
	struct zip_member z;
	struct distinfo_meta md;
	struct cd_buf b;

	buf_init(&b, SMALL_MAX + 1);
	if (zip_find_suffix(m->p, m->n, ".dist-info/METADATA", name, sizeof(name), &z, NULL) == 0 &&
	    small(m, &z, &b, NULL) == 0 &&
	    distinfo_parse_metadata((const uint8_t *)b.p, b.len, 1, &f->arena, &md) == 0 &&
	    md.version && md.name && !strcmp(md.name, "torch"))
		w->version = md.version;
	buf_free(&b);
	if (!w->version)
		w->version = version_from_name(&f->arena, w->path);
}

/* The variant: "+cu130" of the version, else version.py's cuda = '13.0'. */
static void variant(struct cd_facts *f, const struct cd_fmap *m, struct cd_torch_wheel *w)
{
	const char *plus = w->version ? strchr(w->version, '+') : NULL;
	struct torch_version_py v;
	struct zip_member z;
	struct cd_buf b;
	int cu;

	if (plus && str_has_prefix(plus + 1, "cu")) {
		w->variant = arena_strdup(&f->arena, plus + 1);
		return;
	}
	buf_init(&b, SMALL_MAX + 1);
	if (zip_find(m->p, m->n, "torch/version.py", &z, NULL) == 0 &&
	    small(m, &z, &b, NULL) == 0 &&
	    distinfo_parse_torch_version((const uint8_t *)b.p, b.len, &f->arena, &v) == 0 &&
	    v.cuda && (cu = ver_cuda_int(v.cuda)) > 0)
		w->variant = arena_printf(&f->arena, "cu%d%d", cu / 1000, (cu % 1000) / 10);
	buf_free(&b);
}

static int to_fatbin(const uint8_t *p, size_t n, void *ctx)
{
	fatbin_stream_feed(ctx, p, n);
	return 0;
}

static void keep(struct cd_facts *f, const struct fatbin_summary *s, struct cd_archset *out)
{
	out->n_sass = s->n_sass;
	out->n_ptx = s->n_ptx;
	out->sass = arena_calloc(&f->arena, s->n_sass ? s->n_sass : 1, sizeof(uint32_t));
	out->ptx = arena_calloc(&f->arena, s->n_ptx ? s->n_ptx : 1, sizeof(uint32_t));
	if (!out->sass || !out->ptx) {
		out->n_sass = out->n_ptx = 0;
		return;
	}
	memcpy(out->sass, s->sass, s->n_sass * sizeof(uint32_t));
	memcpy(out->ptx, s->ptx, s->n_ptx * sizeof(uint32_t));
	out->containers = out->sampled = s->containers;
	out->known = 1;
}

static void device_code(struct cd_facts *f, const struct cd_fmap *m, struct cd_torch_wheel *w)
{
	static const char *const names[] = {"torch/lib/libtorch_cuda.so",
					    "torch/lib/libtorch_cuda_cu.so"};
	struct fatbin_stream *fs = malloc(sizeof(*fs));
	struct cd_err err = {0};
	struct zip_member z;
	size_t i;
	int rc = CD_ENOENT;

	for (i = 0; i < 2 && rc == CD_ENOENT; i++)
		if ((rc = zip_find(m->p, m->n, names[i], &z, &err)) == 0)
			w->member = names[i];
	if (rc || !fs) {
		w->error = rc == CD_ENOENT
				   ? "no torch/lib/libtorch_cuda.so in the wheel (a CPU "
				     "build?)"
				   : arena_strdup(&f->arena, rc ? err.msg : "out of memory");
		free(fs);
		return;
	}
	fatbin_stream_init(fs);
	if (z.method == ZIP_METHOD_STORED)
		fatbin_stream_feed(fs, m->p + z.data_off, (size_t)z.comp_size);
	else if (z.method == ZIP_METHOD_DEFLATE)
		rc = inflate_raw(m->p + z.data_off, (size_t)z.comp_size,
				 z.size < LIB_MAX ? z.size : LIB_MAX, to_fatbin, fs, NULL, NULL,
				 &err);
	else
		rc = err_set(&err, CD_EFORMAT, "%s: compression method %u", w->member, z.method);
	fatbin_stream_end(fs);
	if (rc)
		w->error = arena_printf(&f->arena, "%s: %s", w->member, err.msg);
	keep(f, &fs->sum, &w->arch);
	w->arch.error = fs->sum.partial ? "a fatbin container was cut short" : NULL;
	free(fs);
}

void wheel_probe(struct cd_facts *f, const char *path, struct cd_torch_wheel *w)
{
	struct cd_fmap m;
	struct cd_err err = {0};

	memset(w, 0, sizeof(*w));
	w->path = path;
	if (fmap_open_host(path, WHEEL_MAX, &m, &err)) {
		w->error = arena_strdup(&f->arena, err.msg);
		return;
	}
	metadata(f, &m, w);
	variant(f, &m, w);
	device_code(f, &m, w);
	fmap_close(&m);
}
