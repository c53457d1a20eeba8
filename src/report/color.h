/* color: the ANSI attributes of the text reports, and col(), which gives one
 * only when the report is coloured (render_init: a tty without NO_COLOR).
 * Shared by every text renderer; nothing here allocates or fails. */
#ifndef CD_COLOR_H
#define CD_COLOR_H

#include "report/render.h"

#define C_RED  "\033[31m"
#define C_YEL  "\033[33m"
#define C_GRN  "\033[32m"
#define C_DIM  "\033[2m"
#define C_BOLD "\033[1m"
#define C_OFF  "\033[0m"

static inline const char *col(const struct cd_render *r, const char *c)
{
	return r->color ? c : "";
}

#endif
