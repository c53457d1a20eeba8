/* Unit tests for the key facts of explain: their canonical form
 * (explain/keyfact.c), the facts taken from the lines around a diagnosis
 * (data/explain_facts.tsv, explain/scan_ctx.c) and pastes read as the lines
 * they were (explain/scan_unwrap.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "explain/keyfact.h"
#include "explain/scan.h"

static struct xs_db *g_db;

static int setup_db(void **state)
{
	struct cd_err err = {0};

	(void)state;
	return xs_db_open(&g_db, &err) == 0 ? 0 : -1;
}

static int teardown_db(void **state)
{
	(void)state;
	xs_db_close(g_db);
	g_db = NULL;
	return 0;
}

/* Scan p in pieces of `piece` bytes (0: all at once) and rank the result. */
static struct xs_result *scan_n(const void *p, size_t n, size_t piece)
{
	struct xs_result *r = xs_result_new();
	struct xs_scanner *s = NULL;
	struct cd_err err = {0};
	size_t off = 0;

	assert_non_null(r);
	assert_int_equal(xs_result_input(r, "test.log"), 0);
	assert_int_equal(xs_open(&s, g_db, r, 0, &err), 0);
	if (!piece)
		piece = n ? n : 1;
	while (off < n) {
		size_t k = n - off < piece ? n - off : piece;
		assert_int_equal(xs_feed(s, (const uint8_t *)p + off, k), 0);
		off += k;
	}
	assert_int_equal(xs_finish(s), 0);
	xs_close(s);
	xs_rank(r, g_db);
	return r;
}

static struct xs_result *scan(const char *text)
{
	return scan_n(text, strlen(text), 0);
}

static const struct xs_fact *fact(const struct xs_diag *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n_facts; i++)
		if (!strcmp(d->facts[i].name, name))
			return &d->facts[i];
	return NULL;
}

static const char *norm(const char *name, const char *v)
{
	static char out[64];

	keyfact_norm(name, (const uint8_t *)v, strlen(v), out, sizeof(out));
	return out;
}

/* ---- the canonical form ----------------------------------------------------- */

static void tuple_needs_python_separator(void **state)
{
	(void)state;
	assert_string_equal(norm("compiled", "9, 19, 0"), "9.19.0");
	assert_string_equal(norm("compiled", "(9, 19, 0)"), "9.19.0");
	/* TensorFlow's shape is no version */
	assert_string_equal(norm("shape", "256,112,112,64"), "256,112,112,64");
	assert_string_equal(norm("runtime", "9,1"), "9,1");
}

static void shape_stays_a_shape(void **state)
{
	struct xs_result *r =
		scan("ResourceExhaustedError (see above for traceback): OOM when allocating "
		     "tensor with shape[256,112,112,64]\n");

	(void)state;
	assert_true(r->n >= 1);
	assert_non_null(fact(&r->d[0], "shape"));
	assert_string_equal(fact(&r->d[0], "shape")->value, "256,112,112,64");
	xs_result_free(r);
}

/* ---- facts from the lines around --------------------------------------------- */

static const char apex[] =
	"torch.__version__  = 2.4.1\n"
	"Compiling cuda extensions with\n"
	"nvcc: NVIDIA (R) Cuda compiler driver\n"
	"Cuda compilation tools, release 12.2, V12.2.91\n"
	"from /usr/local/cuda/bin\n"
	"RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not "
	"match the version used to compile Pytorch binaries.  Pytorch binaries were compiled "
	"with Cuda 12.1.\n";

static void context_before(void **state)
{
	struct xs_result *r = scan(apex);
	const struct xs_fact *f;

	(void)state;
	assert_true(r->n >= 1);
	assert_string_equal(r->d[0].sig->category, "nvcc-mismatch");
	f = fact(&r->d[0], "nvcc_cuda");
	assert_non_null(f);
	assert_string_equal(f->value, "12.2");
	assert_int_equal(f->line, 4);
	f = fact(&r->d[0], "torch_cuda"); /* the matched line's own */
	assert_non_null(f);
	assert_string_equal(f->value, "12.1");
	assert_int_equal(f->line, 0);
	xs_result_free(r);
}

