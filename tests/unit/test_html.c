/* Unit tests for report/html: every string escaped in text and attribute
 * context, controls replaced, unknown shown as unknown, findings and
 * diagnoses as cards with their evidence and fixes, the depth capped, and
 * nothing that loads or runs anything on the page. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render.h"

/* The page of root as a string (the caller frees it). */
static char *page(json_t *root, const char *command)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	assert_non_null(f);
	assert_int_equal(html_print(f, root, command), 0);
	fclose(f);
	return s;
}

static void escapes(void **state)
{
	json_t *root =
		json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:[s], s:[s]}]}", "schema",
			  "cuda-doctor.report/1", "findings", "id", "x-id", "severity", "error",
			  "section", "s", "title", "<script>alert('t')</script>", "evidence",
			  "a & b \"q\" <img src=x>", "fix", "echo '<b>' \x01 \x7f");
	char *s = page(root, "check");

	(void)state;
	assert_non_null(strstr(s, "&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;"));
	assert_non_null(strstr(s, "a &amp; b &quot;q&quot; &lt;img src=x&gt;"));
	assert_non_null(strstr(s, "echo &#39;&lt;b&gt;&#39; &#xFFFD; &#xFFFD;"));
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_non_null(strstr(s, "<span class=\"badge\">error</span>"));
	assert_non_null(strstr(s, "1 error, 0 warnings, 0 notes"));
	free(s);
	json_decref(root);
}

static void unknown_and_values(void **state)
{
	json_t *root = json_pack("{s:s, s:[], s:{s:n, s:b, s:i, s:f, s:[], s:{}}}", "schema",
				 "cuda-doctor.report/1", "findings", "driver", "version", "ok", 0,
				 "n", 42, "r", 0.5, "list", "obj");
	char *s = page(root, "check");

	(void)state;
	assert_non_null(strstr(s, "<th>version</th><td><span class=\"unk\">unknown</span>"));
	assert_non_null(strstr(s, "<th>ok</th><td>no</td>"));
	assert_non_null(strstr(s, "<th>n</th><td>42</td>"));
	assert_non_null(strstr(s, "<th>r</th><td>0.5</td>"));
	assert_non_null(strstr(s, "<th>list</th><td><span class=\"unk\">none</span>"));
	assert_non_null(strstr(s, "nothing wrong found"));
	assert_non_null(strstr(s, "<summary>driver</summary>"));
	assert_null(strstr(s, "<summary>schema</summary>"));
	free(s);
	json_decref(root);
}

static void diagnoses(void **state)
{
	json_t *root =
		json_pack("{s:s, s:[{s:s, s:s, s:s, s:s, s:s, s:i, s:s, s:[s]}]}", "schema",
			  "cuda-doctor.explain/1", "diagnoses", "category", "arch-unsupported",
			  "signature", "no-kernel-image", "severity", "warning", "title", "t",
			  "input", "(stdin)", "line", 3, "explanation", "why", "fix", "do");
	char *s = page(root, "explain");

	(void)state;
	assert_non_null(strstr(s, "<h2>Diagnoses</h2>"));
	assert_non_null(strstr(s, "arch-unsupported &middot; no-kernel-image &middot; (stdin):3"));
	assert_non_null(strstr(s, "card sev-warning"));
	assert_non_null(strstr(s, "<p>why</p>"));
	assert_non_null(strstr(s, "<title>cuda-doctor explain</title>"));
	free(s);
	json_decref(root);
}

static void depth_capped(void **state)
{
	json_t *root = json_object(), *v = json_object(), *deep = v;
	char *s;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		json_t *n = json_object();
		json_object_set_new(deep, "k", n);
		deep = n;
	}
	json_object_set_new(root, "tree", v);
	s = page(root, "check");
	assert_non_null(strstr(s, "..."));
	assert_non_null(strstr(s, "</body></html>\n"));
	free(s);
	json_decref(root);
	assert_int_equal(html_print(stdout, NULL, "check"), CD_ENOMEM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escapes),
		cmocka_unit_test(unknown_and_values),
		cmocka_unit_test(diagnoses),
		cmocka_unit_test(depth_capped),
	};
	return cmocka_run_group_tests_name("html", tests, NULL, NULL);
}
