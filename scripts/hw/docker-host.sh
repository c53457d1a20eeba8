#!/usr/bin/env bash
# Validate `cuda-doctor --root DIR check --host-driver [--image-config FILE]`
# (an unpacked image judged against this host's live driver) and
# `dockerfile --host-driver live` on a GPU machine, against nvidia-smi. No
# Docker is needed: the images are fake roots built here, each with the
# configuration `docker inspect` would print for it:
#   cuda12   CUDA 12.8.1 runtime with cuda-compat 570.124.06 and nvidia/cuda
#            12.8.1's NVIDIA_REQUIRE_CUDA (data/cuda_images.tsv): starts on 580
#   cuda131  CUDA 13.1 needing cuda>=13.1: refused by a CUDA 13.0 driver
#   cuda131fc  the same with a forward-compatibility clause for this driver's
#            branch on data-center brands (synthetic, in NVIDIA's form): starts
#            only through it on this GPU's brand (image-cuda-compat-only)
#   libcuda  a libcuda.so.535.104.05 in /usr/lib/x86_64-linux-gnu (bundled: an
#            error), then one of this host's own version (a warning)
#   compat   cuda-compat 570.124.06 forced by LD_LIBRARY_PATH on a newer driver
# Usage: scripts/hw/docker-host.sh CUDA_DOCTOR OUTDIR
# Writes OUTDIR/docker-host.txt (PASS/FAIL per expectation and the facts) and
# each JSON report; exit 1 when an expectation fails.
set -u
[ $# -eq 2 ] || { sed -n '2,19p' "$0"; exit 2; }
cd_bin=$(realpath "$1")
out=$(mkdir -p "$2" && realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
py=${PYTHON:-python3}
log=$out/docker-host.txt
fails=0
: >"$log"

say() { echo "$*" | tee -a "$log"; }
# check NAME COND-TEXT ACTUAL EXPECTED
check() {
	if [ "$3" = "$4" ]; then say "PASS $1: $2 ($3)"; else say "FAIL $1: $2: got '$3', expected '$4'"; fails=$((fails + 1)); fi
}
# jget FILE EXPR: a Python expression over the report r (None prints "null").
jget() {
	"$py" -c 'import json,sys
r = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"r": r, "ids": lambda p="": sorted(f["id"] + ":" + f["severity"] for f in r["findings"] if f["id"].startswith(p))})
print("null" if v is None else (" ".join(v) if isinstance(v, list) else (str(v).lower() if isinstance(v, bool) else v)))' "$1" "$2" 2>/dev/null || echo "(unreadable)"
}

# ---- ground truth: nvidia-smi and the kernel module ----------------------------------------
smi_driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1 | tr -d ' ')
smi_cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
smi_gpus=$(nvidia-smi -L | grep -c '^GPU ')
smi_brand=$(nvidia-smi -q | sed -n 's/^ *Product Brand *: *//p' | head -1)
proc_ver=$(head -1 /proc/driver/nvidia/version 2>/dev/null | grep -oE '[0-9]{3}\.[0-9]+(\.[0-9]+)?' | head -1)
[ -n "$proc_ver" ] || proc_ver=null
say "nvidia-smi: driver $smi_driver, CUDA $smi_cuda, $smi_gpus GPU(s), brand $smi_brand; kernel module $proc_ver"
say "cuda-doctor: $("$cd_bin" --version)"

