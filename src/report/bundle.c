/* bundle: see bundle.h. The order: probe and check once; give the redaction
 * set this machine's values (host, user, home) and the versions the facts
 * read (which no address rule may take); replace the structured fields in
 * the facts themselves (host name, GPU UUIDs) before anything is rendered;
 * collect the raw texts and open the logs, so that the README, written first,
 * says what is in the archive and what is not; then every member; the ledger
 * last, since it counts them all. */
#include "report/bundle.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "facts/stack.h"
#include "kb/redactkb.h"
#include "probe/probe.h"
#include "report/bundle_int.h"
#include "report/render.h"

#define BUNDLE_MEMBER_MAX ((size_t)48 << 20)

/* 0, or CD_ENOMEM: a name the rules do not know would stay in the bundle. */
static int host_value(struct rd_set *s, const char *h)
{
	const char *dot = h ? strchr(h, '.') : NULL;
	char label[256];
	int rc;

	if (!h || !*h)
		return 0;
	rc = rd_set_value(s, "@host", h);
	if (!rc && dot && dot > h && (size_t)(dot - h) < sizeof(label)) {
		str_ncopy(label, sizeof(label), h,
			  (size_t)(dot - h)); /* node17 of node17.dc.example */
		rc = rd_set_value(s, "@host", label);
	}
	return rc;
}

/* This machine's host name, user and home directory, which the @host,
 * @user and @home rules replace wherever they stand. 0, or CD_ENOMEM when
 * one could not be added (the bundle fails closed rather than keep it). */
static int machine_values(struct bundle_ctx *c)
{
	struct passwd *pw = getpwuid(getuid());
	char name[HOST_NAME_MAX + 1];
	const char *const users[] = {"USER", "LOGNAME"};
	size_t i;
	int rc;

	rc = host_value(c->set, c->f.host.hostname);
	if (!rc && gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		rc = host_value(c->set, name);
	}
	for (i = 0; !rc && i < sizeof(users) / sizeof(users[0]); i++)
		rc = rd_set_value(c->set, "@user", facts_getenv(&c->f, users[i]));
	if (!rc)
		rc = rd_set_value(c->set, "@home", facts_getenv(&c->f, "HOME"));
	if (!rc && pw)
		rc = rd_set_value(c->set, "@user", pw->pw_name);
	if (!rc && pw)
		rc = rd_set_value(c->set, "@home", pw->pw_dir);
	return rc;
}

/* The upstream versions of dpkg's list ("name\tarch\t1:1.2.5.1-2" -> 1.2.5.1).
 * An allow that could not be added only means more is replaced, never less:
 * here and in allow_versions, rd_set_allow's error is dropped. */
static void allow_dpkg(struct bundle_ctx *c)
{
	const char *p = c->dpkg.text.p, *end = p ? p + c->dpkg.text.len : NULL;
	char v[128];

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end, *tab, *b;
		const char *dash;
		tab = memrchr(p, '\t', (size_t)(e - p));
		b = tab ? tab + 1 : e;
		if (memchr(b, ':', (size_t)(e - b)))
			b = (const char *)memchr(b, ':', (size_t)(e - b)) + 1;
		dash = memrchr(b, '-', (size_t)(e - b));
		if (dash)
			e = dash;
		if (e > b && (size_t)(e - b) < sizeof(v)) {
			str_ncopy(v, sizeof(v), b, (size_t)(e - b));
			(void)!rd_set_allow(c->set, v);
		}
		p = nl ? nl + 1 : end;
	}
}

/* Versions the facts read: a cuDNN 9.1.0.70 is no IPv4 address. */
static void allow_versions(struct bundle_ctx *c)
{
	const struct cd_facts *f = &c->f;
	size_t i;

	(void)!rd_set_allow(c->set, f->driver.version);
	(void)!rd_set_allow(c->set, f->driver.kernel_module_version);
	for (i = 0; i < f->toolkit.n; i++) {
		(void)!rd_set_allow(c->set, f->toolkit.items[i].version);
		(void)!rd_set_allow(c->set, f->toolkit.items[i].nvcc_version);
	}
	if (!f->stack)
		return;
	(void)!rd_set_allow(c->set, f->stack->torch.version);
	for (i = 0; i < f->stack->n_packages; i++) {
		(void)!rd_set_allow(c->set, f->stack->packages[i].version);
		(void)!rd_set_allow(c->set, f->stack->packages[i].conda_version);
	}
}

/* The structured layer: the report's own fields take their aliases before
 * it is rendered, counted once for each of the report's three members. */
static const char *alias3(struct bundle_ctx *c, const int m[3], const char *rule, const char *v)
{
	const char *a = v;
	size_t k;

	for (k = 0; v && k < 3; k++)
		a = rd_alias(c->set, m[k], rule, v);
	return a ? a : v;
}

