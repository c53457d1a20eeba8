#!/usr/bin/env bash
# bench/probe.sh: time `cuda-doctor probe --quick` beside torch doing the same
# steps in one process (cuInit and a context on device 0, a 32 MiB pattern
# copied to the GPU and back and compared, a kernel whose output is checked,
# a one-block kernel's round trip, pinned host<->device bandwidth), in one
# run, and put the measurements of both side by side.
# Usage: bench/probe.sh [path/to/cuda-doctor] [runs]
# Targets (one H200): probe --quick <= 0.6 s wall, the tool's peak RSS <= 16 MB.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd_bin=${1:-$here/../build/cuda-doctor}
runs=${2:-10}
py=${PYTHON:-python3}
timeit=${TIMEIT:-$here/../build/bench/timeit}
[ -x "$timeit" ] || { mkdir -p "$(dirname "$timeit")"; cc -O2 -o "$timeit" "$here/timeit.c" || exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The same steps with torch, each measured the way the probe measures it.
cat >"$tmp/same_steps.py" <<'PY'
import json, time
t0 = time.perf_counter()
import torch
t_import = time.perf_counter()
torch.cuda.init()                                    # cuInit
dev = torch.device("cuda", 0)
torch.empty(1, device=dev); torch.cuda.synchronize()  # the primary context
t_ctx = time.perf_counter()
free, total = torch.cuda.mem_get_info(dev)
n = min(32 << 20, free // 8) // 4
h = torch.randint(-2**31, 2**31 - 1, (n,), dtype=torch.int32).pin_memory()
back = torch.empty_like(h).pin_memory()
d = h.to(dev, non_blocking=True)
back.copy_(d, non_blocking=True); torch.cuda.synchronize()
copy_ok = bool(torch.equal(h, back))
fill = torch.arange(n, device=dev, dtype=torch.int32).mul_(3).add_(7)  # a kernel
back.copy_(fill, non_blocking=True); torch.cuda.synchronize()
fill_ok = bool(torch.equal(back, torch.arange(n, dtype=torch.int32) * 3 + 7))
small = torch.zeros(32, device=dev)
rtt = []
for i in range(8):                                   # launch to completion
    t = time.perf_counter(); small.add_(1); torch.cuda.synchronize()
    rtt.append(time.perf_counter() - t)
e0, e1, e2 = (torch.cuda.Event(enable_timing=True) for _ in range(3))
up = down = None
for i in range(3):                                   # best of three, timed by events
    e0.record(); d.copy_(h, non_blocking=True); e1.record()
    back.copy_(d, non_blocking=True); e2.record(); e2.synchronize()
    u, w = e0.elapsed_time(e1), e1.elapsed_time(e2)
    up = u if up is None or u < up else up
    down = w if down is None or w < down else down
t_end = time.perf_counter()
print(json.dumps({
    "torch": torch.__version__, "cuda": torch.version.cuda,
    "import_ms": (t_import - t0) * 1e3, "init_context_ms": (t_ctx - t_import) * 1e3,
    "copy_ok": copy_ok, "fill_ok": fill_ok, "bytes": n * 4,
    "kernel_round_trip_us": min(rtt[1:]) * 1e6,
    "h2d_bytes_per_s": n * 4 * 1e3 / up, "d2h_bytes_per_s": n * 4 * 1e3 / down,
    "steps_ms": (t_end - t_import) * 1e3, "wall_ms": (t_end - t0) * 1e3}))
PY

row() { # name runs cmd...
	local name=$1 n=$2
	shift 2
	read -r med min rss st < <("$timeit" "$n" "$@")
	printf '%-40s %8.1f ms (min %7.1f)  rss %6.1f MB  exit %s\n' "$name" "$med" "$min" \
		"$(echo "$rss" | awk '{print $1/1024}')" "$st"
	LAST=$med
}

echo "bench/probe.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
row "cuda-doctor probe --quick" "$runs" "$cd_bin" probe --quick
ours=$LAST
row "cuda-doctor probe --quick --devices 0" "$runs" "$cd_bin" probe --quick --devices 0
"$cd_bin" probe --quick --devices 0 --json >"$tmp/probe.json"
if ! "$py" -c 'import torch' 2>/dev/null; then
	echo "torch: absent ($py)"
	exit 0
fi
row "python3 same steps with torch" 3 "$py" "$tmp/same_steps.py"
theirs=$LAST
"$py" "$tmp/same_steps.py" >"$tmp/torch.json" || exit 0
echo
"$py" - "$tmp/probe.json" "$tmp/torch.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
d = p["devices"][0]; m = d["measurements"]; s = d["steps"]
def us(x): return "unknown" if x is None else "%.1f ms" % (x / 1e3)
def gb(x): return "unknown" if x is None else "%.1f GB/s" % (x / 1e9)
print("%-34s %-22s %s" % ("", "cuda-doctor probe", "torch %s (CUDA %s)" % (t["torch"], t["cuda"])))
print("%-34s %-22s %s" % ("cuInit + context", us((s["init"]["us"] or 0) + (s["context"]["us"] or 0)),
                          "%.1f ms (torch.cuda.init + first tensor)" % t["init_context_ms"]))
print("%-34s %-22s %s" % ("copy of %d MiB verified" % (m["alloc_bytes"] >> 20), s["copy"]["result"],
                          "ok" if t["copy_ok"] else "WRONG"))
print("%-34s %-22s %s" % ("kernel output verified", s["launch"]["result"], "ok" if t["fill_ok"] else "WRONG"))
print("%-34s %-22s %s" % ("kernel round trip (best of 7)", "%s us" % m["kernel_round_trip_us"],
                          "%.1f us (add_ + synchronize)" % t["kernel_round_trip_us"]))
print("%-34s %-22s %s" % ("pinned host to device", gb(m["h2d_bytes_per_s"]), gb(t["h2d_bytes_per_s"])))
print("%-34s %-22s %s" % ("pinned device to host", gb(m["d2h_bytes_per_s"]), gb(t["d2h_bytes_per_s"])))
print("%-34s %-22s %s" % ("PTX JIT of the kernels", us(s["module"]["us"]), "none (torch ships SASS)"))
print("%-34s %-22s %s" % ("the tool's own process, peak", "%.1f MB" % (p["peak_rss_kb"] / 1024), ""))
print("%-34s %-22s %s" % ("steps, in-process", us(p["wall_us"]), "%.0f ms (after import torch %.0f ms)"
                          % (t["steps_ms"], t["import_ms"])))
PY
awk -v a="$theirs" -v b="$ours" 'BEGIN{printf "\ntorch same steps / cuda-doctor probe --quick: %.1fx\n", a/b}'
exit 0
