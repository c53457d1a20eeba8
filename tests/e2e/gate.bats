#!/usr/bin/env bats
# cuda-doctor gate: a policy judged against check's facts and findings, on
# torch's wheel layout (stacklibs_fixtures.bash: torch 2.11.0+cu130, cuDNN
# 9.19.0.56, NCCL 2.28.9, CUDA runtime 13.0.96, no toolkit) with the fake H200
# (driver 580.159.04, CUDA 13.0, compute capability 9.0, 140.4 GiB).

load stacklibs_fixtures

setup_file() {
	S="$BATS_FILE_TMPDIR/src"
	mkdir -p "$S"
	fx_sources "$S"
	make_torch_root "$BATS_FILE_TMPDIR/torch" "$S"
	export S
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	R="$BATS_FILE_TMPDIR/torch"
	T=$BATS_TEST_TMPDIR
}

# gate MODE [ARGS...]: `gate` on the torch root with the fake driver in MODE.
gate() {
	local mode=$1
	shift
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent CD_FAKE_MODE="$mode" \
		"$CD" --root "$R" --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1" --timeout 5 gate --no-color "$@"
}

@test "gate: a policy file that holds, comments and all, exits 0" {
	cat >"$T/ok.policy" <<'P'
# what the training job needs
driver >= 535          # 580.159.04
cuda >= 12.1
cuda.runtime >= 13.0
torch >= 2.3, < 2.12
torch.cuda == 13.0
cudnn >= 9
nccl >= 2.18
gpu.count >= 1
gpu.cc >= 8.0
gpu.memory >= 80GiB
package numpy >= 2
package Huggingface_Hub
python >= 3.10
no-errors
P
	gate h200 --policy "$T/ok.policy"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"gate: passed, 14 requirements met"* ]]
	[[ "$output" == *"✓ nccl >= 2.18"*"2.28.9"* ]]
	[[ "$output" != *"✗"* ]]
}

@test "gate: every violation in one table, with what was found and the finding, exit 1" {
	gate h200 --require 'driver >= 590' --require 'torch >= 2.3, < 2.6' \
		--require 'gpu.count >= 8' --require 'header cusparse.h' --require 'package flash-attn' \
		--require 'nccl >= 2.18'
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"✗ driver >= 590"*"580.159.04"* ]]
	[[ "$output" == *"580.159.04 is not >= 590"* ]]
	[[ "$output" == *"✗ torch >= 2.3, < 2.6"*"2.11.0+cu130"* ]]
	[[ "$output" == *"2.11.0+cu130 does not satisfy >= 2.3, < 2.6"* ]]
	[[ "$output" == *"✗ gpu.count >= 8"*"1 GPU"* ]]
	[[ "$output" == *"✗ header cusparse.h"*"no CUDA toolkit"*"toolkit-missing"* ]]
	[[ "$output" == *"✗ package flash-attn"*"not installed"* ]]
	[[ "$output" == *"✓ nccl >= 2.18"* ]]
	[[ "$output" == *"gate: failed, 5 of 6 requirements not met"* ]]
	gate h200 -q --require 'gpu.count >= 8' --require 'nccl >= 2.18'
	[ "$status" -eq 1 ]
	[[ "$output" != *"nccl"* ]]
}

@test "gate --json: the same verdicts for jq" {
	gate h200 --json --require 'driver >= 590' --require 'cudnn >= 9.1' --require 'header cusparse.h'
	[ "$status" -eq 1 ]
	[ "$(jq -r .schema <<<"$output")" = cuda-doctor.gate/1 ]
	[ "$(jq -r .pass <<<"$output")" = false ]
	[ "$(jq -r .violations <<<"$output")" = 2 ]
	[ "$(jq -r '.requirements[0] | [.subject, .status, .found] | join(" ")' <<<"$output")" = "driver fail 580.159.04" ]
	[ "$(jq -r '.requirements[0].compare[0] | .op + .value' <<<"$output")" = ">=590" ]
	[ "$(jq -r '.requirements[1] | [.status, .found, .origin] | join(" ")' <<<"$output")" = "pass 9.19.0.56 --require" ]
	[ "$(jq -r '.requirements[2] | [.name, .finding] | join(" ")' <<<"$output")" = "cusparse.h toolkit-missing" ]
}

