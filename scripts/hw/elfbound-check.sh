#!/usr/bin/env bash
# Issue 16 items 4 and 8 on a GPU machine: the binary before (main) and the
# binary after (the windowed, hole-skipping, capped data-section scan; the
# .dynsym iterator; the shard index read without a JSON tree) must say the
# same things about every real library and model there:
#   - ldd --json (default, --scan-data, --no-scan-data) of every ELF file of
#     torch/lib, torch/_C*.so, the nvidia-* wheels, the CUDA toolkit's lib64
#     and the extensions in site-packages (at most $LDD_MAX files);
#   - check --json and check --deep --json (the extension ABI check, torch's
#     arch list);
#   - model --json of every model in the Hugging Face cache (sharded ones
#     included), with --gpu-memory so the driver does not vary the answer;
# and the peak RSS and time of ldd --scan-data on the largest libraries.
# Usage: scripts/hw/elfbound-check.sh BEFORE AFTER OUTDIR
# Writes OUTDIR/summary.txt: one line per comparison ("same" / "DIFFERENT").
set -u
before=$(realpath "$1")
after=$(realpath "$2")
out=$3
py=${PYTHON:-python3}
max=${LDD_MAX:-400}
mkdir -p "$out/d"
sum=$out/summary.txt
: >"$sum"

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

n_same=0
n_diff=0
same() { # name, then the arguments of cuda-doctor (all --json)
	local name=$1 rb ra o=$out/d/$1 k
	shift
	"$before" "$@" >"$o.before.raw" 2>"$o.before.err"
	rb=$?
	"$after" "$@" >"$o.after.raw" 2>"$o.after.err"
	ra=$?
	for k in before after; do # a report that is not JSON is compared as it is
		norm <"$o.$k.raw" >"$o.$k" 2>/dev/null || cp "$o.$k.raw" "$o.$k"
	done
	if [ "$rb" -eq "$ra" ] && cmp -s "$o.before" "$o.after" &&
		cmp -s "$o.before.err" "$o.after.err"; then
		n_same=$((n_same + 1))
		rm -f "$o".*
	else
		n_diff=$((n_diff + 1))
		echo "DIFFERENT  $name (exit $rb -> $ra): $*; diff $o.before $o.after" >>"$sum"
	fi
}

SP=$("$py" -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)
{
	[ -n "$SP" ] && find "$SP/torch/lib" "$SP/torch" "$SP/nvidia" -maxdepth 3 -name '*.so*' -type f 2>/dev/null
	[ -n "$SP" ] && find "$SP" -maxdepth 3 -name '*.so' -type f -not -path '*/torch/*' -not -path '*/nvidia/*' 2>/dev/null
	find /usr/local/cuda/lib64/ /usr/local/cuda/bin/ -maxdepth 1 -type f 2>/dev/null
} | sort -u | head -n "$max" >"$out/files.txt"
i=0
while read -r f; do
	head -c 4 "$f" 2>/dev/null | grep -q ELF || continue
	i=$((i + 1))
	same "ldd-$i" ldd --json "$f"
	same "ldd-$i-scan" ldd --json --scan-data "$f"
	same "ldd-$i-noscan" ldd --json --no-scan-data "$f"
done <"$out/files.txt"
echo "ldd: $i files, three modes each" >>"$sum"

same check check --json
same check-deep check --deep --json

hub=${HF_HUB_CACHE:-${HF_HOME:-$HOME/.cache/huggingface}/hub}
for m in "$hub"/models--*; do
	[ -d "$m" ] || continue
	id=$(basename "$m" | sed 's/^models--//; s/--/\//')
	same "model-${id//\//_}" model "$id" --gpu-memory 80G --json
done
echo "compared: $n_same same, $n_diff different" >>"$sum"

# Peak RSS and time of the data scan on the largest libraries.
{
	[ -n "$SP" ] && find "$SP/nvidia" "$SP/torch/lib" -name '*.so*' -type f -size +100M 2>/dev/null
	find /usr/local/cuda/lib64/ -maxdepth 1 -type f -size +100M 2>/dev/null
} | sort -u | head -n 12 | while read -r f; do
	for b in before after; do
		bin=$before
		[ $b = after ] && bin=$after
		/usr/bin/time -f "$b %M KB %e s $(basename "$f")" "$bin" ldd --json --scan-data "$f" \
			>/dev/null 2>>"$out/rss.txt"
	done
done
grep -E '^(before|after) ' "$out/rss.txt" >>"$sum"
cat "$sum"
