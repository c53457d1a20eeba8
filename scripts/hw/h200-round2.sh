#!/usr/bin/env bash
# Validate the commands beyond `check` on a GPU machine: ldd against glibc's
# ldd and cuobjdump, jit (with a real --compile and a kernel run), model against
# transformers on small models saved there, and the benches beside the tools
# people use today. Usage: scripts/hw/h200-round2.sh CUDA_DOCTOR OUTDIR
set -u
cd_bin=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
mkdir -p "$out"
py=${PYTHON:-python3}
SP=$("$py" -c 'import site; print(site.getsitepackages()[0])')
cc -O2 -o /tmp/timeit "$top/bench/timeit.c" 2>/dev/null || gcc -O2 -o /tmp/timeit "$top/bench/timeit.c"
export TIMEIT=/tmp/timeit

{
	echo "== ldd: cuda-doctor vs glibc ldd"
	(cd "$top" && scripts/ldd-compare.sh -b "$cd_bin" "$SP"/torch/_C*.so "$SP"/torch/lib/*.so \
		"$SP"/nvidia/cudnn/lib/libcudnn.so.9 "$SP"/nvidia/nccl/lib/libnccl.so.2 2>&1 | tail -15)
	echo "== archs: cuda-doctor ldd vs cuobjdump --list-elf / --list-ptx"
	for f in "$SP/torch/lib/libtorch_cuda.so" "$SP"/nvidia/cudnn/lib/libcudnn_adv.so.9 "$SP"/nvidia/cu13/lib/libcublasLt.so.13; do
		[ -f "$f" ] || continue
		a=$(cuobjdump --list-elf "$f" 2>/dev/null | sed -n 's/.*\.\(sm_[0-9]*[af]\?\)\.cubin.*/\1/p' | sort -uV | tr '\n' ' ')
		p=$(cuobjdump --list-ptx "$f" 2>/dev/null | sed -n 's/.*\.\(sm_[0-9]*[af]\?\)\.ptx.*/\1/p' | sort -uV | tr '\n' ' ')
		j=$("$cd_bin" ldd --json --scan-data "$f" 2>/dev/null)
		b=$(jq -r '.archs.sass // [] | .[]' <<<"$j" 2>/dev/null | sort -uV | tr '\n' ' ')
		q=$(jq -r '.archs.ptx // [] | .[]' <<<"$j" 2>/dev/null | sed 's/compute_/sm_/' | sort -uV | tr '\n' ' ')
		echo "$(basename "$f") sass: cuobjdump [$a] cuda-doctor [$b] $([ "$a" = "$b" ] && echo SAME || echo DIFF)"
		echo "$(basename "$f") ptx:  cuobjdump [$p] cuda-doctor [$q] $([ "$p" = "$q" ] && echo SAME || echo DIFF)"
	done
	echo "== torch.cuda.get_arch_list()"
	"$py" -c 'import torch; print(torch.cuda.get_arch_list())'
	echo "== jit"
	"$cd_bin" jit 2>&1 | tail -30
	echo "== jit --compile -v"
	"$cd_bin" jit --compile -v 2>&1 | tail -25
	echo "== TORCH_CUDA_ARCH_LIST=8.0 jit --compile"
	TORCH_CUDA_ARCH_LIST=8.0 "$cd_bin" jit --compile 2>&1 | tail -15
	echo "== jit faults: an older toolkit as CUDA_HOME (expect nvcc-torch-mismatch)"
	t=$(mktemp -d); mkdir -p "$t/bin" "$t/include" "$t/lib64"
	cp /usr/local/cuda/include/*.h "$t/include/" 2>/dev/null
	printf '#!/bin/sh\nexit 1\n' >"$t/bin/nvcc"; chmod +x "$t/bin/nvcc"
	printf '{"cuda":{"version":"12.4.1"},"cuda_nvcc":{"version":"12.4.131"}}' >"$t/version.json"
	sed -i 's/#define CUDA_VERSION [0-9]*/#define CUDA_VERSION 12040/' "$t/include/cuda.h"
	CUDA_HOME=$t "$cd_bin" jit --json | jq -c '[.findings[] | {id, severity, title}]'
	echo "== jit faults: a host compiler newer than CUDA 13.0 accepts (expect host-compiler-unsupported)"
	mkdir -p "$t/cc"; printf '#!/bin/sh\ncase "$1" in -dumpfullversion|-dumpversion) echo 99.1.0;; *) exec /usr/bin/gcc "$@";; esac\n' >"$t/cc/gcc"
	chmod +x "$t/cc/gcc"
	CC=$t/cc/gcc "$cd_bin" jit --json | jq -c '[.findings[] | {id, severity, title}]'
	echo "== jit faults: cusparse.h missing from CUDA_HOME (expect toolkit-headers-missing, found elsewhere)"
	rm -f "$t/include/cusparse.h"
	printf '{"cuda":{"version":"13.0.0"},"cuda_nvcc":{"version":"13.0.88"}}' >"$t/version.json"
	sed -i 's/#define CUDA_VERSION [0-9]*/#define CUDA_VERSION 13000/' "$t/include/cuda.h"
	CUDA_HOME=$t "$cd_bin" jit --json | jq -c '[.findings[] | {id, severity, title, evidence}]'
	rm -rf "$t"
	echo "== explain: cross-checked with the real machine"
	printf 'RuntimeError: CUDA error: no kernel image is available for execution on the device\n' | "$cd_bin" explain - | tail -8
	printf 'RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver\n' | "$cd_bin" explain --json - | jq -c '.diagnoses[0] | {category, environment}'
	echo "== run -- a real CUDA OOM"
	"$cd_bin" run -- "$py" -c 'import torch; torch.empty(1<<46, dtype=torch.uint8, device="cuda")' 2>&1 | tail -12; echo "exit ${PIPESTATUS[0]}"
	echo "== run -- success passes through"
	"$cd_bin" run -- "$py" -c 'import torch; torch.zeros(1).cuda(); print("ok")'; echo "exit $?"
	echo "== python: CUDA_HOME"
	"$py" -c 'import torch.utils.cpp_extension as c; print(c.CUDA_HOME)'
} >"$out/round2.txt" 2>&1

# model: small real models saved by transformers, compared with its own counts.
{
	"$py" - <<'PY'
import json, torch
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM
res = {}
for name, C, M, shard in (("tiny-llama", LlamaConfig, LlamaForCausalLM, None),
                          ("tiny-qwen2-sharded", Qwen2Config, Qwen2ForCausalLM, "300KB")):
    m = M(C(num_hidden_layers=2, hidden_size=256, intermediate_size=512, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=1000)).to(torch.bfloat16)
    kw = {"max_shard_size": shard} if shard else {}
    m.save_pretrained("/tmp/" + name, **kw)
    res[name] = {"num_parameters": m.num_parameters(), "footprint": m.get_memory_footprint()}
print(json.dumps(res))
PY
	for m in tiny-llama tiny-qwen2-sharded; do
		echo "== cuda-doctor model /tmp/$m"
		"$cd_bin" model "/tmp/$m" --json | jq -c '{params: .model.weights.parameters, exact: .model.weights.parameters_exact, dtypes: .model.weights.dtypes, task: .model.task.name, memory: .model.memory, findings: [.findings[].id]}'
		"$cd_bin" model "/tmp/$m" | tail -12
	done
} >"$out/model.txt" 2>&1

{
	bash "$top/bench/check.sh" "$cd_bin" 21
	echo
	bash "$top/bench/ldd.sh" -b "$cd_bin" -n 11 "$SP/torch/lib/libtorch_cuda.so" "$SP"/torch/_C*.so
	echo
	bash "$top/bench/jit.sh" "$cd_bin" 11
	echo
	bash "$top/bench/model.sh" "$cd_bin"
} >"$out/bench.txt" 2>&1
tail -5 "$out/round2.txt"
