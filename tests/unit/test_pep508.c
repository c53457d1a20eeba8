/* Unit tests for src/format/pep508: requirements and markers, checked against
 * the examples of PEP 508 itself and packaging's answers for many more
 * (tests/unit/data/pep508_*.tsv; environment: CPython 3.12.3, Linux x86_64). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "format/pep508.h"
#include "vectors.h"

static const struct pep508_env env = {
	.python_version = "3.12",
	.python_full_version = "3.12.3",
	.implementation_name = "cpython",
	.implementation_version = "3.12.3",
	.platform_python_implementation = "CPython",
	.os_name = "posix",
	.sys_platform = "linux",
	.platform_system = "Linux",
	.platform_machine = "x86_64",
	.platform_release = "6.1.0-18-amd64",
	.platform_version = "#1 SMP",
	.extra = "",
};

static void markers_match_packaging(void **state)
{
	struct vec v;
	size_t rows = 0, pep = 0;

	(void)state;
	assert_int_equal(vec_open(&v, "pep508_markers.tsv"), 0);
	while (vec_next(&v)) {
		const char *m = v.col[0], *want = v.col[1];
		int got = pep508_marker_eval(m, strlen(m), &env, NULL);
		int syntax = pep508_marker_eval(m, strlen(m), NULL, NULL);
		rows++;
		pep += !strcmp(v.col[2], "pep");
		if (!strcmp(want, "INVALID")) {
			if (got >= PEP508_UNKNOWN || syntax >= PEP508_UNKNOWN)
				fail_msg("marker '%s' accepted but packaging rejects it", m);
			continue;
		}
		if (syntax != PEP508_UNKNOWN)
			fail_msg("marker '%s' failed the syntax check (%d)", m, syntax);
		if (!strcmp(want, "ERR")) {
			/* packaging raises while evaluating; we never error out. */
			assert_true(got >= PEP508_UNKNOWN && got <= PEP508_TRUE);
			continue;
		}
		if (got != (want[0] == '1'))
			fail_msg("marker '%s' = %d, packaging says %s", m, got, want);
	}
	vec_close(&v);
	assert_true(rows > 50);
	assert_true(pep >= 8);
}

