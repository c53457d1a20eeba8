#!/usr/bin/env bash
# $ORIGIN in a symlinked environment, on the real machine (issue 16, item 10):
# a `cp -rs` copy of the torch venv (real directories, every file a link to
# the original file) whose torch/lib lacks libtorch_cuda.so must fail
# `import torch` ("libtorch_cuda.so: cannot open shared object file"), and
# `check` and `ldd` must say so too, with the venv's own Python and with a
# wrapper script in its place; the same copy left whole must import and be
# reported as the original venv is. Nothing outside a temporary directory
# is written (bytecode writing is off); the directory is removed at the end.
# Usage: scripts/hw/origin-check.sh BIN OUT
#   BIN: the cuda-doctor binary; OUT: a directory for the outputs.
#   VENV=DIR: the venv to copy (default /opt/torch/.venv, else the prefix of
#   the first python3 on PATH).
# Writes OUT/summary.txt (the lines to read) and every output it compared.
set -u
bin=$(realpath "$1")
out=$2
mkdir -p "$out"
out=$(cd "$out" && pwd)
sum=$out/summary.txt
: >"$sum"
venv=${VENV:-/opt/torch/.venv}
[ -d "$venv" ] || venv=$(python3 -c 'import sys; print(sys.prefix)')
venv=$(cd "$venv" && pwd)
[ -x "$venv/bin/python3" ] || {
	echo "no python3 in $venv/bin" | tee -a "$sum"
	exit 2
}
# A parser outside every venv under test; it never imports torch.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cd-origin-XXXXXX")
case $tmp in /*/cd-origin-*) ;; *) exit 2 ;; esac
trap 'rm -rf "$tmp"' EXIT
export PYTHONDONTWRITEBYTECODE=1

# copy NAME [raw]: a `cp -rs` copy of the venv at $tmp/NAME. Unless raw, the
# venv's own relative links outside site-packages (lib64 -> lib, python ->
# python3) are made again as they are, as a tree built by uv, Nix or Bazel has
# them: cp -rs points them at the original, so lib64 would become a second
# site-packages inside the original venv.
copy() {
	local c=$tmp/$1 l t
	cp -rs "$venv" "$c" || return 1
	[ "${2:-}" = raw ] && return 0
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		case $t in /*) continue ;; esac
		! inside "$c/${l#"$venv"/}" || ln -sfn "$t" "$c/${l#"$venv"/}"
	done < <(find "$venv" -path "$venv/lib*/python*/site-packages" -prune -o -type l -print0)
}

