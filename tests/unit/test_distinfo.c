/* Unit tests for src/format/distinfo: core metadata headers, requires.txt,
 * torch/version.py, conda-meta records, pyvenv.cfg, patchlevel.h, names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/err.h"
#include "format/distinfo.h"

#define B(s) (const uint8_t *)(s), strlen(s)

static struct cd_arena a;

static int setup(void **state)
{
	(void)state;
	arena_init(&a);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	arena_free(&a);
	return 0;
}

static void metadata_headers(void **state)
{
	struct distinfo_meta m;
	const char *text = "Metadata-Version: 2.1\r\n"
			   "Name: torch\r\n"
			   "Version: 2.11.0+cu130\r\n"
			   "Requires-Python: >=3.10\r\n"
			   "Requires-Dist: filelock\r\n"
			   "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56;\r\n"
			   "  platform_system == \"Linux\"\r\n"
			   "Provides-Extra: optree\r\n"
			   "NAME: ignored-second-name\r\n"
			   "\r\n"
			   "Version: 0.0.0 (body, not a header)\r\n";

	(void)state;
	assert_int_equal(distinfo_parse_metadata(B(text), 1, &a, &m), 0);
	assert_true(m.complete);
	assert_false(m.truncated);
	assert_string_equal(m.metadata_version, "2.1");
	assert_string_equal(m.name, "torch");
	assert_string_equal(m.version, "2.11.0+cu130");
	assert_string_equal(m.requires_python, ">=3.10");
	assert_int_equal(m.n_requires, 2);
	assert_string_equal(m.requires[0], "filelock");
	/* a continuation line is folded into its field */
	assert_string_equal(m.requires[1],
			    "nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"");
	assert_int_equal(m.n_extras, 1);
	assert_true(m.header_end < strlen(text));
	assert_memory_equal(text + m.header_end, "Version: 0.0.0", 14);
}

static void metadata_partial_and_odd(void **state)
{
	struct distinfo_meta m;

	(void)state;
	/* No blank line yet and not at EOF: incomplete, the last line not used. */
	assert_int_equal(
		distinfo_parse_metadata(B("Name: x\nVersion: 1.0\nRequires-Dist: a"), 0, &a, &m),
		0);
	assert_false(m.complete);
	assert_string_equal(m.version, "1.0");
	assert_int_equal(m.n_requires, 0);
	/* At EOF the last line counts. */
	assert_int_equal(distinfo_parse_metadata(B("Name: x\nRequires-Dist: a"), 1, &a, &m), 0);
	assert_true(m.complete);
	assert_int_equal(m.n_requires, 1);
	/* A line that is not a header starts the body (Python's email parser). */
	assert_int_equal(
		distinfo_parse_metadata(B("Name: x\nnot a header\nVersion: 9\n"), 1, &a, &m), 0);
	assert_null(m.version);
	/* Empty input, NULL input, an empty Version. */
	assert_int_equal(distinfo_parse_metadata(B(""), 1, &a, &m), 0);
	assert_null(m.name);
	assert_int_equal(distinfo_parse_metadata(NULL, 0, 1, &a, &m), 0);
	assert_int_equal(distinfo_parse_metadata(B("Version:\n"), 1, &a, &m), 0);
	assert_string_equal(m.version, "");
}

static void metadata_caps(void **state)
{
	struct distinfo_meta m;
	size_t n = (DISTINFO_REQUIRES_MAX + 5) * 18, i, k = 0;
	char *text = malloc(n + DISTINFO_VALUE_MAX + 64);

	(void)state;
	assert_non_null(text);
	for (i = 0; i < DISTINFO_REQUIRES_MAX + 5; i++)
		k += (size_t)snprintf(text + k, 19, "Requires-Dist: a%u\n", (unsigned)(i % 10));
	assert_int_equal(distinfo_parse_metadata((const uint8_t *)text, k, 1, &a, &m), 0);
	assert_int_equal(m.n_requires, DISTINFO_REQUIRES_MAX);
	assert_true(m.truncated);
	/* One value over the value cap is kept in part. */
	k = (size_t)snprintf(text, 32, "Summary: ");
	memset(text + k, 'x', DISTINFO_VALUE_MAX + 10);
	k += DISTINFO_VALUE_MAX + 10;
	memcpy(text + k, "\nVersion: 1\n\n", 13);
	assert_int_equal(distinfo_parse_metadata((const uint8_t *)text, k + 13, 1, &a, &m), 0);
	assert_true(m.truncated);
	assert_string_equal(m.version, "1");
	free(text);
}

static void requires_txt_sections(void **state)
{
	struct distinfo_meta m;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(distinfo_parse_requires_txt(
				 B("hjson\n# comment\ntorch>=2.0\n\n[1bit]\nmpi4py\n"
				   "[:sys_platform == \"win32\"]\npywin32\n"
				   "[dev:python_version < \"3.11\"]\ntomli; os_name == 'nt'\n"),
				 &a, &m),
			 0);
	assert_int_equal(m.n_requires, 5);
	assert_string_equal(m.requires[0], "hjson");
	assert_string_equal(m.requires[1], "torch>=2.0");
	assert_string_equal(m.requires[2], "mpi4py; extra == \"1bit\"");
	assert_string_equal(m.requires[3], "pywin32; (sys_platform == \"win32\")");
	assert_string_equal(
		m.requires[4],
		"tomli; (python_version < \"3.11\") and (os_name == 'nt') and extra == \"dev\"");
}

