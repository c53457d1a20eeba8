#!/usr/bin/env bash
# The binary must depend on glibc alone (libc, libm, libdl, libpthread, the
# dynamic loader, the vDSO), so it can be copied into any container, and must
# carry the link-time guard rails of the Makefile: a GNU_RELRO segment and
# immediate binding (BIND_NOW or FLAGS_1 NOW), so the relocated data is
# read-only before main runs.
set -euo pipefail
bin=$1
bad=$(ldd "$bin" | awk '{print $1}' |
	grep -Ev '^(linux-vdso\.so\.1|linux-gate\.so\.1|libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|/lib.*/ld-linux.*\.so\.[0-9]+)$' || true)
if [ -n "$bad" ]; then
	echo "check-static: $bin depends on more than glibc:" >&2
	echo "$bad" >&2
	exit 1
fi
if ! readelf -lW "$bin" | grep -q 'GNU_RELRO'; then
	echo "check-static: $bin has no GNU_RELRO segment (link with -Wl,-z,relro)" >&2
	exit 1
fi
if ! readelf -dW "$bin" | grep -Eq '\(BIND_NOW\)|\(FLAGS_1\).*\bNOW\b|\(FLAGS\).*\bBIND_NOW\b'; then
	echo "check-static: $bin is not bound at load time (link with -Wl,-z,now)" >&2
	exit 1
fi
echo "check-static: $bin needs glibc only; full RELRO"
# ... and no glibc newer than the floor (RHEL 8's 2.28; docs/portability.md).
"$(dirname "$0")/glibc-floor.sh" "$bin" "${CD_GLIBC_FLOOR:-2.28}"
