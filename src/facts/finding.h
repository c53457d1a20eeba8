/* finding: what a check concluded, with evidence and a fix to paste.
 * A findings list lives in an arena (usually the facts' arena) and is freed
 * with it. Ids are stable slugs from docs/findings.md; never rename one.
 * findings_add returns NULL only when memory runs out. */
#ifndef CD_FINDING_H
#define CD_FINDING_H

#include <stddef.h>

#include "core/arena.h"
#include "core/err.h"

enum cd_severity { CD_SEV_INFO = 0, CD_SEV_WARNING = 1, CD_SEV_ERROR = 2 };

const char *severity_name(enum cd_severity s);

#define CD_FINDING_LINES_MAX 16

struct cd_finding {
	const char *id;
	enum cd_severity severity;
	const char *section; /* "driver", "gpus", "toolkit", "env", "container", "host", ... */
	const char *title;
	const char *detail;
	size_t n_evidence;
	const char *evidence[CD_FINDING_LINES_MAX];
	size_t n_fix;
	const char *fix[CD_FINDING_LINES_MAX];
	/* Where in a file the finding is (dockerfile, compose): line 0 is none. */
	const char *file;
	unsigned line, end_line;
};

struct cd_findings {
	struct cd_arena *arena;
	size_t n, cap;
	struct cd_finding **items;
};

void findings_init(struct cd_findings *fs, struct cd_arena *arena);
CD_WUR struct cd_finding *findings_add(struct cd_findings *fs, const char *id, enum cd_severity sev,
				       const char *section, const char *title_fmt, ...)
	__attribute__((format(printf, 5, 6)));
void finding_detail(struct cd_finding *f, struct cd_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void finding_evidence(struct cd_finding *f, struct cd_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void finding_fix(struct cd_finding *f, struct cd_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void finding_at(struct cd_finding *f, const char *file, unsigned line, unsigned end_line);
/* Sort by severity (errors first), then section, then id; stable output. */
void findings_sort(struct cd_findings *fs);
/* Sort by severity, then file and line, then id (findings of one file). */
void findings_sort_located(struct cd_findings *fs);
enum cd_severity findings_worst(const struct cd_findings *fs);
const struct cd_finding *findings_find(const struct cd_findings *fs, const char *id);

#endif
