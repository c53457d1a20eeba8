#!/usr/bin/env bats
# explain's diagnosis from the versions a log states (docs/explain.md, "Versions
# the log states"): the driver's CUDA and the CUDA a program was built for,
# compared by the rules of data/driver_cuda.tsv (minor-version compatibility).

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T=$BATS_TEST_TMPDIR
}

smi() { # nvidia-smi's header line for CUDA version $1
	printf '| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: %s     |\n' "$1"
}

@test "infer: a driver's CUDA older than the major torch was built for is driver-too-old, with both" {
	{ smi 11.4; echo 'torch.__version__ = 2.1.0+cu121'; printf '>>> torch.cuda.is_available()\nFalse\n'; } >"$T/a.log"
	run "$CD" explain --no-env --json "$T/a.log"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = driver-older-than-runtime-stated ]
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = driver-too-old ]
	[ "$(jq -r '.diagnoses[0].facts.driver_cuda' <<<"$output")" = 11.4 ]
	[ "$(jq -r '.diagnoses[0].facts.torch_cuda' <<<"$output")" = 12.1 ]
	[ "$(jq -r '.diagnoses[0].facts.driver_min' <<<"$output")" = 530.30.02 ]
	[ "$(jq -c '.diagnoses[0].lines' <<<"$output")" = '[2,1]' ]
	run "$CD" explain --no-env "$T/a.log"
	[[ "$output" == *"supports CUDA 11.4, older than the CUDA 12.1"* ]]
	[[ "$output" == *"530.30.02 or newer"* ]]
}

@test "infer: a conda install's cudatoolkit counts; CUDA 10 needs its minor too" {
	{ echo 'conda install pytorch torchvision cudatoolkit=10.2 -c pytorch'; smi 10.1; } >"$T/b.log"
	run "$CD" explain --no-env --json "$T/b.log"
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = driver-older-than-runtime-stated ]
	[ "$(jq -r '.diagnoses[0].facts.driver_min' <<<"$output")" = 440.33 ]
}

@test "infer: same major (minor-version compatibility) or a newer driver gives nothing" {
	{ smi 12.0; echo 'torch.__version__ = 2.1.0+cu121'; } >"$T/c.log"
	run "$CD" explain --no-env --json "$T/c.log"
	[ "$(jq -r '[.diagnoses[].signature] | index("driver-older-than-runtime-stated")' <<<"$output")" = null ]
	{ smi 12.4; echo 'torch.__version__ = 2.1.0+cu118'; echo 'RuntimeError: boom'; } >"$T/d.log"
	run "$CD" explain --no-env --json "$T/d.log"
	[ "$(jq -r '[.diagnoses[].signature] | index("driver-older-than-runtime-stated")' <<<"$output")" = null ]
}

@test "infer: another cause the driver does not explain keeps the first place, and is not joined" {
	{ smi 11.4; echo 'torch.__version__ = 2.1.0+cu121'
	  echo 'csrc/x.cu:3:10: fatal error: cusparse.h: No such file or directory'; } >"$T/e.log"
	run "$CD" explain --no-env --json "$T/e.log"
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = missing-headers ]
	[ "$(jq -r '[.diagnoses[].signature] | index("driver-older-than-runtime-stated")' <<<"$output")" = null ]
}

@test "infer: a cuda-init symptom of the old driver ranks after it (driver-too-old causes cuda-init)" {
	{ smi 11.4; echo 'torch.__version__ = 2.1.0+cu121'
	  echo 'RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver'; } >"$T/f.log"
	run "$CD" explain --no-env --json "$T/f.log"
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = driver-older-than-runtime-stated ]
	[ "$(jq -r '.diagnoses[1].category' <<<"$output")" = cuda-init ]
}

@test "infer: versions from two different inputs are not compared" {
	smi 11.4 >"$T/g1.log"
	echo 'torch.__version__ = 2.1.0+cu121' >"$T/g2.log"
	run "$CD" explain --no-env --json "$T/g1.log" "$T/g2.log"
	[ "$(jq -r '[.diagnoses[].signature] | index("driver-older-than-runtime-stated")' <<<"$output")" = null ]
}

