/* probe_render: the views of a `cuda-doctor probe` report: text, JSON
 * (schema cuda-doctor.probe/1, every key in docs/probe.md), Markdown and the
 * Nagios status line. They only read f->live, the driver facts and the
 * findings, and print to the given stream; the JSON tree belongs to the
 * caller (json_decref), NULL only when memory runs out. */
#ifndef CD_PROBE_RENDER_H
#define CD_PROBE_RENDER_H

#include <jansson.h>
#include <stdio.h>

#include "core/err.h"
#include "report/render.h"

#define CD_PROBE_SCHEMA "cuda-doctor.probe/1"

enum probe_nagios_status {
	PROBE_NAGIOS_OK = 0,
	PROBE_NAGIOS_WARNING = 1,
	PROBE_NAGIOS_CRITICAL = 2,
	PROBE_NAGIOS_UNKNOWN = 3
};

CD_WUR json_t *probe_json(const struct cd_facts *f, const struct cd_findings *fs);
void probe_text(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs);
void probe_markdown(const struct cd_render *r, const struct cd_facts *f,
		    const struct cd_findings *fs);
/* What a monitoring plugin reports: UNKNOWN when nothing could be probed at
 * all, else CRITICAL / WARNING / OK from the worst finding. */
enum probe_nagios_status probe_nagios_status(const struct cd_facts *f,
					     const struct cd_findings *fs);
/* "CUDA PROBE OK - ... | perfdata", one line. */
void probe_nagios(FILE *out, const struct cd_facts *f, const struct cd_findings *fs);
/* Counts of devices by their worst result (CD_LIVE_* as index). */
void probe_counts(const struct cd_facts *f, size_t counts[6]);

#endif
