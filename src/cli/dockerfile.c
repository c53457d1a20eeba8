/* dockerfile: `cuda-doctor dockerfile FILE [--host-driver VER|live] [--brand B]
 * [--build-arg NAME=VALUE]... [--target STAGE] [--platform OS/ARCH]` - lint a
 * Dockerfile (or a Compose file) for CUDA stacks. The file is read here
 * (at most 4 MiB), parsed and judged below; with --host-driver live this
 * host's driver is asked in an isolated child, as `check` asks it.
 * Exit: 1 findings at error severity, 0 none, 2 usage or unreadable file. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check/dockerfile/compose.h"
#include "check/dockerfile/dockerfile.h"
#include "cli/cli.h"
#include "core/file.h"
#include "core/str.h"
#include "kb/compat.h"
#include "kb/images.h"
#include "probe/probe.h"
#include "report/dockerfile_out.h"

struct df_args {
	const char *file;
	const char *host_driver; /* a version, or "live" */
	const char *brand;
	const char *target;
	struct df_build build;
	int compose; /* --compose: read FILE as a Compose file whatever its name */
};

static int dotted(const char *v)
{
	size_t i, dots = 0;

	if (!v || !*v || *v == '.')
		return 0;
	for (i = 0; v[i]; i++) {
		if (v[i] == '.')
			dots++;
		else if (v[i] < '0' || v[i] > '9')
			return 0;
	}
	return dots >= 1 && v[i - 1] != '.';
}

/* NAME=VALUE: the name is copied into the command's arena. */
static int build_arg(struct df_args *a, const char *v, struct cd_arena *ar)
{
	const char *eq = v ? strchr(v, '=') : NULL;
	const char *name;

	if (!eq || eq == v)
		return cli_usage_error("dockerfile", "--build-arg: expected NAME=VALUE");
	if (a->build.n_args == DF_BUILD_ARGS_MAX)
		return cli_usage_error("dockerfile", "more than %d --build-arg", DF_BUILD_ARGS_MAX);
	if (!(name = arena_strndup(ar, v, (size_t)(eq - v))))
		return CD_EXIT_INTERNAL;
	a->build.args[a->build.n_args].name = name;
	a->build.args[a->build.n_args].value = eq + 1;
	a->build.n_args++;
	return 0;
}

static int parse(int argc, char **argv, struct df_args *a, struct cd_arena *ar)
{
	const char *v;
	int i, rc;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		if (cli_opt_value(argc, argv, &i, "--host-driver", &v)) {
			if (!v || (strcmp(v, "live") && !dotted(v)))
				return cli_usage_error("dockerfile",
						       "--host-driver: expected a driver "
						       "version (545.29.06) or live");
			a->host_driver = v;
		} else if (cli_opt_value(argc, argv, &i, "--brand", &v)) {
			if (!v || !images_brand_class(v))
				return cli_usage_error(
					"dockerfile",
					"--brand: expected a brand of NVIDIA_REQUIRE_CUDA "
					"(tesla, nvidia, geforce, quadro, nvidiartx, ...)");
			a->brand = v;
		} else if (cli_opt_value(argc, argv, &i, "--build-arg", &v)) {
			if ((rc = build_arg(a, v, ar)))
				return rc;
		} else if (cli_opt_value(argc, argv, &i, "--target", &v)) {
			if (!v || !*v)
				return cli_usage_error("dockerfile", "--target needs a stage name");
			a->target = v;
		} else if (cli_opt_value(argc, argv, &i, "--platform", &v)) {
			if (!v || !strchr(v, '/'))
				return cli_usage_error("dockerfile", "--platform: expected OS/ARCH "
								     "(linux/arm64)");
			a->build.platform = v;
		} else if (!strcmp(argv[i], "--compose")) {
			a->compose = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("dockerfile", "unknown option '%s'", argv[i]);
		} else if (a->file) {
			return cli_usage_error("dockerfile", "one FILE only ('%s' and '%s')",
					       a->file, argv[i]);
		} else {
			a->file = argv[i];
		}
	}
	if (!a->file)
		return cli_usage_error("dockerfile",
				       "missing FILE (a Dockerfile or a Compose file)");
	if (a->brand && !a->host_driver)
		return cli_usage_error("dockerfile", "--brand goes with --host-driver");
	return 0;
}