# ---- the fake images ------------------------------------------------------------------------
req() { awk -F'\t' -v c="$1" '$1 == c && $2 == "amd64" { print $3 }' "$top/data/cuda_images.tsv"; }
# image DIR CUDA_DIR VERSION: a root with a runtime-only toolkit of VERSION.
image() {
	local d=$1 c=$2 v=$3
	rm -rf "$d"
	mkdir -p "$d/etc" "$d/usr/local/$c/targets/x86_64-linux/lib" "$d/usr/lib/x86_64-linux-gnu"
	printf 'ID=ubuntu\nVERSION_ID="22.04"\n' >"$d/etc/os-release"
	printf '{"cuda": {"name": "CUDA SDK", "version": "%s"}, "cuda_cudart": {"name": "CUDA Runtime (cudart)", "version": "%s"}}\n' "$v" "$v" >"$d/usr/local/$c/version.json"
	: >"$d/usr/local/$c/targets/x86_64-linux/lib/libcudart.so.${v%.*}.0"
	ln -s "$c" "$d/usr/local/cuda"
}
# config FILE CUDA_VERSION REQUIRE [NAME=VALUE...]: docker inspect output.
config() {
	local f=$1 v=$2 r=$3 extra="" e
	shift 3
	for e in "$@"; do extra+=", \"$e\""; done
	printf '[{"Architecture": "amd64", "Config": {"Env": ["PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin", "NVIDIA_REQUIRE_CUDA=%s", "CUDA_VERSION=%s", "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"%s]}}]\n' "$r" "$v" "$extra" >"$f"
}
run_check() { # NAME ROOT ARGS...: the JSON report in OUTDIR/NAME.json, its exit status in RC
	local n=$1 r=$2
	shift 2
	"$cd_bin" --root "$r" --format json check "$@" >"$out/$n.json" 2>"$out/$n.err"
	RC=$?
}

image "$out/cuda12" cuda-12.8 12.8.1
mkdir -p "$out/cuda12/usr/local/cuda-12.8/compat"
: >"$out/cuda12/usr/local/cuda-12.8/compat/libcuda.so.570.124.06"
ln -s libcuda.so.570.124.06 "$out/cuda12/usr/local/cuda-12.8/compat/libcuda.so.1"
config "$out/cuda12.inspect.json" 12.8.1 "$(req 12.8.1)"

image "$out/cuda131" cuda-13.1 13.1.0
config "$out/cuda131.inspect.json" 13.1.0 "cuda>=13.1"
branch=${smi_driver%%.*}
fc=""
for b in unknown grid tesla nvidia quadro quadrortx nvidiartx vapps vpc vcs vws; do
	fc+=" brand=$b,driver>=$branch,driver<$((branch + 1))"
done
config "$out/cuda131fc.inspect.json" 13.1.0 "cuda>=13.1$fc"

# ---- --root alone queries no driver --------------------------------------------------------
run_check root-only "$out/cuda12"
check root-only "driver.status under --root without --host-driver" "$(jget "$out/root-only.json" 'r["driver"]["status"]')" not-run
check root-only "no image object" "$(jget "$out/root-only.json" '"image" in r')" false

# ---- CUDA 12.8 image on this host ----------------------------------------------------------
run_check cuda12 "$out/cuda12" --host-driver --image-config "$out/cuda12.inspect.json"
check cuda12 "driver.version = nvidia-smi's" "$(jget "$out/cuda12.json" 'r["driver"]["version"]')" "$smi_driver"
check cuda12 "driver.cuda_version = nvidia-smi's CUDA Version" "$(jget "$out/cuda12.json" 'r["driver"]["cuda_version"]')" "$smi_cuda"
check cuda12 "driver.kernel_module_version = this host's /proc" "$(jget "$out/cuda12.json" 'r["driver"].get("kernel_module_version")')" "$proc_ver"
check cuda12 "GPU count = nvidia-smi -L" "$(jget "$out/cuda12.json" 'len(r["gpus"] or [])')" "$smi_gpus"
check cuda12 "image findings (starts here)" "$(jget "$out/cuda12.json" 'ids("image-")')" ""
check cuda12 "driver-too-old (12.8 runtime on a 13.0 driver)" "$(jget "$out/cuda12.json" 'ids("driver-too-old")')" ""
check cuda12 "the image's compat library seen" "$(jget "$out/cuda12.json" 'r["image"]["compat"][0]["version"]')" 570.124.06

# ---- CUDA 13.1 image: refused by cuda>=13.1 ------------------------------------------------
run_check cuda131 "$out/cuda131" --host-driver --image-config "$out/cuda131.inspect.json"
check cuda131 "image-cuda-refused on CUDA $smi_cuda" "$(jget "$out/cuda131.json" 'ids("image-")')" "image-cuda-refused:error"
check cuda131 "exit status" "$RC" 1
check cuda131 "the evidence names this host's driver" \
	"$(jget "$out/cuda131.json" 'any(r["driver"]["version"] in e for f in r["findings"] if f["id"] == "image-cuda-refused" for e in f["evidence"])')" true
