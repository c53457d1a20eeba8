#!/usr/bin/env bash
# The Python / PyTorch stack on a GPU machine: torch's libraries against
# /proc/<pid>/maps (validate.py) as it is and with faults injected, the
# wheel-pin check on an environment whose nvidia-nccl wheel is moved past
# torch's pin, and details left open by earlier runs.
# Usage: scripts/hw/h200-round3.sh CUDA_DOCTOR OUTDIR
set -u
cd_bin=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
mkdir -p "$out"
py=${PYTHON:-python3}
SP=$("$py" -c 'import site; print(site.getsitepackages()[0])')
ids() { "$py" -c 'import json,sys; r=json.load(sys.stdin); print(" ".join(x["id"]+":"+x["severity"] for x in r["findings"]))'; }

"$py" "$here/validate.py" "$cd_bin" "$out/validation.md" >/dev/null 2>"$out/validate.err"
# The system cuDNN 9.14 / NCCL first on LD_LIBRARY_PATH: what torch really maps, and what we predict.
LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} "$py" "$here/validate.py" "$cd_bin" \
	"$out/validation-sys-first.md" >/dev/null 2>>"$out/validate.err"
LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} "$py" "$here/validate.py" "$cd_bin" \
	"$out/validation-toolkit-first.md" >/dev/null 2>>"$out/validate.err"
{
	echo "== findings with the system libraries first"
	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} "$cd_bin" check --json | ids
	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} "$cd_bin" check | sed -n '/Findings/,$p' | head -40
	echo "== findings with the toolkit's lib64 first"
	LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-} "$cd_bin" check --json | ids
	echo "== an environment whose nvidia-nccl-cu13 wheel is moved past torch's pin"
	e=/tmp/venv-pin; rm -rf "$e"; mkdir -p "$e/lib/python3.12/site-packages" "$e/bin"
	cp "$(dirname "$SP")/../../pyvenv.cfg" "$e/" 2>/dev/null
	ln -s "$(readlink -f "$(dirname "$SP")/../../bin/python3")" "$e/bin/python3"
	for x in "$SP"/*; do ln -s "$x" "$e/lib/python3.12/site-packages/"; done
	d=$(ls -d "$SP"/nvidia_nccl_cu13-*.dist-info | head -1); b=$(basename "$d")
	rm "$e/lib/python3.12/site-packages/$b"; cp -r "$d" "$e/lib/python3.12/site-packages/$b"
	sed -i 's/^Version: .*/Version: 2.29.1/' "$e/lib/python3.12/site-packages/$b/METADATA"
	"$cd_bin" --env "$e" check --json | ids
	"$cd_bin" --env "$e" check | sed -n '/Findings/,$p' | head -20
	echo "== family-specific cubins: how cuobjdump names compute_100f code"
	t=$(mktemp -d); printf '__global__ void k(float *x){x[0]=1;}\n' >"$t/k.cu"
	nvcc -c -gencode arch=compute_100f,code=sm_100f -gencode arch=compute_90a,code=sm_90a -o "$t/k.o" "$t/k.cu" 2>&1 | tail -3
	cuobjdump --list-elf "$t/k.o"
	"$cd_bin" ldd --json "$t/k.o" 2>/dev/null | "$py" -c 'import json,sys; print(json.load(sys.stdin).get("archs"))'
	rm -rf "$t"
	echo "== transformers' configuration_auto.py layout"
	grep -n "CONFIG_MAPPING_NAMES" "$SP/transformers/models/auto/configuration_auto.py" | head -5
	grep -n '"llama"' "$SP/transformers/models/auto/configuration_auto.py" | head -3
	echo "== check -v"
	"$cd_bin" check -v | tail -25
} >"$out/round3.txt" 2>&1
{
	bash "$top/bench/check.sh" "$cd_bin" 21
	bash "$top/bench/jit.sh" "$cd_bin" 15
} >"$out/bench.txt" 2>&1
grep -E "NO|match" "$out"/validation*.md