# inside PATH: PATH's directory really lies in the temporary directory (not
# through a link into the venv), so changing PATH changes nothing outside it.
inside() {
	local d
	d=$(realpath -e "$(dirname "$1")") || return 1
	case $d/ in "$(realpath "$tmp")"/*) return 0 ;; esac
	echo "$1 leads outside $tmp: left alone" >>"$sum"
	return 1
}

# inv VENV CMD...: run CMD with VENV's python first on PATH, as after activate.
inv() {
	local v=$1
	shift
	env -u CONDA_PREFIX -u PYTHONPATH -u PYTHONHOME VIRTUAL_ENV="$v" PATH="$v/bin:$PATH" "$@"
}

site_of() { inv "$1" "$1/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }

# run_all NAME VENV: import torch, check --json, ldd of torch/_C.
run_all() {
	local name=$1 v=$2 site c cs
	site=$(site_of "$v")
	cs=("$site"/torch/_C*.so)
	c=${cs[0]}
	inv "$v" "$v/bin/python3" -c 'import torch; print("import torch:", torch.__version__, torch.__file__)' \
		>"$out/$name-import.txt" 2>&1
	echo "exit $?" >>"$out/$name-import.txt"
	inv "$v" "$bin" check --json >"$out/$name-check.json" 2>"$out/$name-check.err"
	echo "$?" >"$out/$name-check.rc"
	inv "$v" "$bin" ldd "$c" >"$out/$name-ldd.txt" 2>&1
	echo "exit $?" >>"$out/$name-ldd.txt"
	inv "$v" "$bin" ldd --json "$c" >"$out/$name-ldd.json" 2>/dev/null
	printf '%s\n%s\n%s\n' "$v" "$site" "$c" >"$out/$name-paths.txt"
}

run_all original "$venv"
copy broken || echo "cp -rs failed" >>"$sum"
bsite=$(site_of "$tmp/broken")
! inside "$bsite/torch/lib/libtorch_cuda.so" || rm -f "$bsite/torch/lib/libtorch_cuda.so"
run_all broken "$tmp/broken"
# The same broken copy with a Python that is a wrapper script, as Nix's and
# Bazel's are: cuda-doctor cannot read it as ELF, so torch/_C stands in for
# the program (`libraries.program` null) and its $ORIGIN decides.
copy wrapped || echo "cp -rs failed" >>"$sum"
wsite=$(site_of "$tmp/wrapped")
! inside "$wsite/torch/lib/libtorch_cuda.so" || rm -f "$wsite/torch/lib/libtorch_cuda.so"
real_py=$(realpath "$venv/bin/python3")
if inside "$tmp/wrapped/bin/python3"; then
	rm -f "$tmp/wrapped/bin/python3"
	# shellcheck disable=SC2016 # $0 and $@ belong to the wrapper
	printf '#!/bin/bash\nexec -a "$0" %s "$@"\n' "$real_py" >"$tmp/wrapped/bin/python3"
	chmod +x "$tmp/wrapped/bin/python3"
fi
run_all wrapped "$tmp/wrapped"
copy whole || echo "cp -rs failed" >>"$sum"
run_all whole "$tmp/whole"
copy raw raw || echo "cp -rs failed" >>"$sum"
inv "$tmp/raw" "$bin" check --json >"$out/raw-check.json" 2>/dev/null

"$py" -I - "$out" "$venv" "$tmp" >>"$sum" <<'PY'
import json, os, sys

out, venv, tmp = sys.argv[1:4]

def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def text(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""

def paths(name):
    return text(name + "-paths.txt").splitlines() + ["", "", ""]

def ids(rep):
    return sorted(f["id"] for f in (rep or {}).get("findings", []))

def shown(rep):
    n = {}
    for i in ids(rep):
        n[i] = n.get(i, 0) + 1
    return ", ".join(k if v == 1 else f"{k} x{v}" for k, v in n.items()) or "none"

def errors(rep):
    return sorted({f["id"] for f in (rep or {}).get("findings", []) if f.get("severity") == "error"})

def items(rep):
    return ((rep or {}).get("libraries") or {}).get("items") or []

def ldd_missing(name):
    rep = load(name + "-ldd.json") or {}
    return sorted({n["name"] for n in rep.get("needs", []) if n.get("path") is None
                   and n.get("kind") != "preload"})

def import_result(name):
    t = text(name + "-import.txt").strip().splitlines()
    ok = bool(t) and t[-1] == "exit 0"
    msg = next((l for l in reversed(t[:-1]) if l.strip()), "")
    return ok, msg

orig = load("original-check.json")
res = {}
for name in ("broken", "wrapped", "whole"):
    v, site, c = paths(name)[:3]
    rep = load(name + "-check.json")
    ok, msg = import_result(name)
    miss = [f for f in (rep or {}).get("findings", []) if f["id"] == "lib-missing"
            and "libtorch_cuda.so" in f.get("title", "")]
    cuda = [i for i in items(rep) if i.get("soname") == "libtorch_cuda.so"]
    outside = [i["path"] for i in items(rep) if i.get("path", "").startswith(venv + "/")]
    prog = ((rep or {}).get("libraries") or {}).get("program")
    print(f"== {name} copy ({v})")
    print(f"  python import torch: {'ok' if ok else 'FAILS'}: {msg}")
    print(f"  check: exit {text(name + '-check.rc').strip()}, program {prog}, findings: {shown(rep)}")
    print(f"  check: libtorch_cuda.so {'lib-missing' if miss else 'loaded from ' + cuda[0]['path'] if cuda else 'absent, no lib-missing'}")
    print(f"  check: {len(outside)} libraries resolved inside the original venv" + (f" (first {outside[0]})" if outside else ""))
    lm = ldd_missing(name)
    print(f"  ldd {c}: not found: {lm or 'none'}")
    res[name] = (ok, msg, bool(miss), "libtorch_cuda.so" in lm, outside, rep)

for name in ("broken", "wrapped"):
    ok, msg, miss, lddm, outside, rep = res[name]
    py_fails = not ok and "libtorch_cuda.so" in msg
    agree = py_fails and miss and lddm and not outside
    print(f"{name} copy: python {'fails on libtorch_cuda.so' if py_fails else 'does not fail on libtorch_cuda.so'},"
          f" check {'says lib-missing' if miss else 'says nothing'}, ldd {'says not found' if lddm else 'finds it'}"
          f" => {'AGREE' if agree else 'DISAGREE'}")

ok, msg, miss, lddm, outside, rep = res["whole"]
def rules(rep, prefix):
    return [(i.get("rule"), i["path"].replace(prefix, "@", 1), i.get("version"), i.get("owner"))
            for i in items(rep)]
same_ids = ids(rep) == ids(orig)
same_libs = rules(rep, tmp + "/whole") == rules(orig, venv)
extra = sorted(set(errors(rep)) - set(errors(orig)))
healthy = ok and not extra and same_ids and same_libs and not outside and not ldd_missing("whole")
print(f"whole copy: python {'imports torch' if ok else 'FAILS: ' + msg}, check errors beyond the"
      f" original's: {extra or 'none'}, findings {'as' if same_ids else 'NOT as'} the original's,"
      f" libraries {'as' if same_libs else 'NOT as'} the original's (rule, path, version, owner)"
      f" => {'HEALTHY' if healthy else 'NOT HEALTHY'}")
print(f"  original venv: findings: {shown(orig)}")
raw = load("raw-check.json")
print(f"plain cp -rs copy (its lib64 a link into the original venv): findings: {shown(raw)}")
PY
echo "took ${SECONDS} s" >>"$sum"
cat "$sum"
