/* libFuzzer target: format/yamltree and format/compose on arbitrary bytes
 * (libyaml's events, anchors, merge keys, interpolation), then the Compose
 * rules of check/dockerfile/compose.c against a host of two GPUs. The first
 * byte picks whether a host driver is given. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check/dockerfile/compose.h"
#include "format/compose.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct dfc_host h = {"535.104.05", "12.2", "tesla", "NVIDIA H100", 2, "fuzz", NULL};
	struct dfc_opts o = {"fuzz.yml", NULL, "amd64"};
	struct cd_arena a;
	struct cd_findings fs;
	struct dfc_report rep;
	struct cd_err e = {0};
	struct cmp_file f;
	size_t i, k;

	if (!n)
		return 0;
	if (p[0] & 1)
		o.host = &h;
	arena_init(&a);
	if (compose_parse(p + 1, n - 1, &a, &f, &e) == 0)
		for (i = 0; i < f.n; i++) {
			if (!f.services[i].name || f.services[i].n_devices > CMP_DEVICES_MAX ||
			    f.services[i].n_env > CMP_ENV_MAX)
				__builtin_trap();
			for (k = 0; k < f.services[i].n_env; k++)
				if (!f.services[i].env[k].name)
					__builtin_trap();
		}
	findings_init(&fs, &a);
	if (check_compose_file("fuzz.yml", p + 1, n - 1, &o, &fs, &rep, &e) == 0)
		for (i = 0; i < fs.n; i++)
			if (!fs.items[i]->line || !fs.items[i]->title)
				__builtin_trap();
	arena_free(&a);
	return 0;
}
