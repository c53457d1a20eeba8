/* bundle_text: the members the bundle writes itself: the README (what each
 * file is, whether it was redacted, what was left out and why), the ledger
 * (rule -> count -> members, never a value), the environment (every
 * variable, sorted, through rd_env so a secret's whole value goes) and the
 * Python packages check read. Builders return 0 or CD_ENOMEM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/opts.h"
#include "core/str.h"
#include "facts/stack.h"
#include "kb/redactkb.h"
#include "report/bundle_int.h"

extern char **environ;

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

static int redaction_text(struct bundle_ctx *c, struct cd_buf *b)
{
	if (!c->set)
		return buf_puts(
			b,
			"Redaction: OFF. This bundle was made with --no-redact: nothing in it was\n"
			"redacted. It may hold tokens, passwords, host and user names, addresses\n"
			"and serial numbers. Read every file before you share it.\n\n");
	return buf_printf(
		b,
		"Redaction: ON. Every file went through the %zu rules of\n"
		"data/redact_rules.tsv (variable names, secret shapes, identifying fields);\n"
		"ledger.tsv counts what each rule replaced and in which files, and holds no\n"
		"value. Replacements are consistent within this bundle: host0 is one host,\n"
		"gpu-uuid-0 one GPU, user0 one user, ipv4-0 one address, ~ the home directory\n"
		"of the user who ran it.\n\n",
		rd_rules(c->set));
}

static int file_row(struct cd_buf *b, const char *name, const char *what)
{
	return buf_printf(b, "  %-34s %s\n", name, what);
}

static int log_rows(struct bundle_ctx *c, struct cd_buf *b)
{
	char what[BUNDLE_WHY_MAX + 64], name[128], size[32];
	size_t i;
	int rc = 0;

	for (i = 0; i < c->n_logs; i++) {
		const struct bundle_log *l = &c->logs[i];
		if (!l->collected)
			continue;
		str_bytes(size, sizeof(size), (int64_t)l->size);
		if (l->cut)
			snprintf(what, sizeof(what),
				 "--log %s (%s: its first and last 4 MiB; the middle is left out)",
				 l->path, size);
		else
			snprintf(what, sizeof(what), "--log %s (%s)", l->path, size);
		rc |= file_row(b, l->member, what);
		snprintf(name, sizeof(name), "%s.explain.txt", l->member);
		rc |= file_row(b, name,
			       "cuda-doctor explain of it, cross-checked with this machine");
		snprintf(name, sizeof(name), "%s.explain.json", l->member);
		rc |= file_row(b, name, "the same as JSON (docs/explain.md)");
	}
	return rc;
}

static int file_rows(struct bundle_ctx *c, struct cd_buf *b)
{
	int rc = buf_puts(b, "Files\n");

	rc |= file_row(b, "README.txt", "this file");
	rc |= file_row(b, "report.txt", "cuda-doctor check, as text (with -v detail)");
	rc |= file_row(b, "report.json", "the same as JSON (docs/json.md)");
	rc |= file_row(b, "report.md", "the same as Markdown, to paste into an issue");
	rc |= file_row(b, "environment.txt", "every environment variable of the run, sorted");
	rc |= file_row(b, "packages/python.txt",
		       "the Python distributions and conda records check read");
	if (c->dpkg.present)
		rc |= file_row(b, "packages/dpkg.txt", "dpkg's installed packages");
	if (c->smi.present)
		rc |= file_row(b, "nvidia-smi-q.txt", "nvidia-smi -q");
	if (c->procv.present)
		rc |= file_row(b, "proc-driver-nvidia-version.txt", "/proc/driver/nvidia/version");
	if (c->klog.present)
		rc |= file_row(b, "kernel-nvrm-xid.txt",
			       "the NVRM and Xid lines of the kernel log");
	rc |= log_rows(c, b);
	rc |= file_row(b, "ledger.tsv", "the redaction ledger (written last)");
	return rc | buf_putc(b, '\n');
}

static int sources(struct bundle_ctx *c, struct cd_buf *b)
{
	size_t i;
	int rc = buf_puts(b, "Where the system files came from, or why they are absent\n");

	rc |= buf_printf(b, "  nvidia-smi:     %s\n", c->smi.status);
	rc |= buf_printf(b, "  driver version: %s\n", c->procv.status);
	rc |= buf_printf(b, "  kernel log:     %s\n", c->klog.status);
	rc |= buf_printf(b, "  dpkg:           %s\n", c->dpkg.status);
	for (i = 0; i < c->n_logs; i++)
		if (!c->logs[i].collected)
			rc |= buf_printf(b, "  --log %s: not collected: %s\n", c->logs[i].path,
					 c->logs[i].why);
	return rc | buf_putc(b, '\n');
}

int bundle_readme(struct bundle_ctx *c, struct cd_buf *b)
{
	time_t t = (time_t)c->bo->mtime;
	struct tm tm;
	char when[32] = "unknown";
	int rc;

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rc = buf_printf(b,
			"cuda-doctor support bundle\n\n"
			"Made by cuda-doctor %s at %s%s%s. Nothing was uploaded: this archive\n"
			"was written to a local file and goes only where you send it.\n\n",
			CD_VERSION, when, c->bo->opts->root ? " for the image under --root " : "",
			c->bo->opts->root ? c->bo->opts->root : "");
	rc |= redaction_text(c, b);
	rc |= file_rows(c, b);
	rc |= sources(c, b);
	rc |= buf_puts(b,
		       "Logs longer than 8 MiB keep their first and last 4 MiB, with a line where\n"
		       "the middle was left out; line numbers in an explanation count the kept\n"
		       "text. NUL bytes are dropped, lines longer than 64 KiB cut (and marked).\n"
		       "Binary files are not collected. See docs/bundle.md.\n");
	return rc;
}

int bundle_ledger(struct bundle_ctx *c, struct cd_buf *b)
{
	size_t i, m;
	int rc;

	if (!c->set)
		return buf_puts(
			b, "# cuda-doctor bundle made with --no-redact: nothing in this bundle "
			   "was redacted.\n");
	rc = buf_puts(b,
		      "# cuda-doctor bundle: the redaction ledger. One row per rule of "
		      "data/redact_rules.tsv, in the\n# order they apply: the values it replaced "
		      "and the files it replaced them in. No value is kept.\n"
		      "rule\tkind\tcount\tfiles\n");
	for (i = 0; i < rd_rules(c->set); i++) {
		const char *sep = "";
		rc |= buf_printf(b, "%s\t%s\t%llu\t", rd_rule_name(c->set, i),
				 rd_rule_kind(c->set, i),
				 (unsigned long long)rd_rule_hits(c->set, i));
		for (m = 0; m < rd_members(c->set); m++)
			if (rd_rule_in_member(c->set, i, m)) {
				rc |= buf_printf(b, "%s%s", sep, rd_member_name(c->set, m));
				sep = ",";
			}
		rc |= buf_putc(b, '\n');
	}
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int bundle_env(struct bundle_ctx *c, int member, struct cd_buf *out, struct cd_err *err)
{
	char *const *env = c->bo->opts->envp ? c->bo->opts->envp : environ;
	size_t n = 0, i;
	const char **v;
	char name[512];
	int rc = 0;

	while (env && env[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return err_set(err, CD_ENOMEM, "environment.txt: out of memory");
	for (i = 0; i < n; i++)
		v[i] = env[i];
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n && !rc; i++) {
		const char *eq = strchr(v[i], '=');
		if (!eq || eq == v[i] || (size_t)(eq - v[i]) >= sizeof(name))
			continue;
		str_ncopy(name, sizeof(name), v[i], (size_t)(eq - v[i]));
		if (c->set)
			rc = rd_env(c->set, member, name, eq + 1, out, err);
		else if (buf_printf(out, "%s\n", v[i]))
			rc = err_set(err, CD_ENOMEM, "environment.txt: too large");
	}
	free(v);
	return rc;
}

int bundle_packages(struct bundle_ctx *c, struct cd_buf *b)
{
	const struct cd_stack_facts *st = c->f.stack;
	size_t i;
	int rc;

	if (!st)
		return buf_puts(b, "# the Python environment was not read\n");
	rc = buf_printf(b, "# the Python environment check read: %s (%s, Python %s)\n",
			or_unknown(st->python.prefix), or_unknown(st->python.kind),
			or_unknown(st->python.version));
	rc |= buf_puts(b, "name\tversion\tinstaller\tconda\tpath\n");
	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i];
		rc |= buf_printf(b, "%s\t%s\t%s\t%s%s%s%s%s\t%s\n", or_unknown(p->display),
				 or_unknown(p->version), p->installer ? p->installer : "-",
				 p->sources & CD_PKG_CONDA ? or_unknown(p->conda_version) : "-",
				 p->conda_build ? " " : "", p->conda_build ? p->conda_build : "",
				 p->conda_channel ? " " : "",
				 p->conda_channel ? p->conda_channel : "", p->path ? p->path : "-");
	}
	return rc;
}
