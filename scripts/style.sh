#!/usr/bin/env bash
# Style lint: the rules of docs/contributing.md that a grep can hold, over the
# src/ of a checkout (default: this one). Prints each offence as
# "style: RULE: FILE:LINE: TEXT" and exits 1 when there is one.
#   realloc      growth goes through core/vec.h or core/buf.h: no realloc
#                outside src/core
#   path-join    a "%s/%s" format is a path join: fsu_join / fsu_path
#                (core/fsutil.h) hold its rules (a line that builds a URL,
#                naming "url", is not one)
#   byte-order   an integer assembled byte by byte ("<< 8) |") outside
#                core/span.c: read it with span_uint / span_u16.. (core/span.h)
#   static-buf   no function keeps a static char array (it would hand callers
#                a buffer the next call overwrites): the caller's buffer or
#                the arena
#   exit         only main() chooses the exit status
#   typedef      no typedef'd structs, unions or enums (a pointer handle in
#                a driver's own spelling, nvmlDevice_t, is its ABI)
#   probe-print  probes never print (progress goes through a callback)
#   long-file    no file of src/ over 600 lines
#   header       every header opens with a comment saying what, who owns
#                what it returns, how it fails
#   unmarked     a non-void function declared in a header that takes a
#                struct cd_err * is fallible and is marked CD_WUR (or the
#                warn_unused_result attribute it stands for)
set -euo pipefail
dir=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$dir"
found=$(mktemp)
trap 'rm -f "$found"' EXIT

report() { # rule, then FILE:LINE:TEXT lines on stdin
	local rule=$1 line
	while IFS= read -r line; do
		printf 'style: %s: %s\n' "$rule" "$line" | tee -a "$found"
	done
}

mapfile -t c_files < <(find src -name '*.[ch]' | sort)
mapfile -t headers < <(find src -name '*.h' | sort)

# Lines of code with comments and string literals blanked, as FILE:LINE:TEXT,
# so a rule does not fire on prose. Strings are kept where a rule needs them.
code() { # keep_strings
	python3 - "$1" "${c_files[@]}" <<'EOF'
import re, sys
keep = sys.argv[1] == "1"
for path in sys.argv[2:]:
    t = open(path, errors="replace").read()
    t = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), t, flags=re.S)
    t = re.sub(r"//[^\n]*", "", t)
    if not keep:
        t = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', t)
    for i, line in enumerate(t.split("\n"), 1):
        if line.strip():
            print(f"{path}:{i}:{line}")
EOF
}

plain=$(code 0)
strings=$(code 1)

grep -E '\brealloc[[:space:]]*\(' <<<"$plain" | grep -v '^src/core/' | report realloc || true
grep -F '"%s/%s"' <<<"$strings" | grep -v '^src/core/' | grep -vi 'url' | report path-join || true
grep -E '<<[[:space:]]*8[[:space:]]*\)[[:space:]]*\|' <<<"$plain" | grep -v '^src/core/span\.c:' |
	report byte-order || true
grep -E '^[^:]+:[0-9]+:[[:space:]]+static[[:space:]]+(const[[:space:]]+)?(unsigned[[:space:]]+)?char[[:space:]]+[A-Za-z_0-9]+[[:space:]]*\[' <<<"$plain" |
	grep -vE ':[[:space:]]+static[[:space:]]+const[[:space:]]+char' | report static-buf || true
grep -E '(^|[^A-Za-z0-9_])exit[[:space:]]*\(' <<<"$plain" | grep -v '^src/main\.c:' | report exit || true
grep -E '\btypedef[[:space:]]+(struct|union|enum)\b[^;*]*[{;]' <<<"$plain" | report typedef || true
grep -E '^src/probe/[^:]+:[0-9]+:.*(^|[^A-Za-z0-9_])(printf|fprintf|puts|fputs|perror|putchar)[[:space:]]*\(' <<<"$plain" |
	report probe-print || true

while IFS= read -r f; do
	n=$(wc -l <"$f")
	[ "$n" -le 600 ] || echo "$f:$n: $n lines"
done < <(printf '%s\n' "${c_files[@]}") | report long-file || true

while IFS= read -r f; do
	head -1 "$f" | grep -q '^/\*' || echo "$f:1: $(head -1 "$f")"
done < <(printf '%s\n' "${headers[@]}") | report header || true

python3 - "${headers[@]}" <<'EOF' | report unmarked || true
import re, sys
for path in sys.argv[1:]:
    t = open(path).read()
    t = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), t, flags=re.S)
    for m in re.finditer(r"^([A-Za-z_][^;{}#]*?\(([^;{}]*?)\)[^;{}]*;)", t, re.M):
        decl, args = m.group(1), m.group(2)
        if "struct cd_err *" not in args or "CD_WUR" in decl or "warn_unused_result" in decl or "(*" in decl:
            continue
        head = decl.split("(")[0]
        if re.match(r"\s*(static\s+inline\s+)?void\s+\w+\s*$", head) or re.search(r"\berr_set\s*$", head):
            continue
        line = t.count("\n", 0, m.start()) + 1
        print(f"{path}:{line}: {' '.join(decl.split())}")
EOF

[ ! -s "$found" ]
