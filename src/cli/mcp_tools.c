/* mcp_tools: the tools of `cuda-doctor mcp` (see mcp.h). A call becomes an
 * argument vector for this very binary (/proc/self/exe) - the server's global
 * options, --json, the command, one option per argument - run in an isolated
 * child (probe/isolate.h) under a deadline; the child's stdout is the report.
 * Arguments are checked against the tool's table first: unknown names, wrong
 * types and strings that start with '-' (which the command line would take as
 * options) are refused, so an assistant cannot smuggle in --root or --apply. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/mcp.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/str.h"
#include "probe/isolate.h"

#define MCP_ARGV_MAX   64
#define MCP_REPORT_MAX ((size_t)32 << 20)
#define MCP_CALL_MS    ((int)180000) /* model over the Hub, check --deep */
#define MCP_COMPILE_MS ((int)660000) /* jit --compile: nvcc is bounded at 300 s, twice */
#define MCP_STDERR_MAX ((size_t)4096)

enum targ_type { TA_STR, TA_INT, TA_NUM, TA_BOOL, TA_STRV, TA_STDIN };

struct targ {
	const char *key;
	const char *flag; /* NULL: the positional argument */
	enum targ_type type;
	int required;
	const char *schema; /* the JSON Schema of the value */
};

struct tool {
	const char *name, *command, *title, *description;
	const struct targ *args;
};

static const struct targ check_args[] = {
	{"deep", "--deep", TA_BOOL, 0,
	 "{\"type\":\"boolean\",\"description\":\"read every fatbin container and check every "
	 "CUDA extension's ABI (slower)\"}"},
	{NULL, NULL, TA_STR, 0, NULL},
};

static const struct targ explain_args[] = {
	{"log", NULL, TA_STDIN, 1,
	 "{\"type\":\"string\",\"description\":\"the text of the failed run: a traceback, a "
	 "build log, a job's output\"}"},
	{"no_env", "--no-env", TA_BOOL, 0,
	 "{\"type\":\"boolean\",\"description\":\"do not cross-check with this machine\"}"},
	{NULL, NULL, TA_STR, 0, NULL},
};

static const struct targ model_args[] = {
	{"model", NULL, TA_STR, 1,
	 "{\"type\":\"string\",\"description\":\"a model directory, a .safetensors or .gguf file, "
	 "or a Hugging Face repo id ORG/NAME (the cache, else the Hub's metadata)\"}"},
	{"revision", "--revision", TA_STR, 0, "{\"type\":\"string\"}"},
	{"device", "--device", TA_STR, 0,
	 "{\"type\":\"string\",\"description\":\"cuda:N, cuda (device_map=auto) or cpu\"}"},
	{"dtype", "--dtype", TA_STR, 0,
	 "{\"type\":\"string\",\"enum\":[\"auto\",\"bf16\",\"fp16\",\"fp32\",\"int8\",\"int4\"]}"},
	{"task", "--task", TA_STR, 0, "{\"type\":\"string\"}"},
	{"attn", "--attn", TA_STR, 0,
	 "{\"type\":\"string\",\"enum\":[\"eager\",\"sdpa\",\"flash_attention_2\","
	 "\"flash_attention_3\",\"flex_attention\"]}"},
	{"headroom", "--headroom", TA_NUM, 0,
	 "{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":1}"},
	{"seq_len", "--seq-len", TA_INT, 0, "{\"type\":\"integer\",\"minimum\":1}"},
	{"batch", "--batch", TA_INT, 0, "{\"type\":\"integer\",\"minimum\":1}"},
	{"gpu_memory", "--gpu-memory", TA_STR, 0,
	 "{\"type\":\"string\",\"description\":\"free memory per GPU instead of probing, e.g. "
	 "80GiB,80GiB\"}"},
	{"gpu_cc", "--gpu-cc", TA_STR, 0,
	 "{\"type\":\"string\",\"description\":\"compute capability X.Y of every GPU\"}"},
	{"trust_remote_code", "--trust-remote-code", TA_BOOL, 0, "{\"type\":\"boolean\"}"},
	{NULL, NULL, TA_STR, 0, NULL},
};

