# Fixture trees for tests/e2e/jit.bats, made at test time under
# $BATS_TEST_TMPDIR. Tools inside them (nvcc, gcc) are shell scripts that
# leave a marker file when run: under --root nothing may execute them.

jf_root() { # the fixture root for this test
	R="$BATS_TEST_TMPDIR/root"
	MARK="$BATS_TEST_TMPDIR/marks"
	mkdir -p "$R" "$MARK"
	mkdir -p "$R/etc" "$R/usr/bin" "$R/root"
	printf 'ID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n' >"$R/etc/os-release"
}

jf_script() { # PATH-IN-ROOT OUTPUT: an executable that marks its run
	local p="$R$1"
	mkdir -p "$(dirname "$p")"
	printf '#!/bin/sh\ntouch "%s/ran-$(basename "$0")"\necho "%s"\n' "$MARK" "$2" >"$p"
	chmod 755 "$p"
}

jf_toolkit() { # VERSION [no-version-file]: /usr/local/cuda-VERSION with all build files
	local v=$1 t="$R/usr/local/cuda-$1" h l
	mkdir -p "$t/bin" "$t/include/crt" "$t/lib64"
	jf_script "/usr/local/cuda-$v/bin/nvcc" "Cuda compilation tools, release $v, V$v.99"
	[ "${2:-}" = no-version-file ] ||
		printf '{"cuda": {"version": "%s.0"}, "cuda_nvcc": {"version": "%s.99"}}\n' "$v" "$v" \
			>"$t/version.json"
	for h in cuda_runtime.h cuda_runtime_api.h cusparse.h cublas_v2.h cublasLt.h cusolverDn.h \
		curand.h cuda.h cuda_fp16.h curand_kernel.h mma.h; do
		: >"$t/include/$h"
	done
	for l in cudart cublas curand cusparse; do
		: >"$t/lib64/lib$l.so.1"
		ln -s "lib$l.so.1" "$t/lib64/lib$l.so"
	done
}

jf_compilers() { # GCC-MAJOR: gcc, g++, c++ and ninja in /usr/bin
	jf_script "/usr/bin/gcc-$1" "$1.1.0"
	jf_script "/usr/bin/g++-$1" "$1.1.0"
	ln -sf "gcc-$1" "$R/usr/bin/gcc"
	ln -sf "g++-$1" "$R/usr/bin/c++"
	jf_script /usr/bin/ninja "1.11.1"
}

jf_venv() { # PYVER TORCH-CUDA: /opt/venv with torch (pip's dist-info and torch/version.py), and Python.h of the base
	local py=$1 sp="$R/opt/venv/lib/python$1/site-packages" tv="2.5.1+cu${2//./}"
	mkdir -p "$sp/torch/include/ATen/cuda" "$R/opt/venv/bin" "$R/usr/include/python$py"
	rm -rf "$sp"/torch-*.dist-info
	mkdir -p "$sp/torch-$tv.dist-info"
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: %s\n\n' "$tv" >"$sp/torch-$tv.dist-info/METADATA"
	printf 'home = /usr/bin\nimplementation = CPython\nversion_info = %s.3\n' "$py" \
		>"$R/opt/venv/pyvenv.cfg"
	jf_script "/opt/venv/bin/python3" "Python $py.3"
	printf "__version__ = '2.5.1+cu%s'\ndebug = False\ncuda: Optional[str] = '%s'\n" \
		"${2//./}" "$2" >"$sp/torch/version.py"
	: >"$R/usr/include/python$py/Python.h"
}

jf_healthy() { # a machine where every op builds: CUDA 12.4, torch cu124, gcc 12
	jf_root
	jf_toolkit 12.4
	jf_compilers 12
	jf_venv 3.12 12.4
}

# Run cuda-doctor on the fixture with a clean environment.
jf_run() {
	run env -i HOME=/root PATH=/usr/bin VIRTUAL_ENV=/opt/venv CUDA_HOME=/usr/local/cuda-12.4 \
		"${JF_ENV[@]}" "$CD" --root "$R" jit --gpu-cc 9.0 "$@"
}