run_check cuda131fc "$out/cuda131" --host-driver --image-config "$out/cuda131fc.inspect.json"
check cuda131fc "a forward-compatibility clause for branch $branch on brand '$smi_brand'" \
	"$(jget "$out/cuda131fc.json" 'ids("image-")')" "image-cuda-compat-only:warning"
run_check cuda131-noconfig "$out/cuda131" --host-driver
say "INFO cuda131 without --image-config (the toolkit against the driver only): $(jget "$out/cuda131-noconfig.json" 'ids()')"

# ---- a libcuda inside the image ------------------------------------------------------------
image "$out/libcuda" cuda-12.8 12.8.1
: >"$out/libcuda/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05"
ln -s libcuda.so.535.104.05 "$out/libcuda/usr/lib/x86_64-linux-gnu/libcuda.so.1"
run_check libcuda "$out/libcuda" --host-driver
check libcuda "a libcuda of another driver in the image" "$(jget "$out/libcuda.json" 'ids("image-")')" "image-libcuda-bundled:error"
rm "$out/libcuda/usr/lib/x86_64-linux-gnu/libcuda.so".*
: >"$out/libcuda/usr/lib/x86_64-linux-gnu/libcuda.so.$smi_driver"
run_check libcuda-same "$out/libcuda" --host-driver
check libcuda-same "a libcuda of this host's version" "$(jget "$out/libcuda-same.json" 'ids("image-")')" "image-libcuda-bundled:warning"

# ---- cuda-compat forced onto the loader's path ---------------------------------------------
config "$out/compat.inspect.json" 12.8.1 "$(req 12.8.1)" "LD_LIBRARY_PATH=/usr/local/cuda/compat:/usr/local/nvidia/lib64"
run_check compat "$out/cuda12" --host-driver --image-config "$out/compat.inspect.json"
check compat "compat 570.124.06 forced on driver $smi_driver" "$(jget "$out/compat.json" 'ids("image-")')" "image-compat-mismatch:error"

# ---- dockerfile --host-driver live: the same driver ----------------------------------------
"$cd_bin" --format json dockerfile "$top/tests/e2e/dockerfile_cases/host.Dockerfile" --host-driver live \
	>"$out/dockerfile-live.json" 2>"$out/dockerfile-live.err"
check dockerfile-live "host_driver.driver = nvidia-smi's" "$(jget "$out/dockerfile-live.json" 'r["host_driver"]["driver"]')" "$smi_driver"
check dockerfile-live "host_driver.gpus = nvidia-smi -L" "$(jget "$out/dockerfile-live.json" 'r["host_driver"]["gpus"]')" "$smi_gpus"
check dockerfile-live "CUDA 12.8.1 image on this driver" "$(jget "$out/dockerfile-live.json" 'ids()')" ""
say "INFO dockerfile --host-driver live: brand $(jget "$out/dockerfile-live.json" 'r["host_driver"]["brand"]'), $(jget "$out/dockerfile-live.json" 'r["host_driver"]["source"]')"

# ---- speed ---------------------------------------------------------------------------------
cc -O2 -o "$out/timeit" "$top/bench/timeit.c" 2>/dev/null || gcc -O2 -o "$out/timeit" "$top/bench/timeit.c"
say "TIME check --root --host-driver --image-config (median ms, min ms, rss KB, status): $("$out/timeit" 11 "$cd_bin" --root "$out/cuda12" check --host-driver --image-config "$out/cuda12.inspect.json")"
TIMEIT=$out/timeit bash "$top/bench/dockerfile.sh" -b "$cd_bin" >"$out/bench-dockerfile.txt" 2>&1
say "TIME bench/dockerfile.sh: $(tail -1 "$out/bench-dockerfile.txt")"

say "$fails expectation(s) failed"
[ "$fails" -eq 0 ]