static const struct targ jit_args[] = {
	{"ops", "--op", TA_STRV, 0,
	 "{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":\"DeepSpeed ops "
	 "or cpp_extension (default: all)\"}"},
	{"gpu_cc", "--gpu-cc", TA_STR, 0, "{\"type\":\"string\"}"},
	{"compile", "--compile", TA_BOOL, 0,
	 "{\"type\":\"boolean\",\"description\":\"build, load and run a test extension in a "
	 "private temporary directory (seconds to minutes)\"}"},
	{NULL, NULL, TA_STR, 0, NULL},
};

static const struct targ fix_args[] = {
	{"torch", "--torch", TA_STR, 0,
	 "{\"type\":\"string\",\"description\":\"the torch version to plan for\"}"},
	{NULL, NULL, TA_STR, 0, NULL},
};

static const struct tool tools[] = {
	{"check", "check", "Diagnose this machine",
	 "Diagnose this machine's NVIDIA driver, GPUs, CUDA toolkits, container and Python / "
	 "PyTorch stack (read from files, nothing imported). Returns the cuda-doctor JSON report: "
	 "findings with severity, evidence and the fix to paste.",
	 check_args},
	{"explain", "explain", "Explain an error log",
	 "Diagnose the log or traceback of a failed CUDA / PyTorch / DeepSpeed / Hugging Face "
	 "run, root cause first, cross-checked with this machine. Returns the diagnoses as JSON.",
	 explain_args},
	{"model", "model", "Pre-flight a model load",
	 "Will this Hugging Face model load here? config.json, the installed transformers, the "
	 "weight headers and a memory plan per GPU, without downloading the weights.",
	 model_args},
	{"jit", "jit", "Extension build readiness",
	 "Will torch.utils.cpp_extension and DeepSpeed ops JIT-compile here: nvcc, headers, "
	 "host compiler, ninja, TORCH_CUDA_ARCH_LIST.",
	 jit_args},
	{"fix", "fix", "Remediation plan",
	 "The ordered plan that fixes this environment, with the exact install lines (never "
	 "applied from here).",
	 fix_args},
	{NULL, NULL, NULL, NULL, NULL},
};

/* fix is served once the command exists (it answers "planned" until then). */
static int tool_available(const struct tool *t)
{
	const struct cd_command *c = cli_find(t->command);

	return c && c->usage;
}

static json_t *schema_of(const struct targ *a)
{
	json_t *s = json_object(), *props = json_object(), *req = json_array();

	for (; a->key; a++) {
		json_object_set_new(props, a->key, json_loads(a->schema, 0, NULL));
		if (a->required)
			json_array_append_new(req, json_string(a->key));
	}
	json_object_set_new(s, "type", json_string("object"));
	json_object_set_new(s, "properties", props);
	json_object_set_new(s, "required", req);
	json_object_set_new(s, "additionalProperties", json_false());
	return s;
}

json_t *mcp_tools_list(void)
{
	json_t *list = json_array();
	const struct tool *t;

	for (t = tools; t->name; t++) {
		if (!tool_available(t))
			continue;
		json_array_append_new(list,
				      json_pack("{s:s, s:s, s:s, s:o}", "name", t->name, "title",
						t->title, "description", t->description,
						"inputSchema", schema_of(t->args)));
	}
	return json_pack("{s:o}", "tools", list);
}

static json_t *error_result(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *error_result(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", msg, "isError",
			 1);
}

struct call {
	struct cd_arena *a;
	char *argv[MCP_ARGV_MAX + 1];
	int n;
	json_t *input; /* explain's log, fed on stdin */
	int timeout_ms;
	char exe[PATH_MAX]; /* argv[0]: this program */
};

static int push(struct call *c, const char *s)
{
	if (!s || c->n >= MCP_ARGV_MAX)
		return -1;
	c->argv[c->n++] = (char *)s;
	c->argv[c->n] = NULL;
	return 0;
}

