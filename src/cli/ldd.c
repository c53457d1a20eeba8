/* ldd: `cuda-doctor ldd FILE` - the dependency tree of FILE as glibc's loader
 * would resolve it (where each need came from and by which rule), and the
 * CUDA archs inside FILE. Reads files only; nothing is loaded or run.
 * Exit: 0 all found, 1 a need not found, 2 usage (no such file, not ELF). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/fsutil.h"
#include "report/ldd_out.h"
#include "core/str.h"

#define DLOPEN_MAX 32

struct ldd_args {
	const char *file;
	struct ldr_config cfg;
	const char *dlopen[DLOPEN_MAX];
	size_t n_dlopen;
	enum cudaarch_scan scan;
	int no_archs;
};

static const char *env_get(const struct cd_opts *o, const char *name)
{
	size_t n = strlen(name);
	char *const *e;

	if (!o->envp)
		return getenv(name);
	for (e = o->envp; *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static int parse_args(int argc, char **argv, const struct cd_opts *o, struct ldd_args *a)
{
	const char *v;
	int i, dashdash = 0;

	memset(a, 0, sizeof(*a));
	a->cfg.ld_library_path = env_get(o, "LD_LIBRARY_PATH");
	a->cfg.ld_preload = env_get(o, "LD_PRELOAD");
	for (i = 1; i < argc; i++) {
		if (dashdash) {
			if (a->file)
				return cli_usage_error("ldd", "one FILE only ('%s' and '%s')",
						       a->file, argv[i]);
			a->file = argv[i];
		} else if (cli_opt_value(argc, argv, &i, "--ld-library-path", &v) && v) {
			a->cfg.ld_library_path = v;
		} else if (cli_opt_value(argc, argv, &i, "--preload", &v) && v) {
			a->cfg.ld_preload = v;
		} else if (cli_opt_value(argc, argv, &i, "--dlopen", &v) && v) {
			if (a->n_dlopen == DLOPEN_MAX)
				return cli_usage_error("ldd", "more than %d --dlopen", DLOPEN_MAX);
			a->dlopen[a->n_dlopen++] = v;
		} else if (!strcmp(argv[i], "--no-ld-so-preload")) {
			a->cfg.no_etc_preload = 1;
		} else if (!strcmp(argv[i], "--inhibit-cache")) {
			a->cfg.inhibit_cache = 1;
		} else if (!strcmp(argv[i], "--no-archs")) {
			a->no_archs = 1;
		} else if (!strcmp(argv[i], "--scan-data")) {
			a->scan = CUDAARCH_SCAN_ALWAYS;
		} else if (!strcmp(argv[i], "--no-scan-data")) {
			a->scan = CUDAARCH_SCAN_NEVER;
		} else if (!strcmp(argv[i], "--")) {
			dashdash = 1; /* the end of the options, as for every command */
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("ldd", "unknown or incomplete option '%s'", argv[i]);
		} else if (a->file) {
			return cli_usage_error("ldd", "one FILE only ('%s' and '%s')", a->file,
					       argv[i]);
		} else {
			a->file = argv[i];
		}
	}
	if (!a->file)
		return cli_usage_error("ldd", "missing FILE");
	return 0;
}

static int run(struct ldd_out *lo, struct ldd_args *a, struct cd_err *err)
{
	size_t i;
	int obj, rc;

	rc = ldr_load_main(&lo->s, a->file, err);
	if (rc)
		return rc;
	/* Past the cap on needs the session is marked truncated, which the
	 * report shows; the names after it are not tried. */
	for (i = 0; i < a->n_dlopen; i++)
		if (ldr_dlopen(&lo->s, lo->s.main, a->dlopen[i], &obj, err) != 0)
			break;
	if (a->no_archs) {
		lo->arch_skipped = 1;
		return 0;
	}
	rc = cudaarch_read(lo->root, lo->s.objs[lo->s.main].path, a->scan, &lo->arch, err);
	if (rc)
		lo->arch_error = arena_strdup(lo->s.a, err->msg);
	return 0;
}

int cmd_ldd(int argc, char **argv, struct cd_opts *opts)
{
	struct ldd_args a;
	struct ldd_out lo;
	struct cd_root root;
	struct cd_arena arena;
	struct cd_err err = {0};
	char cwd[PATH_MAX];
	int rc;

	if (parse_args(argc, argv, opts, &a))
		return CD_EXIT_USAGE;
	if (root_init(&root, opts->root, &err))
		return cli_usage_error(NULL, "%s", err.msg);
	if (root.is_host)
		a.cfg.cwd = fsu_cwd(cwd, sizeof(cwd));
	arena_init(&arena);
	memset(&lo, 0, sizeof(lo));
	lo.root = &root;
	lo.opts = opts;
	ldr_init(&lo.s, &root, &a.cfg, &arena);
	rc = run(&lo, &a, &err);
	if (rc == CD_ENOENT || rc == CD_EIO || rc == CD_EFORMAT || rc == CD_ERANGE) {
		rc = cli_usage_error("ldd", "%s", err.msg);
	} else if (rc) {
		fprintf(stderr, "cuda-doctor ldd: %s\n", err.msg);
		rc = CD_EXIT_INTERNAL;
	} else {
		rc = ldd_render(&lo)	? CD_EXIT_INTERNAL
		     : ldd_missing(&lo) ? CD_EXIT_FINDINGS
					: CD_EXIT_OK;
	}
	if (fflush(stdout) != 0 && rc != CD_EXIT_USAGE)
		rc = CD_EXIT_INTERNAL;
	ldr_free(&lo.s);
	arena_free(&arena);
	return rc;
}
