/* explain: `cuda-doctor explain [--no-env] [--no-guess] [FILE...|-]` - scan logs for known
 * failures, cross-check them with this machine (or --root), render. Also the
 * shared tail of `run` (explain_finish). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/explain.h"
#include "core/str.h"
#include "report/explain_render.h"
#include "explain/xcheck.h"
#include "probe/probe.h"

int explain_finish(const struct xs_db *db, struct xs_result *res, struct cd_opts *opts, int no_env,
		   FILE *out, const char *command, int exit_status)
{
	struct xr_opts ro = {opts->format, opts->color, opts->verbose, 0, command, exit_status};
	const char *hdrs[XC_HEADERS_MAX];
	struct cd_facts f;
	struct cd_err err = {0};
	int rc;

	xs_rank(res, db);
	if (!no_env && res->n) {
		facts_init(&f, opts);
		if (root_init(&f.root, opts->root, &err) == 0) {
			probe_all(&f);
			toolkit_probe_headers(&f, hdrs, xc_headers(res, hdrs, XC_HEADERS_MAX));
			xc_check(res, &f);
			ro.env_checked = 1;
		}
		facts_free(&f);
	}
	if (out != stdout)
		ro.color = 0;
	rc = xr_render(out, res, &ro);
	if (fflush(out) != 0 && !rc)
		rc = CD_EIO;
	return rc;
}

static int scan_input(const struct xs_db *db, struct xs_result *res, const char *name,
		      struct cd_err *err)
{
	struct xs_scanner *sc = NULL;
	int fd = 0, idx, rc;

	idx = xs_result_input(res, name);
	if (idx < 0)
		return err_set(err, CD_EUSAGE, "more than %d inputs", XS_INPUTS_MAX);
	if (strcmp(name, "-")) {
		fd = open(name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return err_set(err, CD_EUSAGE, "%s: %s", name, strerror(errno));
	}
	rc = xs_open(&sc, db, res, (uint32_t)idx, err);
	if (!rc)
		rc = xs_feed_fd(sc, fd, err);
	if (!rc)
		rc = xs_finish(sc);
	if (rc) { /* an unreadable input (a directory, EIO) is the user's to fix */
		char msg[CD_ERR_MSG_MAX];
		str_copy(msg, sizeof(msg), err->code ? err->msg : "scan failed");
		err_set(err, rc == CD_EIO ? CD_EUSAGE : rc, "%s: %s", name, msg);
	}
	xs_close(sc);
	if (fd > 0)
		close(fd);
	return rc;
}

int cmd_explain(int argc, char **argv, struct cd_opts *opts)
{
	struct xs_db *db = NULL;
	struct xs_result *res = NULL;
	struct cd_err err = {0};
	struct cd_root probe_root;
	const char *files[XS_INPUTS_MAX];
	int i, n = 0, no_env = 0, no_guess = 0, dashdash = 0, rc;

	for (i = 1; i < argc; i++) {
		if (!dashdash && !strcmp(argv[i], "--no-env"))
			no_env = 1;
		else if (!dashdash && !strcmp(argv[i], "--no-guess"))
			no_guess = 1;
		else if (!dashdash && !strcmp(argv[i], "--"))
			dashdash = 1;
		else if (!dashdash && argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("explain", "unknown option '%s'", argv[i]);
		else if (n >= XS_INPUTS_MAX)
			return cli_usage_error("explain", "more than %d inputs", XS_INPUTS_MAX);
		else
			files[n++] = argv[i];
	}
	if (!n) {
		if (isatty(STDIN_FILENO))
			return cli_usage_error("explain", "give a log file, or '-' to read stdin");
		files[n++] = "-";
	}
	if (root_init(&probe_root, opts->root, &err))
		return cli_usage_error(NULL, "%s", err.msg);
	rc = xs_db_open(&db, &err);
	res = rc ? NULL : xs_result_new();
	if (rc || !res) {
		fprintf(stderr, "cuda-doctor explain: %s\n", rc ? err.msg : "out of memory");
		xs_db_close(db);
		return CD_EXIT_INTERNAL;
	}
	res->no_guess = no_guess;
	for (i = 0; i < n && !rc; i++)
		rc = scan_input(db, res, files[i], &err);
	if (rc) {
		fprintf(stderr, "cuda-doctor explain: %s\n", err.msg);
		rc = err.code == CD_EUSAGE ? CD_EXIT_USAGE : CD_EXIT_INTERNAL;
	} else if (explain_finish(db, res, opts, no_env, stdout, "explain", -1)) {
		rc = CD_EXIT_INTERNAL;
	} else {
		rc = xr_has_error(res) ? CD_EXIT_FINDINGS : CD_EXIT_OK;
	}
	xs_result_free(res);
	xs_db_close(db);
	return rc;
}
