/* stack: placeholder */
#include "check/check.h"

void check_stack(const struct cd_facts *f, struct cd_findings *out)
{
	(void)f;
	(void)out;
}
