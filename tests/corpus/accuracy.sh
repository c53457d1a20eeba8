#!/usr/bin/env bash
# Accuracy of `cuda-doctor explain` on real logs from public issue threads.
#
#   tests/corpus/accuracy.sh [-v] [PART...]      PART: tune, test, test2, ..., test13
#                                               (default: all, the test parts by their .sha256)
#
# Each PART/NAME.log has a sidecar PART/NAME.expect with the thread's url, the
# category the thread established as the root cause and, when the log states
# it, one key fact (name=value). The test parts are frozen (each PART.sha256:
# test.sha256, test2.sha256, ..., test13.sha256) and no signature is ever
# written from them; signatures are tuned on the tune part.
# For each part this prints, per category and in all: logs, the first
# diagnosis in the right category (top-1), the category among the diagnoses
# (any), only the diagnosis of last resort `unknown` (unknown), no diagnosis
# at all (silent), and the key fact in the first diagnosis; then every miss
# (with -v, the diagnoses explain gave). Targets may be set to fail below
# them: TOP1_MIN, ANY_MIN, FACT_MIN, and above them: UNKNOWN_MAX, SILENT_MAX
# (percent), applied to every part named. Each part's figures are given again
# for its logs from threads no row of data/ cites (a signature's source, a
# table's): a thread read while writing a signature measures memory, not
# generalisation. With two test parts or more, the figures of them all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CD="${CD_BIN:-$here/../../build/cuda-doctor}"
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
parts=("$@")
if [ ${#parts[@]} -eq 0 ]; then # tune, then the frozen parts in the order they were collected
	parts=(tune test)
	for n in $(ls "$here" | sed -n 's/^test\([0-9][0-9]*\)\.sha256$/\1/p' | sort -n); do parts+=("test$n"); done
fi
command -v jq >/dev/null || { echo "accuracy: jq is needed" >&2; exit 2; }
[ -x "$CD" ] || { echo "accuracy: no binary at $CD (set CD_BIN)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the threads a row of data/ cites (signature sources, tables): a test log from one of them
# measures what was read there, so the figures are also given without them
grep -rhoiE 'github\.com/[^] )>"'"'"'`]+' "$here/../../data" 2>/dev/null |
	sed -E 's#[?\#].*##; s#[.,;:]+$##; s#/+$##' | tr A-Z a-z | LC_ALL=C sort -u >"$tmp/cited"
CITED="$tmp/cited"

# explain on every log, one process each and two at a time; its JSON goes to out/PART/NAME.json
for p in "${parts[@]}"; do
	[ -d "$here/$p" ] || { echo "accuracy: no part $p" >&2; exit 2; }
	mkdir -p "$tmp/out/$p"
	find "$here/$p" -name '*.expect' | LC_ALL=C sort
done >"$tmp/expects"
export CD OUT="$tmp/out"
xargs -P 2 -n 32 bash -c '
	for e; do
		d=${e%/*}
		"$CD" --json explain --no-env "${e%.expect}.log" >"$OUT/${d##*/}/$(basename "$e" .expect).json" 2>/dev/null || true
	done' _ <"$tmp/expects"

# what each log should give: part name want_category want_fact cited (its url is cited by data/)
xargs awk -v cited="$CITED" '
	BEGIN { while ((getline u <cited) > 0) c[u] = 1 }
	FNR == 1 { if (name != "") print row(); n = split(FILENAME, a, "/"); part = a[n - 1]
		name = a[n]; sub(/\.expect$/, "", name); want = fact = url = "" }
	/^category:/ && want == "" { want = $0; sub(/^category: */, "", want) }
	/^fact:/ && fact == "" { fact = $0; sub(/^fact: */, "", fact) }
	/^url:/ && url == "" { url = tolower($0); sub(/^url: */, "", url); sub(/^https?:\/\//, "", url)
		sub(/[?#].*/, "", url); sub(/\/+$/, "", url) }
	function row() { return part "\t" name "\t" want "\t" (fact == "" ? "-" : fact) "\t" (url != "" && url in c) }
	END { if (name != "") print row() }' <"$tmp/expects" >"$tmp/want"

# what explain gave, from one jq pass: part name first_category all_categories facts top3, the
# first diagnosis's facts as key=value joined by the ASCII record separator
find "$tmp/out" -name '*.json' -size +0 | LC_ALL=C sort | xargs -r jq -r '
	(.diagnoses // []) as $d
	| (input_filename | split("/") | .[-2:]) as $pn
	| [$pn[0], ($pn[1] | rtrimstr(".json")),
	   ($d[0].category // "none"),
	   ([$d[].category] | unique | join(",") | if . == "" then "none" else . end),
	   (($d[0].facts // {}) | to_entries | map(.key + "=" + (.value | tostring)) | join("\u001e")),
	   ([$d[:3][] | .category + "/" + .signature] | join(" "))]
	| @tsv' >"$tmp/got"

# one line per log: part name want_category want_fact got_first got_all got_fact top3 cited
awk -F'\t' '
	FNR == NR { got[$1 "\t" $2] = $0; next }
	{
		k = $1 "\t" $2; first = "none"; all = "none"; facts = ""; top3 = ""
		if (k in got) { split(got[k], g, "\t"); first = g[3]; all = g[4]; facts = g[5]; top3 = g[6] }
		f = "-"
		if ($4 != "-") {
			key = substr($4, 1, index($4, "=") - 1); f = "miss:"
			n = split(facts, kv, "\036")
			for (i = 1; i <= n; i++)
				if (substr(kv[i], 1, length(key) + 1) == key "=")
					f = kv[i] == $4 ? "ok" : "miss:" substr(kv[i], length(key) + 2)
		}
		print $1 "\t" $2 "\t" $3 "\t" $4 "\t" first "\t" all "\t" f "\t" top3 "\t" $5
	}' "$tmp/got" "$tmp/want" >"$tmp/rows"

# the counting both summaries share: tally(k) adds the current row ($3 wanted, $4 fact, $5 first,
# $6 all, $7 fact found) to the totals of key k; summary(label, k) prints them
lib='
function pct(a, b) { return b ? sprintf("%5.1f%%", 100 * a / b) : "    -" }
function tally(k) {
	N[k]++; T1[k] += $5 == $3; AN[k] += index("," $6 ",", "," $3 ",") > 0
	NO[k] += $6 == "unknown"; SI[k] += $6 == "none"
	if ($4 != "-") { NK[k]++; FO[k] += $7 == "ok" }
}
function summary(label, k) {
	printf "accuracy %s: top-1 %s, any %s, unknown %s, silent %s, key fact %s\n", label,
		pct(T1[k], N[k]), pct(AN[k], N[k]), pct(NO[k], N[k]), pct(SI[k], N[k]), pct(FO[k], NK[k])
}'

status=0
for p in "${parts[@]}"; do
	awk -F'\t' -v part="$p" -v top1min="${TOP1_MIN:-}" -v anymin="${ANY_MIN:-}" \
		-v factmin="${FACT_MIN:-}" -v unkmax="${UNKNOWN_MAX:-}" -v silentmax="${SILENT_MAX:-}" \
		-v verbose=$verbose "$lib"'
	$1 != part { next }
	{
		c = $3; n[c]++
		if ($5 == c) t1[c]++
		if (index("," $6 ",", "," c ",")) an[c]++
		if ($6 == "unknown") no[c]++
		if ($6 == "none") si[c]++
		if ($4 != "-") { nf[c]++; if ($7 == "ok") fo[c]++ }
		tally("all")
		if ($9 != 1) tally("u")
		if ($5 != c) miss[++m] = sprintf("  %-58s want %-18s got %s", $2, c, verbose ? $8 : $5)
		else if ($4 != "-" && $7 != "ok")
			miss[++m] = sprintf("  %-58s fact %s, got %s", $2, $4, substr($7, 6) == "" ? "nothing" : substr($7, 6))
	}
	END {
		a = "all"
		printf "%s part: %d logs\n", part, N[a]
		printf "  %-20s %5s %7s %7s %8s %7s %11s\n", "category", "logs", "top-1", "any", "unknown", "silent", "key fact"
		for (c in n) cats[++k] = c
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (cats[j] < cats[i]) { x = cats[i]; cats[i] = cats[j]; cats[j] = x }
		for (i = 1; i <= k; i++) {
			c = cats[i]
			printf "  %-20s %5d %7s %7s %8s %7s %11s\n", c, n[c], pct(t1[c], n[c]), pct(an[c], n[c]), pct(no[c], n[c]),
				pct(si[c], n[c]), nf[c] ? sprintf("%d/%d", fo[c], nf[c]) : "-"
		}
		printf "  %-20s %5d %7s %7s %8s %7s %11s\n", "all", N[a], pct(T1[a], N[a]), pct(AN[a], N[a]), pct(NO[a], N[a]),
			pct(SI[a], N[a]), NK[a] ? sprintf("%d/%d %s", FO[a], NK[a], pct(FO[a], NK[a])) : "-"
		if (m) { printf "  misses:\n"; for (i = 1; i <= m; i++) print miss[i] }
		summary(part, a)
		if (N["u"] < N[a])
			summary(part ", " N["u"] + 0 " logs of threads no data row cites", "u")
		bad = 0
		if (top1min != "" && 100 * T1[a] < top1min * N[a]) { print "accuracy " part ": top-1 below " top1min "%"; bad = 1 }
		if (anymin != "" && 100 * AN[a] < anymin * N[a]) { print "accuracy " part ": any below " anymin "%"; bad = 1 }
		if (factmin != "" && NK[a] && 100 * FO[a] < factmin * NK[a]) { print "accuracy " part ": key fact below " factmin "%"; bad = 1 }
		if (unkmax != "" && 100 * NO[a] > unkmax * N[a]) { print "accuracy " part ": unknown above " unkmax "%"; bad = 1 }
		if (silentmax != "" && 100 * SI[a] > silentmax * N[a]) { print "accuracy " part ": silent above " silentmax "%"; bad = 1 }
		exit bad
	}' "$tmp/rows" || status=1
done
# all the test parts asked for, together
awk -F'\t' "$lib"'
	$1 ~ /^test/ { p[$1] = 1; tally("all"); if ($9 != 1) tally("u") }
	END {
		for (k in p) np++
		if (np < 2) exit
		summary("all " np " test parts (" N["all"] " logs)", "all")
		summary("all " np " test parts, " N["u"] + 0 " logs of threads no data row cites", "u")
	}' "$tmp/rows"
exit $status
