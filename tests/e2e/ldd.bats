#!/usr/bin/env bats
# cuda-doctor ldd against glibc's own ldd: library graphs are built with gcc
# at test time, and for each graph the list of objects (name => path, in
# load order, "not found" included) must be exactly what glibc's ldd prints.
# The rule cuda-doctor names for a need is checked where the graph makes it
# unambiguous.

load helpers/ldd_graphs

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T="$BATS_TEST_TMPDIR"
	command -v gcc >/dev/null || skip "gcc is not installed"
	command -v ldd >/dev/null || skip "glibc ldd is not installed"
	unset LD_LIBRARY_PATH LD_PRELOAD
}

@test "ldd: RPATH of the executable serves the whole tree (inheritance)" {
	mk "$T/lib/libb.so" -Wl,-soname,libb.so
	mk "$T/lib/liba.so" -Wl,-soname,liba.so $(needs "$T/lib/libb.so")
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/lib' $(needs "$T/lib/liba.so")
	same "$T/main.so"
	[ "$(rule "$T/main.so" libb.so)" = rpath ]
	run "$CD" ldd --json "$T/main.so"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.needs[] | select(.name == "libb.so") | .tag_from' <<<"$output")" = "$T/main.so" ]
}

@test "ldd: RUNPATH is not inherited: a grandchild is not found" {
	mk "$T/lib/libb.so" -Wl,-soname,libb.so
	mk "$T/lib/liba.so" -Wl,-soname,liba.so $(needs "$T/lib/libb.so")
	mk "$T/main.so" -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/lib' $(needs "$T/lib/liba.so")
	same "$T/main.so"
	[ "$(rule "$T/main.so" liba.so)" = runpath ]
	run "$CD" ldd --json "$T/main.so"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.not_found | join(",")' <<<"$output")" = "libb.so" ]
	# LD_LIBRARY_PATH rescues it, for both tools.
	same "$T/main.so" LD_LIBRARY_PATH="$T/lib"
	[ "$(rule "$T/main.so" libb.so LD_LIBRARY_PATH="$T/lib")" = ld_library_path ]
}

@test "ldd: RPATH comes before LD_LIBRARY_PATH, RUNPATH after it (shadowing)" {
	mk "$T/bundled/libcudart.so.13" -Wl,-soname,libcudart.so.13
	mk "$T/system/libcudart.so.13" -Wl,-soname,libcudart.so.13
	mk "$T/rp.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/bundled" $(needs "$T/bundled/libcudart.so.13")
	mk "$T/ru.so" -Wl,--enable-new-dtags -Wl,-rpath,"$T/bundled" $(needs "$T/bundled/libcudart.so.13")
	same "$T/rp.so" LD_LIBRARY_PATH="$T/system"
	same "$T/ru.so" LD_LIBRARY_PATH="$T/system"
	[ "$(cd_view "$T/rp.so" LD_LIBRARY_PATH="$T/system")" = "libcudart.so.13 => $T/bundled/libcudart.so.13" ]
	[ "$(cd_view "$T/ru.so" LD_LIBRARY_PATH="$T/system")" = "libcudart.so.13 => $T/system/libcudart.so.13" ]
	[ "$(rule "$T/ru.so" libcudart.so.13 LD_LIBRARY_PATH="$T/system")" = ld_library_path ]
}

@test "ldd: DT_RPATH of an intermediate library serves its descendants" {
	mk "$T/deep/libc2.so" -Wl,-soname,libc2.so
	mk "$T/mid/libb2.so" -Wl,-soname,libb2.so $(needs "$T/deep/libc2.so")
	mk "$T/mid/liba2.so" -Wl,-soname,liba2.so -Wl,--disable-new-dtags -Wl,-rpath,"$T/deep:$T/mid" \
		$(needs "$T/mid/libb2.so")
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/mid" $(needs "$T/mid/liba2.so")
	same "$T/main.so"
	[ "$(rule "$T/main.so" libc2.so)" = rpath ]
	run "$CD" ldd --json "$T/main.so"
	[ "$(jq -r '.needs[] | select(.name == "libc2.so") | .tag_from' <<<"$output")" = "$T/mid/liba2.so" ]
}

@test "ldd: a RUNPATH on the loader disables every RPATH, the executable's too" {
	mk "$T/x/libq.so" -Wl,-soname,libq.so
	mk "$T/y/liba.so" -Wl,-soname,liba.so -Wl,--enable-new-dtags -Wl,-rpath,"$T/nowhere" \
		$(needs "$T/x/libq.so")
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/x:$T/y" $(needs "$T/y/liba.so")
	same "$T/main.so"
	run "$CD" ldd --json "$T/main.so"
	[ "$status" -eq 1 ]
	[[ "$output" == *'"libq.so"'* ]]
}

