# Helpers for ldd.bats: build small shared-object graphs with gcc and compare
# `cuda-doctor ldd` with glibc's own ldd on them.
# Libraries are built with -nostdlib so each graph holds exactly the
# DT_NEEDED entries a test asks for (no libc unless a test adds it).

# mk OUT [gcc/ld args...]: a shared object with one function named after OUT.
mk() {
	local out=$1
	shift
	local fn
	fn=f_$(basename "$out" | tr -c 'a-zA-Z0-9\n' _)
	mkdir -p "$(dirname "$out")"
	printf 'int %s(void) { return 1; }\n' "$fn" >"$out.c"
	gcc -shared -fPIC -nostdlib -o "$out" "$out.c" "$@"
	rm -f "$out.c"
}

# needs LIB...: linker arguments that add DT_NEEDED for each LIB file, by its
# SONAME (the linker records the SONAME of a library given by path).
needs() {
	local l
	printf -- '-Wl,--no-as-needed\n'
	for l in "$@"; do printf '%s\n' "$l"; done
}

# set_machine FILE MACHINE: overwrite e_machine (little-endian u16 at 18).
set_machine() {
	printf "$(printf '\\x%02x\\x%02x' $(($2 & 255)) $(($2 >> 8)))" |
		dd of="$1" bs=1 seek=18 conv=notrunc status=none
}

# dyn_entry_off FILE TAG: file offset of the first dynamic entry with TAG.
dyn_entry_off() {
	local idx=0 tag hex off
	hex=$(readelf -SW "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == ".dynamic") print $(i + 3) }')
	[ -n "$hex" ] || return 1
	off=$((16#$hex))
	while read -r tag _; do
		case $tag in 0x*) ;; *) continue ;; esac
		if [ $((tag)) -eq $(($2)) ]; then
			echo $((off + idx * 16))
			return 0
		fi
		idx=$((idx + 1))
	done < <(readelf -dW "$1")
	return 1
}

# put FILE OFFSET BYTE: write one byte in place.
put() {
	printf "$(printf '\\x%02x' "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# retag FILE FROM TO: change the first dynamic entry with tag FROM into tag
# TO (both < 256), in place - a DT_SONAME into a DT_RUNPATH, for example.
retag() {
	local at
	at=$(dyn_entry_off "$1" "$2") || return 1
	put "$1" "$at" "$3"
}

# add_nodeflib FILE: set DF_1_NODEFLIB (0x800) in an existing DT_FLAGS_1
# (link with -Wl,-z,now to have one; ld ignores -z nodeflib here).
add_nodeflib() {
	local at
	at=$(dyn_entry_off "$1" 0x6ffffffb) || return 1
	put "$1" $((at + 9)) 8
}

# sys_view FILE [VAR=VALUE...]: glibc ldd's list as "name => path" lines.
sys_view() {
	local f=$1
	shift
	env "$@" ldd "$f" 2>/dev/null | awk '
		/linux-vdso|linux-gate|statically linked|not a dynamic|^ERROR: / { next }
		{ sub(/^[ \t]+/, ""); sub(/ \(0x[0-9a-f]+\)$/, "") }
		/ => / { split($0, a, " => "); print a[1] " => " a[2]; next }
		{ print $0 " => " $0 }'
}

# cd_args VAR=VALUE...: the options that give cuda-doctor ldd the same
# environment. LD_PRELOAD and LD_LIBRARY_PATH become --preload and
# --ld-library-path: set for real they would also act on cuda-doctor itself
# (an ASan build refuses to start behind a preload).
cd_args() {
	local a
	for a in "$@"; do
		case $a in
		LD_PRELOAD=*) printf '%s\n' --preload "${a#LD_PRELOAD=}" ;;
		LD_LIBRARY_PATH=*) printf '%s\n' --ld-library-path "${a#LD_LIBRARY_PATH=}" ;;
		*) printf 'unsupported: %s\n' "$a" >&2; return 1 ;;
		esac
	done
}

# cd_view FILE [VAR=VALUE...]: the same list from cuda-doctor ldd --json.
cd_view() {
	local f=$1 args
	shift
	mapfile -t args < <(cd_args "$@")
	# ldd prints the name an object was created under (the interpreter's is
	# its path), so names of found objects come from .objects.
	"$CD" ldd --json "${args[@]}" "$f" | jq -r '
		(.objects | map({key: .path, value: .name}) | from_entries) as $name
		| .needs[]
		| select(.kind != "dlopen")
		| select(.loaded_here or (.path == null and .kind != "preload"))
		| if .path then "\($name[.path]) => \(.path)" else "\(.name) => not found" end' |
		awk '!seen[$0]++'
}

# same FILE [VAR=VALUE...]: both lists are equal (printed on failure).
same() {
	local want got
	want=$(sys_view "$@")
	got=$(cd_view "$@")
	if [ "$want" != "$got" ]; then
		printf 'glibc ldd:\n%s\ncuda-doctor ldd:\n%s\n' "$want" "$got" >&2
		return 1
	fi
	[ -n "$want" ] || { echo "empty ldd output" >&2; return 1; }
}

# rule FILE NAME [VAR=VALUE...]: the rule cuda-doctor gives the first need NAME.
rule() {
	local f=$1 n=$2 args
	shift 2
	mapfile -t args < <(cd_args "$@")
	"$CD" ldd --json "${args[@]}" "$f" | jq -r --arg n "$n" \
		'[.needs[] | select(.name == $n)][0].rule // "null"'
}
