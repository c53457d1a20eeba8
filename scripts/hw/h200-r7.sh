#!/usr/bin/env bash
# Run r7 on the GPU machine, in one call: probe's Prometheus view against its
# JSON, the guard-rails refactor (before/after binaries), explain's speed, and
# where present the performance record (perf.sh) and the image-against-host
# check (docker-host.sh). Binaries are built on the development machine:
#   .hw/bin/new/cuda-doctor (main), .hw/bin/old/cuda-doctor (before the rails)
# Usage: scripts/hw/h200-r7.sh   (writes under $OUT/r7, then $OUT/r7.tgz)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
B=$top/.hw/bin/new/cuda-doctor
O=$top/.hw/bin/old/cuda-doctor
R=${OUT:-/tmp}/r7
mkdir -p "$R"
chmod +x "$B" "$O" 2>/dev/null
{
	"$B" --version
	nvidia-smi --query-gpu=name,driver_version,compute_cap,uuid --format=csv,noheader
} >"$R/env.txt" 2>&1
step() { # NAME SECONDS CMD...
	local name=$1 t=$2
	shift 2
	timeout "$t" "$@" >"$R/$name.log" 2>&1
	echo "$name rc=$?" >>"$R/rc.txt"
}
# probe: the same run as JSON and as metrics
step probe-json 60 "$B" probe --json -o "$R/probe.json"
step probe-prom 60 "$B" probe --format prometheus -o "$R/probe.prom"
step probe-nagios 60 "$B" probe --nagios
step rails 240 bash "$here/rails-check.sh" "$O" "$B" "$R/rails"
step explain-bench 120 bash "$top/bench/explain.sh" "$B" 256
[ -x "$here/perf.sh" ] || [ -f "$here/perf.sh" ] && COLD_RUNS=5 step perf 300 bash "$here/perf.sh" "$B" "$R/perf" 21
[ -f "$here/docker-host.sh" ] && step docker-host 120 bash "$here/docker-host.sh" "$B" "$R/docker"
cat "$R/rc.txt"
find "$R" -name '*.tar.gz' -delete
tar czf "${OUT:-/tmp}/r7.tgz" -C "$(dirname "$R")" r7
