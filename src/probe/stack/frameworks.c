/* frameworks: JAX and TensorFlow as installed, from their metadata and files
 * only. JAX: jax, jaxlib, and the CUDA plugins (jax-cuda12-plugin,
 * jax-cuda12-pjrt, jax-cuda13-*; the CUDA major is in their names, older
 * jaxlib carried it in a "+cuda12..." local version) with their nvidia-*
 * Requires-Dist. TensorFlow: tensorflow/python/platform/build_info.py, read
 * as text (format/buildinfo.h), for the CUDA and cuDNN it was built with, and
 * the nvidia-* pins of its and-cuda extra. */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "format/buildinfo.h"
#include "probe/stack/libs_int.h"

#define PINS_MAX 32

static const char **pins_of(struct cd_arena *a, const struct cd_package *p, size_t *n)
{
	const char **v = arena_calloc(a, PINS_MAX, sizeof(char *));
	size_t i;

	*n = 0;
	for (i = 0; v && p && i < p->n_requires && *n < PINS_MAX; i++)
		if (str_has_prefix(p->requires[i], "nvidia-"))
	v[(*n)++] = p->requires[i];
	return v;
}

/* 12 from "jax-cuda12-plugin"; 0 when the name carries no CUDA major. */
static int cuda_major_in(const char *s, const char *marker)
{
	const char *c = s ? strstr(s, marker) : NULL;

	return c ? (int)strtol(c + strlen(marker), NULL, 10) : 0;
}

static void jax(struct libs_run *r)
{
	const struct cd_stack_facts *st = r->st;
	struct cd_jax_facts *j = &r->L->jax;
	const struct cd_package *p;
	size_t i, n = 0;

	p = stack_find(st, "jax");
	j->jax = p ? p->version : NULL;
	p = stack_find(st, "jaxlib");
	j->jaxlib = p ? p->version : NULL;
	j->installed = j->jax || j->jaxlib;
	j->cuda_major = p ? cuda_major_in(p->version, "+cuda") : 0;
	for (i = 0; i < st->n_packages; i++)
		if (str_has_prefix(st->packages[i].name, "jax-cuda"))
			n++;
	if (!n)
		return;
	j->plugins = arena_calloc(&r->f->arena, n, sizeof(*j->plugins));
	for (i = 0; j->plugins && i < st->n_packages; i++) {
		const struct cd_package *q = &st->packages[i];
		struct cd_jax_plugin *pl;
		if (!str_has_prefix(q->name, "jax-cuda"))
			continue;
		pl = &j->plugins[j->n_plugins++];
		pl->name = q->name;
		pl->version = q->version;
		pl->cuda_major = cuda_major_in(q->name, "jax-cuda");
		pl->pins = pins_of(&r->f->arena, q, &pl->n_pins);
		if (pl->cuda_major && !j->cuda_major)
			j->cuda_major = pl->cuda_major;
	}
	j->installed = 1;
}

static void tensorflow(struct libs_run *r)
{
	static const char *const names[] = {"tensorflow", "tensorflow-cpu", "tf-nightly",
					    "tensorflow-gpu", "intel-tensorflow"};
	const struct cd_stack_facts *st = r->st;
	struct cd_tf_facts *t = &r->L->tf;
	const struct cd_package *p = NULL;
	struct buildinfo bi;
	struct cd_buf b;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !p; i++)
		p = stack_find(st, names[i]);
	if (!p)
		return;
	t->installed = 1;
	t->package = p->name;
	t->version = p->version;
	t->is_cuda_build = CD_TRI_UNKNOWN;
	t->pins = pins_of(&r->f->arena, p, &t->n_pins);
	if (p->site >= st->python.n_site)
		return;
	t->build_info = fsu_path(&r->f->arena, st->python.site[p->site].path,
				 "tensorflow/python/platform/build_info.py");
	buf_init(&b, BUILDINFO_INPUT_MAX);
	rc = t->build_info ? file_read(&r->f->root, t->build_info, BUILDINFO_INPUT_MAX, &b, NULL)
			   : CD_ENOMEM;
	if (!rc)
		rc = buildinfo_parse((const uint8_t *)b.p, b.len, &r->f->arena, &bi);
	buf_free(&b);
	if (rc) {
		t->problem = arena_printf(&r->f->arena, "%s %s", t->build_info,
					  rc == CD_ENOENT ? "is missing" : "cannot be read");
		t->build_info = NULL;
		return;
	}
	t->cuda_version = bi.cuda_version;
	t->cudnn_version = bi.cudnn_version;
	t->is_cuda_build = bi.is_cuda_build < 0 ? CD_TRI_UNKNOWN
			   : bi.is_cuda_build	? CD_TRI_YES
						: CD_TRI_NO;
	t->caps = arena_calloc(&r->f->arena, bi.n_caps ? bi.n_caps : 1, sizeof(char *));
	for (i = 0; t->caps && i < bi.n_caps; i++)
		t->caps[t->n_caps++] = bi.caps[i];
}

void libs_frameworks(struct libs_run *r)
{
	jax(r);
	tensorflow(r);
}