static void structured(struct bundle_ctx *c, const int m[3])
{
	struct cd_facts *f = &c->f;
	size_t i;

	f->host.hostname = alias3(c, m, "host", f->host.hostname);
	for (i = 0; i < f->n_gpus; i++) {
		const char *u = f->gpus[i].uuid;
		f->gpus[i].uuid =
			alias3(c, m, u && str_has_prefix(u, "MIG-") ? "mig-uuid" : "gpu-uuid", u);
	}
}

int bundle_put(struct bundle_ctx *c, const char *name, const struct cd_buf *out, struct cd_err *err)
{
	char full[256];
	int rc;

	if (fsu_join(full, sizeof(full), BUNDLE_TOP, name))
		return err_set(err, CD_ERANGE, "%s: member name too long", name);
	rc = targz_add(&c->tz, full, out->p ? out->p : "", out->len, err);
	if (!rc) {
		c->res->members++;
		c->res->bytes += out->len;
	}
	return rc;
}

static int put_text(struct bundle_ctx *c, int m, const char *name, const char *p, size_t n,
		    struct cd_err *err)
{
	struct cd_buf out;
	int rc = 0;

	buf_init(&out, BUNDLE_MEMBER_MAX);
	if (c->set)
		rc = rd_text(c->set, m, p, n, &out, err);
	else if (buf_append(&out, p, n))
		rc = err_set(err, CD_ENOMEM, "%s: larger than %zu bytes", name, out.max);
	if (!rc)
		rc = bundle_put(c, name, &out, err);
	buf_free(&out);
	return rc;
}

int bundle_member(struct bundle_ctx *c, const char *name, const char *p, size_t n,
		  struct cd_err *err)
{
	return put_text(c, c->set ? rd_member(c->set, name) : -1, name, p, n, err);
}

/* One of check's reports, rendered into memory, as a member. */
static int report_member(struct bundle_ctx *c, int m, const char *name, enum cd_format fmt,
			 struct cd_err *err)
{
	struct cd_render r;
	char *p = NULL;
	size_t n = 0;
	int rc;

	render_init(&r, c->bo->opts, "check");
	r.format = fmt;
	r.color = 0;
	r.quiet = 0;
	r.verbose = 1;
	r.out = open_memstream(&p, &n);
	if (!r.out)
		return err_set(err, CD_ENOMEM, "%s: open_memstream failed", name);
	rc = render_report(&r, &c->f, &c->fs);
	if (fclose(r.out) != 0 && !rc)
		rc = CD_ENOMEM;
	if (rc)
		rc = err_set(err, rc, "%s: the report could not be rendered", name);
	else
		rc = put_text(c, m, name, p ? p : "", n, err);
	free(p);
	return rc;
}

static int reports(struct bundle_ctx *c, const int m[3], struct cd_err *err)
{
	int rc = report_member(c, m[0], "report.txt", CD_FMT_TEXT, err);

	if (!rc)
		rc = report_member(c, m[1], "report.json", CD_FMT_JSON, err);
	if (!rc)
		rc = report_member(c, m[2], "report.md", CD_FMT_MARKDOWN, err);
	return rc;
}

static int built_member(struct bundle_ctx *c, const char *name,
			int (*build)(struct bundle_ctx *, struct cd_buf *), struct cd_err *err)
{
	struct cd_buf b;
	int rc;

	buf_init(&b, BUNDLE_MEMBER_MAX);
	rc = build(c, &b) ? err_set(err, CD_ENOMEM, "%s: too large", name)
			  : bundle_member(c, name, b.p ? b.p : "", b.len, err);
	buf_free(&b);
	return rc;
}

static int collected(struct bundle_ctx *c, const char *name, const struct col_text *t,
		     struct cd_err *err)
{
	if (!t->present)
		return 0;
	return bundle_member(c, name, t->text.p, t->text.len, err);
}

static int env_member(struct bundle_ctx *c, struct cd_err *err)
{
	struct cd_buf b;
	int m = c->set ? rd_member(c->set, "environment.txt") : -1, rc;

	buf_init(&b, BUNDLE_MEMBER_MAX);
	rc = bundle_env(c, m, &b, err);
	if (!rc)
		rc = bundle_put(c, "environment.txt", &b, err);
	buf_free(&b);
	return rc;
}

