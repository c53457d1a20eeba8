#!/usr/bin/env bats
# `cuda-doctor dockerfile`, end to end: the real Dockerfiles and Compose files
# of tests/e2e/dockerfiles (SOURCES.tsv: where each comes from;
# EXPECTED.tsv: the exact findings and lines, and why), the synthetic cases
# of tests/e2e/dockerfile_cases (a positive for every rule), the JSON, SARIF
# and Markdown views, exit statuses, and --host-driver against given versions
# and against the fake driver libraries (tests/fakes, CD_FAKE_MODE).

bats_require_minimum_version 1.5.0

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	TOP="$BATS_TEST_DIRNAME/../.."
	REAL="$BATS_TEST_DIRNAME/dockerfiles"
	CASES="$BATS_TEST_DIRNAME/dockerfile_cases"
	TMP=$(mktemp -d)
	unset CD_FAKE_MODE CD_FAKE_TRACE CUDA_VISIBLE_DEVICES
}

teardown() {
	rm -rf "$TMP"
}

# found FILE [ARGS...]: the findings as sorted "id@line" words, or "-".
found() {
	local out
	out=$("$CD" --format json dockerfile "$@" | jq -r '[.findings[] | "\(.id)@\(.location.line)"] | sort | join(" ")')
	echo "${out:--}"
}

live() {
	CD_FAKE_MODE=$1 "$CD" --nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" \
		"${@:2}"
}

@test "the real files: at least 30, each with a source and exactly the expected findings" {
	local n=0 bad=() f want why got
	while IFS=$'\t' read -r f want why; do
		case $f in '#'* | file) continue ;; esac
		n=$((n + 1))
		[ -f "$REAL/$f" ] || bad+=("$f: no such file")
		awk -F'\t' -v f="$f" '$1 == f && length($4) == 40 && $4 ~ /^[0-9a-f]+$/ &&
			index($5, "https://github.com/" $2 "/blob/" $4 "/") == 1 { ok = 1 } END { exit !ok }' \
			"$REAL/SOURCES.tsv" || bad+=("$f: no pinned source in SOURCES.tsv")
		got=$(found "$REAL/$f")
		[ "$got" = "$want" ] || bad+=("$f: expected '$want', got '$got'")
	done <"$REAL/EXPECTED.tsv"
	[ ${#bad[@]} -eq 0 ] || { printf '%s\n' "${bad[@]}"; false; }
	[ "$n" -ge 30 ]
	# every file in the folder is listed
	for f in "$REAL"/*; do
		case ${f##*/} in SOURCES.tsv | EXPECTED.tsv) continue ;; esac
		grep -q "^${f##*/}	" "$REAL/EXPECTED.tsv" || { echo "unlisted: $f"; false; }
	done
}

@test "the synthetic cases: exactly the expected findings; every rule has a positive" {
	local bad=() f a want got args
	while IFS=$'\t' read -r f a want; do
		case $f in '#'* | file) continue ;; esac
		args=()
		[ "$a" = - ] || read -ra args <<<"$a"
		got=$(found "$CASES/$f" "${args[@]}")
		[ "$got" = "$want" ] || bad+=("$f $a: expected '$want', got '$got'")
	done <"$CASES/EXPECTED.tsv"
	[ ${#bad[@]} -eq 0 ] || { printf '%s\n' "${bad[@]}"; false; }
	for id in $(awk -F'\t' '!/^#/ && $1 != "id" { print $1 }' "$TOP/data/dockerfile_rules.tsv" "$TOP/data/compose_rules.tsv"); do
		case $id in compose-gpu-count-exceeds | image-libcuda-bundled | image-compat-mismatch) continue ;; esac # a live host, check --host-driver: below, image_host.bats
		grep -q "$id@" "$CASES/EXPECTED.tsv" || { echo "no positive for $id"; false; }
	done
}

