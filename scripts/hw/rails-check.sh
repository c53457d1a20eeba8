#!/usr/bin/env bash
# The guard-rails and core-helpers refactor on a GPU machine: the binary
# before it and the binary after it must say the same things about the real
# driver, GPUs, toolkit and torch stack (check, check --deep, jit, ldd of
# libtorch_cuda.so), at the same speed and peak memory (bench/check.sh, the
# two binaries interleaved in one run), and the new binary must carry the
# link-time guard rails (scripts/check-static.sh).
# Usage: scripts/hw/rails-check.sh BEFORE AFTER OUTDIR
#   BEFORE, AFTER: cuda-doctor binaries (make BUILD=... at main and at the branch)
# Writes OUTDIR/summary.txt (the lines to read) and the outputs it compared.
set -u
before=$(realpath "$1")
after=$(realpath "$2")
out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
py=${PYTHON:-python3}
mkdir -p "$out"
sum=$out/summary.txt
: >"$sum"

# Fields that move between two runs on a live GPU: drop them before comparing.
norm() {
	"$py" -c '
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if k not in ("memory_free_bytes", "memory_used_bytes", "compile_ms", "link_ms", "load_ms")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
print(json.dumps(strip(json.load(sys.stdin)), indent=1, sort_keys=True))'
}

same() { # name, then the arguments of cuda-doctor
	local name=$1
	shift
	"$before" "$@" >"$out/$name.before" 2>&1
	local rb=$?
	"$after" "$@" >"$out/$name.after" 2>&1
	local ra=$?
	case " $* " in
	*" --json "*)
		norm <"$out/$name.before" >"$out/$name.before.norm" 2>/dev/null
		norm <"$out/$name.after" >"$out/$name.after.norm" 2>/dev/null
		set -- "$out/$name.before.norm" "$out/$name.after.norm"
		;;
	*) set -- "$out/$name.before" "$out/$name.after" ;;
	esac
	if [ $rb -eq $ra ] && cmp -s "$1" "$2"; then
		echo "same       $name (exit $ra)" >>"$sum"
	else
		echo "DIFFERENT  $name (exit $rb -> $ra): diff $1 $2" >>"$sum"
	fi
}

same check-text check
same check-verbose check -v
same check-json check --json
same check-deep-json check --deep --json
same jit-json jit --json
torch_cuda=$("$py" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so"))' 2>/dev/null)
[ -n "$torch_cuda" ] && [ -e "$torch_cuda" ] && same ldd-torch-json ldd --json "$torch_cuda"

bash "$top/scripts/check-static.sh" "$after" >>"$sum" 2>&1 || echo "check-static FAILED" >>"$sum"

cc -O2 -o /tmp/timeit "$top/bench/timeit.c" 2>/dev/null || gcc -O2 -o /tmp/timeit "$top/bench/timeit.c"
for round in 1 2; do
	for b in before after; do
		bin=$before
		[ $b = after ] && bin=$after
		echo "== $b, round $round" >>"$out/bench.txt"
		TIMEIT=/tmp/timeit PYTHON=$py bash "$top/bench/check.sh" "$bin" 21 >>"$out/bench.txt" 2>&1
	done
done
grep -E '^== |^cuda-doctor check' "$out/bench.txt" >>"$sum"
cat "$sum"
