/* Unit tests for format/yamltree (libyaml events into a tree: anchors,
 * aliases, merge keys, caps) and format/compose (services, GPU requests,
 * environment, Compose's interpolation with nothing set). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/compose.h"
#include "format/yamltree.h"

static int load(struct cd_arena *a, const char *s, const struct yml_node **root, struct cd_err *err)
{
	return yamltree_load((const uint8_t *)s, strlen(s), a, root, err);
}

static void tree_basics(void **state)
{
	struct cd_arena a;
	struct cd_err err = {0};
	const struct yml_node *r, *m;

	(void)state;
	arena_init(&a);
	assert_int_equal(load(&a,
			      "a: 1\n"
			      "b:\n"
			      "  - x\n"
			      "  - 'y'\n"
			      "c: {d: null, e: ~, f: \"\"}\n",
			      &r, &err),
			 0);
	assert_int_equal(r->kind, YML_MAP);
	assert_string_equal(yml_text(yml_get(r, "a")), "1");
	m = yml_get(r, "b");
	assert_int_equal(m->kind, YML_SEQ);
	assert_int_equal(m->n, 2);
	assert_int_equal(m->line, 3);
	assert_int_equal(m->val[1]->quoted, 1);
	m = yml_get(r, "c");
	assert_true(yml_is_null(yml_get(m, "d")));
	assert_true(yml_is_null(yml_get(m, "e")));
	assert_false(yml_is_null(yml_get(m, "f"))); /* a quoted "" is a string */
	assert_null(yml_get(m, "g"));
	assert_int_equal(yml_get(m, "f")->line, 5);
	arena_free(&a);
}

static void anchors_and_merges(void **state)
{
	struct cd_arena a;
	struct cd_err err = {0};
	const struct yml_node *r, *s;

	(void)state;
	arena_init(&a);
	assert_int_equal(load(&a,
			      "x-base: &base\n"
			      "  image: one\n"
			      "  shm_size: 1g\n"
			      "x-more: &more {ipc: host, image: two}\n"
			      "services:\n"
			      "  a:\n"
			      "    <<: *base\n"
			      "    image: mine\n"
			      "  b:\n"
			      "    <<: [*more, *base]\n"
			      "  c: *base\n",
			      &r, &err),
			 0);
	s = yml_get(yml_get(r, "services"), "a");
	assert_string_equal(yml_text(yml_get(s, "image")), "mine"); /* its own key wins */
	assert_string_equal(yml_text(yml_get(s, "shm_size")), "1g");
	assert_null(yml_get(s, "<<"));
	s = yml_get(yml_get(r, "services"), "b");
	assert_string_equal(yml_text(yml_get(s, "image")), "two"); /* earlier map first */
	assert_string_equal(yml_text(yml_get(s, "ipc")), "host");
	assert_string_equal(yml_text(yml_get(s, "shm_size")), "1g");
	s = yml_get(yml_get(r, "services"), "c");
	assert_string_equal(yml_text(yml_get(s, "image")), "one");
	arena_free(&a);
}

static void tree_errors(void **state)
{
	struct cd_arena a;
	struct cd_err err = {0};
	const struct yml_node *r;
	char *deep;
	size_t i;

	(void)state;
	arena_init(&a);
	assert_int_equal(load(&a, "a: [1, 2\n", &r, &err), CD_EFORMAT);
	assert_int_equal(load(&a, "a: *nothing\n", &r, &err), CD_EFORMAT);
	assert_int_equal(load(&a, "a: &x [1, *x]\n", &r, &err), CD_EFORMAT); /* a cycle */
	assert_int_equal(load(&a, "a:\n  <<: 3\n", &r, &err), CD_EFORMAT);
	deep = malloc(2 * (YML_DEPTH_MAX + 2) + 1);
	assert_non_null(deep);
	for (i = 0; i < YML_DEPTH_MAX + 2; i++)
		deep[i] = '[';
	for (; i < 2 * (YML_DEPTH_MAX + 2); i++)
		deep[i] = ']';
	deep[i] = 0;
	assert_int_equal(load(&a, deep, &r, &err), CD_ERANGE);
	free(deep);
	/* only the first document */
	assert_int_equal(load(&a, "a: 1\n---\nb: 2\n", &r, &err), 0);
	assert_non_null(yml_get(r, "a"));
	assert_null(yml_get(r, "b"));
	/* an empty input is no document */
	assert_int_equal(load(&a, "", &r, &err), 0);
	assert_null(r);
	arena_free(&a);
}

