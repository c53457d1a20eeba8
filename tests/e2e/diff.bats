#!/usr/bin/env bats
# cuda-doctor diff: check reports of many nodes grouped by fingerprint, keys
# that differ with folded host lists, --must-match, JSON lines, a stream on
# stdin, --html checked in headless Chromium, and bad input.

setup_file() {
	local T=$BATS_FILE_TMPDIR h m
	mkdir -p "$T/r"
	# gpu001-003, gpu010: two H100s; gpu017, gpu233: a T4 on 470; gpu234: V100s with
	# ECC errors; gpu003 sets NCCL_IB_DISABLE=1 where the others set 0.
	for h in gpu001 gpu002 gpu003 gpu010 gpu017 gpu233 gpu234; do
		mkdir -p "$T/$h/etc"
		echo "$h" >"$T/$h/etc/hostname"
		m=ok
		case $h in gpu017 | gpu233) m=old ;; gpu234) m=ecc ;; esac
		env -i PATH=/usr/bin:/bin CD_FAKE_MODE=$m NCCL_IB_DISABLE="$([ $h = gpu003 ] && echo 1 || echo 0)" \
			"$CD_BIN" --root "$T/$h" --nvml-lib "$CD_FAKES/libnvidia-ml.so.1" \
			--cuda-lib "$CD_FAKES/libcuda.so.1" --timeout 5 check --json -o "$T/r/$h.json" || true
	done
	mkdir -p "$T/same"
	cp "$T/r/gpu001.json" "$T/r/gpu002.json" "$T/r/gpu010.json" "$T/same/"
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	R=$BATS_FILE_TMPDIR/r
	T=$BATS_TEST_TMPDIR
	# A sanitizer build's relocations, globals' redzones and shadow take about
	# 15 MB before main(): memory budgets are the release build's (make e2e).
	SAN_BUILD=
	if ldd "$CD" | grep -q libasan; then SAN_BUILD=1; fi
}

@test "diff: identical nodes are one group, exit 0" {
	run "$CD" diff "$BATS_FILE_TMPDIR/same"
	[ "$status" -eq 0 ]
	[ "$output" = "3 nodes, all identical" ]
}

@test "diff: groups, keys by strays with folded host lists, findings some nodes have" {
	run "$CD" diff --no-color "$R"
	echo "$output"
	[ "$status" -eq 1 ] # the driver and NCCL_IB_DISABLE must match
	[[ "${lines[0]}" == "7 nodes: 3 identical; 4 in 3 groups" ]]
	[[ "$output" == *"3 nodes sha256:"*"(the largest group)"* ]]
	[[ "$output" == *"2 nodes sha256:"*"gpu[017,233]"* ]]
	[[ "$output" == *"  driver.version  [must match]"* ]]
	[[ "$output" == *"    470.256.02"*"2 nodes  gpu[017,233]"* ]]
	[[ "$output" == *"    535.183.01"*"1 node  gpu234"* ]]
	[[ "$output" == *"env.variables.NCCL_IB_DISABLE  [must match]"* ]]
	[[ "$output" == *"      env.variables.NCCL_IB_DISABLE: 1 (majority 0)"* ]]
	[[ "$output" == *"✗ gpu-ecc-errors (error) 1 node  gpu234"* ]]
	[[ "$output" == *"diff: keys that must match differ: driver.version env.variables.NCCL_IB_DISABLE"* ]]
	# Most strays first: driver.version (3 strays) before NCCL_IB_DISABLE (1).
	k1=$(grep -n '^  driver.version' <<<"$output" | cut -d: -f1)
	k2=$(grep -n '^  env.variables.NCCL_IB_DISABLE' <<<"$output" | cut -d: -f1)
	[ "$k1" -lt "$k2" ]
	# Identity keys never differ.
	[[ "$output" != *"uuid"* ]]
	[[ "$output" != *"hostname"* ]]
}

@test "diff --must-match: the keys named decide the exit status" {
	run "$CD" diff --must-match '' "$R"
	[ "$status" -eq 0 ]
	[[ "$output" != *"must match"* ]]
	run "$CD" diff --must-match 'nccl-env' "$R"
	[ "$status" -eq 1 ]
	[[ "$output" == *"must match differ: env.variables.NCCL_IB_DISABLE"* ]]
	run "$CD" diff --must-match 'gpus[[]*].name,cuda' "$R"
	[ "$status" -eq 1 ]
	[[ "$output" == *"differ: driver.cuda_version gpus[0].name"* ]]
	run "$CD" diff --must-match torch "$R" # no torch anywhere: nothing differs
	[ "$status" -eq 0 ]
}

