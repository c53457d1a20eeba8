/* torchrel: see torchrel.h. torch_cuda.tsv writes an arch list as
 * "7.5;8.0;12.0+PTX (notes)"; archcov_parse_list reads the list and stops at
 * the notes. Its default column reads "yes" or "yes (per RFC ...)". */
#include "kb/torchrel.h"

#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/archcov.h"
#include "kb/kb.h"

void torchrel_release_of(const char *v, char *out, size_t cap)
{
	size_t n = v ? strspn(v, "0123456789") : 0, m;

	if (!cap)
		return;
	out[0] = '\0';
	if (!n || v[n] != '.' || !(m = strspn(v + n + 1, "0123456789")))
		return;
	str_ncopy(out, cap, v, n + 1 + m);
}

#define VARIANT_ROWS 96
#define RELEASE_ROWS 96

/* Both tables, read once on first use (not thread-safe, like the rest of a
 * run); lookups then copy from here. */
static struct torchrel_variant variant_rows[VARIANT_ROWS];
static size_t n_variant_rows;
static struct torchrel_release release_rows[RELEASE_ROWS];
static size_t n_release_rows;
static int loaded, load_rc;

static void fill(struct kb_tsv *t, struct torchrel_variant *v)
{
	const char *var = kb_tsv_get(t, "cuda_variant"), *cu = kb_tsv_get(t, "cuda_version");
	const char *def = kb_tsv_get(t, "default_pypi_linux_x86_64");
	const char *al = kb_tsv_get(t, "torch_cuda_arch_list_linux_x86_64");

	memset(v, 0, sizeof(*v));
	str_copy(v->release, sizeof(v->release), kb_tsv_get(t, "torch_version"));
	str_copy(v->variant, sizeof(v->variant), var ? var : "");
	str_copy(v->cuda, sizeof(v->cuda), cu ? cu : "");
	v->cuda_int = ver_cuda_int(v->cuda);
	v->pypi_default = def && str_has_prefix(def, "yes");
	if (al && archcov_parse_list(al, v->sass, &v->n_sass, v->ptx, &v->n_ptx,
				     TORCHREL_ARCHS_MAX) > 0) {
		v->arch_known = 1;
		str_ncopy(v->archs, sizeof(v->archs), al, strcspn(al, " "));
	}
}

static int load(void)
{
	struct kb_tsv *t;

	if (loaded)
		return load_rc;
	loaded = 1;
	if (!(t = malloc(sizeof(*t)))) /* 33 KiB of line buffers */
		return load_rc = CD_ENOMEM;
	if (kb_tsv_open(t, "torch_cuda.tsv") == 0)
		while (kb_tsv_next(t) && n_variant_rows < VARIANT_ROWS) {
			const char *var = kb_tsv_get(t, "cuda_variant");
			if (!var || !*var)
				continue;
			fill(t, &variant_rows[n_variant_rows]);
			if (variant_rows[n_variant_rows].cuda_int > 0)
				n_variant_rows++;
		}
	if (kb_tsv_open(t, "torch_releases.tsv") == 0)
		while (kb_tsv_next(t) && n_release_rows < RELEASE_ROWS) {
			struct torchrel_release *r = &release_rows[n_release_rows];
			const char *tv = kb_tsv_get(t, "torch");
			if (!tv || !*tv)
				continue;
			str_copy(r->torch, sizeof(r->torch), tv);
			str_copy(r->torchvision, sizeof(r->torchvision),
				 kb_tsv_get(t, "torchvision"));
			str_copy(r->torchaudio, sizeof(r->torchaudio), kb_tsv_get(t, "torchaudio"));
			n_release_rows++;
		}
	free(t);
	return load_rc = n_variant_rows && n_release_rows ? 0 : CD_ENOENT;
}

int torchrel_variants(const char *release, struct torchrel_variant *out, size_t cap, size_t *n)
{
	char rel[8];
	size_t i;

	*n = 0;
	torchrel_release_of(release, rel, sizeof(rel));
	if (!rel[0] || load())
		return CD_ENOENT;
	for (i = 0; i < n_variant_rows && *n < cap; i++)
		if (!strcmp(variant_rows[i].release, rel))
			out[(*n)++] = variant_rows[i];
	return *n ? 0 : CD_ENOENT;
}

int torchrel_patch(const char *version, struct torchrel_release *out)
{
	char rel[8], want[16], r[8];
	size_t i;
	int found = 0;

	torchrel_release_of(version, rel, sizeof(rel));
	if (!rel[0] || load())
		return CD_ENOENT;
	/* "2.14.1+cu130" -> "2.14.1"; "2.14" stays "2.14" (newest patch) */
	str_ncopy(want, sizeof(want), version, strspn(version, "0123456789."));
	for (i = 0; i < n_release_rows; i++) {
		const char *tv = release_rows[i].torch;
		torchrel_release_of(tv, r, sizeof(r));
		if (strcmp(r, rel) || (strcmp(want, rel) && strcmp(want, tv)))
			continue;
		if (found && ver_cmp(tv, out->torch) <= 0)
			continue;
		*out = release_rows[i];
		found = 1;
	}
	if (!found && strcmp(want, rel))
		return torchrel_patch(rel, out); /* a patch the table lacks: its release */
	return found ? 0 : CD_ENOENT;
}

static int has(char (*list)[8], size_t n, const char *r)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], r))
			return 1;
	return 0;
}

static int has_variants(const char *rel)
{
	size_t i;

	for (i = 0; i < n_variant_rows; i++)
		if (!strcmp(variant_rows[i].release, rel))
			return 1;
	return 0;
}

int torchrel_releases(char (*out)[8], size_t cap, size_t *n)
{
	size_t i, k;
	char r[8];

	*n = 0;
	if (load())
		return CD_ENOENT;
	for (i = 0; i < n_release_rows && *n < cap; i++) {
		torchrel_release_of(release_rows[i].torch, r, sizeof(r));
		if (r[0] && !has(out, *n, r) && has_variants(r))
			str_copy(out[(*n)++], sizeof(out[0]), r);
	}
	for (i = 1; i < *n; i++) /* insertion sort, oldest first */
		for (k = i; k > 0 && ver_cmp(out[k - 1], out[k]) > 0; k--) {
			char tmp[8];
			memcpy(tmp, out[k], sizeof(tmp));
			memcpy(out[k], out[k - 1], sizeof(tmp));
			memcpy(out[k - 1], tmp, sizeof(tmp));
		}
	return *n ? 0 : CD_ENOENT;
}
