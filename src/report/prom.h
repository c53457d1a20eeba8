/* prom: check's report in the Prometheus text exposition format, as
 * node_exporter's textfile collector reads it (docs/cluster.md, "Prometheus"):
 * cuda_doctor_info with the stack's versions as labels, the driver, GPU count,
 * memory and health, findings by id and severity. No timestamps, base units;
 * an unknown value is no sample (an info label: ""). Prints to out only;
 * CD_ENOMEM when the fingerprint cannot be computed. */
#ifndef CD_PROM_H
#define CD_PROM_H

#include <stdio.h>

#include "core/err.h"
#include "facts/facts.h"
#include "facts/finding.h"

CD_WUR int prom_report(FILE *out, const struct cd_facts *f, const struct cd_findings *fs);
/* probe's report: the driver, each device's result, step times and
 * measurements, NCCL's all-reduce, Xid lines during the probe, findings. */
CD_WUR int prom_probe(FILE *out, const struct cd_facts *f, const struct cd_findings *fs);

#endif
