#!/usr/bin/env bash
# Validate the wheel, the Python module, --format html and `cuda-doctor mcp`
# on a GPU machine (issue 15), with the real driver:
#   - the wheel (tools/wheel.py) installs into a fresh venv with no network;
#   - cuda_doctor.check() equals the binary's check --json; the GPUs are seen;
#   - preflight(require=["gpu", "bf16"]) passes on the H200, and raises with
#     CUDA_VISIBLE_DEVICES pointing at a GPU that does not exist;
#   - model() of a local checkpoint plans against the GPU's real free memory;
#   - check --format html renders in headless Chromium when one is installed;
#   - the mcp check tool returns the same report.
# The Hub is not reachable from that machine: tests/e2e/hub.bats covers it.
# Usage: scripts/hw/h200-python.sh CUDA_DOCTOR OUTDIR   (a summary in OUTDIR/python.txt)
set -u
cd_bin=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$here/../..
mkdir -p "$out"
py=${PYTHON:-python3}
sum="$out/python.txt"
: >"$sum"
note() { printf '%s\n' "$*" | tee -a "$sum"; }

"$py" "$repo/tools/wheel.py" --binary "$cd_bin" --version 0.0.0+hw --out "$out/dist" >>"$sum" 2>&1
v="$out/venv"
"$py" -m venv "$v" && PIP_NO_INDEX=1 "$v/bin/python" -m pip install -q --no-deps "$out"/dist/*.whl
[ -x "$v/bin/cuda-doctor" ] && note "wheel: installed, $("$v/bin/cuda-doctor" --version)" || note "wheel: FAILED"

"$v/bin/python" - "$out" <<'EOF' 2>&1 | tee -a "$sum"
import json, os, subprocess, sys, tempfile
import cuda_doctor
out = sys.argv[1]
r = cuda_doctor.check()
direct = json.loads(subprocess.run([cuda_doctor.binary(), "--env", sys.prefix, "check", "--json"],
                                   stdout=subprocess.PIPE, env=cuda_doctor._child_env()).stdout)
same = dict(r) == direct
print("check: %d GPU(s), driver %s, equals the binary: %s" % (len(r.get("gpus") or []),
      (r.get("driver") or {}).get("version"), same))
if not same:
    for k in r:
        if r[k] != direct.get(k):
            print("  differs: %s" % k)
try:
    cuda_doctor.preflight(require=["gpu", "bf16"])
    print("preflight gpu+bf16: passed")
except cuda_doctor.PreflightError as e:
    print("preflight gpu+bf16: RAISED\n%s" % e)
os.environ["CUDA_VISIBLE_DEVICES"] = "7"
try:
    cuda_doctor.preflight(require=["gpu"])
    print("preflight with CUDA_VISIBLE_DEVICES=7: did not raise (EXPECTED a raise on 1 GPU)")
except cuda_doctor.PreflightError as e:
    print("preflight with CUDA_VISIBLE_DEVICES=7: raised: %s" % [f["id"] for f in e.findings])
del os.environ["CUDA_VISIBLE_DEVICES"]
with open(os.path.join(out, "check.html"), "w") as fh:
    fh.write(r.html())
print("html: %d bytes" % len(r.html()))
EOF

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$chrome" ]; then
	HOME=$out "$chrome" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
		--window-size=1200,1600 --screenshot="$out/check.png" "file://$out/check.html" \
		>"$out/chrome.log" 2>&1
	note "html screenshot: $out/check.png; console messages: $(grep -c CONSOLE "$out/chrome.log")"
else
	note "html screenshot: skipped (no chromium)"
fi

req='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check","arguments":{}}}'
printf '%s\n' "$req" | "$cd_bin" mcp >"$out/mcp.json"
if diff <("$py" -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["result"]["structuredContent"], sort_keys=True))' "$out/mcp.json") \
	<("$cd_bin" check --json | "$py" -c 'import json,sys; print(json.dumps(json.load(sys.stdin), sort_keys=True))') >/dev/null; then
	note "mcp check: equals check --json"
else
	note "mcp check: DIFFERS (see $out/mcp.json)"
fi
