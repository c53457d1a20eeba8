#!/usr/bin/env bash
# Build the fixture roots of tests/e2e/sysprobe.bats under DIR (made at test
# time, nothing binary is committed). Each root is a small filesystem that
# cuda-doctor reads with --root: CUDA toolkits in their real layouts (runfile
# /usr/local/cuda-X.Y, conda prefix, pip nvidia-* wheels for CUDA 12 and 13),
# os-release variants, a /proc tree, container markers, and broken inputs.
# Nothing here is ever executed by cuda-doctor: nvcc files are dummy scripts.
# Usage: sysfixtures.sh DIR
set -euo pipefail

out=${1:?usage: sysfixtures.sh DIR}
mkdir -p "$out"

# headers ROOT/include NAME... : empty header files
headers() {
	local dir=$1
	shift
	mkdir -p "$dir"
	for h in "$@"; do : >"$dir/$h"; done
}
all_headers=(cuda_runtime.h cusparse.h cublas_v2.h curand.h cusolverDn.h cufft.h nvrtc.h cudnn.h
	nccl.h)

# nvcc PATH : a dummy executable; cuda-doctor must never run it, and if
# anything does, it leaves PATH.ran behind for the tests to find
nvcc() {
	mkdir -p "$(dirname "$1")"
	printf '#!/bin/sh\n: >"$0.ran"\nexit 99\n' >"$1"
	chmod 755 "$1"
}

# cudah FILE VERSION_INT
cudah() {
	mkdir -p "$(dirname "$1")"
	printf '/* cuda.h fixture */\n#ifndef __cuda_cuda_h__\n#define __cuda_cuda_h__\n#define CUDA_VERSION %s\n#endif\n' \
		"$2" >"$1"
}

# runfile ROOT VERSION NVCC_VERSION : a toolkit as the NVIDIA runfile installs it
runfile() {
	local r=$1
	nvcc "$r/bin/nvcc"
	headers "$r/targets/x86_64-linux/include" "${all_headers[@]}"
	ln -s targets/x86_64-linux/include "$r/include"
	cudah "$r/targets/x86_64-linux/include/cuda.h" "$(echo "$2" | awk -F. '{print $1*1000+$2*10}')"
	cat >"$r/version.json" <<EOF
{
   "cuda" : { "name" : "CUDA SDK", "version" : "$2" },
   "cuda_nvcc" : { "name" : "CUDA NVCC", "version" : "$3" }
}
EOF
}

osrel() {
	mkdir -p "$1/etc"
	cat >"$1/etc/os-release"
}

# complete: one runfile toolkit, /usr/local/cuda -> it, Ubuntu, a libc banner
r=$out/complete
runfile "$r/usr/local/cuda-12.4" 12.4.1 12.4.131
ln -s /usr/local/cuda-12.4 "$r/usr/local/cuda"
osrel "$r" <<'EOF'
PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
ID=ubuntu
ID_LIKE=debian
EOF
mkdir -p "$r/lib/x86_64-linux-gnu" "$r/proc/sys/kernel" "$r/dev"
# An ELF header (x86-64) followed by glibc's banner: read, never loaded.
{
	printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000\076\000'
	head -c 4000 /dev/zero
	printf 'GNU C Library (Ubuntu GLIBC 2.35-0ubuntu3.8) stable release version 2.35.\n'
	head -c 1000 /dev/zero
} >"$r/lib/x86_64-linux-gnu/libc.so.6"
echo "5.15.0-105-generic" >"$r/proc/sys/kernel/osrelease"
: >"$r/dev/nvidiactl"
: >"$r/dev/nvidia0"
: >"$r/dev/nvidia-uvm"
mkdir -p "$r/dev/nvidia-caps" && : >"$r/dev/nvidia-caps/nvidia-cap1"
echo "gpu-node-7" >"$r/etc/hostname"