static void context_nearest_before_then_after(void **state)
{
	struct xs_result *r = scan("NCCL version 2.18.1+cuda12.1\n"
				   "NCCL version 2.20.5+cuda12.4\n"
				   "Failed: Cuda error x.cuh:307 'peer access is not supported "
				   "between these two devices'\n"
				   "NCCL version 2.21.5+cuda12.4\n");
	const struct xs_fact *f;

	(void)state;
	assert_true(r->n >= 1);
	assert_string_equal(r->d[0].sig->category, "nccl");
	f = fact(&r->d[0], "nccl");
	assert_non_null(f);
	assert_string_equal(f->value, "2.20.5");
	assert_int_equal(f->line, 2);
	xs_result_free(r);

	r = scan("Failed: Cuda error x.cuh:307 'peer access is not supported between these two "
		 "devices'\n"
		 "some other line\n"
		 "NCCL version 2.21.5+cuda12.4\n"
		 "NCCL version 2.22.3+cuda12.6\n");
	assert_true(r->n >= 1);
	f = fact(&r->d[0], "nccl");
	assert_non_null(f);
	assert_string_equal(f->value, "2.21.5");
	assert_int_equal(f->line, 3);
	xs_result_free(r);
}

/* A fact the matched line gives is never replaced by one from its context,
 * and a diagnosis of another category does not take it. */
static void context_never_overwrites(void **state)
{
	struct xs_result *r =
		scan("NCCL version 2.14.3+cuda11.7\n"
		     "torch.distributed.DistBackendError: NCCL error in: "
		     "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system "
		     "error, NCCL version 2.10.3\n");
	const struct xs_fact *f;

	(void)state;
	assert_true(r->n >= 1);
	f = fact(&r->d[0], "nccl");
	assert_non_null(f);
	assert_string_equal(f->value, "2.10.3");
	assert_int_equal(f->line, 0);
	xs_result_free(r);

	r = scan("NCCL version 2.14.3+cuda11.7\n"
		 "fatal error: cusparse.h: No such file or directory\n");
	assert_true(r->n >= 1);
	assert_string_equal(r->d[0].sig->category, "missing-headers");
	assert_null(fact(&r->d[0], "nccl"));
	xs_result_free(r);
}

/* Each input has its own context; a line cut into pieces still counts. */
static void context_per_input_and_pieces(void **state)
{
	struct xs_result *r = scan_n(apex, sizeof(apex) - 1, 7);
	const struct xs_fact *f = r->n ? fact(&r->d[0], "nvcc_cuda") : NULL;

	(void)state;
	assert_non_null(f);
	assert_string_equal(f->value, "12.2");
	assert_int_equal(f->line, 4);
	xs_result_free(r);
}

static void context_op_and_cc(void **state)
{
	struct xs_result *r = scan("Emitting ninja build file "
				   "C:\\Users\\me\\torch_extensions\\Cache\\py310_cu117\\"
				   "nvdiffrast_plugin\\build.ninja...\n"
				   "Building extension module nvdiffrast_plugin...\n"
				   "ninja: error: loading 'build.ninja': x\n");
	const struct xs_fact *f;

	(void)state;
	assert_true(r->n >= 1);
	assert_string_equal(r->d[0].sig->category, "jit-cache");
	f = fact(&r->d[0], "op");
	assert_non_null(f);
	assert_string_equal(f->value, "nvdiffrast_plugin");
	assert_int_equal(f->line, 2);
	xs_result_free(r);

	r = scan("W1125 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: "
		 "6.0, Driver API Version: 12.4\n"
		 "CUDA error 209 [x.cuh, 83]: no kernel image is available for execution on the "
		 "device\n");
	assert_true(r->n >= 1);
	assert_string_equal(r->d[0].sig->category, "arch-unsupported");
	f = fact(&r->d[0], "cc");
	assert_non_null(f);
	assert_string_equal(f->value, "6.0");
	assert_int_equal(f->line, 1);
	xs_result_free(r);
}

/* ---- pastes ------------------------------------------------------------------- */

static const char *first_id(const struct xs_result *r)
{
	return r->n ? r->d[0].sig->id : "";
}

static void paste_json_string(void **state)
{
	struct xs_result *r = scan(
		"{\"log\": \"Traceback (most recent call last):\\n  File \\\"x.py\\\", line 1, "
		"in <module>\\n    raise OSError(\\\"libcudnn.so.8: cannot open shared object "
		"file\\\")\\nOSError: libcudnn.so.8: cannot open shared object file: No such file "
		"or directory\\n\"}\n");

	(void)state;
	assert_string_equal(first_id(r), "soname-generic");
	assert_int_equal(r->d[0].first_line, 4); /* matched as the lines they were */
	assert_int_equal(r->d[0].count, 1);	 /* the source line under File is code */
	assert_int_equal(r->code_lines, 1);
	xs_result_free(r);
}