@test "infer: a release newer than the table of drivers still names both, without a minimum" {
	{ smi 13.0; echo 'torch.__version__ = 2.99.0+cu140'; } >"$T/h.log"
	run "$CD" explain --no-env --json "$T/h.log"
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = driver-older-than-runtime-stated ]
	[ "$(jq -r '.diagnoses[0].facts.driver_min' <<<"$output")" = null ]
	run "$CD" explain --no-env "$T/h.log"
	[[ "$output" == *"shows CUDA Version 14.0 or newer"* ]]
	[[ "$output" != *"<driver_min>"* ]]
}

@test "infer: nvcc of another major than torch's CUDA is nvcc-mismatch, with both and the wheel" {
	{ echo 'Cuda compilation tools, release 10.2, V10.2.89'; echo 'CUDA used to build PyTorch: 11.8'
	  echo 'RuntimeError: Error compiling objects for extension'; } >"$T/n.log"
	run "$CD" explain --no-env --json "$T/n.log"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = nvcc-major-differs-from-torch-stated ]
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = nvcc-mismatch ]
	[ "$(jq -r '.diagnoses[0].facts.nvcc_cuda + " " + .diagnoses[0].facts.torch_cuda' <<<"$output")" = "10.2 11.8" ]
	[ "$(jq -r '.diagnoses[0].facts.nvcc_wheel' <<<"$output")" = cu102 ]
	run "$CD" explain --no-env "$T/n.log"
	[[ "$output" == *"CUDA_HOME=/usr/local/cuda-11.8"* ]]
	[[ "$output" == *"whl/cu102"* ]]
}

@test "infer: nvcc and torch of one major (a minor apart) give no nvcc-mismatch" {
	{ echo 'Cuda compilation tools, release 12.4, V12.4.131'; echo 'CUDA used to build PyTorch: 12.1'
	  echo 'RuntimeError: boom'; } >"$T/m.log"
	run "$CD" explain --no-env --json "$T/m.log"
	[ "$(jq -r '[.diagnoses[].signature] | index("nvcc-major-differs-from-torch-stated")' <<<"$output")" = null ]
}

@test "infer: a gcc newer than nvcc's host_config.h allows is host-compiler, with the bound" {
	{ echo 'gcc version 13.2.0 (Ubuntu 13.2.0-23ubuntu4)'; echo 'Cuda compilation tools, release 11.8, V11.8.89'
	  echo 'error: command /usr/local/cuda/bin/nvcc failed with exit code 1'; } >"$T/g.log"
	run "$CD" explain --no-env --json "$T/g.log"
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = gcc-newer-than-nvcc-stated ]
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = host-compiler ]
	[ "$(jq -r '.diagnoses[0].facts.gcc + " " + .diagnoses[0].facts.gcc_max' <<<"$output")" = "13 11" ]
	# a cause from the versions: no diagnosis of last resort or guess beside it
	[ "$(jq '.diagnoses | length' <<<"$output")" = 1 ]
	{ echo 'gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)'; echo 'Cuda compilation tools, release 11.8, V11.8.89'
	  echo 'error: command failed'; } >"$T/h.log"
	run "$CD" explain --no-env --json "$T/h.log"
	[ "$(jq -r '[.diagnoses[].signature] | index("gcc-newer-than-nvcc-stated")' <<<"$output")" = null ]
}

@test "infer: a missing header the log names keeps the first place over stated gcc and nvcc" {
	{ echo 'gcc version 13.2.0 (Ubuntu 13.2.0-23ubuntu4)'; echo 'Cuda compilation tools, release 11.8, V11.8.89'
	  echo 'csrc/x.cu:3:10: fatal error: cusparse.h: No such file or directory'; } >"$T/i.log"
	run "$CD" explain --no-env --json "$T/i.log"
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = missing-headers ]
	[ "$(jq -r '[.diagnoses[].signature] | index("gcc-newer-than-nvcc-stated")' <<<"$output")" = null ]
}

@test "infer: a library the program could not load is not put down to nvcc's release (jit-cache's effect, not nvcc's)" {
	{ echo 'Cuda compilation tools, release 12.2, V12.2.140'; echo 'torch.__version__ = 2.1.0+cu118'
	  echo 'Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}'; } >"$T/j.log"
	run "$CD" explain --no-env --json "$T/j.log"
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = missing-shared-lib ]
	[ "$(jq -r '[.diagnoses[].signature] | index("nvcc-major-differs-from-torch-stated")' <<<"$output")" = null ]
}