static void billion_laughs(void **state)
{
	struct cd_arena a;
	struct cd_err err = {0};
	const struct yml_node *r;
	static const char s[] = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
				"b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
				"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
				"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
				"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
				"f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
				"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n";

	(void)state;
	arena_init(&a);
	/* aliases are shared nodes: nothing is copied, so this stays small */
	assert_int_equal(load(&a, s, &r, &err), 0);
	assert_int_equal(yml_get(r, "g")->n, 10);
	assert_ptr_equal(yml_get(r, "g")->val[0], yml_get(r, "f"));
	arena_free(&a);
}

static void interpolation(void **state)
{
	struct cd_arena a;
	int u;

	(void)state;
	arena_init(&a);
	assert_string_equal(compose_interpolate("${COUNT-1}", &a, &u), "1");
	assert_int_equal(u, 0);
	assert_string_equal(compose_interpolate("${D:-nvidia}x", &a, &u), "nvidiax");
	assert_string_equal(compose_interpolate("a$$b", &a, &u), "a$b");
	assert_string_equal(compose_interpolate("${A:-${B:-deep}}", &a, &u), "deep");
	assert_int_equal(u, 0);
	assert_string_equal(compose_interpolate("${A:+set}", &a, &u), "");
	assert_int_equal(u, 0);
	assert_string_equal(compose_interpolate("img:${TAG}", &a, &u), "img:${TAG}");
	assert_int_equal(u, 1);
	assert_string_equal(compose_interpolate("$TAG", &a, &u), "$TAG");
	assert_int_equal(u, 1);
	assert_string_equal(compose_interpolate("${A:?need A}", &a, &u), "${A:?need A}");
	assert_int_equal(u, 1);
	assert_string_equal(compose_interpolate("${A:-${B}}", &a, &u), "${B}");
	assert_int_equal(u, 1);
	assert_string_equal(compose_interpolate("${unclosed", &a, &u), "${unclosed");
	assert_int_equal(u, 1);
	assert_string_equal(compose_interpolate("cost $5", &a, &u), "cost $5");
	arena_free(&a);
}

static void services(void **state)
{
	struct cd_arena a;
	struct cd_err err = {0};
	struct cmp_file f;
	const struct cmp_service *s;
	const struct cmp_env *e;
	static const char y[] =
		"services:\n"
		"  ollama:\n"
		"    image: ollama/ollama:${OLLAMA_DOCKER_TAG-latest}\n"
		"    deploy:\n"
		"      resources:\n"
		"        reservations:\n"
		"          devices:\n"
		"            - driver: ${OLLAMA_GPU_DRIVER-nvidia}\n"
		"              count: ${OLLAMA_GPU_COUNT-1}\n"
		"              capabilities:\n"
		"                - gpu\n"
		"  train:\n"
		"    build: ./train\n"
		"    runtime: nvidia\n"
		"    environment:\n"
		"      - NVIDIA_VISIBLE_DEVICES=all\n"
		"      - HF_TOKEN\n"
		"      - NVIDIA_VISIBLE_DEVICES=0\n"
		"    command: [\"torchrun\", \"--nproc-per-node\", \"8\", \"train.py\"]\n"
		"    gpus: all\n"
		"  web:\n"
		"    build: {context: ., dockerfile: web.Dockerfile}\n"
		"    environment: {CUDA_VISIBLE_DEVICES: 0, EMPTY: }\n"
		"  bare:\n";

	(void)state;
	arena_init(&a);
	assert_int_equal(compose_parse((const uint8_t *)y, strlen(y), &a, &f, &err), 0);
	assert_int_equal(f.n, 4);
	s = &f.services[0];
	assert_string_equal(s->name, "ollama");
	assert_int_equal(s->line, 2);
	assert_string_equal(s->image.v, "ollama/ollama:latest");
	assert_int_equal(s->n_devices, 1);
	assert_string_equal(s->devices[0].driver.v, "nvidia");
	assert_string_equal(s->devices[0].count.v, "1");
	assert_int_equal(s->devices[0].count.line, 9);
	assert_int_equal(s->devices[0].n_caps, 1);
	assert_string_equal(s->devices[0].caps[0].v, "gpu");
	assert_int_equal(s->devices[0].line, 8);
	s = &f.services[1];
	assert_true(s->has_build);
	assert_string_equal(s->build_context.v, "./train");
	assert_string_equal(s->runtime.v, "nvidia");
	assert_int_equal(s->n_env, 2);
	e = compose_env(s, "NVIDIA_VISIBLE_DEVICES");
	assert_string_equal(e->value.v, "0"); /* the later entry */
	assert_int_equal(e->value.line, 18);
	assert_null(compose_env(s, "HF_TOKEN")->value.v);
	assert_string_equal(s->command.v, "torchrun --nproc-per-node 8 train.py");
	assert_int_equal(s->n_devices, 1);
	assert_true(s->devices[0].from_gpus);
	assert_string_equal(s->devices[0].count.v, "all");
	s = &f.services[2];
	assert_string_equal(s->dockerfile.v, "web.Dockerfile");
	assert_string_equal(compose_env(s, "CUDA_VISIBLE_DEVICES")->value.v, "0");
	assert_null(compose_env(s, "EMPTY")->value.v);
	s = &f.services[3];
	assert_string_equal(s->name, "bare");
	assert_null(s->image.v);
	arena_free(&a);
}