/* The members after the README, in its order. */
static int members(struct bundle_ctx *c, const int rep[3], struct cd_err *err)
{
	size_t i;
	int rc = reports(c, rep, err);

	if (!rc)
		rc = env_member(c, err);
	if (!rc)
		rc = built_member(c, "packages/python.txt", bundle_packages, err);
	if (!rc)
		rc = collected(c, "packages/dpkg.txt", &c->dpkg, err);
	if (!rc)
		rc = collected(c, "nvidia-smi-q.txt", &c->smi, err);
	if (!rc)
		rc = collected(c, "proc-driver-nvidia-version.txt", &c->procv, err);
	if (!rc)
		rc = collected(c, "kernel-nvrm-xid.txt", &c->klog, err);
	for (i = 0; i < c->n_logs && !rc; i++)
		if (c->logs[i].collected)
			rc = bundle_log_write(c, &c->logs[i], err);
	return rc;
}

/* The ledger is ours and holds no value: archived as written. */
static int ledger_member(struct bundle_ctx *c, struct cd_err *err)
{
	struct cd_buf b;
	int rc;

	buf_init(&b, BUNDLE_MEMBER_MAX);
	rc = bundle_ledger(c, &b) ? err_set(err, CD_ENOMEM, "ledger.tsv: too large")
				  : bundle_put(c, "ledger.tsv", &b, err);
	buf_free(&b);
	return rc;
}

static int prepare(struct bundle_ctx *c, int rep[3], struct cd_err *err)
{
	static const char *const names[3] = {"report.txt", "report.json", "report.md"};
	size_t i;
	int rc;

	facts_init(&c->f, c->bo->opts);
	if ((rc = root_init(&c->f.root, c->bo->opts->root, err)))
		return rc;
	if (!c->bo->no_redact && (rc = redactkb_load(&c->set, err)))
		return rc;
	probe_all(&c->f);
	findings_init(&c->fs, &c->f.arena);
	check_all(&c->f, &c->fs);
	rep[0] = rep[1] = rep[2] = -1;
	if (c->set) {
		rd_set_fail(c->set, c->bo->fail_rule);
		if ((rc = machine_values(c)))
			return err_set(err, rc, "redaction: this machine's names: out of memory");
		allow_versions(c);
		c->readme = rd_member(c->set, "README.txt");
		for (i = 0; i < 3; i++)
			rep[i] = rd_member(c->set, names[i]);
		structured(c, rep);
	}
	col_nvidia_smi(&c->f, &c->smi);
	col_proc_version(&c->f, &c->procv);
	col_kernel_log(&c->f, &c->klog);
	col_dpkg(&c->f, &c->dpkg);
	if (c->set)
		allow_dpkg(c);
	for (i = 0; i < c->bo->n_logs && i < BUNDLE_LOGS_MAX; i++)
		bundle_log_open(c, &c->logs[c->n_logs++], i);
	return 0;
}

static void results(struct bundle_ctx *c)
{
	size_t i;

	for (i = 0; c->set && i < rd_rules(c->set); i++) {
		c->res->redactions += rd_rule_hits(c->set, i);
		c->res->rules_hit += rd_rule_hits(c->set, i) > 0;
	}
	for (i = 0; i < c->n_logs; i++)
		if (!c->logs[i].collected)
			snprintf(c->res->left_out[c->res->n_left_out++], BUNDLE_WHY_MAX, "%s: %s",
				 c->logs[i].path, c->logs[i].why);
}

static void ctx_free(struct bundle_ctx *c)
{
	size_t i;

	for (i = 0; i < c->n_logs; i++)
		bundle_log_close(&c->logs[i]);
	col_text_free(&c->smi);
	col_text_free(&c->procv);
	col_text_free(&c->klog);
	col_text_free(&c->dpkg);
	targz_abort(&c->tz);
	rd_set_free(c->set);
	facts_free(&c->f);
	free(c);
}

int bundle_write(const struct bundle_opts *bo, targz_sink sink, void *ctx,
		 struct bundle_result *res, struct cd_err *err)
{
	struct bundle_ctx *c = calloc(1, sizeof(*c));
	struct cd_buf readme;
	int rep[3], rc;

	memset(res, 0, sizeof(*res));
	if (!c)
		return err_set(err, CD_ENOMEM, "out of memory");
	c->bo = bo;
	c->res = res;
	c->readme = -1;
	buf_init(&readme, BUNDLE_MEMBER_MAX);
	rc = prepare(c, rep, err);
	if (!rc)
		rc = targz_open(&c->tz, sink, ctx, bo->mtime, err);
	if (!rc)
		rc = targz_dir(&c->tz, BUNDLE_TOP, err);
	if (!rc && bundle_readme(c, &readme))
		rc = err_set(err, CD_ENOMEM, "README.txt: too large");
	if (!rc)
		rc = put_text(c, c->readme, "README.txt", readme.p, readme.len, err);
	if (!rc)
		rc = members(c, rep, err);
	if (!rc)
		results(c);
	if (!rc)
		rc = ledger_member(c, err);
	if (!rc)
		rc = targz_close(&c->tz, err);
	buf_free(&readme);
	ctx_free(c);
	return rc;
}
