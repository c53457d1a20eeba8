#!/usr/bin/env bash
# The validation run of `cuda-doctor probe` on a real GPU machine, in one call
# and well under 5 minutes: build; the probe in each mode (quick, full, NCCL
# with the libnccl.so.2 import torch loads, --nagios, JSON, Markdown);
# CUDA_VISIBLE_DEVICES and --devices variants; the faults that can be made
# without touching a GPU setting (no device visible, a GPU that is not there,
# a toolkit stub as libcuda, a tight --timeout); the same measurements with
# torch in the same run (bench/probe.sh); facts beside nvidia-smi's. Never
# changes a GPU setting (MIG mode, compute mode, clocks) and never resets one.
# Usage: [CD_BIN=BINARY] scripts/hw/probe-validate.sh [OUTDIR]   (default: $OUT, else ./probe-validate)
# Everything lands in OUTDIR; summary.txt is the one to read first.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-${OUT:-$PWD/probe-validate}}
py=${PYTHON:-python3}
mkdir -p "$out"
: >"$out/summary.txt"
exec 3>>"$out/summary.txt"
say() {
	echo "$*"
	echo "$*" >&3
}

cd "$top" || exit 1
say "== probe-validate on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ), $(git rev-parse --short HEAD 2>/dev/null)"
# CD_BIN: a binary built elsewhere (the GPU machine may lack the build
# dependencies; the binary needs glibc only)
cd_bin=${CD_BIN:-$top/build/cuda-doctor}
if [ -z "${CD_BIN:-}" ] && ! make -j"$(nproc)" >"$out/build.log" 2>&1 &&
	! { make deps && make -j"$(nproc)"; } >>"$out/build.log" 2>&1; then
	say "build failed: see build.log"
	exit 1
fi
nvidia-smi -L >"$out/nvidia-smi-L.txt" 2>&1
nvidia-smi --query-gpu=index,uuid,name,pci.bus_id,memory.total,mig.mode.current,compute_mode,driver_version \
	--format=csv >"$out/nvidia-smi-query.csv" 2>&1
nvidia-smi topo -m >"$out/nvidia-smi-topo.txt" 2>&1
say "$(head -3 "$out/nvidia-smi-L.txt")"

# run NAME [ENV=V ...] -- ARGS...: the probe with a time limit; output, exit
# status and wall time kept.
run() {
	local name=$1 t0 t1 rc
	shift
	local envs=()
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	t0=$(date +%s%N)
	env ${envs[@]+"${envs[@]}"} timeout 120 "$cd_bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
	rc=$?
	t1=$(date +%s%N)
	say "$(printf '%-28s exit %-3s %7.3f s  %s' "$name" "$rc" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN{print (b-a)/1e9}')" "${envs[*]} $*")"
}

# j NAME FILTER: a jq-like look into a JSON output, with python3.
j() {
	"$py" -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"d": d}))' "$out/$1.out" "$2" 2>/dev/null
}

say ""
say "== the probe"
for i in 1 2 3; do run "quick-json-$i" -- probe --quick --json; done
run quick-text -- probe --quick -v
run quick-markdown -- probe --quick --format markdown
run full-json -- probe --full --json --timeout 60
run nccl-json -- probe --nccl --json --timeout 60
run full-nccl-json -- probe --full --nccl --json --timeout 60
run nagios -- probe --nagios
run print-ptx -- probe --print-ptx
run check-json -- check --json

say ""
say "== results"
for n in quick-json-1 quick-json-2 quick-json-3 full-json nccl-json full-nccl-json; do
	say "$(printf '%-16s wall %s us, rss %s KB, %s' "$n" "$(j "$n" 'd["wall_us"]')" \
		"$(j "$n" 'd["peak_rss_kb"]')" \
		"$(j "$n" '", ".join("%s %s" % (x["label"], x["result"]) for x in d["devices"])')")"
	say "    steps: $(j "$n" '" ".join("%s=%s/%s" % (k, v["result"], v["us"]) for k, v in d["devices"][0]["steps"].items())')"
	say "    measurements: $(j "$n" 'd["devices"][0]["measurements"]')"
