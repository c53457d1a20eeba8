/* gate: a policy (format/policy.h) judged against the facts and findings of
 * check, for `cuda-doctor gate`: one result per requirement with what was
 * found and, for a violation, why and the finding that explains it
 * (data/gate_explain.tsv). Pure: reads facts, allocates its strings from the
 * facts' arena (an allocation failure leaves a string NULL, never a pass). */
#ifndef CD_GATE_H
#define CD_GATE_H

#include <stddef.h>

#include "facts/facts.h"
#include "facts/finding.h"
#include "format/policy.h"

enum gate_status { GATE_PASS = 0, GATE_FAIL };

struct gate_result {
	const struct policy_rule *rule;
	const char *origin; /* the policy file or "--require" the rule came from */
	enum gate_status status;
	const char *found;   /* "580.159.04", "8 GPUs", "absent", "unknown" */
	const char *why;     /* one line when it did not pass */
	const char *finding; /* the finding that explains a failure, NULL when none */
};

struct gate_policy {
	const struct policy_rule *rules;
	size_t n_rules;
	const char *const *origins; /* per rule, or NULL */
	const char *const *allow;   /* finding ids no-errors / no-warnings ignore */
	size_t n_allow;
};

/* One result per rule that is a requirement (allow lines give none), in the
 * policy's order, into out (room for p->n_rules); returns how many. */
size_t gate_eval(const struct cd_facts *f, const struct cd_findings *fs,
		 const struct gate_policy *p, struct gate_result *out);
/* Results that did not pass. */
size_t gate_failures(const struct gate_result *r, size_t n);

#endif
