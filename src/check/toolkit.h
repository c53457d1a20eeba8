/* toolkit (check/toolkit.c): the one family that raises toolkit-missing and
 * toolkit-headers-missing. `check` (check_toolkit) and the jit checks
 * (check/jit/) call these builders with the evidence they have, so that the
 * same toolkit facts get the same id, severity and title from both commands;
 * the caller adds its own evidence and fixes. Findings are allocated from
 * out->arena; a builder returns NULL when there is nothing to raise (or
 * memory runs out). */
#ifndef CD_CHECK_TOOLKIT_H
#define CD_CHECK_TOOLKIT_H

#include <stddef.h>

#include "core/err.h"
#include "facts/facts.h"
#include "facts/finding.h"

/* The toolkit torch.utils.cpp_extension would build with, as a command saw it. */
struct toolkit_sel {
	const char *cuda_home; /* torch's CUDA_HOME; NULL: None */
	const char *via;       /* the selected toolkit's found_via; NULL when CUDA_HOME
				* names no toolkit directory (or unknown) */
	enum cd_tri exists;    /* CUDA_HOME is a directory; not YES without a selection */
	const char *nvcc;      /* its bin/nvcc, NULL when absent */
	const char *reason;    /* why torch takes it (the toolkit probe's selected_reason) */
	int other;	       /* another toolkit with nvcc is on disk */
	const char *expected;  /* why a build is expected here; NULL when nothing says so */
};

/* Why the environment shows that a JIT build is expected (TORCH_CUDA_ARCH_LIST,
 * TORCH_EXTENSIONS_DIR or a DS_BUILD_* variable is set), else NULL. */
const char *toolkit_build_expected(const struct cd_facts *f);

/* toolkit-missing when s cannot compile a CUDA extension: no CUDA_HOME, one
 * that is no toolkit directory, a toolkit without nvcc. NULL when it can.
 * Severity: error when a build is expected; else info, or warning when
 * CUDA_HOME names nothing. With the title, the detail and the evidence of
 * the situation. */
CD_WUR struct cd_finding *toolkit_missing(const struct toolkit_sel *s, const char *section,
					  struct cd_findings *out);
/* toolkit-headers-missing for the n files of names (headers, or lib<x>.so)
 * that a build does not find where it looks in the toolkit at root: error
 * when a build is expected (expected non-NULL), else warning. NULL when n is 0. */
CD_WUR struct cd_finding *toolkit_files_missing(const char *root, const char *const *names,
						size_t n, const char *expected, const char *section,
						struct cd_findings *out);

/* The same two findings raised from a failed test build's line alone (jit
 * --compile): nvcc not found, a header or library the build did not find. */
CD_WUR struct cd_finding *toolkit_missing_from_build(const char *line, const char *section,
						     struct cd_findings *out);
CD_WUR struct cd_finding *toolkit_files_from_build(const char *line, const char *section,
						   struct cd_findings *out);
/* The toolkit-missing / toolkit-headers-missing finding already in out, or NULL. */
struct cd_finding *toolkit_missing_raised(const struct cd_findings *out);
struct cd_finding *toolkit_files_raised(const struct cd_findings *out);

#endif
