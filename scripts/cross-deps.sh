#!/usr/bin/env bash
# What `make cross-test` needs that `make deps` does not install: Debian's aarch64 cross
# toolchain, qemu-user, and the arm64 builds of the four static libraries (jansson, Vectorscan,
# libyaml, zlib) through dpkg's arm64 architecture. Root or sudo; prints what it does; no-op when present.
set -euo pipefail
pkgs=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static file
	libjansson-dev:arm64 libvectorscan-dev:arm64 libyaml-dev:arm64 zlib1g-dev:arm64
	libc6-dev:arm64)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then SUDO=(); else SUDO=(sudo); fi
echo "cross-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
dpkg --print-foreign-architectures | grep -qx arm64 || "${SUDO[@]}" dpkg --add-architecture arm64
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
