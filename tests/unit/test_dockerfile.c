/* Unit tests for format/dockerfile (BuildKit's parser rules) and
 * format/dfstage (stages, ARG and ENV as BuildKit resolves them). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "format/dfstage.h"
#include "format/dockerfile.h"

static struct cd_arena arena;
static struct df_file file;

static int parse(const char *text)
{
	struct cd_err e = {0};

	return dockerfile_parse((const uint8_t *)text, strlen(text), &arena, &file, &e);
}

static int setup(void **state)
{
	(void)state;
	arena_init(&arena);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	arena_free(&arena);
	return 0;
}

static void lines_and_continuations(void **state)
{
	static const char df[] = "\xef\xbb\xbf# syntax=docker/dockerfile:1\n"
				 "FROM ubuntu:22.04 AS base\r\n"
				 "\n"
				 "RUN apt-get update && \\\n"
				 "# a comment inside is skipped\n"
				 "\n"
				 "    apt-get install -y curl \\  \n"
				 "    && rm -rf /var/lib/apt/lists/*\n"
				 "  run echo done\n";

	(void)state;
	assert_int_equal(parse(df), 0);
	assert_string_equal(file.syntax, "docker/dockerfile:1");
	assert_int_equal(file.n, 3);
	assert_int_equal(file.items[0].cmd, DF_FROM);
	assert_int_equal(file.items[0].line, 2);
	assert_int_equal(file.items[0].n_argv, 3);
	assert_string_equal(file.items[0].argv[2], "base");
	assert_int_equal(file.items[1].cmd, DF_RUN);
	assert_int_equal(file.items[1].line, 4);
	assert_int_equal(file.items[1].end_line, 8);
	/* pieces joined as they are, the escape and the blanks after it cut */
	assert_string_equal(file.items[1].args, "apt-get update &&     apt-get install -y curl "
						"    && rm -rf /var/lib/apt/lists/*");
	assert_int_equal(file.items[2].cmd, DF_RUN); /* keywords are caseless */
	assert_string_equal(file.items[2].keyword, "run");
	assert_int_equal(file.lines, 9);
}

static void escape_directive(void **state)
{
	static const char df[] = "# escape=`\nFROM mcr.microsoft.com/windows\n"
				 "RUN dir c:\\ `\n  && echo x\n";
	static const char late[] = "FROM a\n# escape=`\nRUN a `\n";

	(void)state;
	assert_int_equal(parse(df), 0);
	assert_int_equal(file.escape, '`');
	assert_int_equal(file.n, 2);
	assert_string_equal(file.items[1].args, "dir c:\\   && echo x");
	assert_int_equal(parse(late), 0); /* after an instruction it is only a comment */
	assert_int_equal(file.escape, '\\');
	assert_string_equal(file.items[1].args, "a `");
}

static void exec_and_shell_forms(void **state)
{
	static const char df[] = "FROM x\n"
				 "CMD [\"python\", \"-m\", \"vllm\"]\n"
				 "ENTRYPOINT [\"a\", 1]\n"
				 "RUN [ \"sh\" , \"-c\", \"echo \\\"hi\\\"\" ]\n"
				 "COPY --from=build --chown=1:1 [\"a b\", \"/c\"]\n"
				 "COPY --link src /dst\n";

	(void)state;
	assert_int_equal(parse(df), 0);
	assert_true(file.items[1].json);
	assert_int_equal(file.items[1].n_argv, 3);
	assert_string_equal(file.items[1].argv[2], "vllm");
	assert_false(file.items[2].json); /* not all strings: shell form */
	assert_true(file.items[3].json);
	assert_string_equal(file.items[3].argv[2], "echo \"hi\"");
	assert_true(file.items[4].json);
	assert_string_equal(dockerfile_flag(&file.items[4], "from", NULL), "build");
	assert_string_equal(file.items[4].argv[0], "a b");
	{
		int present;
		assert_null(dockerfile_flag(&file.items[5], "link", &present));
		assert_true(present);
		assert_int_equal(file.items[5].n_argv, 2);
	}
}

static void key_values(void **state)
{
	static const char df[] = "FROM x\n"
				 "ENV A=1 B=\"two words\" C=${A}\n"
				 "ENV LEGACY value with spaces  \n"
				 "ARG V ARG2=d \"Q=x y\"\n"
				 "LABEL maintainer \"NVIDIA <x@y>\"\n"
				 "ENV\n";

	(void)state;
	assert_int_equal(parse(df), 0);
	assert_int_equal(file.items[1].n_kv, 3);
	assert_string_equal(file.items[1].kv[1].key, "B");
	assert_string_equal(file.items[1].kv[1].value, "\"two words\"");
	assert_string_equal(file.items[2].kv[0].key, "LEGACY");
	assert_string_equal(file.items[2].kv[0].value, "value with spaces");
	assert_int_equal(file.items[3].n_kv, 3);
	assert_null(file.items[3].kv[0].value);
	assert_string_equal(file.items[3].kv[1].value, "d");
	assert_string_equal(file.items[3].kv[2].key, "\"Q");
	assert_string_equal(file.items[4].kv[0].value, "\"NVIDIA <x@y>\"");
	assert_true(file.n_diags >= 1); /* ENV without anything */
}

