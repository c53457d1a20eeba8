#!/usr/bin/env bash
# A last pass on the GPU machine: facts and faults (h200-check.sh), the peak
# memory of check broken down, and the error torch itself raises when the
# system cuDNN is first on LD_LIBRARY_PATH (cuda-doctor predicts lib-shadowed).
# Usage: scripts/hw/h200-final.sh CUDA_DOCTOR OUTDIR
set -u
cd_bin=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
mkdir -p "$out"
bash "$here/h200-check.sh" "$cd_bin" "$out" >/dev/null 2>&1
{
	echo "== check -v: peak memory"
	"$cd_bin" check -v | tail -1
	"$cd_bin" check -v --deep | tail -1
	echo "== torch with the system libraries first on LD_LIBRARY_PATH"
	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} "$py" -c '
import torch
x = torch.randn(8, 3, 32, 32, device="cuda")
print("cudnn", torch.backends.cudnn.version())
y = torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3, device="cuda"))
torch.cuda.synchronize()
print("conv ok")' 2>&1 | tail -4
	echo "== the same run through cuda-doctor run"
	LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-} "$cd_bin" run -- "$py" -c '
import torch
x = torch.randn(8, 3, 32, 32, device="cuda")
torch.nn.functional.conv2d(x, torch.randn(4, 3, 3, 3, device="cuda"))
torch.cuda.synchronize()' 2>&1 | tail -14
} >"$out/final.txt" 2>&1
cat "$out/final.txt"
