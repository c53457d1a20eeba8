/* Unit tests for format/imgcfg: the Env of docker inspect output, of an OCI
 * image config and of an OCI runtime bundle's config.json; entries without
 * "=" skipped; the shapes it refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "format/imgcfg.h"

static int parse(struct cd_arena *a, const char *s, struct imgcfg *c)
{
	struct cd_err e = {0};

	return imgcfg_parse((const uint8_t *)s, strlen(s), a, c, &e);
}

static void shapes(void **state)
{
	struct cd_arena a;
	struct imgcfg c;

	(void)state;
	arena_init(&a);
	assert_int_equal(
		parse(&a,
		      "[{\"Architecture\": \"amd64\", \"Config\": {\"Env\": "
		      "[\"PATH=/usr/bin\", \"NVIDIA_REQUIRE_CUDA=cuda>=12.8\", \"NOVALUE\", "
		      "\"=x\", \"EMPTY=\"]}}]",
		      &c),
		0);
	assert_string_equal(c.kind, "docker-inspect");
	assert_string_equal(c.arch, "amd64");
	assert_int_equal(c.n_env, 3);
	assert_string_equal(c.env[1], "NVIDIA_REQUIRE_CUDA=cuda>=12.8");
	assert_string_equal(c.env[2], "EMPTY=");
	assert_null(c.env[3]);
	assert_int_equal(
		parse(&a, "{\"architecture\": \"arm64\", \"config\": {\"Env\": [\"A=1\"]}}", &c),
		0);
	assert_string_equal(c.kind, "oci-image");
	assert_string_equal(c.arch, "arm64");
	assert_int_equal(c.n_env, 1);
	assert_int_equal(parse(&a, "{\"process\": {\"env\": [\"B=2\", \"C=3\"]}}", &c), 0);
	assert_string_equal(c.kind, "oci-runtime");
	assert_null(c.arch);
	assert_string_equal(c.env[1], "C=3");
	/* no Env at all: an empty environment */
	assert_int_equal(parse(&a, "{\"config\": {\"Cmd\": [\"bash\"]}}", &c), 0);
	assert_int_equal(c.n_env, 0);
	assert_null(c.env[0]);
	arena_free(&a);
}

static void refused(void **state)
{
	struct cd_arena a;
	struct imgcfg c;

	(void)state;
	arena_init(&a);
	assert_int_equal(parse(&a, "not json", &c), CD_EFORMAT);
	assert_int_equal(parse(&a, "{\"schemaVersion\": 2}", &c), CD_EFORMAT); /* a manifest */
	assert_int_equal(parse(&a, "[]", &c), CD_EFORMAT);
	assert_int_equal(parse(&a, "{\"config\": {\"Env\": \"A=1\"}}", &c), CD_EFORMAT);
	assert_int_equal(parse(&a, "{\"config\": {\"Env\": [1]}}", &c), CD_EFORMAT);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shapes),
		cmocka_unit_test(refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
