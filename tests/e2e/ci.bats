#!/usr/bin/env bats
# The CI templates: ci/cuda-doctor-gate.sh (what the GitHub Action runs), the
# Action's own run block from action.yml, and the script lines of the GitLab
# template, each run here with a stub cuda-doctor that records its arguments
# and exits as told, and the gate script once with the real binary.

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	REPO="$BATS_TEST_DIRNAME/../.."
	T=$BATS_TEST_TMPDIR
	cat >"$T/stub" <<'STUB'
#!/usr/bin/env bash
printf '%s\n' "$*" >>"$STUB_LOG"
case $1 in
check) [ "$2" = --json ] && echo '{"schema":"cuda-doctor.report/1","findings":[]}' || echo '### report'; exit 0 ;;
gate) exit "${STUB_RC:-0}" ;;
esac
STUB
	chmod +x "$T/stub"
	export STUB_LOG=$T/calls
	cd "$T" || return 1
}

@test "gate script: report, summary, then gate with the policy, requirements and args" {
	run env CUDA_DOCTOR_BIN="$T/stub" CUDA_DOCTOR_POLICY="$REPO/ci/example-policy.txt" \
		CUDA_DOCTOR_REQUIRE=$'driver >= 535\n\ngpu.count >= 8' CUDA_DOCTOR_ARGS='--allow lib-shadowed' \
		CUDA_DOCTOR_SUMMARY="$T/summary.md" "$REPO/ci/cuda-doctor-gate.sh"
	[ "$status" -eq 0 ]
	[ "$(jq -r .schema cuda-doctor-report.json)" = cuda-doctor.report/1 ]
	[ "$(cat summary.md)" = '### report' ]
	[ "$(sed -n 3p calls)" = "gate --policy $REPO/ci/example-policy.txt --require driver >= 535 --require gpu.count >= 8 --allow lib-shadowed" ]
	[[ "$output" == *"policy holds"* ]]
}

@test "gate script: the gate's exit status is the job's" {
	run env CUDA_DOCTOR_BIN="$T/stub" STUB_RC=1 "$REPO/ci/cuda-doctor-gate.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"policy violated"* ]]
	[ "$(tail -1 calls)" = gate ]
	run env CUDA_DOCTOR_BIN="$T/stub" STUB_RC=2 "$REPO/ci/cuda-doctor-gate.sh"
	[ "$status" -eq 2 ]
	run env CUDA_DOCTOR_BIN="$T/stub" CUDA_DOCTOR_POLICY="$T/none.txt" "$REPO/ci/cuda-doctor-gate.sh"
	[ "$status" -eq 2 ]
	[[ "$output" == *"policy $T/none.txt cannot be read"* ]]
	run env CUDA_DOCTOR_BIN="$T/nope" "$REPO/ci/cuda-doctor-gate.sh"
	[ "$status" -eq 2 ]
}

@test "gate script with the real binary writes the report and runs gate" {
	run env CUDA_DOCTOR_BIN="$CD" CUDA_DOCTOR_REPORT="$T/r.json" "$REPO/ci/cuda-doctor-gate.sh"
	[ "$(jq -r .schema "$T/r.json")" = cuda-doctor.report/1 ]
	[[ "$output" == *"running: $CD gate"* ]]
	if "$CD" gate --help | grep -q 'planned'; then
		[ "$status" -eq 2 ]
		[[ "$output" == *"cuda-doctor gate: not available in this version yet"* ]]
	else
		[ "$status" -le 1 ]
	fi
}

@test "action.yml: the composite step's run block works as the runner runs it" {
	local block
	block=$(awk '/^      run: \|/{f=1; next} f && /^        /{sub(/^        /, ""); print; next} f{exit}' "$REPO/action.yml")
	[ -n "$block" ]
	grep -q '^  using: composite' "$REPO/action.yml"
	run env GITHUB_OUTPUT="$T/out" GITHUB_STEP_SUMMARY="$T/sum" GITHUB_ACTION_PATH="$REPO" \
		CUDA_DOCTOR_BIN="$T/stub" CUDA_DOCTOR_POLICY="$REPO/ci/example-policy.txt" CUDA_DOCTOR_REQUIRE= \
		CUDA_DOCTOR_ARGS= CUDA_DOCTOR_VERSION= CUDA_DOCTOR_REPORT=rep.json STUB_RC=1 bash -e -c "$block"
	[ "$status" -eq 1 ]
	[ "$(cat out)" = report=rep.json ]
	[ "$(cat sum)" = '### report' ]
	[ "$(tail -1 calls)" = "gate --policy $REPO/ci/example-policy.txt" ]
	# every input the step reads is declared
	for v in policy require args binary version report; do
		grep -q "^  $v:" "$REPO/action.yml"
		grep -q "inputs.$v }}" "$REPO/action.yml"
	done
}

@test "GitLab template: the script lines run in one shell and gate decides the job" {
	local script
	script=$(awk '/^  script:/{f=1; next} f && /^    - /{sub(/^    - /, ""); print; next} f{exit}' \
		"$REPO/ci/gitlab/cuda-doctor.gitlab-ci.yml" |
		sed -e "s/^'\\(.*\\)'\$/\\1/" -e "s/''/'/g")
	[ "$(wc -l <<<"$script")" -eq 5 ]
	run env CUDA_DOCTOR_BIN="$T/stub" CUDA_DOCTOR_POLICY=p.txt CUDA_DOCTOR_ARGS='--allow x' \
		CUDA_DOCTOR_VERSION= CUDA_DOCTOR_REPORT=rep.json CI_PROJECT_DIR="$T" STUB_RC=1 sh -e -c "$script"
	[ "$status" -eq 1 ]
	[ "$(jq -r .schema rep.json)" = cuda-doctor.report/1 ]
	[ "$(cat cuda-doctor-report.md)" = '### report' ]
	[ "$(tail -1 calls)" = "gate --policy p.txt --allow x" ]
	# no binary given: the one on PATH
	mkdir -p bin && cp "$T/stub" bin/cuda-doctor
	run env PATH="$T/bin:/usr/bin:/bin" CUDA_DOCTOR_BIN= CUDA_DOCTOR_POLICY= CUDA_DOCTOR_ARGS= \
		CUDA_DOCTOR_VERSION= CUDA_DOCTOR_REPORT=rep.json CI_PROJECT_DIR="$T" sh -e -c "$script"
	[ "$status" -eq 0 ]
	[ "$(tail -1 calls)" = gate ]
}
