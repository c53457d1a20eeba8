#!/usr/bin/env bash
# Gather ground truth on a GPU machine for docs/validation/: what nvidia-smi,
# the kernel module, the toolkit, the loader and torch say. Writes one tarball
# to ${OUT:-/tmp/recon-out}. Read-only on the machine it runs on.
set -u
out=${OUT:-/tmp/recon-out}
d=$(mktemp -d)
mkdir -p "$out"
t() { timeout 120 "$@" 2>&1; }
cd "$d" || exit 1
{
	date -u; uname -a; cat /etc/os-release; ldd --version | head -1
	id; nproc; free -g
} >host.txt 2>&1
t nvidia-smi -q >smi_q.txt
t nvidia-smi -q -x >smi_q.xml
t nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,compute_cap,memory.total,memory.free,memory.used,memory.reserved,mig.mode.current,persistence_mode,compute_mode,ecc.mode.current,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,retired_pages.pending,driver_version --format=csv >smi_query.csv
t nvidia-smi >smi.txt
cat /proc/driver/nvidia/version >proc_version.txt 2>&1
{ ls -la /dev/nvidia* /dev/shm; df -B1 /dev/shm; cat /proc/1/cgroup; ls -la /.dockerenv /run/.containerenv; cat /proc/self/mountinfo | head -50; } >container.txt 2>&1
env | sort >env.txt
{ ldconfig -p; } >ldconfig_p.txt 2>&1
cp /etc/ld.so.cache ld.so.cache 2>/dev/null
cat /etc/ld.so.conf /etc/ld.so.conf.d/* >ld_so_conf.txt 2>&1
{ which -a nvcc python3 nvidia-smi cuobjdump ninja gcc g++ clang; nvcc --version; gcc --version | head -1; ls -la /usr/local; ls -la /usr/local/cuda* | head -40; cat /usr/local/cuda/version.json; ls /usr/local/cuda/include | head -400; ls -la /usr/local/cuda/lib64/ | head -100; ls -la /usr/local/cuda/lib64/stubs; ls -laR /usr/local/nvidia 2>/dev/null | head -200; } >toolkit.txt 2>&1
{ find / -xdev \( -name 'libcudnn*.so*' -o -name 'libnccl*.so*' -o -name 'libcudart*.so*' -o -name 'libcuda.so*' -o -name 'libnvidia-ml.so*' -o -name 'libcublas*.so*' \) -not -path '/proc/*' 2>/dev/null | sort; } >libcopies.txt
py=python3
t $py - >torch.txt <<'PY'
import sys, site, os, time, json
t0=time.time()
print("executable", sys.executable); print("prefix", sys.prefix); print("base_prefix", sys.base_prefix)
print("version", sys.version); print("site", site.getsitepackages(), site.getusersitepackages())
import torch
print("import_s", time.time()-t0)
print("torch", torch.__version__, torch.version.cuda, torch.version.git_version, torch.__file__)
print("cudnn", torch.backends.cudnn.version()); print("nccl", torch.cuda.nccl.version())
print("arch_list", torch.cuda.get_arch_list())
print("available", torch.cuda.is_available(), torch.cuda.device_count())
for i in range(torch.cuda.device_count()):
    p=torch.cuda.get_device_properties(i)
    print("dev", i, p.name, p.major, p.minor, p.total_memory, getattr(p,'uuid',None))
    print("mem_get_info", torch.cuda.mem_get_info(i))
x=torch.randn(1,3,32,32,device='cuda'); c=torch.nn.Conv2d(3,8,3).cuda(); y=c(x); torch.cuda.synchronize()
a=torch.randn(64,64,device='cuda'); b=(a@a).sum().item()
maps=open('/proc/self/maps').read().split('\n')
libs=sorted({l.split()[-1] for l in maps if '.so' in l})
print("MAPS"); print("\n".join(libs))
PY
t $py -c 'import torch.utils.cpp_extension as c; print("CUDA_HOME", c.CUDA_HOME)' >cpp_ext.txt
sp=$($py -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)
{ echo "$sp"; ls "$sp" | wc -l; ls -la "$sp"; ls -la "$sp"/nvidia "$sp"/nvidia/*; } >sitepackages.txt 2>&1
t $py -m pip list >pip_list.txt
mkdir -p meta
for p in torch transformers tokenizers accelerate nvidia_cudnn_cu13 nvidia_nccl_cu13 nvidia_cublas nvidia_cuda_runtime triton; do
	m=$(ls -d "$sp"/${p}-*.dist-info 2>/dev/null | head -1)
	[ -n "$m" ] && cp "$m/METADATA" "meta/$p.METADATA" 2>/dev/null
done
cp "$sp/torch/version.py" meta/torch_version.py 2>/dev/null
cat "$sp"/../../../pyvenv.cfg >meta/pyvenv.cfg 2>/dev/null
{ ls -la "$sp"/torch/lib; readelf -d "$sp"/torch/_C*.so; readelf -d "$sp"/torch/lib/libtorch_cuda.so; readelf -d "$sp"/torch/lib/libtorch_python.so; readelf -S -W "$sp"/torch/lib/libtorch_cuda.so | grep -E 'fatbin|Name'; } >torch_elf.txt 2>&1
{ ldd "$sp"/torch/_C*.so; echo; ldd "$sp"/torch/lib/libtorch_cuda.so; } >torch_ldd.txt 2>&1
{ /usr/bin/time -v cuobjdump --list-elf "$sp"/torch/lib/libtorch_cuda.so | sort | uniq -c | head -50; } >cuobjdump.txt 2>&1
{ cuobjdump --list-ptx "$sp"/torch/lib/libtorch_cuda.so | head -20; } >cuobjdump_ptx.txt 2>&1
{ time (nvidia-smi -q >/dev/null); time (nvidia-smi >/dev/null); time ($py -m torch.utils.collect_env >collect_env.txt 2>&1); } >timings.txt 2>&1
tar czf "$out/recon.tar.gz" .
ls -la "$out"