static int read_input(const char *path, struct cd_buf *b, struct cd_err *err)
{
	struct cd_root host;
	char c[8192];
	size_t n;

	if (strcmp(path, "-")) {
		if (root_init(&host, NULL, err))
			return CD_EIO;
		return file_read(&host, path, DF_INPUT_MAX, b, err);
	}
	while ((n = fread(c, 1, sizeof(c), stdin)) > 0)
		if (buf_append(b, c, n))
			return err_set(err, CD_ENOMEM, "standard input is over %zu bytes",
				       DF_INPUT_MAX);
	return ferror(stdin) ? err_set(err, CD_EIO, "reading standard input failed") : 0;
}

/* The driver to judge against: the version given, or this host's. */
static int host_driver(const struct df_args *a, struct cd_opts *opts, struct cd_arena *ar,
		       struct dfc_host *h)
{
	char cuda[16];
	int v;

	memset(h, 0, sizeof(*h));
	h->n_gpus = CD_UNK;
	h->brand = a->brand;
	if (strcmp(a->host_driver, "live")) {
		h->driver = a->host_driver;
		v = compat_max_cuda(a->host_driver);
		if (v > 0) {
			ver_cuda_str(v, cuda, sizeof(cuda));
			h->cuda = arena_strdup(ar, cuda);
		}
		h->source = arena_printf(ar, "--host-driver %s%s", a->host_driver,
					 h->cuda ? "; its CUDA from data/driver_cuda.tsv" : "");
		return 0;
	}
	{
		struct cd_facts f;
		facts_init(&f, opts);
		if (root_init(&f.root, NULL, NULL)) {
			facts_free(&f);
			return CD_EIO;
		}
		driver_probe(&f);
		h->driver = f.driver.version ? arena_strdup(ar, f.driver.version) : NULL;
		h->cuda = f.driver.cuda_version ? arena_strdup(ar, f.driver.cuda_version) : NULL;
		if (f.gpus_known) {
			h->n_gpus = (int64_t)f.n_gpus;
			if (f.n_gpus && !h->brand && f.gpus[0].brand)
				h->brand = f.gpus[0].brand;
			if (f.n_gpus && f.gpus[0].name)
				h->gpu_name = arena_strdup(ar, f.gpus[0].name);
		}
		h->source = arena_printf(ar, "this host's driver (%s%s%s)",
					 probe_status_name(f.driver.status),
					 h->gpu_name ? ", " : "", h->gpu_name ? h->gpu_name : "");
		facts_free(&f);
	}
	return h->driver ? 0 : CD_ENOENT;
}

/* Bytes no text file holds: NUL, and the C0 controls other than tab, line
 * feed, vertical tab, form feed and carriage return (ESC among them, which
 * would reach a terminal through the report). 0 for text; else 1 with the
 * byte and its line. */
