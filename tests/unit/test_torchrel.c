/* Unit tests for kb/torchrel: torch releases, their torchvision / torchaudio
 * pins (data/torch_releases.tsv) and CUDA variants (data/torch_cuda.tsv). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/fatbin.h"
#include "kb/torchrel.h"

static void release_of(void **state)
{
	char r[8];

	(void)state;
	torchrel_release_of("2.14.1+cu130", r, sizeof(r));
	assert_string_equal(r, "2.14");
	torchrel_release_of("2.11", r, sizeof(r));
	assert_string_equal(r, "2.11");
	torchrel_release_of("2", r, sizeof(r));
	assert_string_equal(r, "");
	torchrel_release_of("x2.1", r, sizeof(r));
	assert_string_equal(r, "");
	torchrel_release_of(NULL, r, sizeof(r));
	assert_string_equal(r, "");
}

static void patches(void **state)
{
	struct torchrel_release p;

	(void)state;
	assert_int_equal(torchrel_patch("2.14", &p), 0);
	assert_string_equal(p.torch, "2.14.1");
	assert_string_equal(p.torchvision, "0.29.1");
	assert_string_equal(p.torchaudio, "2.11.0");
	assert_int_equal(torchrel_patch("2.9.0", &p), 0);
	assert_string_equal(p.torch, "2.9.0");
	assert_string_equal(p.torchvision, "0.24.0");
	assert_int_equal(torchrel_patch("2.11.0+cu130", &p), 0);
	assert_string_equal(p.torch, "2.11.0");
	assert_string_equal(p.torchvision, "0.26.0");
	/* A patch the table lacks: the newest of its release. */
	assert_int_equal(torchrel_patch("2.9.7", &p), 0);
	assert_string_equal(p.torch, "2.9.1");
	assert_int_equal(torchrel_patch("2.0.0", &p), 0);
	assert_string_equal(p.torchvision, "0.15.1");
	assert_int_equal(torchrel_patch("3.1", &p), CD_ENOENT);
	assert_int_equal(torchrel_patch("nonsense", &p), CD_ENOENT);
}

static const struct torchrel_variant *by(const struct torchrel_variant *v, size_t n,
					 const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].variant, name))
			return &v[i];
	return NULL;
}

static void variants(void **state)
{
	struct torchrel_variant v[TORCHREL_VARIANTS_MAX];
	const struct torchrel_variant *x;
	size_t n;

	(void)state;
	assert_int_equal(torchrel_variants("2.14.1", v, TORCHREL_VARIANTS_MAX, &n), 0);
	assert_int_equal(n, 3);
	x = by(v, n, "cu132");
	assert_non_null(x);
	assert_true(x->pypi_default); /* "yes (per RFC #190355)" */
	assert_int_equal(x->cuda_int, 13020);
	assert_true(x->arch_known);
	assert_string_equal(x->archs, "7.5;8.0;8.6;9.0;10.0;12.0+PTX");
	assert_int_equal(x->n_sass, 6);
	assert_int_equal(x->n_ptx, 1);
	assert_int_equal(x->ptx[0], FATBIN_KEY(120, FATBIN_VAR_NONE));
	x = by(v, n, "cu126");
	assert_false(x->pypi_default);
	assert_int_equal(x->sass[1], FATBIN_KEY(60, FATBIN_VAR_NONE));
	assert_int_equal(by(v, n, "cu130")->cuda_int, 13000); /* "13.0.x" */
	/* 2.11's cu130 row says 12.0 without +PTX (the installed wheel's list). */
	assert_int_equal(torchrel_variants("2.11", v, TORCHREL_VARIANTS_MAX, &n), 0);
	assert_int_equal(by(v, n, "cu130")->n_ptx, 0);
	/* 2.6's arch lists are not in the data. */
	assert_int_equal(torchrel_variants("2.6", v, TORCHREL_VARIANTS_MAX, &n), 0);
	assert_false(by(v, n, "cu124")->arch_known);
	assert_int_equal(torchrel_variants("9.9", v, TORCHREL_VARIANTS_MAX, &n), CD_ENOENT);
	assert_int_equal(n, 0);
	/* cap is honoured */
	assert_int_equal(torchrel_variants("2.14", v, 1, &n), 0);
	assert_int_equal(n, 1);
}

static void releases(void **state)
{
	char r[TORCHREL_RELEASES_MAX][8];
	size_t n, i;

	(void)state;
	assert_int_equal(torchrel_releases(r, TORCHREL_RELEASES_MAX, &n), 0);
	assert_true(n >= 15);
	assert_string_equal(r[0], "1.13");
	assert_string_equal(r[n - 1], "2.14");
	for (i = 0; i < n; i++)
		if (!strcmp(r[i], "2.10"))
			break;
	assert_true(i < n && !strcmp(r[i - 1], "2.9")); /* numeric order, not text */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(release_of),
		cmocka_unit_test(patches),
		cmocka_unit_test(variants),
		cmocka_unit_test(releases),
	};
	return cmocka_run_group_tests_name("torchrel", tests, NULL, NULL);
}