/* A value the command line takes as it is: a string, no NUL inside, not
 * empty, not starting with '-'. */
static const char *str_problem(const json_t *v)
{
	if (!json_is_string(v))
		return "expected a string";
	if (strlen(json_string_value(v)) != json_string_length(v))
		return "contains a NUL character";
	if (!json_string_length(v))
		return "is empty";
	if (json_string_value(v)[0] == '-')
		return "starts with '-'";
	return NULL;
}

static const char *add_value(struct call *c, const struct targ *t, json_t *v)
{
	const char *why = NULL;
	size_t i;
	json_t *x;

	switch (t->type) {
	case TA_BOOL:
		if (!json_is_boolean(v))
			return "expected true or false";
		return json_is_true(v) && push(c, t->flag) ? "too many arguments" : NULL;
	case TA_INT:
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return "expected a positive integer";
		return push(c, t->flag) || push(c, arena_printf(c->a, "%lld",
								(long long)json_integer_value(v)))
			       ? "too many arguments"
			       : NULL;
	case TA_NUM:
		if (!json_is_number(v))
			return "expected a number";
		return push(c, t->flag) ||
				       push(c, arena_printf(c->a, "%.17g", json_number_value(v)))
			       ? "too many arguments"
			       : NULL;
	case TA_STDIN:
		if (!json_is_string(v))
			return "expected a string";
		c->input = v;
		return NULL;
	case TA_STRV:
		if (!json_is_array(v))
			return "expected an array of strings";
		json_array_foreach(v, i, x)
		{
			if ((why = str_problem(x)))
				return why;
			if (push(c, t->flag) || push(c, json_string_value(x)))
				return "too many arguments";
		}
		return NULL;
	default:
		if ((why = str_problem(v)))
			return why;
		if ((t->flag && push(c, t->flag)) || push(c, json_string_value(v)))
			return "too many arguments";
		return NULL;
	}
}

/* This program's path into path (cap bytes), NULL when it cannot be read. */
static const char *self_exe(char *path, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", path, cap - 1);

	if (n <= 0 || (size_t)n >= cap - 1)
		return path[0] = '\0', NULL;
	path[n] = '\0';
	return path;
}

static void push_globals(struct call *c, const struct cd_opts *o)
{
	static const char *const names[] = {"--root", "--env", "--nvml-lib", "--cuda-lib"};
	const char *vals[] = {o->root, o->env, o->nvml_lib, o->cuda_lib};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (vals[i])
			push(c, arena_printf(c->a, "%s=%s", names[i], vals[i]));
	push(c, arena_printf(c->a, "--timeout=%.3f", (double)o->timeout_ms / 1000.0));
	push(c, "--json");
}

/* The argument vector, or why the arguments are refused. */
static const char *build(struct call *c, const struct cd_opts *o, const struct tool *t,
			 json_t *args)
{
	const struct targ *a;
	const char *k, *why;
	json_t *v;

	if (args && !json_is_object(args))
		return "arguments: expected an object";
	json_object_foreach(args, k, v)
	{
		for (a = t->args; a->key && strcmp(a->key, k); a++)
			;
		if (!a->key)
			return arena_printf(c->a, "unknown argument '%s'", k);
	}
	if (!self_exe(c->exe, sizeof(c->exe)))
		return "cannot find this program (/proc/self/exe)";
	push(c, c->exe);
	push_globals(c, o);
	push(c, t->command);
	for (a = t->args; a->key; a++) {
		v = json_object_get(args, a->key);
		if (!v && a->required)
			return arena_printf(c->a, "argument '%s' is required", a->key);
		if (v && (why = add_value(c, a, v)))
			return arena_printf(c->a, "argument '%s': %s", a->key, why);
		if (a->type == TA_BOOL && !strcmp(a->key, "compile") && json_is_true(v))
			c->timeout_ms = MCP_COMPILE_MS;
	}
	if (c->input && push(c, "-"))
		return "too many arguments";
	return NULL;
}

