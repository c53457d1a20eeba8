# Fixture trees for stacklibs.bats: torch's wheel layout of the H200 venv
# (torch 2.11.0+cu130, nvidia-* wheels under site-packages/nvidia) made of
# gcc -shared libraries with the SONAME, DT_NEEDED, RPATH and RUNPATH of the
# real ones, a system cuDNN 9.14 and NCCL 2.28.3 in /usr/lib/x86_64-linux-gnu,
# and a static ELF standing for the Python executable. Every library is built
# with -nostdlib so nothing outside the fixture root is needed. libtorch_cuda.so
# carries a real fatbin (sm_80, sm_90) when nvcc is installed.

load stack_fixtures

# The RPATH torch 2.11's wheel gives libtorch_*.so (docs/validation/h200-ground-truth/torch_elf.txt).
TORCH_RPATH='$ORIGIN/../../nvidia/cudnn/lib:$ORIGIN/../../nvidia/nvshmem/lib:$ORIGIN/../../nvidia/nccl/lib:$ORIGIN/../../nvidia/cusparselt/lib:$ORIGIN/../../nvidia/cu13/lib:$ORIGIN'

# so OUT SONAME [gcc args...]: a shared library without libc. Inputs that are
# .so files become DT_NEEDED entries (their SONAME).
so() {
	local out=$1 soname=$2
	shift 2
	mkdir -p "$(dirname "$out")"
	gcc -shared -fPIC -nostdlib -Wl,--no-as-needed -Wl,-soname,"$soname" -o "$out" \
		"${FX_SRC:?}" "$@"
}

# rpath / runpath LIST: linker flags for a DT_RPATH or DT_RUNPATH.
rpath() { printf '%s' "-Wl,--disable-new-dtags,-rpath,$1"; }
runpath() { printf '%s' "-Wl,--enable-new-dtags,-rpath,$1"; }

# record SITE DIST-INFO-DIR FILES...: a RECORD listing FILES (site-relative).
record() {
	local site=$1 di=$2 f
	shift 2
	for f in "$@"; do printf '%s,sha256=fixture,1\n' "$f"; done >"$site/$di/RECORD"
}

# fx_sources DIR: the C sources the libraries are built from.
fx_sources() {
	local d=$1
	echo 'int cd_fixture_data = 1;' >"$d/empty.c"
	# libc10 / libtorch_cpu export torch symbols under their mangled names.
	cat >"$d/c10.c" <<'C'
void c10_check(void) __asm__("_ZN3c106detail14torchCheckFailEPKcS2_jS2_");
void c10_check(void) {}
C
	cat >"$d/cpu.c" <<'C'
void at_add(void) __asm__("_ZN2at4_ops10add_Tensor4callERKNS_6TensorES4_RKN3c106ScalarE");
void at_add(void) {}
C
	# An extension importing one symbol torch exports and one it does not.
	cat >"$d/ext_bad.c" <<'C'
extern void at_add(void) __asm__("_ZN2at4_ops10add_Tensor4callERKNS_6TensorES4_RKN3c106ScalarE");
extern void gone(void) __asm__("_ZN3c1010TensorImpl19fixture_gone_in_2_11Ev");
void *cd_use[] = {(void *)at_add, (void *)gone};
C
	cat >"$d/ext_good.c" <<'C'
extern void at_add(void) __asm__("_ZN2at4_ops10add_Tensor4callERKNS_6TensorES4_RKN3c106ScalarE");
extern void c10_check(void) __asm__("_ZN3c106detail14torchCheckFailEPKcS2_jS2_");
void *cd_use[] = {(void *)at_add, (void *)c10_check};
C
	echo 'void _start(void) { for (;;) ; }' >"$d/python.c"
	printf '%s\n' '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }' \
		'extern "C" void launch(float *x) { k<<<1, 32>>>(x); }' >"$d/k.cu"
}

# fx_fatbins DIR: nvcc objects (torch: sm_80 sm_90; extension: sm_80), or nothing.
fx_fatbins() {
	local d=$1 nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
	[ -x "$nvcc" ] || return 0
	"$nvcc" -c -Xcompiler -fPIC -o "$d/torch_k.o" "$d/k.cu" \
		-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
		>"$d/nvcc.log" 2>&1 || rm -f "$d/torch_k.o"
	"$nvcc" -c -Xcompiler -fPIC -o "$d/ext_k.o" "$d/k.cu" \
		-gencode arch=compute_80,code=sm_80 >>"$d/nvcc.log" 2>&1 || rm -f "$d/ext_k.o"
}

