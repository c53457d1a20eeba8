/* bundle: `cuda-doctor bundle [-o FILE] [--log FILE]... [--no-redact]` - one
 * .tar.gz to attach to a ticket (report/bundle.c makes it); -o DIR puts the
 * default name in DIR. The archive is written to FILE.XXXXXX beside FILE
 * (mode 0600) and renamed into place only when complete, so a failed bundle
 * leaves nothing behind; "-o -" writes to standard output, never to a
 * terminal. Exit: 0 written, 2 usage, 3 when a redaction rule, the archive or
 * the disk failed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "report/bundle.h"

struct bundle_cli {
	const char *out; /* NULL: the default name */
	int no_redact;
};

static int sink_fd(void *ctx, const uint8_t *p, size_t n)
{
	int fd = *(int *)ctx;

	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return CD_EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int parse(int argc, char **argv, struct bundle_cli *o, struct bundle_opts *bo)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-redact")) {
			o->no_redact = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--log")) {
			if (i + 1 >= argc || !*argv[i + 1])
				return cli_usage_error("bundle", "%s needs a value", a);
			if (strcmp(a, "--log"))
				o->out = argv[++i];
			else if (bo->n_logs >= BUNDLE_LOGS_MAX)
				return cli_usage_error("bundle", "more than %d --log files",
						       BUNDLE_LOGS_MAX);
			else
				bo->logs[bo->n_logs++] = argv[++i];
		} else if (!strncmp(a, "--log=", 6) && a[6] && bo->n_logs < BUNDLE_LOGS_MAX) {
			bo->logs[bo->n_logs++] = a + 6;
		} else if (!strncmp(a, "--output=", 9) && a[9]) {
			o->out = a + 9;
		} else {
			return cli_usage_error("bundle", "unexpected argument '%s'", a);
		}
	}
	return 0;
}

static void default_name(char *out, size_t cap, time_t now)
{
	struct tm tm;

	if (!gmtime_r(&now, &tm) ||
	    !strftime(out, cap, "cuda-doctor-bundle-%Y%m%dT%H%M%SZ.tar.gz", &tm))
		str_copy(out, cap, "cuda-doctor-bundle.tar.gz");
}

static void summary(FILE *to, const char *name, const struct bundle_result *r, int no_redact,
		    off_t size)
{
	char packed[32], raw[32];
	size_t i;

	for (i = 0; i < r->n_left_out; i++)
		fprintf(stderr,
			"cuda-doctor bundle: --log %s (not collected; named in README.txt)\n",
			r->left_out[i]);
	str_bytes(packed, sizeof(packed), (int64_t)size);
	str_bytes(raw, sizeof(raw), (int64_t)r->bytes);
	fprintf(to, "wrote %s: %zu files, %s (%s before compression)\n", name, r->members, packed,
		raw);
	if (no_redact)
		fprintf(to, "NOT redacted (--no-redact): read every file before sharing it\n");
	else
		fprintf(to, "redacted %llu values by %zu rules; ledger.tsv says which and where\n",
			(unsigned long long)r->redactions, r->rules_hit);
}

static int finish(int rc, const struct cd_err *err, const char *tmp)
{
	if (tmp)
		unlink(tmp);
	fprintf(stderr, "cuda-doctor bundle: %s; no bundle written\n", err->msg);
	return rc == CD_EUSAGE ? CD_EXIT_USAGE : CD_EXIT_INTERNAL;
}

int cmd_bundle(int argc, char **argv, struct cd_opts *opts)
{
	struct bundle_cli o = {NULL, 0};
	struct bundle_opts bo = {0};
	struct bundle_result res;
	struct cd_err err = {0};
	char name[512], tmp[544];
	int fd = STDOUT_FILENO, to_stdout, rc;
	struct stat st;
	off_t size;

	if ((rc = parse(argc, argv, &o, &bo)))
		return rc;
	bo.opts = opts;
	bo.no_redact = o.no_redact;
	bo.fail_rule = getenv("CD_TEST_REDACT_FAIL");
	bo.mtime = (int64_t)time(NULL);
	default_name(name, sizeof(name), (time_t)bo.mtime);
	if (o.out && stat(o.out, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (fsu_join(tmp, sizeof(tmp), o.out, name))
			return cli_usage_error("bundle", "%s: the folder's name is too long",
					       o.out);
		str_copy(name, sizeof(name), tmp);
	} else if (o.out) {
		str_copy(name, sizeof(name), o.out);
	}
	to_stdout = !strcmp(name, "-");
	if (to_stdout && isatty(STDOUT_FILENO))
		return cli_usage_error("bundle", "refusing to write an archive to a terminal");
	if (!to_stdout) {
		snprintf(tmp, sizeof(tmp), "%s.XXXXXX", name);
		fd = mkstemp(tmp);
		if (fd < 0)
			return cli_usage_error("bundle", "%s: %s", name, strerror(errno));
	}
	rc = bundle_write(&bo, sink_fd, &fd, &res, &err);
	size = to_stdout ? (off_t)0 : lseek(fd, 0, SEEK_CUR);
	if (!to_stdout && close(fd) && !rc)
		rc = err_set(&err, CD_EIO, "%s: %s", name, strerror(errno));
	if (!rc && !to_stdout && rename(tmp, name))
		rc = err_set(&err, CD_EIO, "%s: %s", name, strerror(errno));
	if (rc)
		return finish(rc, &err, to_stdout ? NULL : tmp);
	if (!opts->quiet || res.n_left_out)
		summary(to_stdout ? stderr : stdout, to_stdout ? "standard output" : name, &res,
			o.no_redact, size);
	return fflush(stdout) ? CD_EXIT_INTERNAL : CD_EXIT_OK;
}