static void paste_python_repr_twice(void **state)
{
	struct xs_result *r = scan("b'Traceback (most recent call last):\\\\n  File "
				   "\\\\'x.py\\\\', line 1, in <module>\\\\nOSError: "
				   "libcudnn.so.8: cannot open shared object file: No such file "
				   "or directory\\\\n'\n");

	(void)state;
	assert_string_equal(first_id(r), "soname-generic");
	assert_int_equal(r->d[0].first_line, 3);
	xs_result_free(r);
}

/* A Windows path has "\n" before a lower-case letter: not a paste. */
static void windows_path_is_no_paste(void **state)
{
	const char *log = "Emitting ninja build file C:\\Users\\me\\new\\nvdiffrast_plugin\\"
			  "build.ninja...\n"
			  "Building extension module nvdiffrast_plugin...\n"
			  "ninja: error: loading 'build.ninja': x\n";
	struct xs_result *r = scan(log);

	(void)state;
	assert_true(r->n >= 1);
	assert_int_equal(r->d[0].first_line, 3);
	assert_int_equal(r->inputs[0].lines, 3);
	xs_result_free(r);
}

static void paste_markdown_quote(void **state)
{
	struct xs_result *r =
		scan("> Traceback (most recent call last):\n"
		     ">   File \"x.py\", line 1, in <module>\n"
		     ">     raise RuntimeError(\"CUDA driver version is insufficient for "
		     "CUDA runtime version\")\n"
		     "> OSError: libcudnn.so.8: cannot open shared object file: No such "
		     "file or directory\n");

	(void)state;
	assert_string_equal(first_id(r), "soname-generic");
	assert_int_equal(r->code_lines, 1);
	assert_string_equal(r->d[0].text,
			    "OSError: libcudnn.so.8: cannot open shared object file: No such "
			    "file or directory");
	xs_result_free(r);
}

static void paste_line_gutter(void **state)
{
	struct xs_result *r =
		scan("  1 | Traceback (most recent call last):\n"
		     "  2 |   File \"x.py\", line 1, in <module>\n"
		     "  3 |     raise OSError(\"libcudnn.so.8: cannot open shared object "
		     "file\")\n"
		     "  4 | RuntimeError: CUDA driver version is insufficient for CUDA "
		     "runtime version\n");

	(void)state;
	assert_string_equal(first_id(r), "cuda-driver-insufficient");
	assert_int_equal(r->code_lines, 1);
	assert_int_equal(r->n, 2); /* the diagnosis found and its alternative, no libcudnn */
	assert_true(xs_is_alternative(&r->d[1]));
	assert_string_equal(r->d[1].sig->category, "cuda-init");
	xs_result_free(r);
}

/* A log that only mentions "> " on some lines keeps them. */
static void quote_needs_every_line(void **state)
{
	struct xs_result *r =
		scan("step 1 loss 0.3\n"
		     "> note\n"
		     "step 2 loss 0.2\n"
		     "step 3 loss 0.1\n"
		     "OSError: libcudnn.so.8: cannot open shared object file: No such "
		     "file or directory\n");

	(void)state;
	assert_string_equal(first_id(r), "soname-generic");
	assert_int_equal(r->d[0].first_line, 5);
	xs_result_free(r);
}

/* A 2 MiB line of escaped text: bounded, and the failure inside is found. */
static void paste_long_line(void **state)
{
	const char *fail = "\\nOSError: libcudnn.so.8: cannot open shared object file: No such "
			   "file or directory\\n";
	size_t n = (size_t)2 << 20, k = strlen(fail), i;
	char *p = malloc(n + 1);
	struct xs_result *r;

	(void)state;
	assert_non_null(p);
	for (i = 0; i + 8 <= n; i += 8)
		memcpy(p + i, "\\n  step", 8);
	memcpy(p + n / 2, fail, k);
	p[n - 1] = '\n';
	r = scan_n(p, n, 65536);
	assert_string_equal(first_id(r), "soname-generic");
	xs_result_free(r);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tuple_needs_python_separator),
		cmocka_unit_test(shape_stays_a_shape),
		cmocka_unit_test(context_before),
		cmocka_unit_test(context_nearest_before_then_after),
		cmocka_unit_test(context_never_overwrites),
		cmocka_unit_test(context_per_input_and_pieces),
		cmocka_unit_test(context_op_and_cc),
		cmocka_unit_test(paste_json_string),
		cmocka_unit_test(paste_python_repr_twice),
		cmocka_unit_test(windows_path_is_no_paste),
		cmocka_unit_test(paste_markdown_quote),
		cmocka_unit_test(paste_line_gutter),
		cmocka_unit_test(quote_needs_every_line),
		cmocka_unit_test(paste_long_line),
	};

	return cmocka_run_group_tests(tests, setup_db, teardown_db);
}
