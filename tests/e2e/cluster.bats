#!/usr/bin/env bats
# docs/cluster.md: its alert rules pass promtool and name only metrics that
# check --format prometheus prints; its gate policy parses.

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	DOC="$BATS_TEST_DIRNAME/../../docs/cluster.md"
	T=$BATS_TEST_TMPDIR
}

rules() {
	sed -n '/^<!-- alert-rules -->$/,/^<!-- \/alert-rules -->$/p' "$DOC" | sed '1,2d;$d' | sed '$d'
}

@test "cluster.md: the alert rules pass promtool check rules" {
	command -v promtool >/dev/null ||
		skip "promtool is not installed (Debian: apt-get install prometheus, or make deps)"
	rules >"$T/rules.yml"
	grep -q 'alert: GpuStackDrift' "$T/rules.yml"
	run promtool check rules "$T/rules.yml"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"SUCCESS: 5 rules found"* ]]
	# and promtool fails a broken one, so the check above means something
	sed 's/for: 30m/for: thirty/' "$T/rules.yml" >"$T/bad.yml"
	run promtool check rules "$T/bad.yml"
	[ "$status" -ne 0 ]
}

@test "cluster.md: every cuda_doctor metric the rules use is one check prints" {
	mkdir -p "$T/root"
	env -i PATH=/usr/bin:/bin "$CD" --root "$T/root" check --format prometheus >"$T/m.prom" || true
	for m in $(rules | grep -o 'cuda_doctor_[a-z_]*' | sort -u); do
		grep -q "^# TYPE $m " "$T/m.prom" || { echo "missing: $m"; return 1; }
	done
}

@test "cluster.md: the policy example parses" {
	sed -n '/^# train.policy/,/^```$/p' "$DOC" | sed '$d' >"$T/train.policy"
	grep -q '^driver >= 535' "$T/train.policy"
	mkdir -p "$T/root"
	run env -i PATH=/usr/bin:/bin "$CD" --root "$T/root" gate --policy "$T/train.policy"
	echo "$output"
	[ "$status" -eq 1 ] # parsed (2 would be a parse error); the empty root meets none of it
	[[ "$output" == *"gate: failed"* ]]
}
