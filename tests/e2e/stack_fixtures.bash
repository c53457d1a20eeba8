# Fixture trees for stack.bats, built at test time under a directory given as $1.
# A site-packages is made of *.dist-info directories whose METADATA carries the
# fields cuda-doctor reads; the H200 layout (a venv of Python 3.12.3 with torch
# 2.11.0+cu130 and its pip CUDA wheels) is the healthy baseline.

# dist SITE NAME VERSION [REQUIRES-DIST...]: one distribution, installed by pip.
dist() {
	local site=$1 name=$2 version=$3 d
	shift 3
	d="$site/${name//-/_}-$version.dist-info"
	mkdir -p "$d"
	{
		printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version"
		printf 'Summary: fixture\n'
		for r in "$@"; do printf 'Requires-Dist: %s\n' "$r"; done
		printf '\nLong description that cuda-doctor must not need.\nVersion: 0.0.0\n'
	} >"$d/METADATA"
	echo pip >"$d/INSTALLER"
}

# torch_pkg SITE VERSION CUDA: torch with its dist-info and torch/version.py.
torch_pkg() {
	local site=$1 version=$2 cuda=$3
	dist "$site" torch "$version" \
		'filelock' 'typing-extensions>=4.10.0' 'setuptools<82; python_version >= "3.12"' \
		'sympy>=1.13.3' 'networkx>=2.5.1' 'jinja2' 'fsspec>=0.8.5' \
		'cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.2; platform_system == "Linux"' \
		'cuda-bindings<14,>=13.0.3; platform_system == "Linux"' \
		'nvidia-cudnn-cu13==9.19.0.56; platform_system == "Linux"' \
		'nvidia-cusparselt-cu13==0.8.0; platform_system == "Linux"' \
		'nvidia-nccl-cu13==2.28.9; platform_system == "Linux"' \
		'nvidia-nvshmem-cu13==3.4.5; platform_system == "Linux"' \
		'triton==3.6.0; platform_system == "Linux"' \
		'optree>=0.13.0; extra == "optree"' 'opt-einsum>=3.3; extra == "opt-einsum"'
	mkdir -p "$site/torch"
	cat >"$site/torch/version.py" <<PY
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '$version'
debug = False
cuda: Optional[str] = $cuda
git_version = '70d99e998b7a1e2ba1d2fb1b62e5f3a8d1c34f0a'
hip: Optional[str] = None
xpu: Optional[str] = None
PY
}

# h200_site SITE: the packages of the H200 venv, all requirements met.
h200_site() {
	local s=$1
	torch_pkg "$s" 2.11.0+cu130 "'13.0'"
	for p in filelock:3.20.0 typing-extensions:4.15.0 setuptools:80.9.0 sympy:1.14.0 \
		networkx:3.5 jinja2:3.1.6 fsspec:2025.9.0 cuda-bindings:13.0.3 \
		nvidia-cudnn-cu13:9.19.0.56 nvidia-cusparselt-cu13:0.8.0 nvidia-nccl-cu13:2.28.9 \
		nvidia-nvshmem-cu13:3.4.5 triton:3.6.0 nvidia-cublas:13.1.0.3 nvidia-cuda-runtime:13.0.96 \
		nvidia-cufft:12.0.0.61 \
		safetensors:0.6.2 regex:2025.9.18 numpy:2.3.3 packaging:25.0 pyyaml:6.0.3 tqdm:4.67.1 \
		psutil:7.1.0 requests:2.32.5; do
		dist "$s" "${p%%:*}" "${p#*:}"
	done
	dist "$s" cuda-toolkit 13.0.2 \
		'nvidia-cublas==13.1.0.3.*; extra == "cublas"' \
		'nvidia-cuda-runtime==13.0.96.*; extra == "cudart"' \
		'nvidia-cufft==12.0.0.61.*; extra == "cufft"'
	dist "$s" transformers 5.17.0 'huggingface-hub<2.0,>=1.5.0' 'numpy>=1.17' 'packaging>=20.0' \
		'pyyaml>=5.1' 'regex!=2019.12.17' 'tokenizers<0.24.0,>=0.23.1' 'safetensors>=0.4.3' \
		'tqdm>=4.27' 'torch>=2.5; extra == "torch"' 'accelerate>=1.1.0; extra == "torch"' \
		'deepspeed>=0.9.3; extra == "deepspeed"'
	dist "$s" tokenizers 0.23.2 'huggingface-hub<2.0,>=0.16.4'
	dist "$s" huggingface-hub 1.5.0 'filelock' 'fsspec>=2023.5.0' 'packaging>=20.9' 'pyyaml>=5.1' \
		'tqdm>=4.42.1'
	dist "$s" accelerate 1.15.0 'numpy<3.0.0,>=1.17' 'packaging>=20.0' 'psutil' 'pyyaml' \
		'torch>=2.0.0' 'huggingface-hub>=0.21.0' 'safetensors>=0.4.3'
}

# make_h200 ROOT: /opt/torch/.venv made by `python3 -m venv` from /usr/bin/python3.12.
make_h200() {
	local r=$1 v=$1/opt/torch/.venv
	mkdir -p "$r/usr/bin" "$v/bin" "$v/lib/python3.12/site-packages"
	printf '\177ELF fake interpreter\n' >"$r/usr/bin/python3.12"
	ln -s python3.12 "$r/usr/bin/python3"
	ln -s /usr/bin/python3.12 "$v/bin/python3"
	ln -s python3 "$v/bin/python"
	ln -s lib "$v/lib64"
	cat >"$v/pyvenv.cfg" <<CFG
home = /usr/bin
include-system-site-packages = false
version = 3.12.3
executable = /usr/bin/python3.12
command = /usr/bin/python3 -m venv /opt/torch/.venv
CFG
	h200_site "$v/lib/python3.12/site-packages"
}
