/* commands: the command table, help text and shared usage errors. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct cd_command commands[] = {
	{"check", cmd_check, "diagnose this machine / container / environment (default)",
	 "cuda-doctor check [--deep] [--volatile] [--full-json] [-o FILE] [--host-driver]\n"
	 "                  [--image-config FILE] [global options]\n"
	 "  Probe the driver, GPUs, CUDA toolkits, host, environment and the Python / PyTorch\n"
	 "  stack (packages, the libraries torch will load, GPU code in its fatbins); report\n"
	 "  findings.\n"
	 "  --deep               read every fatbin container and check every CUDA extension's\n"
	 "                       ABI (default: a sample of 64 containers, the first 32\n"
	 "                       extensions)\n"
	 "  --volatile           keep free and used GPU memory in the JSON (null otherwise, so\n"
	 "                       identical nodes print identical reports)\n"
	 "  --full-json          --format markdown: fold the whole JSON report in (by default\n"
	 "                       the Markdown stays under GitHub's 65,536-character limit)\n"
	 "  -o FILE              write the report to FILE.tmp, then rename it over FILE\n"
	 "  --host-driver        with --root DIR: also query this host's live driver and judge\n"
	 "                       the image under DIR against it: will it run here? (--root\n"
	 "                       alone queries no driver)\n"
	 "  --image-config FILE  with --root DIR: the image's configuration (docker inspect,\n"
	 "                       OCI image config or runtime config.json); its Env is the\n"
	 "                       environment probed, NVIDIA_REQUIRE_CUDA is judged\n"},
	{"explain", cmd_explain, "diagnose an error log, cross-checked with the environment",
	 "cuda-doctor explain [--no-env] [--no-guess] [FILE...|-]\n"
	 "  Scan logs (stdin when no FILE, or '-'; at most 64) for known failures; rank the\n"
	 "  root cause first; cross-check with this machine (or --root) unless --no-env.\n"
	 "  When no signature matches, a category is guessed from the log's words unless\n"
	 "  --no-guess (then the lines that look like the failure stay `unknown`); when no\n"
	 "  line looks like a failure (a hang), clear words give an informational hint.\n"
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
	{"probe", cmd_probe, "live GPU health test: one child per GPU, hung is not failed",
	 "cuda-doctor probe [--devices LIST] [--quick|--full] [--nccl] [--nagios] [-o FILE]\n"
	 "  Run the real CUDA path on every visible GPU and MIG instance, each in its own\n"
	 "  child under per-step deadlines and the whole --timeout (default 10 s): cuInit, a\n"
	 "  context, memory written and read back, the embedded PTX JIT-compiled, kernels\n"
	 "  launched and verified, pinned copy bandwidth. Each step ends passed, failed (the\n"
	 "  CUresult by name), hung, skipped or crashed. Xid lines of the kernel log and\n"
	 "  NVML's recovery state are explained. check never does any of this.\n"
	 "  --quick          the steps above (default)\n"
	 "  --full           also half the free memory pattern-tested, an integer loop on\n"
	 "                   every SM, and the peer matrix with verified peer copies\n"
	 "  --devices LIST   only these: visible ordinals (0,2) or GPU-/MIG- UUID prefixes\n"
	 "  --nccl           an all-reduce through the libnccl.so.2 import torch would load\n"
	 "  --nccl-lib PATH  that library instead (implies --nccl)\n"
	 "  --nagios         one status line; exit 0/1/2/3 = OK/WARNING/CRITICAL/UNKNOWN\n"
	 "  --print-ptx      print the PTX the probe runs, and exit\n"
	 "  -o FILE          write the report to FILE.tmp, then rename it over FILE\n"
	 "                   (--format prometheus: node_exporter's textfile collector)\n"
	 "  exit: 0 all passed, 1 a step failed, hung or crashed, 2 usage, 3 internal.\n"},
	{"gate", cmd_gate, "exit 1 when the environment violates a policy",
	 "cuda-doctor gate [--policy FILE]... [--require EXPR]... [--allow FINDING-ID]... [-o "
	 "FILE]\n"
	 "  Run check, then judge every requirement (docs/gate.md): driver >= 535, cuda >= 12.1,\n"
	 "  cuda.runtime, torch >= 2.3, < 2.6, torch.cuda, cudnn, nccl >= 2.18, nvcc, python,\n"
	 "  gpu.count >= 8, gpu.cc >= 8.0, gpu.memory >= 80GiB, header cusparse.h,\n"
	 "  package flash-attn [>= 2.5], no-errors, no-warnings, probe. With no requirement\n"
	 "  given, the policy is no-errors.\n"
	 "  --policy FILE      one requirement per line, '#' comments, 'allow ID' lines\n"
	 "  --require EXPR     one requirement (repeatable)\n"
	 "  --allow ID         no-errors and no-warnings ignore this finding (repeatable)\n"
	 "  -o FILE            write the table (or --json) to FILE.tmp, then rename it\n"
	 "  exit: 0 every requirement met, 1 one is not (a table of each), 2 a policy that\n"
	 "  does not parse (file, line and reason).\n"},
	{"diff", cmd_diff, "what differs across the check reports of many nodes",
	 "cuda-doctor diff [--must-match KEYS] [--html FILE] [--verify] [-o FILE]\n"
	 "                 REPORT.json...|DIR|-\n"
	 "  Group check --json reports (files, directories of *.json, '-' for a stream on\n"
	 "  stdin) by fingerprint; show each group as its difference from the majority, each\n"
	 "  key that differs with the hosts of each minority value (gpu[017,233-235]), and\n"
	 "  the findings only some nodes have (docs/diff.md). --json prints JSON lines.\n"
	 "  --must-match KEYS  keys that must agree (comma-separated; aliases driver, cuda,\n"
	 "                     cuda-runtime, torch, torch-cuda, cudnn, nccl, nccl-env; globs\n"
	 "                     like env.variables.NCCL_*); default: driver, cuda-runtime,\n"
	 "                     torch, cudnn, nccl, nccl-env; '' for none\n"
	 "  --html FILE        also write one self-contained page: a node x key grid\n"
	 "  --verify           read every report whole (default: the head of a report whose\n"
	 "                     fingerprint was already read and checked)\n"
	 "  exit: 0 the must-match keys agree, 1 they differ, 2 an input was unreadable.\n"},
	{"bundle", cmd_bundle, "support bundle: one .tar.gz with secrets redacted",
	 "cuda-doctor bundle [-o FILE] [--log FILE]... [--no-redact]\n"
	 "  Write one .tar.gz to attach to a ticket: check's report (text, JSON, Markdown),\n"
	 "  each log with its explanation, nvidia-smi -q, the driver's version, the kernel\n"
	 "  log's NVRM/Xid lines, the package lists, the environment and a README. Every\n"
	 "  file is redacted (tokens, passwords, keys, host and user names, GPU UUIDs and\n"
	 "  serials, addresses); ledger.tsv inside says what was replaced, never the value.\n"
	 "  Nothing is uploaded.\n"
	 "  -o FILE       the archive (default cuda-doctor-bundle-<UTC time>.tar.gz; - stdout)\n"
	 "  --log FILE    a log to include (repeatable, up to 16; a long one keeps its first\n"
	 "                and last 4 MiB)\n"
	 "  --no-redact   redact nothing (the README and ledger say so)\n"
	 "  exit: 0 written, 2 usage, 3 a redaction rule or the write failed (nothing kept).\n"},
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
	{"fix", cmd_fix, "one ordered plan from the findings; the torch to install here",
	 "cuda-doctor fix [--apply] [--yes] [--for torch|deepspeed|vllm|jax] [--torch X.Y[.Z]]\n"
	 "                [--wheel FILE] [--jit] [--model PATH|ORG/NAME]\n"
	 "  The findings of check as one ordered plan (root causes first; each step the\n"
	 "  commands to paste, why, how to check it), and the torch wheel for this machine:\n"
	 "  every CUDA variant of the release judged against the driver and every GPU.\n"
	 "  --torch X.Y[.Z]   the release to install (default: the installed one, else the\n"
	 "                    newest cuda-doctor knows)\n"
	 "  --wheel FILE      read a torch .whl's arch list from its fatbin\n"
	 "  --for WHAT        torch (default); deepspeed adds jit's findings; vllm takes the\n"
	 "                    torch vLLM pins; jax leaves the torch line out\n"
	 "  --jit             add `cuda-doctor jit`'s findings and the extensions cache\n"
	 "  --model SPEC      add `cuda-doctor model SPEC`'s findings (its defaults)\n"
	 "  --apply           do the local, reversible steps (implies --jit): move stale\n"
	 "                    extension builds and locks into a dated backup folder, write\n"
	 "                    cuda-doctor.env; asks before each step, prints how to undo\n"
	 "  --yes             do not ask\n"},
	{"mcp", cmd_mcp, "Model Context Protocol server over stdio, for AI assistants",
	 "cuda-doctor [global options] mcp\n"
	 "  Serve the Model Context Protocol (JSON-RPC 2.0, one message per line) on stdin and\n"
	 "  stdout until stdin ends. Tools: check, explain, model, jit (fix once it lands);\n"
	 "  each runs this binary with the global options given here and returns its JSON\n"
	 "  report. See docs/mcp.md for the client configuration.\n"},
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

int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
		return 1;
	}
	if (argv[*i][n])
		return 0;
	*val = *i + 1 < argc ? argv[++*i] : NULL;
	return 1;
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
	"  --format text|json|markdown|html, --json\n"
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
