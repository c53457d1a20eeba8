/* toolkit: placeholder until the probe lands. */
#include "probe/probe.h"

void toolkit_probe(struct cd_facts *f)
{
	(void)f;
}