done
say "    nccl: $(j nccl-json '{k: d["nccl"][k] for k in ("path", "source", "version", "ranks", "bus_bytes_per_s")}')"
say "    nccl steps: $(j nccl-json '[(k, d["nccl"][k]["result"], d["nccl"][k]["error"]) for k in ("load", "init", "allreduce")]')"
say "    peers: $(j full-json 'd["peers"]["child"]["result"], d["peers"]["child"]["error"]')"
say "    xid: $(j quick-json-1 'd["xid"]["readable"], d["xid"]["error"], len(d["xid"]["events"])')"
say "    gpus: $(j quick-json-1 '[(g["name"], g["mig_enabled"], g["recovery_action_name"], g["retired_pages_dbe"], g["row_remap_pending"]) for g in d["gpus"]]')"
say "    findings: $(j quick-json-1 '[(f["id"], f["severity"]) for f in d["findings"]]')"
say "    nagios: $(cat "$out/nagios.out")"
say "    JIT log: $(j quick-json-1 'd["devices"][0]["jit_log"]')"
say "    probe vs nvidia-smi: $(j quick-json-1 '[(x["uuid"], x["name"], x["pci_bus_id"], x["memory_total_bytes"]) for x in d["devices"]]')"
say "    check vs probe (driver): $(j check-json '(d["driver"]["version"], d["driver"]["cuda_version"])')"
if command -v ptxas >/dev/null 2>&1; then
	for a in sm_90 sm_100 sm_120; do
		ptxas -arch="$a" "$out/print-ptx.out" -o "$out/ptx-$a.cubin" 2>>"$out/ptxas.err" &&
			say "    ptxas $a: ok"
	done
fi

say ""
say "== CUDA_VISIBLE_DEVICES and --devices"
uuid=$(j quick-json-1 'd["devices"][0]["uuid"]')
run cvd-0 CUDA_VISIBLE_DEVICES=0 -- probe --json
run cvd-uuid CUDA_VISIBLE_DEVICES="${uuid:0:12}" -- probe --json
run cvd-none CUDA_VISIBLE_DEVICES= -- probe --json
run cvd-missing CUDA_VISIBLE_DEVICES=0,7 -- probe --json
run cvd-only-missing CUDA_VISIBLE_DEVICES=7 -- probe --json
run devices-0 -- probe --devices 0 --json
run devices-bad -- probe --devices 9
for n in cvd-0 cvd-uuid cvd-none cvd-missing cvd-only-missing devices-0; do
	say "$(printf '    %-18s devices %s; findings %s; note %s' "$n" \
		"$(j "$n" '[(x["label"], x["result"]) for x in d["devices"]]')" \
		"$(j "$n" '[f["id"] for f in d["findings"] if f["severity"] != "info"]')" \
		"$(j "$n" 'd["cuda_visible_devices_note"]')")"
done
say "    devices-bad: $(cat "$out/devices-bad.err")"

say ""
say "== faults that change no GPU setting"
stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/*/lib/stubs/libcuda.so 2>/dev/null | head -1)
if [ -n "$stub" ]; then
	run stub -- probe --json --cuda-lib "$stub"
	say "    stub: $(j stub '[(f["id"], f["title"]) for f in d["findings"] if f["severity"] == "error"]')"
fi
run timeout-0.3 -- probe --json --timeout 0.3
say "    --timeout 0.3: $(j timeout-0.3 '[(x["label"], x["result"], [(k, v["result"], v["call"]) for k, v in x["steps"].items() if v["result"] == "hung"]) for x in d["devices"]]')"
run no-jit-cache CUDA_DISABLE_PTX_JIT=1 -- probe --json
say "    CUDA_DISABLE_PTX_JIT=1: $(j no-jit-cache 'd["devices"][0]["steps"]["module"]')"

say ""
say "== beside torch (bench/probe.sh)"
PYTHON=$py bash "$top/bench/probe.sh" "$cd_bin" 10 >"$out/bench.txt" 2>&1
cat "$out/bench.txt"
cat "$out/bench.txt" >&3
"$py" -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.cuda.nccl.version())' \
	>"$out/torch.txt" 2>&1
say "$(cat "$out/torch.txt")"
say ""
say "== done: $out"