@test "every rule of the tables is documented in docs/findings.md and raised by the code" {
	local ids
	ids=$("$TOP/scripts/finding-ids.sh")
	for id in $(awk -F'\t' '!/^#/ && $1 != "id" { print $1 }' "$TOP/data/dockerfile_rules.tsv" "$TOP/data/compose_rules.tsv"); do
		grep -q "^## $id\$" "$TOP/docs/findings.md" || { echo "undocumented: $id"; false; }
		grep -qx "$id" <<<"$ids" || { echo "never raised: $id"; false; }
	done
	# every row cites where its behaviour is documented: a URL, and a description of it
	run awk -F'\t' '!/^#/ && $1 != "id" && (NF != 5 || $5 !~ /https:\/\// || length($4) < 40) { print FILENAME ": " $1 }' \
		"$TOP/data/dockerfile_rules.tsv" "$TOP/data/compose_rules.tsv"
	[ "$status" -eq 0 ]
	[ -z "$output" ] || { echo "rows without a source: $output"; false; }
}

@test "exit status: 1 with an error, 0 with warnings or nothing, 2 for usage and unreadable files" {
	run "$CD" dockerfile "$CASES/syntax.Dockerfile"
	[ "$status" -eq 1 ]
	run "$CD" dockerfile "$CASES/tag-unpinned.Dockerfile"
	[ "$status" -eq 0 ]
	[[ "$output" == *"dockerfile-tag-unpinned"* ]]
	run "$CD" dockerfile "$REAL/detectron2__Dockerfile"
	[ "$status" -eq 0 ]
	run "$CD" dockerfile "$TMP/nope"
	[ "$status" -eq 2 ]
	printf 'just text\n' >"$TMP/Dockerfile" # BuildKit: unknown instruction
	run "$CD" dockerfile "$TMP/Dockerfile"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unknown instruction: just"* ]]
	printf '# only a comment\n' >"$TMP/Dockerfile"
	run "$CD" dockerfile "$TMP/Dockerfile"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no FROM instruction"* ]]
	run "$CD" dockerfile
	[ "$status" -eq 2 ]
	run "$CD" dockerfile "$CASES/host.Dockerfile" --host-driver banana
	[ "$status" -eq 2 ]
	run "$CD" dockerfile "$CASES/host.Dockerfile" --brand tesla
	[ "$status" -eq 2 ]
	run "$CD" dockerfile "$CASES/host.Dockerfile" --brand frobnitz --host-driver 535.104.05
	[ "$status" -eq 2 ]
	run "$CD" dockerfile "$CASES/host.Dockerfile" --build-arg NOEQUALS
	[ "$status" -eq 2 ]
	run "$CD" dockerfile "$CASES/builds.Dockerfile" --target nope
	[ "$status" -eq 2 ]
	[[ "$output" == *"no such stage"* ]]
	run "$CD" dockerfile "$CASES/host.Dockerfile" --platform arm64
	[ "$status" -eq 2 ]
	run "$CD" dockerfile "$CASES/host.Dockerfile" --frobnicate
	[ "$status" -eq 2 ]
	printf 'services: [\n' >"$TMP/compose.yaml"
	run "$CD" dockerfile "$TMP/compose.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"compose.yaml"* ]]
}

