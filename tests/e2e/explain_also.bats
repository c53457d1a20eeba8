#!/usr/bin/env bats
# explain's alternatives (docs/explain.md, "Messages two causes print"): a
# message that two causes print names the other cause too, after the causes
# and symptoms, unless the log already has a diagnosis of its category.

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T=$BATS_TEST_TMPDIR
	ROOT="$BATS_TEST_DIRNAME/../.."
	SIGC="$(dirname "$CD")/tools/sigc"
}

@test "also: a lone error 35 is a driver too old first, then a driver the process does not reach" {
	printf '%s\n' 'RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version' >"$T/a.log"
	run "$CD" explain --no-env --json "$T/a.log"
	[ "$status" -eq 1 ]
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 2 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = cuda-driver-insufficient ]
	[ "$(jq -r '.diagnoses[0].root_cause' <<<"$output")" = true ]
	[ "$(jq -r '.diagnoses[1].category' <<<"$output")" = cuda-init ]
	[ "$(jq -r '.diagnoses[1].role' <<<"$output")" = alternative ]
	[ "$(jq -r '.diagnoses[1].alternative_to' <<<"$output")" = cuda-driver-insufficient ]
	[ "$(jq -r '.diagnoses[1].root_cause' <<<"$output")" = false ]
	[ "$(jq -r '.diagnoses[1].line' <<<"$output")" = 1 ]
	[ "$(jq -r '.diagnoses[1].severity' <<<"$output")" = "$(jq -r '.diagnoses[0].severity' <<<"$output")" ]
	[ "$(jq -r '.diagnoses[1].sources | length' <<<"$output")" -ge 2 ]
	[ "$(jq -r '.summary.causes' <<<"$output")" = 1 ]
	[ "$(jq -r '.summary.alternatives' <<<"$output")" = 1 ]
	[ "$(jq -r '.summary.root_cause' <<<"$output")" = cuda-driver-insufficient ]
	run "$CD" explain --no-env "$T/a.log"
	[[ "$output" == *"2 diagnoses (1 cause, 0 symptoms, 1 alternative), root cause first"* ]]
	[[ "$output" == *"? or · cuda-init · driver-not-reached-35"* ]]
	[[ "$output" == *"line   1 (cuda-driver-insufficient's)"* ]]
	[[ "$output" == *"tell    Run nvidia-smi where the program runs"* ]]
	run "$CD" explain --no-env --format markdown "$T/a.log"
	[[ "$output" == *'(alternative)'* ]]
}

@test "also: no alternative when the log has a diagnosis of its category" {
	printf '%s\n' 'Failed to initialize NVML: Driver/library version mismatch' \
		'RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version' >"$T/b.log"
	run "$CD" explain --no-env --json "$T/b.log"
	[ "$(jq -r '[.diagnoses[] | select(.role == "alternative")] | length' <<<"$output")" = 0 ]
	[ "$(jq -r '[.diagnoses[] | select(.category == "cuda-init")] | length' <<<"$output")" = 1 ]
	[ "$(jq -r '.summary.alternatives' <<<"$output")" = 0 ]
}

@test "also: a log without such a message has no alternative" {
	printf '%s\n' 'fatal error: cusparse.h: No such file or directory' >"$T/c.log"
	run "$CD" explain --no-env --json "$T/c.log"
	[ "$(jq -r '[.diagnoses[] | select(.role == "alternative")] | length' <<<"$output")" = 0 ]
}

@test "also: every row's signature, from its first sample, names the row's alternative" {
	rows=0
	while IFS=$'\t' read -r sig id cat _; do
		case "$sig" in '#'* | signature | '') continue ;; esac
		rows=$((rows + 1))
		sample=$(awk -v id="$sig" '/^id: / { p = ($2 == id) } p && /^sample: / { print substr($0, 9); exit }' "$ROOT"/data/signatures/*.txt)
		[ -n "$sample" ]
		printf '%s\n' "$sample" >"$T/s.log"
		run "$CD" explain --no-env --json "$T/s.log"
		[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = "$sig" ]
		[ "$(jq -r --arg id "$id" '[.diagnoses[] | select(.signature == $id)][0] | "\(.category) \(.role) \(.alternative_to)"' <<<"$output")" = "$cat alternative $sig" ]
	done <"$ROOT/data/explain_also.tsv"
	[ "$rows" -ge 3 ]
}

@test "also: sigc fails the build on a row that names no signature, or the signature's own category" {
	[ -x "$SIGC" ] || skip "no sigc next to $CD"
	files=("$ROOT"/data/signatures/*.txt "$ROOT/data/explain_fallback.tsv" "$ROOT/data/explain_facts.tsv")
	printf 'signature\tid\tcategory\ttitle\ttell apart\tfix\tsource\n' >"$T/head"
	cp "$T/head" "$T/explain_also.tsv"
	printf 'no-such-signature\tx-alt\tcuda-init\tt\tw\tf\thttps://a.example/1 https://b.example/2\n' >>"$T/explain_also.tsv"
	run "$SIGC" "$T/out.c" "${files[@]}" "$T/explain_also.tsv"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no signature no-such-signature"* ]]
	[ ! -e "$T/out.c" ]
	cp "$T/head" "$T/explain_also.tsv"
	printf 'cuda-driver-insufficient\tx-alt\tdriver-too-old\tt\tw\tf\thttps://a.example/1 https://b.example/2\n' >>"$T/explain_also.tsv"
	run "$SIGC" "$T/out.c" "${files[@]}" "$T/explain_also.tsv"
	[ "$status" -ne 0 ]
	[[ "$output" == *"another category"* ]]
	cp "$T/head" "$T/explain_also.tsv"
	printf 'cuda-driver-insufficient\tx-alt\tcuda-init\tt\tw\tf\thttps://a.example/1\n' >>"$T/explain_also.tsv"
	run "$SIGC" "$T/out.c" "${files[@]}" "$T/explain_also.tsv"
	[ "$status" -ne 0 ]
	[[ "$output" == *"two sources"* ]]
	cp "$T/head" "$T/explain_also.tsv"
	printf 'cuda-driver-insufficient\tx-alt\tcuda-init\tt\tw\tf\thttps://a.example/1 https://b.example/2\n' >>"$T/explain_also.tsv"
	run "$SIGC" "$T/out.c" "${files[@]}" "$T/explain_also.tsv"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 alternatives"* ]]
}
