#!/usr/bin/env bats
# `--format html`: one self-contained page per report (check, model, explain,
# jit, ldd), rendered from the same JSON tree as `--json`: every finding id of
# the JSON is on the page, nothing is loaded from anywhere (no script, no
# src/href, a Content-Security-Policy of default-src 'none'), every string is
# escaped. Headless Chromium renders each page to a screenshot and must log no
# console message (a CSP violation, a script error); a planted external image
# and script show that the console check can fail.

load model_helpers

setup_file() {
	FX="$BATS_FILE_TMPDIR/fx"
	"$BATS_TEST_DIRNAME/sysfixtures.sh" "$FX"
	export FX
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	ROOT=$(mktemp -d)
	CHROME=$(command -v chromium || command -v chromium-browser || true)
}

teardown() {
	rm -rf "$ROOT"
}

# self_contained FILE: the page loads nothing and runs nothing.
self_contained() {
	head -c 15 "$1" | grep -qx '<!DOCTYPE html>'
	grep -q "Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"" "$1"
	! grep -Eiq '<script|<img|<link|<iframe|<object|src=|href=|url\(' "$1" || false
	tail -1 "$1" | grep -qx '</body></html>'
}

# ids_on_page JSON HTML: every finding id (or diagnosis category) is on the page.
ids_on_page() {
	local id
	while read -r id; do
		grep -qF ">$id &middot;" "$2" || { echo "missing on the page: $id"; return 1; }
	done < <(jq -r '(.findings // .diagnoses)[] | (.id // .category)' "$1")
}

# shot HTML PNG: headless Chromium renders the page; no console message.
shot() {
	if [ -z "$CHROME" ]; then
		[ -z "${CI:-}" ] || { echo "chromium is missing (scripts/install-deps.sh installs it)"; return 1; }
		skip "chromium is not installed"
	fi
	HOME=$BATS_TEST_TMPDIR timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu \
		--no-first-run --hide-scrollbars --enable-logging=stderr --v=0 --window-size=1200,1600 \
		--user-data-dir="$BATS_TEST_TMPDIR/chrome" --screenshot="$2" "file://$1" \
		>"$BATS_TEST_TMPDIR/chrome.log" 2>&1
	[ -s "$2" ]
	head -c 8 "$2" | od -An -tx1 | tr -d ' \n' | grep -qx 89504e470d0a1a0a
	! grep -F 'CONSOLE' "$BATS_TEST_TMPDIR/chrome.log" || false
}

@test "check --format html: self-contained, every finding of the JSON, renders clean" {
	env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" --root "$FX/broken" check --json >"$ROOT/c.json" || true
	env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" --root "$FX/broken" check --format html >"$ROOT/c.html" || true
	[ "$(jq '.findings | length' "$ROOT/c.json")" -gt 0 ]
	self_contained "$ROOT/c.html"
	ids_on_page "$ROOT/c.json" "$ROOT/c.html"
	grep -q '<title>cuda-doctor check</title>' "$ROOT/c.html"
	grep -q '<summary>driver</summary>' "$ROOT/c.html"
	shot "$ROOT/c.html" "$ROOT/c.png"
}

@test "check --format html: exit status as with --json" {
	run env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" --root "$FX/broken" check --json
	local js=$status
	run env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" --root "$FX/broken" check --format html
	[ "$status" -eq "$js" ]
	run "$CD" --format htm check
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected text, json or markdown, or html"* ]]
}

@test "explain --format html escapes the log's text" {
	printf '%s\n' 'RuntimeError: CUDA error: no kernel image is available for execution on the device <script>alert("x")</script> & <b>' >"$ROOT/log"
	run "$CD" explain --no-env --format html "$ROOT/log"
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$ROOT/e.html"
	self_contained "$ROOT/e.html"
	grep -qF '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;' "$ROOT/e.html"
	"$CD" explain --no-env --json "$ROOT/log" >"$ROOT/e.json" || true
	ids_on_page "$ROOT/e.json" "$ROOT/e.html"
	grep -q '<h2>Diagnoses</h2>' "$ROOT/e.html"
	shot "$ROOT/e.html" "$ROOT/e.png"
}

@test "model --format html: the plan and the findings" {
	mk_tf "$ROOT/venv" 4.44.2 llama
	tiny_model "$ROOT/models/tiny"
	run env -i PATH="$PATH" HOME=/home/u "$CD" --root "$ROOT" --env /venv model /models/tiny \
		--gpu-memory 1MiB --format html
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$ROOT/m.html"
	env -i PATH="$PATH" HOME=/home/u "$CD" --root "$ROOT" --env /venv model /models/tiny \
		--gpu-memory 1MiB --json >"$ROOT/m.json" || true
	self_contained "$ROOT/m.html"
	ids_on_page "$ROOT/m.json" "$ROOT/m.html"
	grep -qF '>model-too-large &middot;' "$ROOT/m.html"
	shot "$ROOT/m.html" "$ROOT/m.png"
}

@test "jit and ldd render html too" {
	run "$CD" --root "$FX/empty" jit --format html
	[[ "$output" == *'<title>cuda-doctor jit</title>'* ]]
	run "$CD" ldd --format html /bin/sh
	[ "$status" -eq 0 ]
	[[ "$output" == *'<title>cuda-doctor ldd</title>'* ]]
}

@test "the console check fails on a page that loads or runs something" {
	[ -n "$CHROME" ] || skip "chromium is not installed"
	"$CD" --root "$FX/empty" check --format html >"$ROOT/ok.html" || true
	sed 's|</body>|<img src="http://127.0.0.1:9/x.png"><script>console.log(1)</script></body>|' \
		"$ROOT/ok.html" >"$ROOT/bad.html"
	run shot "$ROOT/bad.html" "$ROOT/bad.png"
	[ "$status" -ne 0 ]
	run self_contained "$ROOT/bad.html"
	[ "$status" -ne 0 ]
}
