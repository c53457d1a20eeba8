/* facts/libs: names and lookups of the library facts (see libs.h). */
#include "facts/libs.h"

#include <stddef.h>

const char *libs_how_name(enum libs_how h)
{
	switch (h) {
	case LIBS_HOW_PROGRAM: return "program";
	case LIBS_HOW_NEEDED: return "needed";
	case LIBS_HOW_LD_PRELOAD: return "ld_preload";
	case LIBS_HOW_IMPORT: return "import";
	case LIBS_HOW_PRELOAD: return "torch_preload";
	case LIBS_HOW_DLOPEN: return "dlopen";
	}
	return NULL;
}

const struct cd_libs_facts *libs_facts(const struct cd_facts *f)
{
	return f->stack ? f->stack->libraries : NULL;
}