static void heredocs(void **state)
{
	static const char df[] = "FROM x\n"
				 "RUN <<EOF bash -ex <<-'TAB'\n"
				 "pip install torch\n"
				 "EOF\n"
				 "\techo $HOME\n"
				 "\tTAB\n"
				 "COPY <<\"CFG\" /etc/app.conf\n"
				 "x=$y\n"
				 "CFG\n"
				 "RUN echo $((1<<2))\n"
				 "RUN cat <<END\n"
				 "never closed\n";

	(void)state;
	assert_int_equal(parse(df), 0);
	assert_int_equal(file.n, 5);
	assert_int_equal(file.items[1].n_heredocs, 2);
	assert_string_equal(file.items[1].heredocs[0].name, "EOF");
	assert_string_equal(file.items[1].heredocs[0].body, "pip install torch\n");
	assert_true(file.items[1].heredocs[0].expand);
	assert_string_equal(file.items[1].heredocs[1].name, "TAB");
	assert_string_equal(file.items[1].heredocs[1].body, "echo $HOME\n");
	assert_false(file.items[1].heredocs[1].expand);
	assert_int_equal(file.items[1].end_line, 6);
	assert_int_equal(file.items[2].cmd, DF_COPY);
	assert_int_equal(file.items[2].n_heredocs, 1);
	assert_false(file.items[2].heredocs[0].expand);
	assert_int_equal(file.items[3].n_heredocs, 0); /* arithmetic, not a heredoc */
	assert_int_equal(file.items[4].n_heredocs, 1);
	assert_string_equal(file.items[4].heredocs[0].body, "never closed\n");
	assert_int_equal(file.n_diags, 1);
	assert_string_equal(file.diags[0].msg, "unterminated heredoc");
}

static void ignores(void **state)
{
	static const char df[] = "# cuda-doctor global ignore=dockerfile-shm-advice\n"
				 "FROM nvidia/cuda:latest\n"
				 "# why: pinned elsewhere\n"
				 "# cuda-doctor ignore=dockerfile-tag-unpinned, other-id\n"
				 "FROM pytorch/pytorch\n"
				 "# cuda-doctor ignore=x\n"
				 "\n"
				 "RUN true\n"
				 "# cuda-doctor ignore=y\n"
				 "# another comment\n"
				 "RUN true\n"
				 "# cuda-doctor ignore = a , b# why\n"
				 "RUN true\n";

	(void)state;
	assert_int_equal(parse(df), 0);
	assert_int_equal(file.n, 5);
	assert_true(dockerfile_ignored(&file, &file.items[0], "dockerfile-shm-advice"));
	assert_false(dockerfile_ignored(&file, &file.items[0], "dockerfile-tag-unpinned"));
	assert_true(dockerfile_ignored(&file, &file.items[1], "dockerfile-tag-unpinned"));
	assert_true(dockerfile_ignored(&file, &file.items[1], "other-id"));
	assert_false(dockerfile_ignored(&file, &file.items[2], "x")); /* a blank line between */
	assert_false(dockerfile_ignored(&file, &file.items[3], "y")); /* a comment between */
	assert_true(dockerfile_ignored(&file, &file.items[4], "a"));
	assert_true(dockerfile_ignored(&file, &file.items[4], "b"));
	assert_false(dockerfile_ignored(&file, &file.items[4], "b#"));
	assert_false(dockerfile_ignored(&file, &file.items[4], "why"));
}

static void unknown_and_caps(void **state)
{
	static char big[DF_INSTR_MAX * 8 + 64];
	size_t k = 0;
	int i;

	(void)state;
	assert_int_equal(parse("FORM ubuntu\n"), 0);
	assert_int_equal(file.items[0].cmd, DF_UNKNOWN);
	assert_int_equal(file.n_diags, 1);
	for (i = 0; i <= DF_INSTR_MAX; i++)
		k += (size_t)snprintf(big + k, sizeof(big) - k, "RUN a\n");
	assert_int_equal(parse(big), CD_ERANGE);
	assert_int_equal(parse(""), 0);
	assert_int_equal(file.n, 0);
	assert_int_equal(parse("RUN a \\"), 0); /* a continuation at the end of the file */
	assert_string_equal(file.items[0].args, "a ");
}

/* ---- stages --------------------------------------------------------------- */

static int fake_base(void *ctx, const char *image, struct dfenv *env, struct cd_arena *a)
{
	int rc = 0;

	(void)ctx;
	(void)a;
	if (!strncmp(image, "nvidia/cuda:", 12) && !(rc = dfenv_set(env, "CUDA_VERSION", "12.4.1")))
		rc = dfenv_set(env, "NVIDIA_DRIVER_CAPABILITIES", "compute,utility");
	return rc;
}

struct seen {
	const char *run_cuda[8];
	const char *run_mode[8];
	size_t n;
};

