#!/usr/bin/env bash
# The CI gate of the GitHub Action (action.yml) and the GitLab template
# (ci/gitlab/cuda-doctor.gitlab-ci.yml): find or install cuda-doctor, keep the
# environment report (JSON, and Markdown for the job summary), then run
# `cuda-doctor gate --policy FILE [ARGS...]` and exit with its status:
# 0 the policy holds, 1 it is violated, 2 the policy does not parse.
# Variables (all optional):
#   CUDA_DOCTOR_BIN      the binary to use (else cuda-doctor on PATH, else the wheel)
#   CUDA_DOCTOR_VERSION  the cuda-doctor-bin version pip installs (default: the newest)
#   CUDA_DOCTOR_POLICY   the policy file (none: gate's defaults)
#   CUDA_DOCTOR_ARGS     more gate arguments, split on spaces (--require 'EXPR' needs the
#                        policy file instead, or CUDA_DOCTOR_REQUIRE)
#   CUDA_DOCTOR_REQUIRE  requirements, one per line, each passed as --require LINE
#   CUDA_DOCTOR_REPORT   where the JSON report goes (default cuda-doctor-report.json)
#   CUDA_DOCTOR_SUMMARY  a file the Markdown report is appended to ($GITHUB_STEP_SUMMARY)
set -uo pipefail

log() { printf 'cuda-doctor-gate: %s\n' "$*" >&2; }

find_binary() {
	if [ -n "${CUDA_DOCTOR_BIN:-}" ]; then
		printf '%s\n' "$CUDA_DOCTOR_BIN"
		return
	fi
	if command -v cuda-doctor >/dev/null 2>&1; then
		command -v cuda-doctor
		return
	fi
	local venv=${RUNNER_TEMP:-${TMPDIR:-/tmp}}/cuda-doctor-venv spec=cuda-doctor-bin
	[ -n "${CUDA_DOCTOR_VERSION:-}" ] && spec="cuda-doctor-bin==$CUDA_DOCTOR_VERSION"
	log "installing $spec into $venv"
	if ! { python3 -m venv "$venv" && "$venv/bin/python" -m pip install -q "$spec"; } >&2; then
		log "cannot install $spec: set CUDA_DOCTOR_BIN or put cuda-doctor on PATH"
		return 1
	fi
	printf '%s\n' "$venv/bin/cuda-doctor"
}

bin=$(find_binary) || exit 2
[ -x "$bin" ] || { log "$bin is not an executable"; exit 2; }
report=${CUDA_DOCTOR_REPORT:-cuda-doctor-report.json}
"$bin" check --json >"$report"
log "environment report: $report (check exit $?)"
if [ -n "${CUDA_DOCTOR_SUMMARY:-}" ]; then
	"$bin" check --format markdown >>"$CUDA_DOCTOR_SUMMARY"
fi

args=(gate)
if [ -n "${CUDA_DOCTOR_POLICY:-}" ]; then
	[ -r "$CUDA_DOCTOR_POLICY" ] || { log "policy $CUDA_DOCTOR_POLICY cannot be read"; exit 2; }
	args+=(--policy "$CUDA_DOCTOR_POLICY")
fi
while IFS= read -r req; do
	[ -n "$req" ] && args+=(--require "$req")
done <<<"${CUDA_DOCTOR_REQUIRE:-}"
# shellcheck disable=SC2206 # split on purpose: documented as space-separated
[ -n "${CUDA_DOCTOR_ARGS:-}" ] && args+=(${CUDA_DOCTOR_ARGS})
log "running: $bin ${args[*]}"
"$bin" "${args[@]}"
rc=$?
case $rc in
0) log "policy holds" ;;
1) log "policy violated: the job stops here, before training starts" ;;
*) log "gate could not run (exit $rc)" ;;
esac
exit "$rc"