@test "bad input: a missing file, a directory, binary bytes, 100 MB: one clear message, exit 2, bounded" {
	run "$CD" dockerfile "$TMP/nope"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "cuda-doctor dockerfile: $TMP/nope: No such file or directory" ]]
	run "$CD" dockerfile "$TMP"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"$TMP: not a regular file" ]]
	head -c 4096 "$CD" >"$TMP/elf"
	run "$CD" dockerfile "$TMP/elf"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"elf: byte 0x7f on line 1: binary data, not a Dockerfile or a Compose file" ]]
	printf 'FROM ubuntu:22.04\nRUN echo \033[2J\n' >"$TMP/Dockerfile" # ESC would reach the terminal
	run "$CD" dockerfile "$TMP/Dockerfile"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"byte 0x1b on line 2: binary data"* ]]
	printf 'services:\n  a:\x00\n' >"$TMP/compose.yaml"
	run "$CD" dockerfile "$TMP/compose.yaml"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"byte 0x00 on line 2"* ]]
	printf 'FROM ubuntu:22.04\r\n\tRUN true\f\n' >"$TMP/Dockerfile" # CR, tab, form feed are text
	run "$CD" dockerfile "$TMP/Dockerfile"
	[ "$status" -eq 0 ]
	truncate -s 100M "$TMP/big"
	run timeout 5 "$CD" dockerfile "$TMP/big"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *"big: larger than 4194304 bytes" ]]
	run timeout 5 bash -c "head -c 100000000 /dev/zero | tr '\\0' F | '$CD' dockerfile -"
	[ "$status" -eq 2 ]
	[[ "$output" == *"standard input is over 4194304 bytes"* ]]
	run timeout 5 "$CD" dockerfile /dev/zero
	[ "$status" -eq 2 ]
}

@test "standard input, and Compose files told by name, by --compose and by their first key" {
	run -0 bash -c "'$CD' --format json dockerfile - <'$CASES/devel-needed.Dockerfile' | jq -r '.findings[0].id'"
	[ "$output" = dockerfile-devel-needed ]
	cp "$CASES/compose-gpu.yml" "$TMP/stack"
	run "$CD" --format json dockerfile "$TMP/stack"
	[ "$(jq -r .kind <<<"$output")" = compose ]
	run "$CD" --format json dockerfile --compose - <"$CASES/compose-gpu.yml"
	[ "$(jq -r .kind <<<"$output")" = compose ]
	[ "$(jq -r '.services | length' <<<"$output")" -eq 17 ]
}

@test "JSON: the dockerfile/1 schema with stages, services, the host and located findings" {
	run "$CD" --format json dockerfile "$CASES/torch-wheels.Dockerfile" --host-driver 535.104.05
	[ "$status" -eq 1 ]
	jq -e '.schema == "cuda-doctor.dockerfile/1" and .kind == "dockerfile"
		and (.stages | length) == 4 and .stages[3].final == true and .stages[0].name == "mismatch"
		and .stages[0].cuda == "12.4.1" and .stages[0].nvcc == true and .stages[1].nvcc == false
		and .host_driver.driver == "535.104.05" and .host_driver.cuda == "12.2"
		and .host_driver.gpus == null and .services == [] and .ignored == 0
		and all(.findings[]; .location.file != null and .location.line > 0
			and .location.end_line >= .location.line and (.evidence | length) > 0)' <<<"$output"
	run "$CD" --format json dockerfile "$CASES/ignores.Dockerfile"
	[ "$(jq -r .ignored <<<"$output")" -eq 2 ]
	run "$CD" --format json dockerfile "$CASES/compose-gpu.yml"
	jq -e '.kind == "compose" and .stages == [] and .services[0].name == "vllm"
		and .services[0].gpus == null and .services[0].gpu_image == true
		and .services[2].gpus == "deploy: count 1" and .services[13].gpus == "gpus: device_ids 0,3"
		and .services[14].gpus == "deploy: count 4" and .services[16].gpus == "runtime: nvidia"
		and .ignored == 1' <<<"$output"
	# fixes name a real base image of the CUDA wanted (data/cuda_images.tsv's newest release)
	run "$CD" --format json dockerfile "$REAL/deepspeed__Dockerfile"
	jq -e '.findings[0].fix == ["FROM nvidia/cuda:11.7.1-devel-ubuntu22.04   # a base image of torch'"'"'s CUDA"]' <<<"$output"
	run "$CD" --format json dockerfile "$CASES/builds.Dockerfile"
	jq -e '[.findings[] | select(.id == "dockerfile-cuda-twice") | .fix[0]] ==
		["FROM nvidia/cuda:11.8.0-devel-ubuntu22.04   # a base image of the CUDA you install, instead of a second one"]' <<<"$output"
}

