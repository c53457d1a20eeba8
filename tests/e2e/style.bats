#!/usr/bin/env bats
# scripts/style.sh, the rules of docs/contributing.md that `make lint` holds:
# each rule fires on a small tree that breaks it (so none of them can pass
# by accident) and stays quiet on what it allows; this checkout is clean.

setup() {
	TOP="$BATS_TEST_DIRNAME/../.."
	STYLE="$TOP/scripts/style.sh"
	T="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$T/src/core" "$T/src/probe/stack" "$T/src/check"
	printf '/* ok: a header that says what it is. */\nint ok(void);\n' >"$T/src/check/ok.h"
}

# The tree is clean but for FILE with TEXT; the rule RULE must fire on it.
fires() { # rule file text
	printf '%s\n' "$3" >"$T/$2"
	run "$STYLE" "$T"
	rm -f "$T/$2"
	[ "$status" -eq 1 ]
	[[ "$output" == *"style: $1: $2:"* ]]
}

quiet() { # file text
	printf '%s\n' "$2" >"$T/$1"
	run "$STYLE" "$T"
	rm -f "$T/$1"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "style: this checkout keeps every rule" {
	run "$STYLE" "$TOP"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "style: a tree that keeps the rules passes" {
	run "$STYLE" "$T"
	[ "$status" -eq 0 ]
}

@test "style: realloc outside core" {
	fires realloc src/check/a.c 'void f(void) { p = realloc(p, n); }'
	quiet src/check/a.c '/* realloc( in a comment */ const char *s = "realloc(";'
	quiet src/core/vec.c 'void f(void) { p = realloc(p, n); }'
}

@test "style: a local path join" {
	fires path-join src/probe/stack/a.c 'x = arena_printf(a, "%s/%s", dir, name);'
	quiet src/probe/stack/a.c 'x = arena_printf(a, "%s/%s has no Name field", dir, f);'
	quiet src/probe/stack/a.c 'h->url = arena_printf(a, "%s/%s", endpoint, repo);'
}

@test "style: an integer read byte by byte" {
	fires byte-order src/check/a.c 'v = (v << 8) | p[i];'
	quiet src/core/span.c 'v = (v << 8) | p[i];'
}

@test "style: a static buffer in a function" {
	fires static-buf src/check/a.c $'const char *f(void)\n{\n\tstatic char buf[32];\n\treturn buf;\n}'
	quiet src/check/a.c $'int f(void)\n{\n\tstatic const char tag[] = "x";\n\treturn tag[0];\n}'
}

@test "style: exit outside main" {
	fires exit src/check/a.c 'void f(void) { exit(1); }'
	quiet src/check/a.c 'void f(void) { _exit(1); }'
}

@test "style: a typedef'd struct" {
	fires typedef src/check/a.c 'typedef struct point { int x; } point_t;'
	fires typedef src/check/a.c 'typedef struct point point;'
	quiet src/check/a.c 'typedef struct nvmlDevice_st *nvmlDevice_t;'
}

@test "style: a probe that prints" {
	fires probe-print src/probe/stack/a.c 'void f(void) { fprintf(stderr, "x"); }'
	quiet src/probe/stack/a.c 'void f(char *b) { snprintf(b, 4, "x"); }'
}

@test "style: a file over 600 lines" {
	seq 601 | sed 's/.*/int x&;/' >"$T/src/check/long.c"
	run "$STYLE" "$T"
	[ "$status" -eq 1 ]
	[[ "$output" == *"style: long-file: src/check/long.c:601"* ]]
	seq 600 | sed 's/.*/int x&;/' >"$T/src/check/long.c"
	run "$STYLE" "$T"
	[ "$status" -eq 0 ]
}

@test "style: a header without its opening comment" {
	fires header src/check/b.h $'#ifndef B_H\n#define B_H\n#endif'
}

@test "style: a fallible function without CD_WUR" {
	fires unmarked src/check/b.h $'/* b */\nint b_open(struct b *x, struct cd_err *err);'
	quiet src/check/b.h $'/* b */\nCD_WUR int b_open(struct b *x, struct cd_err *err);\nvoid b_init(struct b *x, struct cd_err *err);'
	quiet src/check/b.h $'/* b */\nint b_open(struct b *x, struct cd_err *err) __attribute__((warn_unused_result));'
}
