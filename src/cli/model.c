/* model: `cuda-doctor model PATH|ORG/NAME` -- parse the options, probe the
 * model (and the GPUs unless --gpu-memory says what they are), plan the
 * memory, check, render. Exit 1 on error findings, 2 on usage errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/model/model.h"
#include "cli/cli.h"
#include "core/str.h"
#include "probe/probe.h"
#include "report/model_render.h"

#define CMD "model"

struct margs {
	struct md_request mreq;
	struct mp_request req;
};

/* --gpu-memory B[,B...]: a usage error naming what is wrong with it. */
static int gpu_memory(struct mp_request *r, const char *v)
{
	char tok[64];
	const char *p = v;

	r->n_gpu_mem = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (r->n_gpu_mem == MP_GPUS_MAX)
			return cli_usage_error(
				CMD, "--gpu-memory: more than %d GPUs (at most %d values)",
				MP_GPUS_MAX, MP_GPUS_MAX);
		str_ncopy(tok, sizeof(tok), p, len < sizeof(tok) ? len : sizeof(tok) - 1);
		if (len == 0 || len >= sizeof(tok) ||
		    str_parse_bytes(tok, &r->gpu_mem[r->n_gpu_mem++]))
			return cli_usage_error(
				CMD,
				"--gpu-memory: '%.*s' of '%.32s%s': expected BYTES "
				"(suffixes K M G T, KiB..TiB, KB..TB), comma-separated",
				(int)(len > 32 ? 32 : len), p, v, strlen(v) > 32 ? "..." : "");
		p += len + (p[len] == ',');
	}
	return r->n_gpu_mem ? 0 : cli_usage_error(CMD, "--gpu-memory: no value");
}

static int one_of(const char *v, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(v, *set))
			return 1;
	return 0;
}

static int set_opt(struct margs *a, const char *name, const char *v)
{
	static const char *const dtypes[] = {"auto", "bf16", "fp16", "fp32", "int8", "int4", NULL};
	static const char *const attns[] = {
		"eager", "sdpa", "flash_attention_2", "flash_attention_3", "flex_attention", NULL};
	struct mp_request *r = &a->req;
	char *end;
	uint64_t n;

	if (!strcmp(name, "--revision"))
		a->mreq.revision = v;
	else if (!strcmp(name, "--device")) {
		if (strcmp(v, "cpu") && strcmp(v, "cuda") &&
		    !(str_has_prefix(v, "cuda:") && !str_to_u64(v + 5, &n) && n < MP_GPUS_MAX))
			return cli_usage_error(CMD, "--device '%s': expected cuda:N, cuda or cpu",
					       v);
		r->device = v;
	} else if (!strcmp(name, "--dtype")) {
		if (!one_of(v, dtypes))
			return cli_usage_error(CMD,
					       "--dtype '%s': expected auto, bf16, fp16, fp32, "
					       "int8 or int4",
					       v);
		r->dtype = strcmp(v, "auto") ? v : NULL;
	} else if (!strcmp(name, "--task")) {
		r->task = v;
	} else if (!strcmp(name, "--attn")) {
		if (!one_of(v, attns))
			return cli_usage_error(CMD,
					       "--attn '%s': expected eager, sdpa, "
					       "flash_attention_2, flash_attention_3 or "
					       "flex_attention",
					       v);
		r->attn = v;
	} else if (!strcmp(name, "--headroom")) {
		errno = 0;
		r->headroom = strtod(v, &end);
		if (end == v || *end || errno || !(r->headroom > 0 && r->headroom <= 1))
			return cli_usage_error(CMD,
					       "--headroom '%s': expected a fraction in (0, 1]", v);
	} else if (!strcmp(name, "--seq-len") || !strcmp(name, "--batch")) {
		if (str_to_u64(v, &n) || n == 0)
			return cli_usage_error(CMD, "%s '%s': expected a positive integer", name,
					       v);
		if (n > (1ULL << 32))
			return cli_usage_error(CMD, "%s %s: larger than the %llu this plan handles",
					       name, v, 1ULL << 32);
		*(name[2] == 's' ? &r->seq_len : &r->batch) = (int64_t)n;
	} else if (!strcmp(name, "--gpu-memory")) {
		return gpu_memory(r, v);
	} else if (!strcmp(name, "--gpu-cc")) {
		if (ver_cuda_int(v) < 1000 || !strchr(v, '.'))
			return cli_usage_error(CMD, "--gpu-cc '%s': expected X.Y, e.g. 8.0", v);
		r->gpu_cc = v;
	} else {
		return cli_usage_error(CMD, "unknown option '%s'", name);
	}
	return 0;
}