static int binary_byte(const struct cd_buf *b, unsigned *byte, size_t *line)
{
	size_t i;

	*line = 1;
	for (i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->p[i];
		if (c == '\n')
			++*line;
		else if ((c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7f) {
			*byte = c;
			return 1;
		}
	}
	return 0;
}

/* A Compose file: a .yml / .yaml name (compose.yaml, docker-compose.gpu.yml,
 * hwaccel.ml.yml), or text whose first line that is neither blank nor a
 * comment opens a top-level Compose key. */
static int is_compose(const char *path, const struct cd_buf *b)
{
	static const char *const keys[] = {
		"services:", "version:", "name:", "include:", "volumes:", "networks:", "x-"};
	const char *p = b->p, *end = b->p + b->len;
	size_t i;

	if (str_has_suffix(path, ".yml") || str_has_suffix(path, ".yaml"))
		return 1;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < end && *q != '\n' && *q != '#') {
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				if ((size_t)(end - p) >= strlen(keys[i]) &&
				    !strncmp(p, keys[i], strlen(keys[i])))
					return 1;
			return 0;
		}
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

static int lint_dockerfile(const struct df_args *a, struct cd_buf *in, struct dfc_opts *o,
			   struct cd_arena *ar, struct cd_findings *fs, struct dfc_report *rep)
{
	struct df_file f;
	struct df_model m;
	struct df_build b = a->build;
	struct cd_err err = {0};
	int t, rc;

	if ((rc = dockerfile_parse((const uint8_t *)in->p, in->len, ar, &f, &err)))
		return cli_usage_error("dockerfile", "%s: %s", a->file, err.msg);
	b.base_env = check_dockerfile_base_env;
	b.ctx = o;
	if ((rc = dfstage_eval(&f, &b, ar, &m, &err)))
		return cli_usage_error("dockerfile", "%s: %s", a->file, err.msg);
	if (a->target) {
		if ((t = dfstage_find(&m, a->target, m.n_stages)) < 0)
			return cli_usage_error("dockerfile", "--target %s: no such stage",
					       a->target);
		m.target = (size_t)t;
	}
	if (!m.n_stages && !f.n_diags)
		return cli_usage_error("dockerfile", "%s: no FROM instruction: not a Dockerfile",
				       a->file);
	return check_dockerfile(&m, o, fs, rep) ? CD_EXIT_INTERNAL : 0;
}

int cmd_dockerfile(int argc, char **argv, struct cd_opts *opts)
{
	struct df_args a;
	struct cd_arena ar;
	struct cd_buf in;
	struct cd_err err = {0};
	struct cd_findings fs;
	struct dfc_report rep;
	struct dfc_host host;
	struct dfc_opts o;
	struct cd_render r;
	unsigned byte = 0;
	size_t line = 0;
	int rc;

	arena_init(&ar);
	buf_init(&in, DF_INPUT_MAX);
	if ((rc = parse(argc, argv, &a, &ar)))
		goto out;
	findings_init(&fs, &ar);
	memset(&o, 0, sizeof(o));
	o.path = a.file;
	o.arch = a.build.platform && strchr(a.build.platform, '/')
			 ? arena_strndup(&ar, strchr(a.build.platform, '/') + 1,
					 strcspn(strchr(a.build.platform, '/') + 1, "/"))
			 : "amd64";
	if (read_input(a.file, &in, &err)) {
		rc = cli_usage_error("dockerfile", "%s", err.msg); /* it names the file */
		goto out;
	}
	if (binary_byte(&in, &byte, &line)) {
		rc = cli_usage_error("dockerfile",
				     "%s: byte 0x%02x on line %zu: binary data, not a Dockerfile "
				     "or a Compose file",
				     a.file, byte, line);
		goto out;
	}
	if (a.host_driver) {
		if (host_driver(&a, opts, &ar, &host)) {
			rc = cli_usage_error("dockerfile", "--host-driver live: no NVIDIA driver "
							   "answered on this host");
			goto out;
		}
		o.host = &host;
	}
	if (a.compose || is_compose(a.file, &in)) {
		rc = check_compose_file(a.file, (const uint8_t *)in.p, in.len, &o, &fs, &rep, &err);
		if (rc == CD_EFORMAT || rc == CD_ERANGE)
			rc = cli_usage_error("dockerfile", "%s: %s", a.file, err.msg);
		else if (rc)
			rc = CD_EXIT_INTERNAL;
	} else {
		rc = lint_dockerfile(&a, &in, &o, &ar, &fs, &rep); /* an exit status */
	}
	if (rc)
		goto out;
	render_init(&r, opts, "dockerfile");
	rc = dockerfile_render(&r, &rep, &fs)	   ? CD_EXIT_INTERNAL
	     : findings_worst(&fs) == CD_SEV_ERROR ? CD_EXIT_FINDINGS
						   : CD_EXIT_OK;
	if (fflush(stdout) != 0 && rc != CD_EXIT_INTERNAL)
		rc = CD_EXIT_INTERNAL;
out:
	buf_free(&in);
	arena_free(&ar);
	return rc;
}
