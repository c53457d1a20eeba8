/* torchwheel: see torchwheel.h. */
#include "kb/torchwheel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

/* "2.5.1+cu121" -> "2.5"; 0, or -1 unless it starts with digits.digits. */
static int minor_of(const char *v, char *out, size_t cap)
{
	size_t a = strspn(v, "0123456789"), b;

	if (!a || v[a] != '.')
		return -1;
	b = strspn(v + a + 1, "0123456789");
	if (!b)
		return -1;
	str_ncopy(out, cap, v, a + 1 + b);
	return 0;
}

static int each(const char *want_minor, struct torchwheel *out, size_t cap, size_t *n, char *newest,
		size_t ncap)
{
	struct kb_tsv *t = malloc(sizeof(*t)); /* 33 KiB of line buffers: not on the stack */

	*n = 0;
	if (!t || kb_tsv_open(t, "torch_cuda.tsv")) {
		free(t);
		return CD_ENOENT;
	}
	while (kb_tsv_next(t)) {
		const char *tv = kb_tsv_get(t, "torch_version");
		struct torchwheel w;
		if (newest && (!*newest || ver_cmp(tv, newest) > 0))
			str_copy(newest, ncap, tv);
		if (!want_minor || strcmp(tv, want_minor) || *n >= cap)
			continue;
		memset(&w, 0, sizeof(w));
		str_copy(w.torch, sizeof(w.torch), tv);
		str_copy(w.variant, sizeof(w.variant), kb_tsv_get(t, "cuda_variant"));
		if (minor_of(kb_tsv_get(t, "cuda_version"), w.cuda, sizeof(w.cuda)))
			continue;
		w.pypi_default = str_has_prefix(kb_tsv_get(t, "default_pypi_linux_x86_64"), "yes");
		w.source = "data/torch_cuda.tsv (pytorch/pytorch RELEASE.md, pytorch/test-infra "
			   "generate_binary_build_matrix.py)";
		out[(*n)++] = w;
	}
	free(t);
	return *n || newest ? 0 : CD_ENOENT;
}

int torchwheel_release(const char *torch_version, struct torchwheel *out, size_t cap, size_t *n)
{
	char minor[16];

	if (!torch_version || minor_of(torch_version, minor, sizeof(minor)))
		return CD_ENOENT;
	return each(minor, out, cap, n, NULL, 0);
}

int torchwheel_default(const char *torch_version, struct torchwheel *out)
{
	struct torchwheel w[TORCHWHEEL_MAX];
	size_t n, i;

	if (torchwheel_release(torch_version, w, TORCHWHEEL_MAX, &n))
		return CD_ENOENT;
	for (i = 0; i < n; i++)
		if (w[i].pypi_default) {
			*out = w[i];
			return 0;
		}
	return CD_ENOENT;
}

int torchwheel_newest(char *out, size_t cap)
{
	struct torchwheel w;
	size_t n;

	out[0] = '\0';
	each(NULL, &w, 0, &n, out, cap);
	return out[0] ? 0 : CD_ENOENT;
}

int torchwheel_variant_cuda(const char *variant, char *out, size_t cap)
{
	size_t n;

	if (!variant || strncmp(variant, "cu", 2))
		return -1;
	n = strlen(variant + 2);
	if ((n != 3 && n != 2) || strspn(variant + 2, "0123456789") != n)
		return -1;
	/* cu118 -> 11.8, cu92 -> 9.2 */
	snprintf(out, cap, "%.*s.%c", (int)(n - 1), variant + 2, variant[2 + n - 1]);
	return 0;
}
