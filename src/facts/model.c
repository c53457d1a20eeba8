/* facts/model: names of the model facts' enums (see model.h). */
#include "facts/model.h"

const char *md_fstate_name(enum md_fstate s)
{
	switch (s) {
	case MD_F_OK: return "ok";
	case MD_F_MISSING: return "missing";
	case MD_F_DANGLING: return "dangling-symlink";
	case MD_F_LOOP: return "symlink-loop";
	case MD_F_UNREADABLE: return "unreadable";
	case MD_F_TRUNCATED: return "truncated";
	default: return "corrupt";
	}
}

const char *md_hub_state_name(enum md_hub_state s)
{
	switch (s) {
	case MD_HUB_OK: return "ok";
	case MD_HUB_NOT_FOUND: return "not-found";
	case MD_HUB_GATED: return "gated";
	case MD_HUB_DENIED: return "denied";
	case MD_HUB_UNREACHABLE: return "unreachable";
	default: return "not-asked";
	}
}
