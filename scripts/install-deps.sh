#!/usr/bin/env bash
# Install the build and test dependencies of cuda-doctor that are missing, on
# Debian or Ubuntu, through apt-get as root or through sudo. Prints what it does.
set -euo pipefail

# prometheus ships promtool (tests/e2e/prom.bats); chromium renders diff --html
# (tests/e2e/diff.bats); debootstrap makes the old-glibc root (tests/e2e/glibc.bats); the tests
# skip with a message where they cannot be installed.
pkgs=(make gcc clang libclang-rt-dev libjansson-dev libvectorscan-dev libyaml-dev zlib1g-dev libcmocka-dev
      bats jq clang-format shellcheck pkg-config binutils time ripgrep prometheus
      chromium python3 python3-venv libcurl4 debootstrap strace)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps: missing ${missing[*]}, and apt-get is not available; install them by hand" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	SUDO=()
elif command -v sudo >/dev/null 2>&1; then
	SUDO=(sudo)
else
	echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