static void torch_version_py(void **state)
{
	struct torch_version_py t;

	(void)state;
	assert_int_equal(
		distinfo_parse_torch_version(
			B("from typing import Optional\n\n__all__ = ['__version__', 'debug']\n"
			  "__version__ = '2.11.0+cu130'\ndebug = False\n"
			  "cuda: Optional[str] = '13.0'\ngit_version = 'abc123'\n"
			  "hip: Optional[str] = None\n"),
			&a, &t),
		0);
	assert_string_equal(t.version, "2.11.0+cu130");
	assert_string_equal(t.cuda, "13.0");
	assert_null(t.hip);
	assert_string_equal(t.git_version, "abc123");
	assert_int_equal(t.debug, 0);
	/* ROCm build, double quotes */
	assert_int_equal(
		distinfo_parse_torch_version(
			B("__version__ = \"2.5.1+rocm6.2\"\ncuda = None\nhip = \"6.2.41133\"\n"),
			&a, &t),
		0);
	assert_null(t.cuda);
	assert_string_equal(t.hip, "6.2.41133");
	assert_int_equal(t.debug, -1);
	/* Not a version.py: no __version__, or a comparison, or an escape. */
	assert_int_equal(distinfo_parse_torch_version(B("x = 1\n"), &a, &t), CD_EFORMAT);
	assert_int_equal(distinfo_parse_torch_version(B("__version__ == '1'\n"), &a, &t),
			 CD_EFORMAT);
	assert_int_equal(distinfo_parse_torch_version(B("__version__ = 'a\\'b'\n"), &a, &t),
			 CD_EFORMAT);
}

static void conda_records(void **state)
{
	struct conda_record r;

	(void)state;
	assert_int_equal(distinfo_conda_filename("pytorch-cuda-12.1-ha16c6d3_6.json", &a, &r), 0);
	assert_string_equal(r.name, "pytorch-cuda");
	assert_string_equal(r.version, "12.1");
	assert_string_equal(r.build, "ha16c6d3_6");
	assert_int_equal(distinfo_conda_filename("history", &a, &r), CD_EFORMAT);
	assert_int_equal(distinfo_conda_filename("x-1.json", &a, &r), CD_EFORMAT);
	assert_int_equal(distinfo_conda_filename("-1-2.json", &a, &r), CD_EFORMAT);
	assert_int_equal(
		distinfo_parse_conda_json(B("{\"name\": \"pytorch\", \"version\": \"2.1.0\", "
					    "\"build\": \"py3.11_0\", \"channel\": "
					    "\"https://conda.anaconda.org/pytorch/linux-64\", "
					    "\"files\": [\"a\"]}"),
					  &a, &r),
		0);
	assert_string_equal(r.channel, "https://conda.anaconda.org/pytorch/linux-64");
	assert_int_equal(distinfo_parse_conda_json(B("{\"name\": \"x\", "), &a, &r), CD_EFORMAT);
	assert_int_equal(distinfo_parse_conda_json(B("[1]"), &a, &r), CD_EFORMAT);
	assert_int_equal(distinfo_parse_conda_json(B("{\"name\": 1}"), &a, &r), 0);
	assert_null(r.name);
	assert_int_equal(distinfo_parse_conda_json(B("{\"a\":1,\"a\":2}"), &a, &r), CD_EFORMAT);
}

static void cfg_patchlevel_names(void **state)
{
	const char *v, *name, *version;

	(void)state;
	assert_int_equal(distinfo_cfg_get(B("home = /usr/bin\nInclude-System-Site-Packages=true\n"),
					  "include-system-site-packages", &a, &v),
			 0);
	assert_string_equal(v, "true");
	assert_int_equal(distinfo_cfg_get(B("home=/x\n"), "version", &a, &v), CD_ENOENT);
	assert_int_equal(
		distinfo_patchlevel(
			B("#define PY_MAJOR_VERSION 3\n#define PY_VERSION      \"3.12.3\"\n"), &a,
			&v),
		0);
	assert_string_equal(v, "3.12.3");
	assert_int_equal(distinfo_patchlevel(B("#define PY_VERSION \"\n"), &a, &v), CD_EFORMAT);
	assert_int_equal(distinfo_dirname("torch-2.11.0+cu130.dist-info", &a, &name, &version),
			 DISTINFO_DIST);
	assert_string_equal(name, "torch");
	assert_string_equal(version, "2.11.0+cu130");
	assert_int_equal(distinfo_dirname("deepspeed-0.8.0-py3.12.egg-info", &a, &name, &version),
			 DISTINFO_EGG);
	assert_string_equal(version, "0.8.0");
	assert_int_equal(distinfo_dirname("foo.egg-info", &a, &name, &version), DISTINFO_EGG);
	assert_null(version);
	assert_int_equal(distinfo_dirname("-1.0.dist-info", &a, &name, &version), DISTINFO_NONE);
	assert_int_equal(distinfo_dirname(".dist-info", &a, &name, &version), DISTINFO_NONE);
	assert_int_equal(distinfo_dirname("torch", &a, &name, &version), DISTINFO_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(metadata_headers),	cmocka_unit_test(metadata_partial_and_odd),
		cmocka_unit_test(metadata_caps),	cmocka_unit_test(requires_txt_sections),
		cmocka_unit_test(torch_version_py),	cmocka_unit_test(conda_records),
		cmocka_unit_test(cfg_patchlevel_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