@test "gate: an old driver and GPU fail with the finding that explains them" {
	gate old --require 'driver >= 535' --require 'gpu.cc >= 8.0' --require 'cuda >= 12.1'
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"470.256.02 is not >= 535"* ]]
	[[ "$output" == *"GPU 0: 7.5 is not >= 8.0"* ]]
	[[ "$output" == *"✗ cuda >= 12.1"*"11.4"*"driver-too-old"* ]]
}

@test "gate: no-errors fails on error findings; --allow and allow lines pass them" {
	gate ecc --require no-errors
	[ "$status" -eq 1 ]
	[[ "$output" == *"gpu-ecc-errors"* ]]
	printf 'no-errors\nallow gpu-ecc-errors\nallow gpu-retired-pages-pending\n' >"$T/allow.policy"
	gate ecc --policy "$T/allow.policy" --allow driver-too-old
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"none (3 allowed)"* ]]
	gate ecc --require no-errors --allow 'Not An Id'
	[ "$status" -eq 2 ]
	[[ "$output" == *"--allow 'Not An Id': expected a finding id"* ]]
}

@test "gate: a policy that does not parse is exit 2 with the file, line and reason" {
	printf '# ok so far\ndriver >= 535\ncuda >= twelve\n' >"$T/bad.policy"
	gate h200 --policy "$T/bad.policy"
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad.policy: line 3: 'twelve' is not a version (dotted numbers, like 535 or 12.1)"* ]]
	gate h200 --require 'drivr >= 535'
	[ "$status" -eq 2 ]
	[[ "$output" == *"--require 'drivr >= 535': unknown requirement 'drivr'"* ]]
	gate h200 --require 'gpu.memory >= lots'
	[ "$status" -eq 2 ]
	[[ "$output" == *"'lots' is not a size"* ]]
	gate h200 --policy "$T/missing.policy"
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing.policy"* ]]
	# No requirement at all is no-errors (nothing worse than info here; ecc has errors).
	gate h200
	[ "$status" -eq 0 ]
	[[ "$output" == *"✓ no-errors"* ]]
	gate ecc --allow gpu-ecc-errors
	[ "$status" -eq 1 ]
	[[ "$output" == *"✗ no-errors"*"gpu-retired-pages-pending"* ]]
	gate h200 --require
	[ "$status" -eq 2 ]
	[[ "$output" == *"--require needs a value"* ]]
	head -c 2000000 /dev/zero | tr '\0' '#' >"$T/huge.policy"
	gate h200 --policy "$T/huge.policy"
	[ "$status" -eq 2 ]
	[[ "$output" == *"larger than 1 MiB"* ]]
}

@test "gate: probe runs the quick live probe; a device that fails it violates the policy" {
	printf 'driver >= 535\nprobe\n' >"$T/probe.policy"
	gate h200 --policy "$T/probe.policy" --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '[.requirements[] | select(.requirement == "probe")][0] | .status == "pass" and .found == "1 of 1 device passed"'
	gate launchfail --require probe --json
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '[.requirements[] | select(.requirement == "probe")][0] | .status == "fail" and (.finding | startswith("probe-"))'
	gate launchfail --require probe
	[ "$status" -eq 1 ]
	[[ "$output" == *"probe"*"0 of 1 device passed"* ]]
}

@test "gate -o FILE writes the verdict atomically; --format markdown is refused" {
	gate h200 --require 'driver >= 535' -o "$T/verdict.txt"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q "gate: passed, 1 requirement met" "$T/verdict.txt"
	[ ! -e "$T/verdict.txt.tmp" ]
	gate h200 --require 'driver >= 535' --format markdown
	[ "$status" -eq 2 ]
}
