#!/usr/bin/env bats
# docs/findings.md and the code agree. Every finding id the code can emit
# (scripts/finding-ids.sh) has a section; every section is an id the code
# emits; each section has the same parts in the same order, once, with a row
# in Contents. And each id is raised from one file (docs/contributing.md).

setup() {
	TOP="$BATS_TEST_DIRNAME/../.."
	DOC="$TOP/docs/findings.md"
	IDS="$TOP/scripts/finding-ids.sh"
}

sections() { sed -n 's/^## \([a-z0-9-]*\)$/\1/p' "$DOC"; }

# Ids still raised from more than one file, until the branches that give each
# one owner are merged (toolkit-missing, toolkit-headers-missing: the toolkit
# header inventory; torch-arch-list-invalid: the one TORCH_CUDA_ARCH_LIST
# rule). Empty it as they land: the test below fails while an id listed here
# has one owner, so the list cannot outlive them.
PENDING_ONE_OWNER=()

# The ids `finding-ids.sh -v [DIR]` shows emitted from more than one file.
multi_owner() { "$IDS" -v "$@" | awk 'NF > 2 { print $1 }'; }
contents() { sed -n 's/^| \[\([a-z0-9-]*\)\](#\([a-z0-9-]*\)) |.*/\1 \2/p' "$DOC"; }

@test "the id extractor reads findings_add calls, split lines, wrappers and mappings" {
	d="$BATS_TEST_TMPDIR/src"
	mkdir -p "$d/check" "$d/report"
	cat >"$d/check/a.c" <<-'EOF'
		x = findings_add(out, "alpha-one", CD_SEV_ERROR, SEC, "t");
		x = findings_add(
			out, "alpha-two",
			CD_SEV_WARNING, SEC, "t");
		finding_fix(x, a, "apt-get install not-an-id");
	EOF
	cat >"$d/check/b.c" <<-'EOF'
		static const char *map(int k) { return k ? "beta-one" : "beta-two"; }
		findings_add(out, id, CD_SEV_ERROR, SEC, "t");
	EOF
	printf 'int findings_add(struct cd_findings *f, const char *id) { return "no-id"; }\n' \
		>"$d/report/finding.c"
	run "$IDS" "$d"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'alpha-one\nalpha-two\nbeta-one\nbeta-two')" ]
	run "$IDS" -v "$d"
	[[ "${lines[0]}" == "alpha-one ./check/a.c" ]]
	run "$IDS" "$d/nope"
	[ "$status" -eq 2 ]
}

@test "an id emitted from two files is found; one file emitting it twice is not" {
	d="$BATS_TEST_TMPDIR/src"
	mkdir -p "$d/check/jit"
	printf 'x = findings_add(out, "gamma-one", CD_SEV_ERROR, SEC, "t");\n' >"$d/check/a.c"
	printf 'x = findings_add(out, "gamma-one", CD_SEV_INFO, SEC, "t");\n' >"$d/check/jit/b.c"
	printf 'findings_add(out, "delta-one", 0, S, "t");\nfindings_add(out, "delta-one", 1, S, "u");\n' \
		>"$d/check/c.c"
	run multi_owner "$d"
	[ "$status" -eq 0 ]
	[ "$output" = gamma-one ]
}

@test "each finding id is raised from one file (the pending list aside), and the list is current" {
	run multi_owner
	[ "$status" -eq 0 ]
	[ "${#PENDING_ONE_OWNER[@]}" -le 3 ] # the list only shrinks
	bad= stale=
	for id in "${lines[@]}"; do
		[[ " ${PENDING_ONE_OWNER[*]} " == *" $id "* ]] || bad="$bad $id"
	done
	for id in "${PENDING_ONE_OWNER[@]}"; do
		printf '%s\n' "${lines[@]}" | grep -qx -- "$id" || stale="$stale $id"
	done
	if [ -n "$bad" ]; then
		echo "raised from more than one file (one family file owns an id: give the others a builder to call):"
		"$IDS" -v | grep -E "^($(tr ' ' '|' <<<"${bad# }")) "
	fi
	[ -z "$stale" ] || echo "raised from one file now, remove from PENDING_ONE_OWNER ($BATS_TEST_FILENAME):$stale"
	[ -z "$bad$stale" ]
}

@test "every id the code emits has a section in docs/findings.md" {
	run "$IDS"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -ge 50 ] # all command families were read
	missing=$(comm -23 <(printf '%s\n' "${lines[@]}" | sort -u) <(sections | sort -u))
	[ -z "$missing" ] || {
		echo "no section in docs/findings.md for:" $missing
		false
	}
}

@test "every section of docs/findings.md is an id the code emits" {
	ids=$("$IDS")
	bad=
	for s in $(sections); do
		grep -qx -- "$s" <<<"$ids" || bad="$bad $s"
	done
	[ -z "$bad" ] || {
		echo "sections for ids the code does not emit:$bad"
		false
	}
}

@test "headings are Contents or ids, each id once" {
	bad=$(grep '^## ' "$DOC" | grep -vxE '## (Contents|[a-z0-9-]+)' || true)
	[ -z "$bad" ] || {
		echo "heading that is not an id: $bad"
		false
	}
	dup=$(sections | sort | uniq -d)
	[ -z "$dup" ] || {
		echo "two sections for:" $dup
		false
	}
}

@test "each section has Severity, Raised by, Meaning, Evidence and Fix, in that order" {
	bad=$(awk '
		function done_() {
			if (id ~ /^[a-z0-9-]+$/ && got != "|Severity|Raised by|Meaning|Evidence|Fix")
				print id ":" got
		}
		/^## / { done_(); id = substr($0, 4); got = ""; next }
		/^\*\*[A-Z][a-z ]*\.\*\*/ {
			match($0, /^\*\*[A-Z][a-z ]*\./)
			got = got "|" substr($0, 3, RLENGTH - 3)
		}
		END { done_() }' "$DOC")
	[ -z "$bad" ] || {
		echo "sections without the five parts in order: $bad"
		false
	}
}

@test "Contents lists every section, and only sections, with its anchor" {
	rows=$(contents)
	[ -n "$rows" ]
	while read -r id anchor; do
		[ "$id" = "$anchor" ] || {
			echo "row $id links to #$anchor"
			false
		}
		grep -qx -- "$id" <(sections) || {
			echo "row without a section: $id"
			false
		}
	done <<<"$rows"
	for s in $(sections); do
		grep -q "^$s " <<<"$rows" || {
			echo "section without a row in Contents: $s"
			false
		}
	done
}