# headers: CUDA_HOME's toolkit lacks cusparse.h and curand.h; a conda prefix has them
r=$out/headers
runfile "$r/usr/local/cuda-12.1" 12.1.1 12.1.105
rm "$r/usr/local/cuda-12.1/targets/x86_64-linux/include/"{cusparse.h,curand.h}
mkdir -p "$r/opt/conda/conda-meta"
: >"$r/opt/conda/conda-meta/cuda-nvcc-12.1.105-hcdd1206_1.json"
: >"$r/opt/conda/conda-meta/cuda-version-12.1-h1d6eff3_3.json"
nvcc "$r/opt/conda/bin/nvcc"
headers "$r/opt/conda/targets/x86_64-linux/include" "${all_headers[@]}"

# two: /usr/local/cuda -> 11.8, 12.4 first on PATH, a 10.2 with version.txt
r=$out/two
runfile "$r/usr/local/cuda-11.8" 11.8.0 11.8.89
runfile "$r/usr/local/cuda-12.4" 12.4.1 12.4.131
ln -s cuda-11.8 "$r/usr/local/cuda"
mkdir -p "$r/opt/cuda-10.2/include"
nvcc "$r/opt/cuda-10.2/bin/nvcc"
echo "CUDA Version 10.2.89" >"$r/opt/cuda-10.2/version.txt"
headers "$r/opt/cuda-10.2/include" cuda_runtime.h

# conda: a toolkit from conda packages (cuda-nvcc, cuda-version)
r=$out/conda
p=$r/opt/conda/envs/train
mkdir -p "$p/conda-meta"
: >"$p/conda-meta/cuda-nvcc-12.4.131-h2d2c4d0_0.json"
: >"$p/conda-meta/cuda-nvcc-dev_linux-64-12.4.131-h8a487aa_0.json"
: >"$p/conda-meta/cuda-version-12.4-h3060b56_3.json"
nvcc "$p/bin/nvcc"
headers "$p/targets/x86_64-linux/include" "${all_headers[@]}"
# and conda's libraries beside them (a library directory never goes into CPATH)
headers "$p/targets/x86_64-linux/lib" libcudart.so libcurand.so

# pip: CUDA 12 wheels (one directory per component) and CUDA 13 wheels (nvidia/cu13)
r=$out/pip
sp=$r/venv/lib/python3.11/site-packages
nvcc "$sp/nvidia/cuda_nvcc/bin/nvcc"
headers "$sp/nvidia/cuda_runtime/include" cuda_runtime.h
cudah "$sp/nvidia/cuda_runtime/include/cuda.h" 12040
headers "$sp/nvidia/cusparse/include" cusparse.h
headers "$sp/nvidia/cublas/include" cublas_v2.h
mkdir -p "$sp/nvidia_cuda_nvcc_cu12-12.4.131.dist-info" "$sp/nvidia_cuda_runtime_cu12-12.4.127.dist-info"
sp13=$r/venv13/lib/python3.12/site-packages
nvcc "$sp13/nvidia/cu13/bin/nvcc"
headers "$sp13/nvidia/cu13/include" "${all_headers[@]}"
cudah "$sp13/nvidia/cu13/include/cuda.h" 13000
mkdir -p "$sp13/nvidia_cuda_nvcc-13.0.88.dist-info"

# wrapper: /usr/local/bin/nvcc is a script that execs the real nvcc (torch takes
# CUDA_HOME=/usr/local, which has no CUDA headers)
r=$out/wrapper
runfile "$r/usr/local/cuda-13.0" 13.0.2 13.0.88
mkdir -p "$r/usr/local/bin" "$r/usr/local/include"
printf '#!/bin/sh\n: >"$0.ran"\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n' >"$r/usr/local/bin/nvcc"
chmod 755 "$r/usr/local/bin/nvcc"
# and a symbolic link elsewhere on PATH
mkdir -p "$r/usr/bin"
ln -s /usr/local/cuda-13.0/bin/nvcc "$r/usr/bin/nvcc"

