#!/usr/bin/env bats
# The wheel (tools/wheel.py, `make wheel`) and the Python module in it: the
# wheel is reproducible and well formed (RECORD hashes, the binary executable
# under .data/scripts, a platform tag that is the binary's real glibc floor),
# installs into a fresh venv with no network, puts `cuda-doctor` on PATH, and
# python/tests passes there against the installed copy.

setup_file() {
	command -v python3 >/dev/null || { echo "python3 is missing"; return 1; }
	W="$BATS_FILE_TMPDIR/w"
	# The sanitizer build links libasan: no wheel may carry it (the builder says
	# so); the wheel is tested with the release build.
	SAN_BUILD=
	if ldd "$CD_BIN" | grep -q 'libasan'; then
		SAN_BUILD=1
		export SAN_BUILD
		return 0
	fi
	SOURCE_DATE_EPOCH=1700000000 python3 "$BATS_TEST_DIRNAME/../../tools/wheel.py" \
		--binary "$CD_BIN" --version 0.1.0 --out "$W/a" >/dev/null
	SOURCE_DATE_EPOCH=1700000000 python3 "$BATS_TEST_DIRNAME/../../tools/wheel.py" \
		--binary "$CD_BIN" --version 0.1.0 --out "$W/b" >/dev/null
	WHL=$(ls "$W"/a/*.whl)
	export W WHL
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	[ -z "${SAN_BUILD:-}" ] || skip "a sanitizer build: the wheel carries the glibc-only binary"
}

@test "the wheel is reproducible and named cuda_doctor_bin" {
	[ "$(sha256sum <"$WHL")" = "$(sha256sum <"$W/b/$(basename "$WHL")")" ]
	[[ "$(basename "$WHL")" == cuda_doctor_bin-0.1.0-py3-none-manylinux_2_*_x86_64.whl ]]
}

@test "the platform tag is the binary's glibc floor, 2.28 at the least" {
	local need tag
	need=$(objdump -T "$CD" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n -u | tail -1)
	need=${need#GLIBC_2.}
	[ "$need" -lt 28 ] && need=28
	tag=$(basename "$WHL" .whl)
	[ "${tag##*-}" = "manylinux_2_${need}_x86_64" ]
	grep -qx "Tag: py3-none-manylinux_2_${need}_x86_64" <(unzip -p "$WHL" '*.dist-info/WHEEL')
}

@test "the wheel refuses a binary that needs more than glibc" {
	run python3 "$BATS_TEST_DIRNAME/../../tools/wheel.py" --binary /bin/ls --print-tag
	if objdump -p /bin/ls | grep -q 'NEEDED.*libselinux'; then
		[ "$status" -eq 1 ]
		[[ "$output" == *"needs more than glibc: libselinux.so.1"* ]]
	fi
	run python3 "$BATS_TEST_DIRNAME/../../tools/wheel.py" --binary "$BATS_TEST_DIRNAME/html.bats" --print-tag
	[ "$status" -eq 1 ]
	[[ "$output" == *"not a 64-bit little-endian ELF file"* ]]
}

@test "RECORD lists every file with its sha256; the binary is 0755 under .data/scripts" {
	python3 - "$WHL" <<'EOF'
import base64, hashlib, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
rec = [n for n in names if n.endswith(".dist-info/RECORD")][0]
rows = [r.split(",") for r in z.read(rec).decode().splitlines()]
assert sorted(r[0] for r in rows) == sorted(names), (rows, names)
for name, h, size in rows:
    if name == rec:
        assert h == "" and size == ""
        continue
    data = z.read(name)
    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert h == "sha256=" + d and int(size) == len(data), name
b = z.getinfo("cuda_doctor_bin-0.1.0.data/scripts/cuda-doctor")
assert (b.external_attr >> 16) & 0o777 == 0o755
assert "cuda_doctor/__init__.py" in names
meta = z.read("cuda_doctor_bin-0.1.0.dist-info/METADATA").decode()
assert "Name: cuda-doctor-bin\n" in meta and "Version: 0.1.0\n" in meta
print("ok")
EOF
}

@test "installs into a fresh venv with no network; the module's tests pass there" {
	local v="$BATS_FILE_TMPDIR/venv" out
	python3 -m venv "$v"
	PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 "$v/bin/python" -m pip install -q \
		--no-index --no-deps "$WHL"
	[ -x "$v/bin/cuda-doctor" ]
	cmp "$v/bin/cuda-doctor" "$CD"
	run env PATH="$v/bin:/usr/bin:/bin" cuda-doctor --version
	[ "$status" -eq 0 ]
	[[ "$output" == "cuda-doctor "* ]]
	run env -u CUDA_DOCTOR_BIN CD_EXPECT_BIN="$v/bin/cuda-doctor" CD_FAKES="$CD_FAKES" \
		"$v/bin/python" -m unittest discover -s "$BATS_TEST_DIRNAME/../../python/tests" -v
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"test_found_where_the_wheel_put_it"*"... ok"* ]]
	[[ "${lines[-1]}" == "OK"* ]]
	# The module came from the venv, not from the source tree.
	out=$(cd / && "$v/bin/python" -c 'import cuda_doctor; print(cuda_doctor.__file__)')
	[[ "$out" == "$v/lib/python"*"/site-packages/cuda_doctor/__init__.py" ]]
}
