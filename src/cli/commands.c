/* commands: the command table, help text and shared usage errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int cmd_planned(int argc, char **argv, struct cd_opts *opts)
{
	(void)argc;
	(void)opts;
	fprintf(stderr, "cuda-doctor %s: not available in this version yet\n", argv[0]);
	return CD_EXIT_USAGE;
}

static const struct cd_command commands[] = {
	{"check", cmd_check, "diagnose this machine / container / environment (default)",
	 "cuda-doctor check [--deep] [--host-driver] [--image-config FILE] [global options]\n"
	 "  Probe the driver, GPUs, CUDA toolkits, host, environment and the Python / PyTorch\n"
	 "  stack (packages, the libraries torch will load, GPU code in its fatbins); report\n"
	 "  findings.\n"
	 "  --deep   read every fatbin container and check every CUDA extension's ABI\n"
	 "           (default: a sample of 64 containers, the first 32 extensions)\n"
	 "  --host-driver        with --root DIR: also query this host's live driver and judge\n"
	 "                       the image under DIR against it: will it run here? (--root\n"
	 "                       alone queries no driver)\n"
	 "  --image-config FILE  with --root DIR: the image's configuration (docker inspect,\n"
	 "                       OCI image config or runtime config.json); its Env is the\n"
	 "                       environment probed, NVIDIA_REQUIRE_CUDA is judged\n"},
	{"explain", cmd_explain, "diagnose an error log, cross-checked with the environment",
	 "cuda-doctor explain [--no-env] [FILE...|-]\n"
	 "  Scan logs (stdin when no FILE, or '-') for known failures; rank the root cause\n"
	 "  first; cross-check with this machine (or --root) unless --no-env.\n"
	 "  exit: 1 when a diagnosis at error severity is found, 0 when none.\n"},
	{"run", cmd_run, "run a command, keep its output, explain it if it fails",
	 "cuda-doctor run [--log FILE] [--no-env] -- CMD [ARGS...]\n"
	 "  Run CMD, pass its stdout and stderr through, scan them as they stream; when it\n"
	 "  fails print the diagnosis to stderr. --log FILE keeps a copy of the output.\n"
	 "  exit: the command's own status (128+N for signal N, 127 if it cannot start).\n"},
	{"model", cmd_model, "pre-flight a Hugging Face model load",
	 "cuda-doctor model PATH|ORG/NAME [options]\n"
	 "  Check config.json, the installed transformers, weight headers and memory before\n"
	 "  from_pretrained() / pipeline() load the model (offline, no Python).\n"
	 "  --revision R           cache revision (branch, tag or commit; default main)\n"
	 "  --device cuda:N|cuda|cpu   where the model would load (default: all GPUs)\n"
	 "  --dtype auto|bf16|fp16|fp32|int8|int4   load dtype (default auto)\n"
	 "  --task TASK            the pipeline task, when it cannot be inferred\n"
	 "  --attn IMPL            attn_implementation (eager, sdpa, flash_attention_2, ...)\n"
	 "  --headroom F           fraction of free GPU memory a load may use (default 0.85)\n"
	 "  --seq-len N [--batch N]   add the KV cache for N tokens (batch default 1)\n"
	 "  --gpu-memory B[,B...]  free bytes per GPU instead of probing (80GiB, 24G, ...)\n"
	 "  --gpu-cc X.Y           compute capability of the GPUs (e.g. 7.5)\n"
	 "  --trust-remote-code    the load passes trust_remote_code=True\n"},
	{"ldd", cmd_ldd, "resolve a shared object's dependencies as the loader would",
	 "cuda-doctor ldd FILE [--ld-library-path PATH] [--preload LIST] [--dlopen NAME]...\n"
	 "                [--no-ld-so-preload] [--inhibit-cache] "
	 "[--scan-data|--no-scan-data|--no-archs]\n"
	 "  Resolve FILE's dependency tree as glibc's loader would, reading files only\n"
	 "  (nothing is loaded or run), and list the CUDA archs in FILE's .nv_fatbin.\n"
	 "  --ld-library-path PATH  use PATH instead of $LD_LIBRARY_PATH ('' for none)\n"
	 "  --preload LIST          use LIST instead of $LD_PRELOAD\n"
	 "  --dlopen NAME           also resolve dlopen(NAME) called from FILE (repeatable)\n"
	 "  --no-ld-so-preload      ignore /etc/ld.so.preload\n"
	 "  --inhibit-cache         do not use /etc/ld.so.cache (ld.so --inhibit-cache)\n"
	 "  --scan-data             always scan data sections for embedded fatbins (default:\n"
	 "                          when they total 64 MiB or less, or .nv_fatbin is empty)\n"
	 "  --no-scan-data          only the .nv_fatbin section\n"
	 "  --no-archs              do not read the CUDA archs (archs and fatbin are null)\n"
	 "  Exit 1 when a dependency is not found, 2 when FILE is missing or not ELF.\n"},
	{"jit", cmd_jit, "readiness to JIT-compile CUDA extensions (torch, DeepSpeed)",
	 "cuda-doctor jit [--op NAME]... [--compile] [--gpu-cc LIST] [--build-timeout SECONDS]\n"
	 "  Will torch.utils.cpp_extension and DeepSpeed's ops JIT-compile here? The toolkit\n"
	 "  torch would use, nvcc vs torch's CUDA, the host compiler, ninja, Python.h, the\n"
	 "  headers and libraries each op needs, TORCH_CUDA_ARCH_LIST, the extensions cache.\n"
	 "  --op NAME            judge only these ops (repeatable; cpp_extension, fused_adam,\n"
	 "                       cpu_adam, fused_lamb, cpu_adagrad, transformer_inference,\n"
	 "                       quantizer, inference_core_ops, evoformer_attn)\n"
	 "  --compile            build, load (and on a GPU run) a test extension with the same\n"
	 "                       nvcc, host compiler and flags torch uses (not with --root)\n"
	 "  --gpu-cc LIST        compute capabilities to assume (9.0,8.0 or none)\n"
	 "  --build-timeout S    bound on nvcc and on the link (default 300)\n"},
	{"probe", cmd_planned, "live GPU health test (planned)", NULL},
	{"gate", cmd_planned, "exit 1 when the environment violates a policy (planned)", NULL},
	{"diff", cmd_planned, "compare reports of many nodes (planned)", NULL},
	{"bundle", cmd_planned, "support bundle with secrets redacted (planned)", NULL},
	{"dockerfile", cmd_dockerfile, "lint a Dockerfile or Compose file for CUDA stacks",
	 "cuda-doctor dockerfile FILE [--host-driver VER|live [--brand B]] [--build-arg N=V]...\n"
	 "                       [--target STAGE] [--platform OS/ARCH] [--compose]\n"
	 "  Read FILE (a Dockerfile, or a Compose file: compose*.yaml, docker-compose*.yml,\n"
	 "  --compose; '-' for stdin) as BuildKit and Compose read it and report what breaks\n"
	 "  CUDA: unpinned CUDA / PyTorch base tags, CUDA code compiled on -runtime images,\n"
	 "  torch's CUDA build against the image's, TORCH_CUDA_ARCH_LIST unset for extension\n"
	 "  builds, the NVIDIA container toolkit's variables, GPU requests of services.\n"
	 "  --host-driver VER    also judge the final image against this driver (545.29.06):\n"
	 "                       would NVIDIA_REQUIRE_CUDA refuse it, for which GPU brands\n"
	 "  --host-driver live   ... against this host's driver (queried as check does)\n"
	 "  --brand B            the GPU brand for VER (tesla, nvidia, geforce, nvidiartx, ...)\n"
	 "  --build-arg N=V      as docker build --build-arg (default: the ARG defaults)\n"
	 "  --target STAGE       the stage built (default: the last)\n"
	 "  --platform OS/ARCH   the build platform (default linux/amd64: TARGETARCH=amd64)\n"
	 "  --compose            read FILE as a Compose file whatever its name\n"
	 "  # cuda-doctor ignore=ID[,ID] on the line above an instruction (or a service)\n"
	 "  drops those findings there; # cuda-doctor global ignore=ID anywhere drops them\n"
	 "  in the whole file (hadolint's pragma syntax; 'all' for every id).\n"
	 "  --format json|markdown|sarif (global): schema cuda-doctor.dockerfile/1, or a\n"
	 "  SARIF 2.1.0 log for code scanning. Rules, sources, JSON keys: docs/dockerfile.md.\n"
	 "  exit: 1 when a finding is an error, 0 otherwise, 2 on a usage error or when FILE\n"
	 "  cannot be read, is binary or is over 4 MiB.\n"},
	{"fix", cmd_planned, "remediation plan (planned)", NULL},
	{NULL, NULL, NULL, NULL},
};

const struct cd_command *cli_commands(void)
{
	return commands;
}

const struct cd_command *cli_find(const char *name)
{
	const struct cd_command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cuda-doctor%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'cuda-doctor %s--help'.\n", cmd ? "" : "");
	return CD_EXIT_USAGE;
}

int cli_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

static const char global_help[] =
	"global options (before or after the command):\n"
	"  --root DIR            read the filesystem under DIR as if it were /\n"
	"  --env PREFIX          the Python environment to inspect\n"
	"  --format text|json|markdown, --json\n"
	"  --no-color            no colour even on a terminal (NO_COLOR is honoured too)\n"
	"  -q, --quiet           print only problems\n"
	"  -v, --verbose         print more detail\n"
	"  --nvml-lib PATH       NVML library to load (default: libnvidia-ml.so.1 by the loader's "
	"search)\n"
	"  --cuda-lib PATH       CUDA driver library to load (default: libcuda.so.1)\n"
	"  --timeout SECONDS     bound on every live driver call (default 10)\n"
	"  -h, --help            this help;  --version  print the version\n"
	"exit status: 0 healthy, 1 findings at error severity, 2 usage error, 3 internal error\n";

void cli_help(const struct cd_command *c)
{
	const struct cd_command *k;

	if (c) {
		printf("cuda-doctor %s - %s\n\n", c->name, c->summary);
		if (c->usage)
			printf("%s\n", c->usage);
		fputs(global_help, stdout);
		return;
	}
	printf("cuda-doctor - why this GPU environment will not train or load a model, and the "
	       "fix\n\n"
	       "usage: cuda-doctor [global options] [command] [args]\n\ncommands:\n");
	for (k = commands; k->name; k++)
		printf("  %-12s %s\n", k->name, k->summary);
	printf("\n");
	fputs(global_help, stdout);
	printf("\nSee 'cuda-doctor COMMAND --help' and docs/usage.md.\n");
}