static int parse(int argc, char **argv, struct margs *a)
{
	static const char *const valued[] = {"--revision",   "--device",   "--dtype",	"--task",
					     "--attn",	     "--headroom", "--seq-len", "--batch",
					     "--gpu-memory", "--gpu-cc",   NULL};
	int i, rc, dashdash = 0;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq = strchr(arg, '=');
		char name[32];
		if (!dashdash && !strcmp(arg, "--")) {
			dashdash = 1; /* the end of the options, as for every command */
			continue;
		}
		if (!dashdash && !strcmp(arg, "--trust-remote-code")) {
			a->req.trust_remote_code = 1;
			continue;
		}
		if (dashdash || arg[0] != '-' || !strcmp(arg, "-")) {
			if (a->mreq.spec)
				return cli_usage_error(CMD, "unexpected argument '%s'", arg);
			a->mreq.spec = arg;
			continue;
		}
		str_ncopy(name, sizeof(name), arg, eq ? (size_t)(eq - arg) : strlen(arg));
		if (!one_of(name, valued))
			return cli_usage_error(CMD, "unknown option '%s'", arg);
		if (!eq && i + 1 >= argc)
			return cli_usage_error(CMD, "%s needs a value", name);
		if (!*(eq ? eq + 1 : argv[i + 1]))
			return cli_usage_error(CMD, "%s: empty value", name);
		rc = set_opt(a, name, eq ? eq + 1 : argv[++i]);
		if (rc)
			return rc;
	}
	if (!a->mreq.spec)
		return cli_usage_error(CMD, "which model? give PATH or ORG/NAME");
	if (a->req.batch != CD_UNK && a->req.seq_len == CD_UNK)
		return cli_usage_error(CMD, "--batch needs --seq-len");
	if (a->req.seq_len != CD_UNK && a->req.batch == CD_UNK)
		a->req.batch = 1;
	return 0;
}

/* MemAvailable from /proc/meminfo (under --root), for --device cpu. */
static int64_t mem_available(struct cd_facts *f)
{
	struct cd_buf b;
	int64_t v = CD_UNK;
	char *p;
	unsigned long long kb;

	buf_init(&b, 1 << 16);
	if (!file_read(&f->root, "/proc/meminfo", 1 << 16, &b, NULL) &&
	    (p = strstr(b.p, "MemAvailable:")) && sscanf(p + 13, "%llu", &kb) == 1 &&
	    kb < (1ULL << 50))
		v = (int64_t)(kb * 1024);
	buf_free(&b);
	return v;
}

int cmd_model(int argc, char **argv, struct cd_opts *opts)
{
	struct margs a;
	struct cd_facts f;
	struct cd_model_facts m;
	struct cd_model_plan p;
	struct cd_findings fs;
	struct cd_render r;
	struct cd_err err = {0};
	struct driver_pending *drv = NULL;
	int live, rc;

	memset(&a, 0, sizeof(a));
	a.req.headroom = 0.85;
	a.req.seq_len = a.req.batch = CD_UNK;
	rc = parse(argc, argv, &a);
	if (rc)
		return rc;
	facts_init(&f, opts);
	if (root_init(&f.root, opts->root, &err)) {
		facts_free(&f);
		return cli_usage_error(NULL, "%s", err.msg);
	}
	/* The driver's children run while the checkpoint's files are read (the model
	 * probe reads no driver fact); the plan needs both. */
	live = !a.req.n_gpu_mem && (!a.req.device || strcmp(a.req.device, "cpu"));
	if (live)
		drv = driver_probe_start_basic(&f);
	a.req.mem_available = mem_available(&f);
	a.req.visible_devices = facts_getenv(&f, "CUDA_VISIBLE_DEVICES");
	model_probe(&f, &a.mreq, &m);
	if (live)
		driver_probe_finish(&f, drv);
	model_plan(&f, &m, &a.req, &f.arena, &p);
	findings_init(&fs, &f.arena);
	check_model(&f, &m, &a.req, &p, &fs);
	findings_sort(&fs);
	render_init(&r, opts, CMD);
	rc = model_render(&r, &f, &m, &a.req, &p, &fs) ? CD_EXIT_INTERNAL
	     : findings_worst(&fs) == CD_SEV_ERROR     ? CD_EXIT_FINDINGS
						       : CD_EXIT_OK;
	if (fflush(stdout) != 0 && !rc)
		rc = CD_EXIT_INTERNAL;
	facts_free(&f);
	return rc;
}
