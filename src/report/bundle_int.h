/* bundle_int: what the files of the bundle share: one context that owns the
 * facts, the redaction set, the archive and the collected texts for the
 * whole run (bundle.c frees it), the logs' state, and the builders of the
 * README, ledger, environment and package members (bundle_text.c) and of
 * the logs' members (bundle_log.c). */
#ifndef CD_BUNDLE_INT_H
#define CD_BUNDLE_INT_H

#include "core/buf.h"
#include "core/err.h"
#include "facts/facts.h"
#include "facts/finding.h"
#include "format/redact.h"
#include "probe/system/collect.h"
#include "report/bundle.h"

struct bundle_log {
	const char *path; /* as given */
	char member[96];  /* "logs/1-train.log", redacted and made safe */
	int fd;
	int collected;
	char why[BUNDLE_WHY_MAX]; /* not collected: why */
	uint64_t size;		  /* at open */
	int cut;		  /* longer than BUNDLE_HEAD + BUNDLE_TAIL: the middle left out */
	uint64_t left_out;	  /* bytes of the middle */
	uint64_t nul_dropped, lines_cut;
};

struct bundle_ctx {
	const struct bundle_opts *bo;
	struct cd_facts f;
	struct cd_findings fs;
	struct rd_set *set; /* NULL: --no-redact */
	struct targz tz;
	struct col_text smi, procv, klog, dpkg;
	size_t n_logs;
	struct bundle_log logs[BUNDLE_LOGS_MAX];
	struct bundle_result *res;
	int readme; /* the README's ledger member (names of logs are redacted for it) */
};

/* One member: text redacted (unless --no-redact) and archived under BUNDLE_TOP/. */
CD_WUR int bundle_member(struct bundle_ctx *c, const char *name, const char *p, size_t n,
			 struct cd_err *err);
/* The archive member of redacted bytes already in out. */
CD_WUR int bundle_put(struct bundle_ctx *c, const char *name, const struct cd_buf *out,
		      struct cd_err *err);

/* bundle_text.c */
CD_WUR int bundle_readme(struct bundle_ctx *c, struct cd_buf *out);
CD_WUR int bundle_ledger(struct bundle_ctx *c, struct cd_buf *out);
CD_WUR int bundle_env(struct bundle_ctx *c, int member, struct cd_buf *out, struct cd_err *err);
CD_WUR int bundle_packages(struct bundle_ctx *c, struct cd_buf *out);

/* bundle_log.c */
void bundle_log_open(struct bundle_ctx *c, struct bundle_log *l, size_t index);
CD_WUR int bundle_log_write(struct bundle_ctx *c, struct bundle_log *l, struct cd_err *err);
void bundle_log_close(struct bundle_log *l);

#endif
