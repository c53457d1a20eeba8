#!/usr/bin/env bats
# A cold start reads only the pages a fact needs (issue 16, the cold `check`):
# every file mapping is advised MADV_RANDOM, so a page fault on a cold 500 MB
# library reads that page, not the device's read-ahead window around it (a
# cold check on the H200 read 700 MB before, 45 MB after: docs/performance.md).

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	command -v strace >/dev/null || skip "strace is not installed"
}

# mappings TRACE: "N M": our file mappings (PROT_READ, MAP_PRIVATE of a file
# opened by cuda-doctor; glibc's own mapping of /etc/ld.so.cache, made when
# it loads a library, is not ours) and how many were advised MADV_RANDOM at
# the same address and length.
mappings() {
	awk '
		/^openat\(/ { split($0, a, "\""); fd = $NF; name[fd] = a[2] }
		/^mmap\(NULL, [0-9]+, PROT_READ, MAP_PRIVATE, [0-9]+, 0\) = 0x/ {
			split($0, a, /[(), =]+/)
			if (name[a[6]] ~ /ld\.so\.cache$/) next
			m[$NF " " a[3]] = 1; n++
		}
		/^madvise\(0x[0-9a-f]+, [0-9]+, MADV_RANDOM\) = 0/ {
			split($0, a, /[(), ]+/); if ((a[2] " " a[3]) in m) r++
		}
		END { print n + 0, r + 0 }' "$1"
}

@test "ldd: every file it maps is advised for random reads" {
	# LeakSanitizer cannot run under ptrace: a sanitizer build is traced without it
	run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -o "$BATS_TEST_TMPDIR/t" -e trace=openat,mmap,madvise "$CD" ldd --json "$FAKES/libcuda.so.1"
	[ "$status" -le 1 ] # 1: a dependency not found on this machine, still a report
	read -r n r < <(mappings "$BATS_TEST_TMPDIR/t")
	[ "$n" -ge 2 ]
	[ "$r" -eq "$n" ]
}