static int write_file(const char *path, const char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), rc = 0;

	if (fd < 0)
		return -1;
	while (n && rc == 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = -1;
		else
			p += w, n -= (size_t)w;
	}
	return close(fd) || rc ? -1 : 0;
}

/* The first line of what the child wrote to stderr (its usage error). */
static const char *first_line(struct cd_arena *a, const char *path)
{
	char line[MCP_STDERR_MAX];
	FILE *f = fopen(path, "re");
	const char *s = NULL;

	if (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		s = arena_strdup(a, line);
	}
	if (f)
		fclose(f);
	return s;
}

static json_t *result_of(struct call *c, const struct tool *t, struct iso_job *j, const char *err)
{
	json_error_t je;
	json_t *report;

	if (j->status == ISO_TIMEOUT)
		return error_result("cuda-doctor %s did not finish in %d s", t->command,
				    c->timeout_ms / 1000);
	if (j->status == ISO_CRASHED)
		return error_result("cuda-doctor %s was killed by signal %d", t->command, j->code);
	if (j->status == ISO_NOT_RUN)
		return error_result("cuda-doctor %s could not start: %s", t->command, j->error);
	if (j->status == ISO_EXITED && j->code != CD_EXIT_FINDINGS)
		return error_result("cuda-doctor %s exited %d: %s", t->command, j->code,
				    err ? err : "no message");
	if (j->dropped)
		return error_result("cuda-doctor %s: the report is larger than %zu bytes",
				    t->command, MCP_REPORT_MAX);
	report = json_loadb(j->out.p ? j->out.p : "", j->out.len, 0, &je);
	if (!report)
		return error_result("cuda-doctor %s gave no JSON report: %s", t->command, je.text);
	return json_pack("{s:[{s:s, s:s%}], s:o, s:b}", "content", "type", "text", "text", j->out.p,
			 j->out.len, "structuredContent", report, "isError", 0);
}

static json_t *run(struct call *c, const struct tool *t)
{
	const char *base = getenv("TMPDIR"), *in = NULL, *errf, *err, *tmp;
	char dir[PATH_MAX];
	struct iso_job j;
	json_t *res;

	if (!base || base[0] != '/' || strlen(base) > PATH_MAX - 32)
		base = "/tmp";
	snprintf(dir, sizeof(dir), "%s/cuda-doctor-mcp.XXXXXX", base);
	if (!(tmp = mkdtemp(dir)))
		return error_result("cannot make a temporary directory: %s", strerror(errno));
	errf = arena_printf(c->a, "%s/stderr", tmp);
	if (c->input) {
		in = arena_printf(c->a, "%s/log", tmp);
		if (write_file(in, json_string_value(c->input), json_string_length(c->input))) {
			res = error_result("cannot write the log to %s: %s", in, strerror(errno));
			goto out;
		}
	}
	memset(&j, 0, sizeof(j));
	j.argv = c->argv;
	j.output = ISO_LOG;
	j.stdin_path = in;
	j.stderr_path = errf;
	if (isolate_run(&j, 1, c->timeout_ms, MCP_REPORT_MAX, NULL))
		j.status = ISO_NOT_RUN;
	err = first_line(c->a, errf);
	res = result_of(c, t, &j, err);
	iso_job_free(&j);
out:
	if (in)
		unlink(in);
	unlink(errf);
	rmdir(tmp);
	return res;
}

json_t *mcp_tools_call(const struct cd_opts *opts, const char *name, json_t *args, int *unknown)
{
	const struct tool *t;
	struct cd_arena a;
	struct call c;
	const char *why;
	json_t *res;

	*unknown = 0;
	for (t = tools; t->name && (strcmp(t->name, name) || !tool_available(t)); t++)
		;
	if (!t->name) {
		*unknown = 1;
		return NULL;
	}
	arena_init(&a);
	memset(&c, 0, sizeof(c));
	c.a = &a;
	c.timeout_ms = MCP_CALL_MS;
	why = build(&c, opts, t, args);
	res = why ? error_result("%s: %s", t->name, why) : run(&c, t);
	arena_free(&a);
	return res;
}
