/* hostcc: host-compiler bounds of nvcc (hostcc.h). */
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "kb/hostcc.h"
#include "kb/kb.h"

int kb_max_host_compiler(int nvcc_major, int nvcc_minor, const char *family, int torch_table)
{
	const char *col = family && !strcmp(family, "clang")
				  ? (torch_table ? "max_clang_major_torch_cpp_extension"
						 : "max_clang_major_host_config")
				  : (torch_table ? "max_gcc_major_torch_cpp_extension"
						 : "max_gcc_major_host_config");
	char exact[16], later[16];
	struct kb_tsv t;
	int fallback = -1;

	if (nvcc_major < 0 || kb_tsv_open(&t, "host_compiler.tsv"))
		return -1;
	snprintf(exact, sizeof(exact), "%d.%d", nvcc_major, nvcc_minor);
	snprintf(later, sizeof(later), "%d.x", nvcc_major);
	while (kb_tsv_next(&t)) {
		const char *v = kb_tsv_get(&t, "cuda_version");
		if (v && !strcmp(v, exact))
			return kb_cell_int(kb_tsv_get(&t, col));
		/* "13.x (later minor, unspecified)": minors after the listed ones. */
		if (v && str_has_prefix(v, later) && !torch_table)
			fallback = kb_cell_int(kb_tsv_get(&t, col));
	}
	return fallback;
}
