#!/usr/bin/env bash
# `cuda-doctor fix` on the GPU machine (issue 12): the plan of the healthy box
# must be empty; for each fault injected - the system cuDNN first on
# LD_LIBRARY_PATH, a CUDA_HOME without headers, CUDA_VISIBLE_DEVICES naming a
# missing GPU - check, fix, paste the first step's command, check again: the
# findings must then be the healthy box's. Also --apply on a throw-away torch
# extensions cache (moved aside, then put back by the printed undo), the
# install line, and bench/fix.sh. Everything goes under OUTDIR; summary.md is
# the record for docs/validation/.
# Usage: scripts/hw/fix-validate.sh CUDA_DOCTOR OUTDIR   (PYENV=/opt/torch/.venv by default)
set -u
cd_bin=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
pyenv=${PYENV:-/opt/torch/.venv}
mkdir -p "$out"
envarg=()
[ -d "$pyenv" ] && envarg=(--env "$pyenv")
fails=0
summary="$out/summary.md"

say() { printf '%s\n' "$*" | tee -a "$summary"; }
ids() { jq -r '[.findings[] | select(.severity != "info") | .id] | sort | join(" ")' "$1"; }

{
	echo "# cuda-doctor fix on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	"$cd_bin" --version
	nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1
	echo
} >"$summary"

# ---- the healthy box ----------------------------------------------------------
"$cd_bin" "${envarg[@]}" check --json >"$out/healthy-check.json"
"$cd_bin" "${envarg[@]}" fix --json >"$out/healthy-fix.json"
"$cd_bin" "${envarg[@]}" fix --no-color >"$out/healthy-fix.txt"
healthy=$(ids "$out/healthy-check.json")
n=$(jq '.plan | length' "$out/healthy-fix.json")
if [ "$n" = 0 ]; then
	say "- PASS healthy box: the plan is empty (check's warnings and errors: '${healthy}')"
else
	say "- FAIL healthy box: the plan has $n steps: $(jq -c '[.plan[].ids]' "$out/healthy-fix.json")"
	fails=$((fails + 1))
fi
say "- install line: $(jq -r '.install.pick.line // "none"' "$out/healthy-fix.json")"
say "  ($(jq -r '.install.pick.variant + " of torch " + .install.pick.torch + ", " + .install.status + ", installer " + .install.installer' "$out/healthy-fix.json"))"

# ---- faults -------------------------------------------------------------------
headerless=$(mktemp -d /tmp/cd-headerless.XXXXXX)
mkdir -p "$headerless/bin"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
ln -s "$(realpath "$nvcc")" "$headerless/bin/nvcc"
[ -f /usr/local/cuda/version.json ] && cp /usr/local/cuda/version.json "$headerless/"

# fault NAME VAR=VALUE: check, fix, the first step pasted, check again.
fault() {
	local name=$1 assign=$2 d=$out/$1 cmd
	mkdir -p "$d"
	env "$assign" "$cd_bin" "${envarg[@]}" check --json >"$d/before.json"
	env "$assign" "$cd_bin" "${envarg[@]}" check --no-color >"$d/before.txt"
	env "$assign" "$cd_bin" "${envarg[@]}" fix --json >"$d/fix.json"
	env "$assign" "$cd_bin" "${envarg[@]}" fix --no-color >"$d/fix.txt"
	cmd=$(jq -r '.plan[0].command // empty' "$d/fix.json")
	printf '%s\n' "$cmd" >"$d/first-step.sh"
	if [ -z "$cmd" ]; then
		say "- FAIL $name: no plan (check: '$(ids "$d/before.json")')"
		fails=$((fails + 1))
		return
	fi
	# the first step pasted into the shell that has the fault
	env "$assign" CD_BIN="$cd_bin" CMD="$cmd" bash -c 'eval "$CMD" >/dev/null; exec "$CD_BIN" "$@" check --json' \
		_ "${envarg[@]}" >"$d/after.json" 2>"$d/after.err"
	if [ "$(ids "$d/after.json")" = "$healthy" ]; then
		say "- PASS $name ($assign): first step \`$cmd\` ($(jq -r '.plan[0].ids | join(",")' "$d/fix.json")), then check is the healthy box's"
	else
		say "- FAIL $name ($assign): after \`$cmd\` check says '$(ids "$d/after.json")', healthy '$healthy'"
		fails=$((fails + 1))
	fi
}

# prepended to the box's own value, as a shell profile would
fault system-cudnn-first "LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fault headerless-cuda-home "CUDA_HOME=$headerless"
fault missing-gpu CUDA_VISIBLE_DEVICES=3
rm -rf "$headerless"

# ---- --apply on a throw-away extensions cache ------------------------------------
home=$(mktemp -d /tmp/cd-fix-home.XXXXXX)
ext=$home/.cache/torch_extensions/py312_cu130
mkdir -p "$ext/fused_adam" "$ext/cpu_adam"
echo 'rule cc' >"$ext/fused_adam/build.ninja"
: >"$ext/cpu_adam/lock"
touch -d '3 hours ago' "$ext/cpu_adam/lock"
cp -a "$home" "$home.before"
(cd "$home" && HOME=$home "$cd_bin" "${envarg[@]}" fix --apply --yes --no-color) >"$out/apply.txt" 2>&1
undo=$(grep '^undo: ' "$out/apply.txt" | sed 's/^undo: //')
moved=$(grep -c '^  moved ' "$out/apply.txt")
(cd "$home" && bash -c "$undo") >>"$out/apply.txt" 2>&1
if [ "$moved" -ge 2 ] && diff -r "$home.before" "$home" >"$out/apply-diff.txt" 2>&1; then
	say "- PASS --apply: $moved items moved into the dated backup, the printed undo put them back"
else
	say "- FAIL --apply: $moved moved; after the undo: $(head -3 "$out/apply-diff.txt")"
	fails=$((fails + 1))
fi
rm -rf "$home" "$home.before"

# ---- speed --------------------------------------------------------------------------
bash "$here/../../bench/fix.sh" "$cd_bin" 30 >"$out/bench.txt" 2>&1
say "- speed (median of 30): $(grep -E '^cuda-doctor (check|fix)  ' "$out/bench.txt" | awk '{print $2 " " $3 " ms"}' | paste -sd ';' -); target fix <= 50 ms $(grep 'target' "$out/bench.txt" | awk '{print $NF}')"

say ""
say "$fails failed"
exit $((fails > 0))