# deb: a toolkit from NVIDIA's apt repository: no version.json, /usr/local/cuda
# through /etc/alternatives, include a link into targets/, versions in dpkg's database
r=$out/deb
d=$r/usr/local/cuda-13.0
nvcc "$d/bin/nvcc"
headers "$d/targets/x86_64-linux/include" "${all_headers[@]}"
cudah "$d/targets/x86_64-linux/include/cuda.h" 13000
ln -s targets/x86_64-linux/include "$d/include"
mkdir -p "$r/etc/alternatives" "$r/var/lib/dpkg/info"
ln -s /usr/local/cuda-13.0 "$r/etc/alternatives/cuda"
ln -s /etc/alternatives/cuda "$r/usr/local/cuda"
printf '/.\n/usr/local/cuda-13.0/bin\n/usr/local/cuda-13.0/bin/nvcc\n' \
	>"$r/var/lib/dpkg/info/cuda-nvcc-13-0.list"
cat >"$r/var/lib/dpkg/status" <<'EOF'
Package: cuda-cudart-13-0
Status: install ok installed
Version: 13.0.96-1

Package: cuda-nvcc-13-0
Status: install ok installed
Priority: optional
Architecture: amd64
Version: 13.0.88-1
Description: CUDA nvcc

Package: libc6
Status: install ok installed
Version: 2.39-0ubuntu8.6
EOF

# osrel: only /usr/lib/os-release, single quotes and escapes
r=$out/osrel
mkdir -p "$r/usr/lib"
cat >"$r/usr/lib/os-release" <<'EOF'
# a comment
NAME='Rocky Linux'
ID="rocky"
VERSION_ID=9.4
PRETTY_NAME="Rocky \"Blue Onyx\" 9.4"
EOF

# docker: container markers and a /proc tree
r=$out/docker
mkdir -p "$r/proc/1" "$r/proc/self"
: >"$r/.dockerenv"
echo "0::/" >"$r/proc/1/cgroup"
r=$out/cgroup
mkdir -p "$r/proc/1" "$r/proc/self"
printf '12:pids:/kubepods/besteffort/pod1/abc\n0::/kubepods/besteffort/pod1/abc\n' >"$r/proc/1/cgroup"
r=$out/nocontainer
mkdir -p "$r/proc/1" "$r/proc/self"
echo "0::/init.scope" >"$r/proc/1/cgroup"
echo "22 1 0:21 / / rw - ext4 /dev/vda rw" >"$r/proc/self/mountinfo"

# broken: malformed version.json, FIFOs where files are expected, a link loop,
# a directory named cuda.h, and an os-release with an unterminated quote
r=$out/broken
mkdir -p "$r/usr/local/cuda-12.2/include" "$r/usr/local/cuda-12.3/include/cuda.h" "$r/etc"
nvcc "$r/usr/local/cuda-12.2/bin/nvcc"
printf '{"cuda": {"version": "12.2' >"$r/usr/local/cuda-12.2/version.json"
mkfifo "$r/usr/local/cuda-12.2/include/cuda.h" "$r/usr/local/cuda-12.2/version.txt"
nvcc "$r/usr/local/cuda-12.3/bin/nvcc"
printf '{"cuda": {"version": ["x"]}}' >"$r/usr/local/cuda-12.3/version.json"
ln -s /usr/local/cuda-loop "$r/usr/local/cuda-loop"
ln -s /usr/local/cuda-loop "$r/usr/local/cuda"
printf 'ID="debian\nVERSION_ID=12\n' >"$r/etc/os-release"
mkfifo "$r/etc/hostname"

# devpkgs: a system toolkit without cufft.h and nvrtc.h, and a conda prefix
# (headers in include/) without cusparse.h and cufft.h: the packages that
# check proposes come from data/cuda_dev_files.tsv
r=$out/devpkgs
runfile "$r/usr/local/cuda-12.6" 12.6.3 12.6.85
rm "$r/usr/local/cuda-12.6/targets/x86_64-linux/include/"{cufft.h,nvrtc.h}
p=$r/opt/conda/envs/dev
mkdir -p "$p/conda-meta"
: >"$p/conda-meta/cuda-nvcc-12.4.131-h2d2c4d0_0.json"
: >"$p/conda-meta/cuda-version-12.4-h3060b56_3.json"
nvcc "$p/bin/nvcc"
headers "$p/include" "${all_headers[@]}"
rm "$p/include/"{cusparse.h,cufft.h}

# empty: nothing at all
mkdir -p "$out/empty"
