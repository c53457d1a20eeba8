/* bundle: the archive of `cuda-doctor bundle`: check's report (text, JSON,
 * Markdown), each log given (a bounded head and tail) with its explanation,
 * nvidia-smi -q, the kernel module's version, the kernel log's NVRM / Xid
 * lines, the package lists, the environment, a README and the redaction
 * ledger, every member redacted by data/redact_rules.tsv unless no_redact,
 * written as one .tar.gz into the caller's sink (nothing is sent anywhere).
 * A log that cannot be read is named in the README, not fatal; a rule that
 * fails, or the sink, fails the whole bundle (CD_E* with err set). */
#ifndef CD_BUNDLE_H
#define CD_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/opts.h"
#include "format/targz.h"

#define BUNDLE_LOGS_MAX	 16
#define BUNDLE_HEAD	 ((uint64_t)4 << 20) /* bytes kept from the start of a long log */
#define BUNDLE_TAIL	 ((uint64_t)4 << 20) /* and from its end */
#define BUNDLE_TOP	 "cuda-doctor-bundle"
#define BUNDLE_WHY_MAX	 320
#define BUNDLE_BINARY_AT 8192 /* a NUL byte this early makes a file binary */

struct bundle_opts {
	const struct cd_opts *opts;
	const char *logs[BUNDLE_LOGS_MAX];
	size_t n_logs;
	int no_redact;
	const char *fail_rule; /* tests: the redaction rule made to fail */
	int64_t mtime;	       /* of every member */
};

struct bundle_result {
	size_t members;
	uint64_t bytes;	     /* of the members, before compression */
	uint64_t redactions; /* values replaced, every rule */
	size_t rules_hit;
	size_t n_left_out; /* logs not collected, and why */
	char left_out[BUNDLE_LOGS_MAX][BUNDLE_WHY_MAX];
};

CD_WUR int bundle_write(const struct bundle_opts *bo, targz_sink sink, void *ctx,
			struct bundle_result *res, struct cd_err *err);

#endif
