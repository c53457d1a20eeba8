/* gen_reports: N realistic `check --json` reports of a fleet of 8-GPU nodes,
 * for bench/diff.sh. The template is a real report (the golden report of
 * torch's wheel layout on the fake H200, tests/e2e/golden/check/torch-h200.json,
 * taken to 8 GPUs); nodes vary as fleets do: most are identical, some have
 * another driver, another NCCL, a GPU missing, NCCL_* variables set, ECC
 * errors, a shadowed library; identity keys (host name, GPU UUIDs) differ on
 * every node. Fingerprints are stamped by cuda-doctor's own code.
 * Usage: gen_reports TEMPLATE N DIR      one file per node, DIR/gpuNNNNNN.json
 *        gen_reports TEMPLATE N -        JSON lines on stdout */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet.h"

static const char *const order[] = {"schema",	"tool",	     "host",	   "driver",
				    "gpus",	"toolkit",   "python",	   "packages",
				    "torch",	"libraries", "frameworks", "env",
				    "container", "findings"};

static uint64_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Per mille chance. */
static int chance(uint64_t *s, unsigned pm)
{
	return rnd(s) % 1000 < pm;
}

static void set_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, json_string(v));
}

static json_t *lib_item(json_t *r, const char *soname)
{
	json_t *items = json_object_get(json_object_get(r, "libraries"), "items"), *x;
	size_t i;

	json_array_foreach (items, i, x)
		if (json_is_string(json_object_get(x, "soname")) &&
		    !strcmp(json_string_value(json_object_get(x, "soname")), soname))
			return x;
	return NULL;
}

static void finding(json_t *r, const char *id, const char *sev, const char *section,
		    const char *title)
{
	json_array_append_new(json_object_get(r, "findings"),
			      json_pack("{s:s, s:s, s:s, s:s, s:n, s:[], s:[]}", "id", id,
					"severity", sev, "section", section, "title", title,
					"detail", "evidence", "fix"));
}

static json_t *node(const json_t *tmpl, size_t i, uint64_t *s)
{
	json_t *r = json_deep_copy(tmpl), *gpus = json_object_get(r, "gpus"), *g, *out;
	json_t *vars = json_object_get(json_object_get(r, "env"), "variables");
	char host[32], uuid[64];
	size_t k;

	snprintf(host, sizeof(host), "gpu%06zu", i + 1);
	set_str(json_object_get(r, "host"), "hostname", host);
	json_array_foreach (gpus, k, g) {
		snprintf(uuid, sizeof(uuid), "GPU-%08zx-%04zx-4d37-b2e5-c4f81a7d0936", i, k);
		set_str(g, "uuid", uuid);
	}
	if (chance(s, 10)) { /* another driver */
		json_t *d = json_object_get(r, "driver");
		set_str(d, "version", "570.124.06");
		set_str(d, "nvml_version", "12.570.124.06");
		set_str(d, "kernel_module_version", "570.124.06");
		set_str(d, "cuda_version", "12.8");
		json_object_set_new(d, "cuda_version_int", json_integer(12080));
		finding(r, "driver-too-old", "error", "driver",
			"The driver supports CUDA 12.8; torch 2.11.0+cu130 needs 13.0");
	}
	if (chance(s, 5)) { /* another NCCL wheel */
		json_t *x = lib_item(r, "libnccl.so.2");
		set_str(json_object_get(r, "torch"), "nccl_version", "2.27.3");
		if (x) {
			set_str(x, "version", "2.27.3");
			set_str(x, "owner", "nvidia-nccl-cu13 2.27.3");
		}
		set_str(json_object_get(r, "packages"), "nvidia-nccl-cu13", "2.27.3");
	}
	if (chance(s, 5)) { /* a GPU fell off the bus */
		json_array_remove(gpus, json_array_size(gpus) - 1);
		json_object_set_new(json_object_get(r, "driver"), "gpu_count",
				    json_integer((json_int_t)json_array_size(gpus)));
	}
	if (chance(s, 5))
		set_str(vars, "NCCL_IB_DISABLE", "1");
	if (chance(s, 3))
		set_str(vars, "NCCL_SOCKET_IFNAME", "eth0");
	if (chance(s, 2))
		set_str(vars, "CUDA_VISIBLE_DEVICES", "0,1,2,3");
	if (chance(s, 2)) { /* uncorrectable ECC errors on one GPU */
		g = json_array_get(gpus, rnd(s) % json_array_size(gpus));
		json_object_set_new(g, "ecc_volatile_uncorrected", json_integer(2));
		json_object_set_new(g, "ecc_aggregate_uncorrected", json_integer(7));
		finding(r, "gpu-ecc-errors", "error", "gpus", "Uncorrectable ECC errors on a GPU");
	}
	if (chance(s, 2)) { /* LD_LIBRARY_PATH pulls the system cuDNN first */
		set_str(vars, "LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu");
		set_str(json_object_get(r, "torch"), "cudnn_version", "9.14.0");
		finding(r, "lib-shadowed", "error", "python",
			"libcudnn.so.9 is loaded from /usr/lib/x86_64-linux-gnu");
	}
	/* check's key order, then the fleet object (cuda-doctor's own code). */
	out = json_object();
	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		json_object_set(out, order[k], json_object_get(r, order[k]));
	json_decref(r);
	return fleet_stamp(out, 0);
}

/* The template at 8 GPUs, with its fixture paths made plain. */
static json_t *load_template(const char *path)
{
	json_error_t e;
	json_t *t = json_load_file(path, 0, &e), *gpus, *g0;
	size_t k;

	if (!t) {
		fprintf(stderr, "gen_reports: %s: %s\n", path, e.text);
		exit(2);
	}
	json_object_del(t, "fleet");
	set_str(json_object_get(t, "tool"), "root", "/");
	gpus = json_object_get(t, "gpus");
	g0 = json_deep_copy(json_array_get(gpus, 0));
	json_array_clear(gpus);
	for (k = 0; k < 8; k++) {
		json_t *g = json_deep_copy(g0);
		char bus[32];
		snprintf(bus, sizeof(bus), "00000000:%02zX:00.0", 0x18 + 0x10 * k);
		json_object_set_new(g, "index", json_integer((json_int_t)k));
		set_str(g, "pci_bus_id", bus);
		json_array_append_new(gpus, g);
	}
	json_object_set_new(json_object_get(t, "driver"), "gpu_count", json_integer(8));
	json_decref(g0);
	return t;
}

int main(int argc, char **argv)
{
	json_t *t;
	uint64_t seed = 1;
	size_t n, i;
	char path[4096];

	if (argc != 4) {
		fprintf(stderr, "usage: gen_reports TEMPLATE N DIR|-\n");
		return 2;
	}
	t = load_template(argv[1]);
	n = strtoul(argv[2], NULL, 10);
	for (i = 0; i < n; i++) {
		json_t *r = node(t, i, &seed);
		if (!strcmp(argv[3], "-")) {
			json_dumpf(r, stdout, JSON_COMPACT);
			fputc('\n', stdout);
		} else {
			snprintf(path, sizeof(path), "%s/gpu%06zu.json", argv[3], i + 1);
			if (json_dump_file(r, path, JSON_INDENT(2))) {
				fprintf(stderr, "gen_reports: cannot write %s\n", path);
				return 1;
			}
		}
		json_decref(r);
	}
	json_decref(t);
	return 0;
}
