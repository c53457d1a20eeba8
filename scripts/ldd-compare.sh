#!/usr/bin/env bash
# scripts/ldd-compare.sh [-b CUDA_DOCTOR] FILE...: for each FILE, compare the
# objects glibc's ldd lists (name => path, load order, "not found" included)
# with what `cuda-doctor ldd` predicts, in the current environment
# (LD_LIBRARY_PATH, LD_PRELOAD). Prints a diff per file; exit 1 on any
# difference. Used to validate the resolver on real machines, e.g.
#   scripts/ldd-compare.sh /opt/torch/.venv/lib/python3.12/site-packages/torch/_C*.so \
#       /opt/torch/.venv/lib/python3.12/site-packages/torch/lib/*.so
set -euo pipefail
CD=build/cuda-doctor # used by cd_view (helpers/ldd_graphs.bash)
if [ "${1:-}" = -b ]; then
	CD=$2
	shift 2
fi
# shellcheck source=tests/e2e/helpers/ldd_graphs.bash
. "$(dirname "$0")/../tests/e2e/helpers/ldd_graphs.bash"
export CD
status=0
for f in "$@"; do
	if diff -u <(sys_view "$f") <(cd_view "$f") >/tmp/cd-ldd-compare.$$; then
		echo "same: $f ($(sys_view "$f" | wc -l) objects)"
	else
		echo "DIFFERENT: $f (--- glibc ldd, +++ cuda-doctor ldd)"
		cat /tmp/cd-ldd-compare.$$
		status=1
	fi
done
rm -f /tmp/cd-ldd-compare.$$
exit $status