@test "ldd: an object with both DT_RPATH and DT_RUNPATH uses only RUNPATH" {
	mk "$T/r/libz1.so" -Wl,-soname,libz1.so
	mk "$T/u/libz1.so" -Wl,-soname,libz1.so
	# Link with RPATH=r and a SONAME string "<T>/u", then turn SONAME into RUNPATH.
	mk "$T/both.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/r" -Wl,-soname,"$T/u" \
		$(needs "$T/r/libz1.so")
	retag "$T/both.so" 14 29 || skip "could not patch the dynamic section"
	readelf -dW "$T/both.so" | grep -q RUNPATH
	same "$T/both.so"
	[ "$(cd_view "$T/both.so")" = "libz1.so => $T/u/libz1.so" ]
	[ "$(rule "$T/both.so" libz1.so)" = runpath ]
}

@test "ldd: \$ORIGIN, \$LIB and \$PLATFORM expand as the loader expands them" {
	lib=$("$CD" ldd --json /bin/sh | jq -r .loader.lib)
	plat=$("$CD" ldd --json /bin/sh | jq -r .loader.platform)
	mk "$T/pkg/$lib/libl.so" -Wl,-soname,libl.so
	mk "$T/pkg/$plat/libp.so" -Wl,-soname,libp.so
	mk "$T/pkg/sub/libo.so" -Wl,-soname,libo.so
	mk "$T/pkg/main.so" -Wl,--disable-new-dtags \
		-Wl,-rpath,'$ORIGIN/$LIB:$ORIGIN/${PLATFORM}:$ORIGIN/sub/' \
		$(needs "$T/pkg/$lib/libl.so" "$T/pkg/$plat/libp.so" "$T/pkg/sub/libo.so")
	same "$T/pkg/main.so"
	# A path with .. is kept as written, like the loader's l_name.
	same "$T/pkg/sub/../main.so"
}

@test "ldd: \$PLATFORM on the real root is the running loader's (haswell on a recent Intel CPU)" {
	[ "$(uname -m)" = x86_64 ] || skip "the platform names checked are x86-64's"
	rtld=$("$CD" ldd --json /bin/sh | jq -r .loader.interpreter)
	want=$("$rtld" --list-diagnostics 2>/dev/null | sed -n 's/^dl_platform="\(.*\)"$/\1/p')
	[ -n "$want" ] || skip "this loader has no --list-diagnostics (glibc before 2.33)"
	[ "$("$CD" ldd --json /bin/sh | jq -r .loader.platform)" = "$want" ]
	# An image is not known to run on this CPU: the kernel's AT_PLATFORM.
	mkdir -p "$T/img/bin"
	cp /bin/sh "$T/img/bin/sh"
	[ "$("$CD" ldd --json --root "$T/img" /bin/sh | jq -r .loader.platform)" = x86_64 ]
}

@test "ldd: tokens in DT_NEEDED strings are expanded, with or without a slash" {
	plat=$("$CD" ldd --json /bin/sh | jq -r .loader.platform)
	# A library's SONAME becomes the DT_NEEDED string of what links with it.
	mk "$T/tok/sub/libp.so" -Wl,-soname,'$ORIGIN/sub/libp.so'
	mk "$T/tok/lib$plat.so" -Wl,-soname,'lib$PLATFORM.so'
	mk "$T/tok/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/tok" \
		$(needs "$T/tok/sub/libp.so" "$T/tok/lib$plat.so")
	readelf -dW "$T/tok/main.so" | grep -q 'lib\$PLATFORM.so'
	same "$T/tok/main.so"
	[ "$(rule "$T/tok/main.so" "$T/tok/sub/libp.so")" = path ]
	[ "$(rule "$T/tok/main.so" "lib$plat.so")" = rpath ]
}

@test "ldd: a 32-bit impostor earlier on the path is skipped" {
	gcc -m32 -shared -nostdlib -fPIC -x c -o "$T/probe32.so" - <<<'int f(void){return 0;}' 2>/dev/null ||
		skip "gcc -m32 is not available"
	mk "$T/good/libimp.so" -Wl,-soname,libimp.so
	mkdir -p "$T/bad"
	gcc -m32 -shared -nostdlib -fPIC -Wl,-soname,libimp.so -x c -o "$T/bad/libimp.so" - <<<'int g(void){return 0;}'
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/bad:$T/good" $(needs "$T/good/libimp.so")
	same "$T/main.so"
	[ "$(cd_view "$T/main.so")" = "libimp.so => $T/good/libimp.so" ]
	# Only the impostor: not found, and the reason says why.
	mk "$T/only.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/bad" $(needs "$T/good/libimp.so")
	same "$T/only.so"
	run "$CD" ldd --json "$T/only.so"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.needs[0].error' <<<"$output")" = "wrong ELF class: ELFCLASS32" ]
}

@test "ldd: a library for another machine is skipped" {
	mk "$T/good/libarm.so" -Wl,-soname,libarm.so
	mk "$T/bad/libarm.so" -Wl,-soname,libarm.so
	set_machine "$T/bad/libarm.so" 183
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/bad:$T/good" $(needs "$T/good/libarm.so")
	same "$T/main.so"
	[ "$(cd_view "$T/main.so")" = "libarm.so => $T/good/libarm.so" ]
}

