# Fixture environments for fix.bats: Python environments made the way pip
# (python3 -m venv), uv (uv venv, a uv project) and conda lay them out, with
# or without torch, whose torch/lib/libtorch_cuda.so carries a fatbin for a
# chosen arch list - written by tests/e2e/helpers/mkfatbin.c (no nvcc needed),
# or built by nvcc where it is installed - and wheels (zip archives) of such
# a torch written by tests/e2e/helpers/mkzip.c (members stored, or deflated
# by gzip).

load stack_fixtures

# fx_tools DIR: build the helpers into DIR.
fx_tools() {
	local d=$1 h
	h="$(dirname "${BASH_SOURCE[0]}")/helpers"
	gcc -O1 -o "$d/mkfatbin" "$h/mkfatbin.c"
	gcc -O1 -o "$d/mkzip" "$h/mkzip.c"
}

# fx_libtorch OUT ARCH...: a libtorch_cuda.so whose .nv_fatbin holds ARCH
# (sm_75, compute_120, sm_90a, ...) in three containers.
fx_libtorch() {
	local out=$1 t
	shift
	t=$(mktemp -d)
	"$TOOLS/mkfatbin" "$t/f.bin" 3 4096 "$@"
	printf '.section .nv_fatbin,"a"\n.balign 8\n.incbin "%s"\n' "$t/f.bin" >"$t/f.S"
	mkdir -p "$(dirname "$out")"
	gcc -shared -nostdlib -o "$out" "$t/f.S"
	rm -rf "$t"
}

# fx_nvcc_libtorch OUT -gencode...: the same built by nvcc from a real kernel;
# 1 when nvcc is not installed.
fx_nvcc_libtorch() {
	local out=$1 nvcc=${NVCC:-/usr/local/cuda/bin/nvcc} t
	shift
	[ -x "$nvcc" ] || return 1
	t=$(mktemp -d)
	printf '%s\n' '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }' \
		'extern "C" void launch(float *x) { k<<<1, 32>>>(x); }' >"$t/k.cu"
	mkdir -p "$(dirname "$out")"
	"$nvcc" -Xcompiler -fPIC -shared -o "$out" "$t/k.cu" "$@" >"$t/log" 2>&1 ||
		{ cat "$t/log" >&2; rm -rf "$t"; return 2; }
	rm -rf "$t"
}

# fx_interp ROOT: the interpreter the environments are made from.
fx_interp() {
	mkdir -p "$1/usr/bin"
	printf '\177ELF fake interpreter\n' >"$1/usr/bin/python3.12"
	ln -sf python3.12 "$1/usr/bin/python3"
}

# fx_env ROOT KIND: an environment without torch; prints its prefix.
#   pip     /opt/venv, made by python3 -m venv
#   uv      /work/proj/.venv, made by uv venv (pyvenv.cfg has a uv key)
#   uvproj  the same inside a uv project (pyproject.toml and uv.lock beside it)
#   conda   /opt/conda/envs/ml, a conda prefix (conda-meta)
fx_env() {
	local r=$1 kind=$2 p site
	fx_interp "$r"
	case $kind in
	pip | uv | uvproj)
		p=/opt/venv
		[ "$kind" = pip ] || p=/work/proj/.venv
		mkdir -p "$r$p/bin" "$r$p/lib/python3.12/site-packages"
		ln -s /usr/bin/python3.12 "$r$p/bin/python3"
		{
			printf 'home = /usr/bin\ninclude-system-site-packages = false\n'
			printf 'version = 3.12.3\n'
			[ "$kind" = pip ] || printf 'uv = 0.9.5\nversion_info = 3.12.3\n'
		} >"$r$p/pyvenv.cfg"
		if [ "$kind" = uvproj ]; then
			printf '[project]\nname = "proj"\nversion = "0.1.0"\n' >"$r/work/proj/pyproject.toml"
			printf 'version = 1\n' >"$r/work/proj/uv.lock"
		fi
		;;
	conda)
		p=/opt/conda/envs/ml
		mkdir -p "$r$p/bin" "$r$p/conda-meta" "$r$p/lib/python3.12/site-packages"
		printf '\177ELF conda python\n' >"$r$p/bin/python3.12"
		ln -s python3.12 "$r$p/bin/python3"
		echo '{"name": "python", "version": "3.12.3", "build": "h0_0", "channel": "conda-forge"}' \
			>"$r$p/conda-meta/python-3.12.3-h0_0.json"
		;;
	esac
	site=$r$p/lib/python3.12/site-packages
	dist "$site" filelock 3.20.0
	echo "$p"
}

# fx_torch ROOT PREFIX VERSION CUDA ARCH...: torch in the environment, its
# libtorch_cuda.so holding ARCH. In a conda prefix torch comes from conda.
# (stack_fixtures' dist() sets a global r: these names stay clear of it.)
fx_torch() {
	local fr=$1 fp=$2 fv=$3 fcu=$4 fsite
	shift 4
	fsite=$fr$fp/lib/python3.12/site-packages
	torch_pkg "$fsite" "$fv" "'$fcu'"
	fx_libtorch "$fsite/torch/lib/libtorch_cuda.so" "$@"
	if [ -d "$fr$fp/conda-meta" ]; then
		echo conda >"$fsite/torch-$fv.dist-info/INSTALLER"
		echo "{\"name\": \"pytorch\", \"version\": \"${fv%%+*}\", \"build\": \"cuda130_generic_py312_0\", \"channel\": \"conda-forge\"}" \
			>"$fr$fp/conda-meta/pytorch-${fv%%+*}-cuda130_generic_py312_0.json"
	fi
}

# fx_wheel OUT VERSION LIB [-0|-z] [CUDA]: a torch wheel holding LIB as
# torch/lib/libtorch_cuda.so; VERSION goes into its METADATA, CUDA (when
# given) into torch/version.py.
fx_wheel() {
	local out=$1 v=$2 lib=$3 how=${4:--z} cu=${5:-} t
	t=$(mktemp -d)
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: %s\n\n' "$v" >"$t/METADATA"
	printf "__version__ = '%s'\ncuda: Optional[str] = '%s'\n" "$v" "$cu" >"$t/version.py"
	"$TOOLS/mkzip" "$out" "$how" "torch/__init__.py=$t/version.py" \
		"torch/version.py=$t/version.py" "torch/lib/libtorch_cuda.so=$lib" \
		"torch-$v.dist-info/METADATA=$t/METADATA"
	rm -rf "$t"
}