static void not_compose(void **state)
{
	struct cd_arena a;
	struct cd_err err = {0};
	struct cmp_file f;

	(void)state;
	arena_init(&a);
	assert_int_equal(compose_parse((const uint8_t *)"- a\n", 4, &a, &f, &err), CD_EFORMAT);
	assert_int_equal(compose_parse((const uint8_t *)"a: 1\n", 5, &a, &f, &err), CD_EFORMAT);
	assert_int_equal(compose_parse((const uint8_t *)"services: [a]\n", 14, &a, &f, &err),
			 CD_EFORMAT);
	assert_int_equal(compose_parse((const uint8_t *)"services:\n", 10, &a, &f, &err), 0);
	assert_int_equal(f.n, 0);
	arena_free(&a);
}

/* Ignore comments: the next line's service or key only, as in Dockerfiles. */
static void ignores(void **state)
{
	static const char y[] = "# cuda-doctor global ignore=compose-shm-small\n"
				"services:\n"
				"  # cuda-doctor ignore=compose-gpu-unreserved , other # why\n"
				"  a:\n"
				"    image: x\n"
				"  # cuda-doctor ignore=compose-gpu-unreserved\n"
				"  # a comment between ends it\n"
				"  b:\n"
				"    image: x\n"
				"  # cuda-doctor ignore=all\n"
				"  c:\n"
				"    image: x\n";
	struct cd_arena a;
	struct cd_err err = {0};
	struct cmp_file f;

	(void)state;
	arena_init(&a);
	assert_int_equal(compose_parse((const uint8_t *)y, strlen(y), &a, &f, &err), 0);
	assert_int_equal(f.n, 3);
	assert_true(compose_ignored(&f, &f.services[1], 9, "compose-shm-small"));
	assert_true(compose_ignored(&f, &f.services[0], 5, "compose-gpu-unreserved"));
	assert_true(compose_ignored(&f, &f.services[0], 5, "other"));
	assert_false(compose_ignored(&f, &f.services[0], 5, "why"));
	assert_false(compose_ignored(&f, &f.services[1], 9, "compose-gpu-unreserved"));
	assert_true(compose_ignored(&f, &f.services[2], 12, "compose-gpu-request-invalid"));
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tree_basics),	 cmocka_unit_test(anchors_and_merges),
		cmocka_unit_test(tree_errors),	 cmocka_unit_test(billion_laughs),
		cmocka_unit_test(interpolation), cmocka_unit_test(services),
		cmocka_unit_test(not_compose),	 cmocka_unit_test(ignores),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