static int collect(void *ctx, const struct df_step *st)
{
	struct seen *s = ctx;

	if (st->in->cmd == DF_RUN && s->n < 8) {
		s->run_cuda[s->n] = dfenv_get(st->build, "CUDA_VERSION");
		s->run_mode[s->n] = dfenv_get(st->image, "CUDA_VERSION");
		s->n++;
	}
	return 0;
}

static void stages(void **state)
{
	static const char df[] = "ARG CUDA=12.4.1\n"
				 "ARG OS=ubuntu22.04\n"
				 "ARG UNSET\n"
				 "FROM nvidia/cuda:${CUDA}-devel-${OS} AS Builder\n"
				 "RUN echo $CUDA\n"
				 "ARG CUDA_VERSION=override\n"
				 "RUN a\n"
				 "ENV CUDA_VERSION=env-wins\n"
				 "RUN b\n"
				 "FROM builder AS final\n"
				 "ARG CUDA\n"
				 "ENV X=${CUDA}\n"
				 "RUN c\n"
				 "FROM base-${TARGETARCH}${UNSET}\n";
	struct df_build b = {0};
	struct df_model m;
	struct cd_err e = {0};
	struct seen s = {{0}, {0}, 0};
	struct dfenv end;

	(void)state;
	b.base_env = fake_base;
	assert_int_equal(parse(df), 0);
	assert_int_equal(dfstage_eval(&file, &b, &arena, &m, &e), 0);
	assert_int_equal(m.n_stages, 3);
	assert_int_equal(m.target, 2);
	assert_string_equal(m.stages[0].image, "nvidia/cuda:12.4.1-devel-ubuntu22.04");
	assert_string_equal(m.stages[0].name, "builder");
	assert_int_equal(m.stages[1].parent, 0);
	assert_string_equal(m.stages[1].root, "nvidia/cuda:12.4.1-devel-ubuntu22.04");
	assert_string_equal(m.stages[2].image, "base-amd64");
	assert_true(m.stages[2].image_unset);
	assert_int_equal(dfstage_walk(&m, 0, collect, &s, &end), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.run_cuda[0], "12.4.1");	/* the base image's ENV */
	assert_string_equal(s.run_cuda[1], "override"); /* a later ARG overrides it (BuildKit) */
	assert_string_equal(s.run_mode[1], "12.4.1");	/* ... for the build, not the image */
	assert_string_equal(s.run_cuda[2], "env-wins"); /* an ENV after the ARG wins */
	assert_string_equal(dfenv_get(&end, "CUDA_VERSION"), "env-wins");
	assert_null(dfenv_get(&end, "CUDA")); /* a global ARG is not an env of the stage */
	/* the child stage starts from the parent's image env; ARG CUDA takes the
	 * global value */
	assert_int_equal(dfstage_walk(&m, 1, NULL, NULL, &end), 0);
	assert_string_equal(dfenv_get(&end, "X"), "12.4.1");
	assert_string_equal(dfenv_get(&end, "CUDA_VERSION"), "env-wins");
	assert_int_equal(dfstage_find(&m, "BUILDER", 2), 0);
	assert_int_equal(dfstage_find(&m, "1", 2), 1);
	assert_int_equal(dfstage_find(&m, "final", 1), -1); /* only earlier stages */
}

static void build_args_and_platform(void **state)
{
	static const char df[] = "ARG CUDA=12.4.1\n"
				 "FROM nvidia/cuda:${CUDA}-runtime AS r\n"
				 "ARG TARGETARCH\n"
				 "ARG PY=3.10\n"
				 "ENV P=$PY-$TARGETARCH\n";
	struct df_build b = {0};
	struct df_model m;
	struct cd_err e = {0};
	struct dfenv end;

	(void)state;
	b.n_args = 2;
	b.args[0].name = "CUDA";
	b.args[0].value = "11.8.0";
	b.args[1].name = "PY";
	b.args[1].value = "3.12";
	b.platform = "linux/arm64/v8";
	assert_int_equal(parse(df), 0);
	assert_int_equal(dfstage_eval(&file, &b, &arena, &m, &e), 0);
	assert_string_equal(m.stages[0].image, "nvidia/cuda:11.8.0-runtime");
	assert_string_equal(dfenv_get(&m.global, "TARGETVARIANT"), "v8");
	assert_int_equal(dfstage_walk(&m, 0, NULL, NULL, &end), 0);
	assert_string_equal(dfenv_get(&end, "P"), "3.12-arm64");
	/* ARG values are build-time only: the image env has P, not PY */
	assert_null(dfenv_get(&end, "PY"));
	assert_string_equal(dfstage_expand_shell(&m, "echo 'x$P' $P $NOPE", &end),
			    "echo 'x$P' 3.12-arm64 $NOPE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lines_and_continuations, setup, teardown),
		cmocka_unit_test_setup_teardown(escape_directive, setup, teardown),
		cmocka_unit_test_setup_teardown(exec_and_shell_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(key_values, setup, teardown),
		cmocka_unit_test_setup_teardown(heredocs, setup, teardown),
		cmocka_unit_test_setup_teardown(ignores, setup, teardown),
		cmocka_unit_test_setup_teardown(unknown_and_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(stages, setup, teardown),
		cmocka_unit_test_setup_teardown(build_args_and_platform, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