@test "ldd: an already loaded SONAME wins over a later loader's RUNPATH" {
	mk "$T/a/libdup.so" -Wl,-soname,libdup.so
	mk "$T/b/libdup.so" -Wl,-soname,libdup.so
	mk "$T/b/libuser.so" -Wl,-soname,libuser.so -Wl,--enable-new-dtags -Wl,-rpath,"$T/b" \
		$(needs "$T/b/libdup.so")
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/a:$T/b" $(needs "$T/a/libdup.so" "$T/b/libuser.so")
	same "$T/main.so"
	run "$CD" ldd --json "$T/main.so"
	[ "$(jq -r '[.needs[] | select(.name == "libdup.so")][1] | "\(.rule) \(.path)"' <<<"$output")" = "loaded $T/a/libdup.so" ]
}

@test "ldd: LD_PRELOAD takes the SONAME first" {
	mk "$T/pre/libdup.so" -Wl,-soname,libdup.so
	mk "$T/a/libdup.so" -Wl,-soname,libdup.so
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/a" $(needs "$T/a/libdup.so")
	same "$T/main.so" LD_PRELOAD="$T/pre/libdup.so"
	run "$CD" ldd --json --preload "$T/pre/libdup.so" "$T/main.so"
	[ "$(jq -r '.needs[0].rule' <<<"$output")" = preload ]
	[ "$(jq -r '.needs[1] | "\(.rule) \(.path)"' <<<"$output")" = "loaded $T/pre/libdup.so" ]
	# A preload that does not exist is ignored, as the loader ignores it.
	same "$T/main.so" LD_PRELOAD="$T/nonexistent.so"
	run "$CD" ldd --preload "$T/nonexistent.so" "$T/main.so"
	[ "$status" -eq 0 ]
}

@test "ldd: the same file under two names is one object" {
	mk "$T/d/libreal.so.1" -Wl,-soname,libreal.so.1
	ln -s libreal.so.1 "$T/d/libalias.so.1"
	mk "$T/d/libx.so" -Wl,-soname,libx.so
	mk "$T/main.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/d" \
		-Wl,--no-as-needed "$T/d/libreal.so.1" "$T/d/libx.so"
	# A second library that needs the alias name.
	mk "$T/d/liby.so" -Wl,-soname,liby.so
	same "$T/main.so"
	mk "$T/two.so" -Wl,--disable-new-dtags -Wl,-rpath,"$T/d" -Wl,--no-as-needed \
		"$T/d/libreal.so.1" -Wl,-soname,two.so
	cp "$T/d/libreal.so.1" "$T/d/libcopy.so.1"
	same "$T/two.so"
}

@test "ldd: a DT_NEEDED with a slash is a path" {
	mk "$T/p/libnosoname.so"
	mk "$T/main.so" -Wl,--no-as-needed "$T/p/libnosoname.so"
	readelf -dW "$T/main.so" | grep -q "\[$T/p/libnosoname.so\]"
	same "$T/main.so"
	[ "$(rule "$T/main.so" "$T/p/libnosoname.so")" = path ]
	rm "$T/p/libnosoname.so"
	same "$T/main.so"
}

@test "ldd: empty LD_LIBRARY_PATH element means the current directory" {
	mk "$T/cwd/libhere.so" -Wl,-soname,libhere.so
	mk "$T/main.so" $(needs "$T/cwd/libhere.so")
	cd "$T/cwd"
	same "$T/main.so" LD_LIBRARY_PATH=":/nonexistent"
	same "$T/main.so" LD_LIBRARY_PATH="/nonexistent;"
	same "$T/main.so" LD_LIBRARY_PATH="/nonexistent"
}

@test "ldd: libc and friends come from ld.so.cache; NODEFLIB refuses them" {
	[ -r /etc/ld.so.cache ] || skip "no /etc/ld.so.cache"
	printf 'int f(void){return 0;}\n' >"$T/c.c"
	gcc -shared -fPIC -o "$T/withc.so" "$T/c.c" -Wl,--no-as-needed -lc
	same "$T/withc.so"
	[ "$(rule "$T/withc.so" libc.so.6)" = ld_so_cache ]
	gcc -shared -fPIC -Wl,-z,now -o "$T/nodeflib.so" "$T/c.c" -Wl,--no-as-needed -lc
	add_nodeflib "$T/nodeflib.so" || skip "could not patch DT_FLAGS_1"
	readelf -dW "$T/nodeflib.so" | grep -q NODEFLIB
	same "$T/nodeflib.so"
	run "$CD" ldd --json "$T/nodeflib.so"
	[ "$status" -eq 1 ]
	[ "$(jq -r .elf.nodeflib <<<"$output")" = true ]
	# --inhibit-cache: the default directories still find it.
	[ "$(rule "$T/withc.so" libc.so.6 | head -1)" = ld_so_cache ]
	run "$CD" ldd --json --inhibit-cache "$T/withc.so"
	[ "$(jq -r '.needs[0].rule' <<<"$output")" = default ]
}

@test "ldd: real programs resolve as glibc resolves them" {
	for f in /bin/ls /bin/sh /usr/bin/env; do
		[ -e "$f" ] || continue
		same "$f"
	done
}
