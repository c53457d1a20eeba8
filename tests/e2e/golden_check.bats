#!/usr/bin/env bats
# Golden text and JSON reports of `cuda-doctor check` for its fixture
# scenarios: the system fixture roots (sysfixtures.sh), the fake driver
# libraries in their modes, and torch's wheel layout (stacklibs_fixtures.bash).
# Any change of the report shows here as a diff. The fixture's temporary path
# is replaced by @ROOT@, the fake libraries' directory by @FAKES@. Fixtures are built without nvcc (NVCC unset below), so
# the files are the same on machines with and without a CUDA toolkit.
# After an intended change of output: CD_GOLDEN_UPDATE=1 make e2e, then read
# `git diff tests/e2e/golden/check` before committing it.

load stacklibs_fixtures

setup_file() {
	FX="$BATS_FILE_TMPDIR/fx"
	"$BATS_TEST_DIRNAME/sysfixtures.sh" "$FX"
	S="$BATS_FILE_TMPDIR/src"
	mkdir -p "$S"
	fx_sources "$S"
	# no fatbins: torch's arch list stays unknown whatever this machine has
	make_torch_root "$FX/torch" "$S"
	cp -a "$FX/torch" "$FX/torch-ext"
	add_ext "$FX/torch-ext" "$S"
	mkdir -p "$FX/fake/proc/driver/nvidia"
	printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Wed Jan 21 23:49:28 UTC 2026\n' \
		>"$FX/fake/proc/driver/nvidia/version"
	export FX S
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	GOLD="$BATS_TEST_DIRNAME/golden/check"
}

# golden NAME ROOT [VAR=VALUE...] [-- ARGS...]: the text and JSON reports of
# `check` under ROOT in a clean environment, against golden/check/NAME.{txt,json}.
golden() {
	local name=$1 root=$FX/$2 out
	shift 2
	local vars=(PATH=/usr/bin:/bin HOME=/nonexistent)
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		vars+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift
	out=$BATS_TEST_TMPDIR/$name
	run env -i "${vars[@]}" "$CD" --root "$root" check --no-color "$@"
	[ "$status" -le 1 ] || { echo "exit $status: $output"; return 1; }
	printf 'exit %s\n%s\n' "$status" "$output" | sed -e "s|$FX|@ROOT@|g" -e "s|$FAKES|@FAKES@|g" >"$out.txt"
	run env -i "${vars[@]}" "$CD" --root "$root" check --json "$@"
	[ "$status" -le 1 ] || { echo "exit $status: $output"; return 1; }
	# The fingerprint hashes the paths above; fleet.bats tests it.
	jq -S . <<<"$output" | sed -e "s|$FX|@ROOT@|g" -e "s|$FAKES|@FAKES@|g" \
		-e 's|"sha256:[0-9a-f]\{64\}"|"@FINGERPRINT@"|' >"$out.json"
	if [ -n "${CD_GOLDEN_UPDATE:-}" ]; then
		mkdir -p "$GOLD"
		cp "$out.txt" "$GOLD/$name.txt"
		cp "$out.json" "$GOLD/$name.json"
	fi
	diff -u "$GOLD/$name.txt" "$out.txt"
	diff -u "$GOLD/$name.json" "$out.json"
}

# fake NAME MODE [VAR=VALUE...]: the fake driver libraries in MODE.
fake() {
	local name=$1 mode=$2
	shift 2
	golden "$name" fake CD_FAKE_MODE="$mode" "$@" -- \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" --timeout 2
}

@test "golden: a complete runfile toolkit on Ubuntu" { golden complete complete; }
@test "golden: a conda prefix toolkit" { golden conda conda CONDA_PREFIX=/opt/conda; }
@test "golden: pip nvidia-* wheels for CUDA 12 and 13" { golden pip pip; }
@test "golden: two toolkits, CUDA_HOME naming the older" { golden two two CUDA_HOME=/usr/local/cuda-11.8; }
@test "golden: headers missing from the toolkit" { golden headers headers; }
@test "golden: broken inputs" { golden broken broken; }
@test "golden: a Docker container" { golden docker docker; }
@test "golden: an empty root" { golden empty empty; }
@test "golden: an nvcc wrapper script" { golden wrapper wrapper; }

@test "golden: fake driver, two H100s" { fake fake-ok ok; }
@test "golden: fake driver, the H200" { fake fake-h200 h200; }
@test "golden: fake driver too old" { fake fake-old old; }
@test "golden: fake driver, no GPU" { fake fake-nogpu nogpu; }
@test "golden: fake driver, cuInit fails" { fake fake-initfail initfail; }
@test "golden: fake driver, library and module versions differ" { fake fake-mismatch mismatch; }
@test "golden: fake driver, ECC errors" { fake fake-ecc ecc; }
@test "golden: fake driver, the stub library" { fake fake-stub stub; }
@test "golden: fake driver crashes" { fake fake-crash crash; }
@test "golden: fake driver, CUDA_VISIBLE_DEVICES names a missing GPU" {
	fake fake-cvd h200 CUDA_VISIBLE_DEVICES=3
}

@test "golden: torch's wheel layout" { golden torch torch PATH=/opt/torch/.venv/bin:/usr/bin; }
@test "golden: torch's wheel layout, extensions" {
	golden torch-ext torch-ext PATH=/opt/torch/.venv/bin:/usr/bin
}
@test "golden: torch's wheel layout, the system cuDNN first on LD_LIBRARY_PATH" {
	golden torch-shadowed torch PATH=/opt/torch/.venv/bin:/usr/bin \
		LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
}
@test "golden: torch's wheel layout with the fake H200" {
	golden torch-h200 torch PATH=/opt/torch/.venv/bin:/usr/bin CD_FAKE_MODE=h200 -- \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" --timeout 2
}
@test "golden: TORCH_CUDA_ARCH_LIST with invalid entries" {
	golden torch-archlist torch PATH=/opt/torch/.venv/bin:/usr/bin CD_FAKE_MODE=h200 \
		'TORCH_CUDA_ARCH_LIST=8.0;sm_90;10.7;9.0a+PTX' -- \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" --timeout 2
}