# make_torch_root ROOT SRCDIR: the whole tree.
make_torch_root() {
	local r=$1 d=$2 site nv t sys cu dn n
	FX_SRC="$d/empty.c"
	make_h200 "$r"
	site=$r/opt/torch/.venv/lib/python3.12/site-packages
	nv=$site/nvidia
	t=$site/torch
	cu=$nv/cu13/lib
	dn=$nv/cudnn/lib
	sys=$r/usr/lib/x86_64-linux-gnu
	gcc -nostdlib -static -o "$r/usr/bin/python3.12" "$d/python.c"

	# nvidia/cu13/lib (cuda-toolkit 13.0.2 wheels)
	so "$cu/libcudart.so.13" libcudart.so.13
	so "$cu/libcublasLt.so.13" libcublasLt.so.13 "$(runpath '$ORIGIN')"
	so "$cu/libcublas.so.13" libcublas.so.13 "$cu/libcublasLt.so.13" "$(runpath '$ORIGIN')"
	so "$cu/libnvrtc.so.13" libnvrtc.so.13 "$(runpath '$ORIGIN')"
	so "$cu/libnvrtc-builtins.so.13.0" libnvrtc-builtins.so.13.0
	so "$cu/libnvJitLink.so.13" libnvJitLink.so.13
	for n in libcupti.so.13 libcufft.so.12 libcurand.so.10 libcusolver.so.12 libcufile.so.0; do
		so "$cu/$n" "$n"
	done
	so "$cu/libcusparse.so.12" libcusparse.so.12 "$cu/libnvJitLink.so.13"
	so "$nv/cusparselt/lib/libcusparseLt.so.0" libcusparseLt.so.0
	so "$nv/nvshmem/lib/libnvshmem_host.so.3" libnvshmem_host.so.3
	# nvidia/cudnn/lib: every library with RUNPATH $ORIGIN, as cuDNN 9 ships them
	for n in graph engines_precompiled engines_runtime_compiled heuristic ops cnn adv; do
		so "$dn/libcudnn_$n.so.9" "libcudnn_$n.so.9" "$(runpath '$ORIGIN')"
	done
	so "$dn/libcudnn.so.9" libcudnn.so.9 "$(runpath '$ORIGIN')"
	so "$nv/nccl/lib/libnccl.so.2" libnccl.so.2

	# torch/lib and torch/_C
	FX_SRC="$d/c10.c" so "$t/lib/libc10.so" libc10.so "$(rpath "$TORCH_RPATH")" \
		-Wl,--hash-style=sysv # one library with the SysV hash table
	FX_SRC="$d/cpu.c" so "$t/lib/libtorch_cpu.so" libtorch_cpu.so "$t/lib/libc10.so" \
		"$(rpath "$TORCH_RPATH")"
	if [ -f "$d/torch_k.o" ]; then
		FX_SRC="$d/torch_k.o" so "$t/lib/libtorch_cuda.so" libtorch_cuda.so \
			"$cu/libcudart.so.13" "$cu/libcusparse.so.12" "$nv/nccl/lib/libnccl.so.2" \
			"$cu/libcublas.so.13" "$cu/libcublasLt.so.13" "$dn/libcudnn.so.9" \
			"$t/lib/libc10.so" "$t/lib/libtorch_cpu.so" "$(rpath "$TORCH_RPATH")"
	else
		so "$t/lib/libtorch_cuda.so" libtorch_cuda.so \
			"$cu/libcudart.so.13" "$cu/libcusparse.so.12" "$nv/nccl/lib/libnccl.so.2" \
			"$cu/libcublas.so.13" "$cu/libcublasLt.so.13" "$dn/libcudnn.so.9" \
			"$t/lib/libc10.so" "$t/lib/libtorch_cpu.so" "$(rpath "$TORCH_RPATH")"
	fi
	so "$t/lib/libtorch.so" libtorch.so "$t/lib/libtorch_cpu.so" "$t/lib/libtorch_cuda.so" \
		"$(rpath "$TORCH_RPATH")"
	so "$t/lib/libtorch_python.so" libtorch_python.so "$t/lib/libtorch.so" \
		"$t/lib/libtorch_cuda.so" "$cu/libcudart.so.13" "$t/lib/libc10.so" \
		"$dn/libcudnn.so.9" "$(rpath "$TORCH_RPATH")"
	so "$t/lib/libtorch_global_deps.so" libtorch_global_deps.so "$cu/libcudart.so.13" \
		"$(rpath "$TORCH_RPATH")"
	so "$t/_C.cpython-312-x86_64-linux-gnu.so" _C.cpython-312-x86_64-linux-gnu.so \
		"$t/lib/libtorch_python.so" "$(rpath "$TORCH_RPATH:\$ORIGIN/lib")"

	# the wheels' RECORDs (owners and versions of the files)
	dist "$site" nvidia-cuda-nvrtc 13.0.88
	dist "$site" nvidia-nvjitlink 13.0.88
	record "$site" nvidia_cudnn_cu13-9.19.0.56.dist-info \
		nvidia/cudnn/lib/libcudnn.so.9 nvidia/cudnn/lib/libcudnn_graph.so.9 \
		nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9 \
		nvidia/cudnn/lib/libcudnn_engines_runtime_compiled.so.9 \
		nvidia/cudnn/lib/libcudnn_heuristic.so.9 nvidia/cudnn/lib/libcudnn_ops.so.9 \
		nvidia/cudnn/lib/libcudnn_cnn.so.9 nvidia/cudnn/lib/libcudnn_adv.so.9
	record "$site" nvidia_nccl_cu13-2.28.9.dist-info nvidia/nccl/lib/libnccl.so.2
	record "$site" nvidia_cuda_runtime-13.0.96.dist-info nvidia/cu13/lib/libcudart.so.13
	record "$site" nvidia_cublas-13.1.0.3.dist-info nvidia/cu13/lib/libcublas.so.13 \
		nvidia/cu13/lib/libcublasLt.so.13
	record "$site" nvidia_cuda_nvrtc-13.0.88.dist-info nvidia/cu13/lib/libnvrtc.so.13 \
		'"nvidia/cu13/lib/libnvrtc-builtins.so.13.0"'

	# the system cuDNN 9.14 and NCCL 2.28.3 (Debian packaging: versioned files, links)
	for n in "" _graph _engines_precompiled _engines_runtime_compiled _heuristic _ops _cnn _adv; do
		so "$sys/libcudnn$n.so.9.14.0" "libcudnn$n.so.9" "$(runpath '$ORIGIN')"
		ln -s "libcudnn$n.so.9.14.0" "$sys/libcudnn$n.so.9"
	done
	so "$sys/libnccl.so.2.28.3" libnccl.so.2
	ln -s libnccl.so.2.28.3 "$sys/libnccl.so.2"
}

# add_ext ROOT SRCDIR: flash-attn (a missing torch symbol, sm_80 device code)
# and torchvision (all symbols exported, no device code).
add_ext() {
	local r=$1 d=$2 site t
	site=$r/opt/torch/.venv/lib/python3.12/site-packages
	t=$site/torch/lib
	if [ -f "$d/ext_k.o" ]; then
		gcc -shared -fPIC -nostdlib -Wl,--no-as-needed -o \
			"$site/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so" "$d/ext_bad.c" \
			"$d/ext_k.o" "$t/libc10.so" "$t/libtorch_cpu.so"
	else
		gcc -shared -fPIC -nostdlib -Wl,--no-as-needed -o \
			"$site/flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so" "$d/ext_bad.c" \
			"$t/libc10.so" "$t/libtorch_cpu.so"
	fi
	mkdir -p "$site/flash_attn" "$site/torchvision"
	dist "$site" flash-attn 2.8.3 'torch'
	gcc -shared -fPIC -nostdlib -Wl,--no-as-needed -o "$site/torchvision/_C.so" \
		"$d/ext_good.c" "$t/libc10.so" "$t/libtorch_cpu.so"
	dist "$site" torchvision 0.26.0 'torch==2.11.0' 'numpy'
}
