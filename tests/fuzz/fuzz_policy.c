/* libFuzzer target: format/policy on arbitrary bytes, as a file and as one
 * --require line; every rule it accepts must be NUL-terminated within its
 * fields and name a subject the language has. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static void check_rule(const struct policy_rule *r)
{
	size_t i;

	if (memchr(r->text, 0, sizeof(r->text)) == NULL ||
	    memchr(r->name, 0, sizeof(r->name)) == NULL ||
	    memchr(r->spec, 0, sizeof(r->spec)) == NULL || r->n_cmp > POLICY_CMP_MAX ||
	    !strcmp(policy_subject_name(r->subject), "?"))
		__builtin_trap();
	for (i = 0; i < r->n_cmp; i++) {
		int res;
		if (!memchr(r->cmp[i].value, 0, sizeof(r->cmp[i].value)))
			__builtin_trap();
		if (r->kind == POLICY_KIND_VERSION &&
		    policy_version_holds(r->cmp[i].value, &r->cmp[i], &res))
			__builtin_trap(); /* a value the parser took must compare */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static struct policy_rule rules[8];
	struct policy_rule one;
	struct cd_err err;
	size_t got = 0, i;

	if (policy_parse(p, n, rules, 8, &got, &err) == 0)
		for (i = 0; i < got; i++)
			check_rule(&rules[i]);
	else if (!memchr(err.msg, 0, sizeof(err.msg)))
		__builtin_trap();
	if (policy_parse_line(p, n, 0, &one, &err) == 1)
		check_rule(&one);
	return 0;
}
