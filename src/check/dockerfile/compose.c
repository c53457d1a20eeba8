/* compose: see compose.h. */
#include "check/dockerfile/compose.h"

int check_compose_file(const char *path, const uint8_t *p, size_t n, const struct dfc_opts *o,
		       struct cd_findings *out, struct dfc_report *rep, struct cd_err *err)
{
	(void)path, (void)p, (void)n, (void)o, (void)out, (void)rep;
	return err_set(err, CD_EFORMAT, "Compose files are not read yet");
}
