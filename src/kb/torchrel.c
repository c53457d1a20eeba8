/* torchrel: see torchrel.h. torch_cuda.tsv writes an arch list as
 * "7.5;8.0;12.0+PTX (notes)"; archcov_parse_list reads the list and stops at
 * the notes. Its default column reads "yes" or "yes (per RFC ...)". */
#include "kb/torchrel.h"

#include <stdio.h>
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

static struct kb_tsv *open_table(const char *name)
{
	struct kb_tsv *t = malloc(sizeof(*t)); /* 33 KiB of line buffers */

	if (t && kb_tsv_open(t, name)) {
		free(t);
		t = NULL;
	}
	return t;
}

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

int torchrel_variants(const char *release, struct torchrel_variant *out, size_t cap, size_t *n)
{
	struct kb_tsv *t;
	char rel[8];

	*n = 0;
	torchrel_release_of(release, rel, sizeof(rel));
	if (!rel[0])
		return CD_ENOENT;
	if (!(t = open_table("torch_cuda.tsv")))
		return CD_ENOMEM;
	while (kb_tsv_next(t) && *n < cap) {
		const char *tv = kb_tsv_get(t, "torch_version"),
			   *var = kb_tsv_get(t, "cuda_variant");
		if (!tv || strcmp(tv, rel) || !var || !*var)
			continue;
		fill(t, &out[*n]);
		if (out[*n].cuda_int > 0)
			(*n)++;
	}
	free(t);
	return *n ? 0 : CD_ENOENT;
}

int torchrel_patch(const char *version, struct torchrel_release *out)
{
	struct kb_tsv *t;
	char rel[8], want[16], r[8];
	int found = 0;

	torchrel_release_of(version, rel, sizeof(rel));
	if (!rel[0])
		return CD_ENOENT;
	/* "2.14.1+cu130" -> "2.14.1"; "2.14" stays "2.14" (newest patch) */
	str_ncopy(want, sizeof(want), version, strspn(version, "0123456789."));
	if (!(t = open_table("torch_releases.tsv")))
		return CD_ENOMEM;
	while (kb_tsv_next(t)) {
		const char *tv = kb_tsv_get(t, "torch");
		if (!tv || !*tv)
			continue;
		torchrel_release_of(tv, r, sizeof(r));
		if (strcmp(r, rel) || (strcmp(want, rel) && strcmp(want, tv)))
			continue;
		if (found && ver_cmp(tv, out->torch) <= 0)
			continue;
		str_copy(out->torch, sizeof(out->torch), tv);
		str_copy(out->torchvision, sizeof(out->torchvision), kb_tsv_get(t, "torchvision"));
		str_copy(out->torchaudio, sizeof(out->torchaudio), kb_tsv_get(t, "torchaudio"));
		found = 1;
	}
	free(t);
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

int torchrel_releases(char (*out)[8], size_t cap, size_t *n)
{
	struct kb_tsv *t;
	struct torchrel_variant v[TORCHREL_VARIANTS_MAX];
	size_t i, k, nv;
	char r[8];

	*n = 0;
	if (!(t = open_table("torch_releases.tsv")))
		return CD_ENOMEM;
	while (kb_tsv_next(t) && *n < cap) {
		torchrel_release_of(kb_tsv_get(t, "torch"), r, sizeof(r));
		if (r[0] && !has(out, *n, r))
			str_copy(out[(*n)++], sizeof(out[0]), r);
	}
	free(t);
	for (i = k = 0; i < *n; i++) /* keep the releases torch_cuda.tsv has variants of */
		if (torchrel_variants(out[i], v, TORCHREL_VARIANTS_MAX, &nv) == 0)
			memmove(out[k++], out[i], sizeof(out[0]));
	*n = k;
	for (i = 1; i < *n; i++) /* insertion sort, oldest first */
		for (k = i; k > 0 && ver_cmp(out[k - 1], out[k]) > 0; k--) {
			char tmp[8];
			memcpy(tmp, out[k], sizeof(tmp));
			memcpy(out[k], out[k - 1], sizeof(tmp));
			memcpy(out[k - 1], tmp, sizeof(tmp));
		}
	return *n ? 0 : CD_ENOENT;
}