static void join_extras(const struct pep508_req *r, char *out, size_t cap)
{
	/* extras sorted, like packaging's set printed sorted */
	const char *sorted[PEP508_EXTRAS_MAX];
	size_t i, j, n = 0;

	for (i = 0; i < r->n_extras; i++)
		sorted[i] = r->extras[i];
	for (i = 1; i < r->n_extras; i++)
		for (j = i; j > 0 && strcmp(sorted[j - 1], sorted[j]) > 0; j--) {
			const char *t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	out[0] = '\0';
	for (i = 0; i < r->n_extras; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "," : "", sorted[i]);
}

static void join_specs(const struct pep508_req *r, char *out, size_t cap)
{
	char one[PEP440_SPECS_MAX][300];
	const char *sorted[PEP440_SPECS_MAX];
	size_t i, j, n = 0;

	for (i = 0; i < r->spec.n; i++) {
		snprintf(one[i], sizeof(one[i]), "%s%s", pep440_op_str(r->spec.specs[i].op),
			 r->spec.specs[i].text);
		sorted[i] = one[i];
	}
	for (i = 1; i < r->spec.n; i++)
		for (j = i; j > 0 && strcmp(sorted[j - 1], sorted[j]) > 0; j--) {
			const char *t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	out[0] = '\0';
	for (i = 0; i < r->spec.n; i++)
		n += (size_t)snprintf(out + n, cap - n, "%s%s", i ? "," : "", sorted[i]);
}

static void requirements_match_packaging(void **state)
{
	struct vec v;
	size_t rows = 0, pep = 0;
	static struct pep508_req r;

	(void)state;
	assert_int_equal(vec_open(&v, "pep508_reqs.tsv"), 0);
	while (vec_next(&v)) {
		const char *s = v.col[0];
		char buf[1024];
		int rc = pep508_parse(s, strlen(s), &r, NULL), applies;
		rows++;
		pep += !strcmp(v.col[6], "pep");
		if (!strcmp(v.col[1], "INVALID")) {
			if (rc == 0)
				fail_msg("requirement '%s' parsed but packaging rejects it", s);
			continue;
		}
		if (rc)
			fail_msg("requirement '%s' rejected (%d)", s, rc);
		assert_string_equal(r.name, v.col[1]);
		join_extras(&r, buf, sizeof(buf));
		if (strcmp(buf, v.col[2]))
			fail_msg("'%s': extras '%s', packaging '%s'", s, buf, v.col[2]);
		join_specs(&r, buf, sizeof(buf));
		if (strcmp(buf, v.col[3]))
			fail_msg("'%s': specifier '%s', packaging '%s'", s, buf, v.col[3]);
		assert_int_equal(r.has_url, v.col[4][0] == '1');
		applies = pep508_req_applies(&r, s, &env);
		if (!strcmp(v.col[5], "-"))
			assert_int_equal(r.marker_len, 0);
		else if (strcmp(v.col[5], "ERR") && applies != (v.col[5][0] == '1'))
			fail_msg("'%s': marker = %d, packaging %s", s, applies, v.col[5]);
	}
	vec_close(&v);
	assert_true(rows > 60);
	assert_true(pep >= 17);
}

static void normalize_names(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(pep508_normalize("Typing_Extensions", 17, out, sizeof(out)), 17);
	assert_string_equal(out, "typing-extensions");
	pep508_normalize("A.-_B", 5, out, sizeof(out));
	assert_string_equal(out, "a-b");
	pep508_normalize("flash_attn", 10, out, 4);
	assert_string_equal(out, "fla");
}

static void extras_and_unknowns(void **state)
{
	struct pep508_env e = env;
	const char *m;

	(void)state;
	/* PEP 685: extra names compare normalised. */
	e.extra = "torch_extra";
	m = "extra == 'Torch-Extra'";
	assert_int_equal(pep508_marker_eval(m, strlen(m), &e, NULL), PEP508_TRUE);
	/* An unknown fact makes the comparison unknown, Kleene-combined. */
	e.python_full_version = NULL;
	m = "python_full_version >= '3.12.1'";
	assert_int_equal(pep508_marker_eval(m, strlen(m), &e, NULL), PEP508_UNKNOWN);
	m = "python_full_version >= '3.12.1' and os_name == 'nt'";
	assert_int_equal(pep508_marker_eval(m, strlen(m), &e, NULL), PEP508_FALSE);
	m = "python_full_version >= '3.12.1' or os_name == 'posix'";
	assert_int_equal(pep508_marker_eval(m, strlen(m), &e, NULL), PEP508_TRUE);
}

static void hostile_inputs(void **state)
{
	static char deep[PEP508_DEPTH_MAX * 2 + 64];
	static struct pep508_req r;
	struct cd_err err = {0};
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < PEP508_DEPTH_MAX + 1; i++)
		deep[n++] = '(';
	memcpy(deep + n, "os_name=='a'", 12);
	n += 12;
	for (i = 0; i < PEP508_DEPTH_MAX + 1; i++)
		deep[n++] = ')';
	assert_int_equal(pep508_marker_eval(deep, n, &env, &err), CD_ERANGE);
	assert_non_null(strstr(err.msg, "nested"));
	/* An unterminated quote. */
	assert_int_equal(pep508_marker_eval("os_name == 'posix", 17, &env, NULL), CD_EFORMAT);
	/* Embedded NUL in a name. */
	assert_int_not_equal(pep508_parse("na\0me", 5, &r, NULL), 0);
	/* Over-long name. */
	{
		char name[PEP508_NAME_MAX + 10];
		memset(name, 'a', sizeof(name));
		assert_int_equal(pep508_parse(name, sizeof(name), &r, NULL), CD_ERANGE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(markers_match_packaging),
		cmocka_unit_test(requirements_match_packaging),
		cmocka_unit_test(normalize_names),
		cmocka_unit_test(extras_and_unknowns),
		cmocka_unit_test(hostile_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
