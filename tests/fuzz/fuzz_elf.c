/* fuzz_elf: every reader of src/format/elf*.c on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "format/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct cd_arena a;
	struct elf_file e;
	struct elf_dynamic d;
	struct elf_shdr sh;
	struct elf_phdr ph;
	struct elf_sym *syms;
	struct cd_span data;
	const char *interp;
	uint64_t off;
	size_t ns, i;
	uint32_t k;

	if (elf_parse(p, n, &e, NULL))
		return 0;
	arena_init(&a);
	for (k = 0; k < e.phnum && k < 64; k++)
		if (elf_phdr_get(&e, k, &ph) == 0)
			(void)elf_vaddr_to_offset(&e, ph.vaddr + 8, 16, &off);
	for (k = 0; k < e.shnum && k < 64; k++)
		if (elf_shdr_get(&e, k, &sh) == 0 && elf_section_data(&e, &sh, &data) == 0 &&
		    data.n)
			(void)data.p[data.n - 1];
	if (elf_section_find(&e, ".nv_fatbin", &sh) == 0)
		(void)elf_section_data(&e, &sh, &data);
	(void)elf_interp(&e, &interp);
	if (elf_dynamic_read(&e, &a, &d, NULL) == 0)
		for (i = 0; i < d.n_needed; i++)
			(void)d.needed[i][0];
	if (elf_dynsyms(&e, &a, &syms, &ns, NULL) == 0)
		for (i = 0; i < ns; i++)
			(void)(syms[i].name[0] + (syms[i].version ? syms[i].version[0] : 0));
	arena_free(&a);
	return 0;
}
