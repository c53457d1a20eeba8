/* cudaarch: see cudaarch.h. Section names from CUDA's fatbinary_section.h:
 * FATBIN_DATA_SECTION_NAME ".nv_fatbin" (linked code) and
 * FATBIN_PRELINK_DATA_SECTION_NAME "__nv_relfatbin" (relocatable code). */
#include "probe/cudaarch.h"

#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "probe/fmap.h"

#define FILE_MAX ((size_t)1 << 36)

int cudaarch_from_elf(const struct elf_file *e, struct cudaarch *out, struct cd_err *err)
{
	static const char *const names[] = {".nv_fatbin", "__nv_relfatbin"};
	struct elf_shdr sh;
	struct cd_span data;
	struct cd_err werr = {0};
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (elf_section_find(e, names[i], &sh) == 0)
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return 0;
	if (elf_section_data(e, &sh, &data))
		return err_set(err, CD_ERANGE, "%s: section outside the file", names[i]);
	out->has_fatbin = 1;
	out->section = names[i];
	out->bytes = data.n;
	out->walk_rc = fatbin_summarize(data.p, data.n, &out->sum, &werr);
	if (out->walk_rc)
		str_copy(out->walk_error, sizeof(out->walk_error), werr.msg);
	return 0;
}

int cudaarch_read(const struct cd_root *r, const char *path, struct cudaarch *out,
		  struct cd_err *err)
{
	struct cd_fmap m;
	struct elf_file e;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = fmap_open(r, path, FILE_MAX, &m, err);
	if (rc)
		return rc;
	rc = elf_parse(m.p, m.n, &e, err);
	if (!rc)
		rc = cudaarch_from_elf(&e, out, err);
	fmap_close(&m);
	return rc;
}
