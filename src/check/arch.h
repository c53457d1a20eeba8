/* arch: the builder of extension-abi-mismatch, which arch.c owns. Every
 * family that finds compiled code built against another torch (check_arch's
 * symbol check here, jit's DeepSpeed prebuilt ops in check/jit/jit_more.c)
 * raises it through arch_abi_finding, so the id, severity and title follow
 * one rule. The finding lives in out->arena; NULL only when memory runs out. */
#ifndef CD_CHECK_ARCH_H
#define CD_CHECK_ARCH_H

#include <stddef.h>

#include "core/err.h"
#include "facts/finding.h"

/* What shows that `what` was built against another torch than the one
 * installed: n_missing of the torch symbols it imports that the installed
 * torch (version `torch`) does not export; or, with n_missing 0, the
 * build's own record of the torch or CUDA it was made for (what is then a
 * plural: "DeepSpeed's prebuilt ops"). */
struct arch_abi {
	const char *what;
	size_t n_missing;
	const char *torch;
};

/* extension-abi-mismatch, error (the import or the op load fails), in the
 * report section given; the caller adds detail, evidence and fix. */
CD_WUR struct cd_finding *arch_abi_finding(struct cd_findings *out, const char *section,
					   const struct arch_abi *e);

#endif