@test "diff --json: JSON lines for jq" {
	run "$CD" diff --json "$R"
	[ "$status" -eq 1 ]
	jq -e . >/dev/null <<<"$output" # every line parses
	[ "$(jq -r 'select(.type=="summary") | [.nodes, .groups, .majority] | join(" ")' <<<"$output")" = "7 4 3" ]
	[ "$(jq -r 'select(.type=="key" and .key=="driver.version") | .minority[0] | .value + " " + .hosts' <<<"$output")" = "470.256.02 gpu[017,233]" ]
	[ "$(jq -r 'select(.type=="key" and .key=="driver.version") | .majority | "\(.value) \(.nodes)"' <<<"$output")" = "570.124.06 4" ]
	[ "$(jq -r 'select(.type=="finding" and .id=="gpu-ecc-errors") | .hosts' <<<"$output")" = gpu234 ]
	[ "$(jq -r 'select(.type=="group" and .hosts=="gpu003") | .differences["env.variables.NCCL_IB_DISABLE"]' <<<"$output")" = 1 ]
	[ "$(jq -s '[.[] | select(.type=="group")] | length' <<<"$output")" = 4 ]
}

@test "diff -: a stream of JSON lines or of printed reports, the same answer as files" {
	run "$CD" diff --json "$R"
	want=$output
	run bash -c "for f in '$R'/*.json; do jq -c . \"\$f\"; done | '$CD' diff --json -"
	[ "$status" -eq 1 ]
	diff <(jq -c 'select(.type!="group") | del(.hosts)' <<<"$want") <(jq -c 'select(.type!="group") | del(.hosts)' <<<"$output")
	run bash -c "cat '$R'/*.json | '$CD' diff -"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "7 nodes: 3 identical; 4 in 3 groups" ]]
	[[ "$output" == *"gpu[017,233]"* ]] # host names from the reports, not the stream
}

@test "diff --verify reads every report whole and says the same" {
	run "$CD" diff --json "$R"
	a=$output
	run "$CD" diff --json --verify "$R"
	[ "$status" -eq 1 ]
	[ "$a" = "$output" ]
}

@test "diff --html: one self-contained page, rendered by headless Chromium without console errors" {
	command -v chromium >/dev/null || skip "chromium is not installed (Debian: apt-get install chromium, or make deps)"
	run "$CD" diff --html "$T/fleet.html" "$R"
	[ "$status" -eq 1 ]
	[ ! -e "$T/fleet.html.tmp" ]
	# Nothing fetched: no URL, no external script, style or image.
	! grep -Eq 'https?://|src=|href=|@import' "$T/fleet.html" || false
	grep -q '<th class="must">driver.version<br><span class="maj">570.124.06</span></th>' "$T/fleet.html"
	grep -q '<tr><td>gpu003</td><td>[34]</td>' "$T/fleet.html" # ranks 3 and 4 tie at one node
	# Majority cells are blank: gpu001 is in the largest group and differs in nothing.
	grep -q '<tr class="majority"><td>gpu001</td><td>1</td>\(<td></td>\)*</tr>' "$T/fleet.html"
	shot() {
		chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
			--window-size=1280,900 --screenshot="$2" "file://$1" 2>&1 | grep 'CONSOLE' || true
	}
	# The check can fail: a page with a script error is caught.
	printf '<!DOCTYPE html><html><body><script>nosuch();</script></body></html>' >"$T/bad.html"
	[[ "$(shot "$T/bad.html" "$T/bad.png")" == *"Uncaught ReferenceError"* ]]
	[ -z "$(shot "$T/fleet.html" "$T/fleet.png")" ]
	[ -s "$T/fleet.png" ]
}

