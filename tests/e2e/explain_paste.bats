#!/usr/bin/env bats
# `cuda-doctor explain`: key facts taken from the lines around a diagnosis
# (data/explain_facts.tsv), and logs pasted as a JSON string, a Python repr,
# a markdown quote or with a line-number gutter read as the lines they were,
# in every encoding and line ending explain reads.

bats_require_minimum_version 1.5.0

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T="$BATS_TEST_TMPDIR"
}

apex() {
	printf '%s\n' 'torch.__version__  = 2.4.1' 'Compiling cuda extensions with' \
		'nvcc: NVIDIA (R) Cuda compiler driver' 'Cuda compilation tools, release 12.2, V12.2.91' \
		'from /usr/local/cuda/bin' \
		'RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 12.1.'
}

@test "a key fact on another line than the failure: taken from the nearest line, its line in --json" {
	apex >"$T/apex.log"
	run "$CD" --json explain --no-env "$T/apex.log"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].category == "nvcc-mismatch" and .diagnoses[0].facts.nvcc_cuda == "12.2"
		and .diagnoses[0].fact_lines.nvcc_cuda == 4 and .diagnoses[0].facts.torch_cuda == "12.1"
		and (.diagnoses[0].fact_lines | has("torch_cuda") | not)'
	run "$CD" explain --no-env "$T/apex.log"
	[[ "$output" == *"nvcc_cuda=12.2 (line 4)"* ]]
}

@test "a key fact the failure's own line gives is kept over its context's" {
	printf '%s\n' 'NCCL version 2.14.3+cuda11.7' \
		'torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system error, NCCL version 2.10.3' >"$T/nccl.log"
	run "$CD" --json explain --no-env "$T/nccl.log"
	echo "$output" | jq -e '.diagnoses[0].facts.nccl == "2.10.3" and (.diagnoses[0] | has("fact_lines") | not)'
}

@test "TensorFlow's shape is kept as printed, not read as a version" {
	printf '%s\n' 'ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[256,112,112,64]' >"$T/tf.log"
	run "$CD" --json explain --no-env "$T/tf.log"
	echo "$output" | jq -e '.diagnoses[0].facts.shape == "256,112,112,64"'
}

json_paste() {
	printf '%s\n' '{"cell": 3, "output": "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    raise RuntimeError(\"no kernel image is available for execution on the device\")\n\u001b[0;31mOSError\u001b[0m: libcudnn.so.8: cannot open shared object file: No such file or directory\n"}'
}

@test "a log pasted as a JSON string is matched as the lines it was" {
	json_paste >"$T/json.log"
	run "$CD" --json explain --no-env "$T/json.log"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].signature == "soname-generic" and .diagnoses[0].line == 4
		and .diagnoses[0].facts.soname == "libcudnn.so.8" and .summary.traceback_code_lines == 1
		and .diagnoses[0].text == "OSError: libcudnn.so.8: cannot open shared object file: No such file or directory"'
}

@test "a Python repr escaped twice, a markdown quote and a line-number gutter are read as lines" {
	printf '%s\n' "b'Traceback (most recent call last):\\\\n  File \"x.py\", line 1, in <module>\\\\nOSError: libcudnn.so.8: cannot open shared object file: No such file or directory\\\\n'" >"$T/repr.log"
	printf '%s\n' '> Traceback (most recent call last):' '>   File "x.py", line 1, in <module>' \
		'>     raise RuntimeError("CUDA driver version is insufficient for CUDA runtime version")' \
		'> OSError: libcudnn.so.8: cannot open shared object file: No such file or directory' >"$T/quote.log"
	printf '%s\n' '  1 | Traceback (most recent call last):' '  2 |   File "x.py", line 1, in <module>' \
		'  3 |     raise OSError("libcudnn.so.8: cannot open shared object file")' \
		'  4 | RuntimeError: CUDA driver version is insufficient for CUDA runtime version' >"$T/gutter.log"
	run "$CD" --json explain --no-env "$T/repr.log"
	echo "$output" | jq -e '.diagnoses[0].signature == "soname-generic" and .diagnoses[0].line == 3'
	run "$CD" --json explain --no-env "$T/quote.log"
	echo "$output" | jq -e '.diagnoses[0].signature == "soname-generic" and .summary.traceback_code_lines == 1 and (.diagnoses | length) == 1'
	run "$CD" --json explain --no-env "$T/gutter.log"
	echo "$output" | jq -e '.diagnoses[0].signature == "cuda-driver-insufficient" and .summary.traceback_code_lines == 1 and ([.diagnoses[] | select(.role != "alternative")] | length) == 1'
}

@test "a pasted log in UTF-16 either order, with and without a BOM, and with CR-only line ends" {
	json_paste >"$T/u8"
	{ printf '\377\376'; iconv -f UTF-8 -t UTF-16LE "$T/u8"; } >"$T/le-bom"
	iconv -f UTF-8 -t UTF-16LE "$T/u8" >"$T/le"
	{ printf '\376\377'; iconv -f UTF-8 -t UTF-16BE "$T/u8"; } >"$T/be-bom"
	iconv -f UTF-8 -t UTF-16BE "$T/u8" >"$T/be"
	printf '%s\r%s\r' 'step 1' "$(cat "$T/u8")" >"$T/cr"
	for f in le-bom le be-bom be; do
		run "$CD" --json explain --no-env "$T/$f"
		echo "$output" | jq -e '.diagnoses[0].signature == "soname-generic" and .diagnoses[0].line == 4'
	done
	run "$CD" --json explain --no-env "$T/cr"
	echo "$output" | jq -e '.diagnoses[0].signature == "soname-generic" and .diagnoses[0].line == 5'
}

@test "a 10 MB escaped line with NULs and an ANSI flood: bounded, the failure inside found" {
	{
		printf '"'
		head -c 10485760 /dev/zero | tr '\0' x | fold -w 60 | tr '\n' '#' | sed 's/#/\\n  /g'
		printf '\\nOSError: libcudnn.so.8: cannot open shared object file: No such file or directory\\n\000\000'
		for _ in $(seq 20000); do printf '\\u001b[1;31m\\u001b[0m'; done
		printf '"\n'
	} >"$T/big"
	run /usr/bin/time -f 'maxrss=%M' -o "$T/rss" "$CD" --json explain --no-env "$T/big"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].signature == "soname-generic"'
	rss=$(sed -n 's/^maxrss=\([0-9]*\).*/\1/p' "$T/rss")
	[ "$rss" -lt 65536 ]
	rm -f "$T/big"
}
