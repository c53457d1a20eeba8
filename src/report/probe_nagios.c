/* probe_nagios: the status line of `probe --nagios` for Slurm NHC,
 * node-problem-detector and monitoring plugins: "CUDA PROBE <STATUS> - text |
 * perfdata" (the Nagios plugin output format), one line. The status comes
 * from the worst finding; UNKNOWN when nothing could be probed and nothing
 * says why. */
#include <string.h>

#include "facts/live.h"
#include "report/probe_render.h"

static const char *names[] = {"OK", "WARNING", "CRITICAL", "UNKNOWN"};

enum probe_nagios_status probe_nagios_status(const struct cd_facts *f, const struct cd_findings *fs)
{
	enum cd_severity w = findings_worst(fs);
	size_t c[6];

	if (!f->live)
		return PROBE_NAGIOS_UNKNOWN;
	probe_counts(f, c);
	if (w == CD_SEV_ERROR)
		return PROBE_NAGIOS_CRITICAL;
	if (!c[CD_LIVE_PASSED])
		return PROBE_NAGIOS_UNKNOWN; /* nothing ran, and no finding says why */
	return w == CD_SEV_WARNING ? PROBE_NAGIOS_WARNING : PROBE_NAGIOS_OK;
}

/* The first finding at the status's severity: what the line says. */
static const struct cd_finding *headline(const struct cd_findings *fs, enum cd_severity s)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->items[i]->severity == s)
			return fs->items[i];
	return NULL;
}

/* A title without characters the plugin format reserves ('|'). */
static void put_clean(FILE *o, const char *s)
{
	for (; *s; s++)
		fputc(*s == '|' || *s == '\n' ? ' ' : *s, o);
}

static void perfdata(FILE *o, const struct cd_live_facts *lf, const size_t *c)
{
	size_t i;

	fprintf(o, " | devices=%zu passed=%zu failed=%zu hung=%zu crashed=%zu", lf->n_devices,
		c[CD_LIVE_PASSED], c[CD_LIVE_FAILED], c[CD_LIVE_HUNG], c[CD_LIVE_CRASHED]);
	if (lf->wall_us != CD_UNK)
		fprintf(o, " wall=%.3fs", (double)lf->wall_us / 1e6);
	for (i = 0; i < lf->n_devices && i < 16; i++) {
		const struct cd_live_device *d = &lf->devices[i];
		if (d->h2d_bps != CD_UNK)
			fprintf(o, " h2d_gbps_%zu=%.1f", i, (double)d->h2d_bps / 1e9);
		if (d->d2h_bps != CD_UNK)
			fprintf(o, " d2h_gbps_%zu=%.1f", i, (double)d->d2h_bps / 1e9);
		if (d->kernel_rtt_us != CD_UNK)
			fprintf(o, " rtt_%zu=%lldus", i, (long long)d->kernel_rtt_us);
	}
}

void probe_nagios(FILE *o, const struct cd_facts *f, const struct cd_findings *fs)
{
	enum probe_nagios_status st = probe_nagios_status(f, fs);
	const struct cd_live_facts *lf = f->live;
	const struct cd_finding *x = NULL;
	size_t c[6];

	probe_counts(f, c);
	fprintf(o, "CUDA PROBE %s - ", names[st]);
	if (st == PROBE_NAGIOS_CRITICAL)
		x = headline(fs, CD_SEV_ERROR);
	else if (st == PROBE_NAGIOS_WARNING)
		x = headline(fs, CD_SEV_WARNING);
	if (x) {
		put_clean(o, x->title);
		fprintf(o, " [%s]; ", x->id);
	}
	if (!lf) {
		fprintf(o, "nothing was probed\n");
		return;
	}
	fprintf(o, "%zu of %zu device%s passed", c[CD_LIVE_PASSED], lf->n_devices,
		lf->n_devices == 1 ? "" : "s");
	if (lf->wall_us != CD_UNK)
		fprintf(o, " in %.2f s", (double)lf->wall_us / 1e6);
	perfdata(o, lf, c);
	fputc('\n', o);
}