@test "diff: another schema version, truncated JSON, not JSON, empty: named, the rest diffed, exit 2" {
	mkdir -p "$T/in"
	cp "$R/gpu001.json" "$R/gpu002.json" "$T/in/"
	jq '.schema = "cuda-doctor.report/2"' "$R/gpu010.json" >"$T/in/v2.json"
	head -c 900 "$R/gpu017.json" >"$T/in/cut.json"
	echo 'hello' >"$T/in/text.json"
	: >"$T/in/empty.json"
	echo '[1,2]' >"$T/in/array.json"
	run "$CD" diff --no-color "$T/in" "$T/nonexistent.json"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == "2 nodes, all identical" ]]
	[[ "$output" == *"Unreadable (6, not counted as nodes)"* ]]
	[[ "$output" == *"v2.json: schema cuda-doctor.report/2: this cuda-doctor reads cuda-doctor.report/1"* ]]
	[[ "$output" == *"cut.json: truncated JSON (line "* ]]
	[[ "$output" == *"text.json: not JSON (line 1"* ]]
	[[ "$output" == *"empty.json: empty file"* ]]
	[[ "$output" == *"array.json: not a cuda-doctor report (not a JSON object)"* ]]
	[[ "$output" == *"nonexistent.json: No such file or directory"* ]]
	run "$CD" diff "$T/nonexistent.json"
	[ "$status" -eq 2 ]
	run "$CD" diff
	[ "$status" -eq 2 ]
	[[ "$output" == *"no report"* ]]
}

@test "diff: a 1 GB report is not read, and costs no memory" {
	mkdir -p "$T/big"
	cp "$R/gpu001.json" "$T/big/"
	truncate -s 1G "$T/big/huge.json"
	run /usr/bin/time -f 'maxrss %M' "$CD" diff "$T/big"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"huge.json: 1024.0 MiB: larger than 16 MiB, not read"* ]]
	[ -n "$SAN_BUILD" ] || [ "$(sed -n 's/^maxrss //p' <<<"$output")" -lt 65536 ]
	# In a stream, the same: scanned to its end, not kept.
	run bash -c "{ cat '$R/gpu001.json'; printf '{\"a\":\"'; head -c 200000000 /dev/zero | tr '\\0' x; printf '\"}\\n'; cat '$R/gpu002.json'; } | /usr/bin/time -f 'maxrss %M' '$CD' diff -"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"2 nodes, all identical"* ]]
	[[ "$output" == *"stdin:2: larger than 16 MiB, not read"* ]]
	[ -n "$SAN_BUILD" ] || [ "$(sed -n 's/^maxrss //p' <<<"$output")" -lt 65536 ]
}

@test "diff: a stream that is cut, or has bytes between reports, is named where" {
	run bash -c "{ jq -c . '$R/gpu001.json'; echo garbage; head -c 500 '$R/gpu002.json'; } | '$CD' diff -"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"1 node, all identical"* ]]
	[[ "$output" == *"stdin: byte "*": not the start of a JSON object"* ]]
	[[ "$output" == *"stdin:2: truncated JSON (the stream ended inside this report)"* ]]
}

@test "diff: duplicate host names are counted apart and said" {
	mkdir -p "$T/dup"
	cp "$R/gpu001.json" "$T/dup/a.json"
	cp "$R/gpu001.json" "$T/dup/b.json"
	cp "$R/gpu017.json" "$T/dup/c.json"
	run "$CD" diff --no-color --must-match '' "$T/dup"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "3 nodes: 2 identical; 1 in 1 group" ]]
	[[ "$output" == *"1 report repeat a host name (gpu001 first): counted apart"* ]]
	run "$CD" diff --json --must-match '' "$T/dup"
	[ "$(jq -r 'select(.type=="group" and .rank==1) | .hosts' <<<"$output")" = "gpu001,gpu001#2" ]
	[ "$(jq -r 'select(.type=="duplicate") | .host + " " + .source' <<<"$output")" = "gpu001#2 $T/dup/b.json" ]
}

@test "diff: an edited report is grouped by what it says, not by its fingerprint" {
	mkdir -p "$T/ed"
	cp "$R/gpu001.json" "$R/gpu002.json" "$T/ed/"
	jq '.driver.version = "999.0" | .fleet.hostname = "gpu900" | .host.hostname = "gpu900"' "$R/gpu010.json" >"$T/ed/edited.json"
	run "$CD" diff --no-color "$T/ed"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"999.0"*"1 node  gpu900"* ]]
	[[ "$output" == *"1 report whose fingerprint does not match its content"* ]]
}
