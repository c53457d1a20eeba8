#!/usr/bin/env bash
# Accuracy of `cuda-doctor explain` on real logs from public issue threads.
# Each tests/corpus/logs/NAME.log has a sidecar NAME.expect with the thread's
# url, the established root cause's category and, when the log states it, a
# key fact (name=value) that must be extracted. Prints the share of logs
# whose first diagnosis has the right category and the share of key facts
# extracted from it; exits 1 below the targets (90% and 80%).
set -euo pipefail
cd "$(dirname "$0")"
CD="${CD_BIN:-../../build/cuda-doctor}"
CAT_TARGET=${CAT_TARGET:-90}
FACT_TARGET=${FACT_TARGET:-80}
n=0 cat_ok=0 nf=0 fact_ok=0
for expect in logs/*.expect; do
	log="${expect%.expect}.log"
	want_cat=$(sed -n 's/^category: //p' "$expect")
	want_fact=$(sed -n 's/^fact: //p' "$expect")
	json=$("$CD" --json explain --no-env "$log" || true)
	got_cat=$(jq -r '.diagnoses[0].category // "none"' <<<"$json")
	n=$((n + 1))
	if [ "$got_cat" = "$want_cat" ]; then
		cat_ok=$((cat_ok + 1))
	else
		echo "category  $(basename "$log"): want $want_cat, got $got_cat ($(jq -r '.diagnoses[0].signature // "-"' <<<"$json"))"
	fi
	if [ -n "$want_fact" ]; then
		nf=$((nf + 1))
		name=${want_fact%%=*} value=${want_fact#*=}
		got=$(jq -r --arg k "$name" '.diagnoses[0].facts[$k] // ""' <<<"$json")
		if [ "$got" = "$value" ]; then
			fact_ok=$((fact_ok + 1))
		else
			echo "fact      $(basename "$log"): want $name=$value, got '${got}'"
		fi
	fi
done
cat_pct=$((100 * cat_ok / n))
fact_pct=$((nf ? 100 * fact_ok / nf : 100))
echo "corpus: $n logs; first diagnosis has the right category: $cat_ok/$n (${cat_pct}%, target ${CAT_TARGET}%); key fact extracted: $fact_ok/$nf (${fact_pct}%, target ${FACT_TARGET}%)"
[ "$cat_pct" -ge "$CAT_TARGET" ] && [ "$fact_pct" -ge "$FACT_TARGET" ]
