/* check: pure functions from facts to findings, one file per family.
 * A check reads facts only (no I/O), appends findings to `out` and allocates
 * from out->arena. check_all runs every family in a fixed order. */
#ifndef CD_CHECK_H
#define CD_CHECK_H

#include "facts/facts.h"
#include "facts/finding.h"

void check_driver(const struct cd_facts *f, struct cd_findings *out);
void check_gpus(const struct cd_facts *f, struct cd_findings *out);
void check_toolkit(const struct cd_facts *f, struct cd_findings *out);
void check_env(const struct cd_facts *f, struct cd_findings *out);
void check_container(const struct cd_facts *f, struct cd_findings *out);
void check_stack(const struct cd_facts *f, struct cd_findings *out);
void check_compat(const struct cd_facts *f, struct cd_findings *out);
void check_libs(const struct cd_facts *f, struct cd_findings *out); /* libs.c: lib-* */
void check_arch(const struct cd_facts *f, struct cd_findings *out); /* arch.c */
/* image_host.c: the image under --root against this host (check --host-driver). */
void check_image_host(const struct cd_facts *f, struct cd_findings *out);

void check_all(const struct cd_facts *f, struct cd_findings *out);
/* check_all in two halves: check_early runs the families that read no
 * driver or GPU fact (env, container, stack), so `check` can run them while
 * the driver queries are still out; check_rest runs the others and sorts. */
void check_early(const struct cd_facts *f, struct cd_findings *out);
void check_rest(const struct cd_facts *f, struct cd_findings *out);

#endif