@test "SARIF 2.1.0: rules from the tables, results with regions, levels by severity" {
	run "$CD" --format sarif dockerfile "$CASES/builds.Dockerfile"
	[ "$status" -eq 1 ]
	jq -e '.version == "2.1.0" and (.runs | length) == 1
		and ([.runs[0].tool.driver.rules[].id] | index("dockerfile-cuda-twice")) != null
		and all(.runs[0].tool.driver.rules[]; .shortDescription.text != null and .helpUri != null)
		and all(.runs[0].results[]; .ruleId != null and .message.text != null
			and .locations[0].physicalLocation.region.startLine > 0
			and (.locations[0].physicalLocation.artifactLocation.uri | endswith("builds.Dockerfile")))
		and ([.runs[0].results[] | select(.ruleId == "nvidia-capabilities-no-compute") | .level] == ["error"])
		and ([.runs[0].results[] | select(.ruleId == "dockerfile-shm-advice") | .level] == ["note"])
		and ([.runs[0].results[] | select(.ruleId == "dockerfile-cuda-twice") | .level] == ["warning"])' <<<"$output"
	run "$CD" --format sarif dockerfile "$CASES/compose-gpu.yml"
	jq -e '[.runs[0].results[] | select(.ruleId == "compose-gpu-unreserved")] | length == 2' <<<"$output"
}

@test "text and Markdown views" {
	run "$CD" --no-color dockerfile "$CASES/builds.Dockerfile"
	[[ "$output" == *"stage 0 (archlist): nvidia/cuda:12.4.1-devel-ubuntu22.04"* ]]
	[[ "$output" == *"at "*"builds.Dockerfile:19"* ]]
	[[ "$output" == *"(final)"* ]]
	run "$CD" --format markdown dockerfile "$CASES/compose-gpu.yml"
	[[ "$output" == *"| service | image | GPUs |"* ]]
	[[ "$output" == *'`compose-gpu-request-invalid` (line 22)'* ]]
	run "$CD" --format markdown dockerfile "$CASES/host.Dockerfile"
	[[ "$output" == *"None."* ]]
}

@test "--host-driver live: the fake GeForce host refuses CUDA 12.8 and has one GPU" {
	run live geforce --format json dockerfile "$CASES/host.Dockerfile" --host-driver live
	[ "$status" -eq 1 ]
	jq -e '.host_driver.driver == "535.104.05" and .host_driver.brand == "geforce"
		and .host_driver.gpus == 1 and ([.findings[].id] == ["image-cuda-refused"])' <<<"$output"
	run live geforce --format json dockerfile "$CASES/compose-gpu.yml" --host-driver live
	[ "$(jq -r '[.findings[] | select(.id == "compose-gpu-count-exceeds") | .location.line] | join(" ")' <<<"$output")" = "73 83" ]
	# --brand overrides the brand NVML reports
	run live geforce --format json dockerfile "$CASES/host.Dockerfile" --host-driver live --brand tesla
	[ "$(jq -r '[.findings[].id] | join(" ")' <<<"$output")" = image-cuda-compat-only ]
}

@test "--host-driver live: the fake H200 (580, CUDA 13.0) runs CUDA 12.8; no driver is a usage error" {
	run live h200 --format json dockerfile "$CASES/host.Dockerfile" --host-driver live
	[ "$status" -eq 0 ]
	jq -e '.host_driver.driver == "580.159.04" and .host_driver.cuda == "13.0" and .findings == []' <<<"$output"
	run "$CD" --nvml-lib "$TMP/none.so" --cuda-lib "$TMP/none.so" dockerfile "$CASES/host.Dockerfile" --host-driver live
	[ "$status" -eq 2 ]
	[[ "$output" == *"no NVIDIA driver answered"* ]]
}
