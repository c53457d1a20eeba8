#!/usr/bin/env bats
# `cuda-doctor --root DIR check --host-driver [--image-config FILE]`: an
# unpacked image judged against this host's live driver. The host is the
# fake driver (tests/fakes, CD_FAKE_MODE) found by SONAME through
# LD_LIBRARY_PATH, as a real driver would be; the image is a fixture built
# here: CUDA 12.8.1 with cuda-compat 570.124.06, and the configuration
# `docker inspect` prints for it (NVIDIA_REQUIRE_CUDA of nvidia/cuda 12.8.1,
# data/cuda_images.tsv).

bats_require_minimum_version 1.5.0

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	TOP="$BATS_TEST_DIRNAME/../.."
	TMP=$(mktemp -d)
	IMG="$TMP/rootfs"
	unset CD_FAKE_MODE CD_FAKE_TRACE CUDA_VISIBLE_DEVICES
	mkdir -p "$IMG/etc" "$IMG/usr/local/cuda-12.8/compat" "$IMG/usr/lib/x86_64-linux-gnu" \
		"$IMG/usr/local/cuda-12.8/targets/x86_64-linux/lib"
	printf 'ID=ubuntu\nVERSION_ID="22.04"\n' >"$IMG/etc/os-release"
	printf '{"cuda": {"name": "CUDA SDK", "version": "12.8.1"}}\n' >"$IMG/usr/local/cuda-12.8/version.json"
	: >"$IMG/usr/local/cuda-12.8/targets/x86_64-linux/lib/libcudart.so.12.8.90"
	: >"$IMG/usr/local/cuda-12.8/compat/libcuda.so.570.124.06"
	ln -s libcuda.so.570.124.06 "$IMG/usr/local/cuda-12.8/compat/libcuda.so.1"
	ln -s cuda-12.8 "$IMG/usr/local/cuda"
	REQ=$(awk -F'\t' '$1 == "12.8.1" && $2 == "amd64" { print $3 }' "$TOP/data/cuda_images.tsv")
	[ -n "$REQ" ]
	config
}

teardown() {
	rm -rf "$TMP"
}

# config [NAME=VALUE...]: the image's docker inspect output, with extra Env entries.
config() {
	local extra="" v
	for v in "$@"; do extra+=", \"$v\""; done
	printf '[{"Architecture": "amd64", "Config": {"Env": ["PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/bin:/bin", "NVIDIA_REQUIRE_CUDA=%s", "CUDA_VERSION=12.8.1", "NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility", "CUDA_HOME=/usr/local/cuda-12.8"%s]}}]\n' \
		"$REQ" "$extra" >"$TMP/inspect.json"
}

# host MODE ARGS...: cuda-doctor --root IMG --format json ARGS with the fake host MODE.
host() {
	local mode=$1
	shift
	run env CD_FAKE_MODE="$mode" LD_LIBRARY_PATH="$FAKES" "$CD" --root "$IMG" --format json "$@"
}

j() { jq -r "$1" <<<"$output"; }
image_ids() { j '[.findings[] | select(.id | test("^(image|nvidia)-")) | .id] | sort | join(" ")'; }

@test "--root alone queries no driver and has no image section; --host-driver queries this host's" {
	host h200 check
	[ "$(j .driver.status)" = not-run ]
	[ "$(j 'has("image")')" = false ]
	host h200 check --host-driver
	[ "$(j .driver.version)" = 580.159.04 ]
	[ "$(j .driver.cuda_version)" = 13.0 ]
	[ "$(j '.gpus | length')" -eq 1 ]
	[ "$(j .image.host_driver)" = true ]
	[ "$(j .image.config)" = null ]
	[ "$(j .image.variables)" = null ]
	[ "$(j '.image.compat[0].version')" = 570.124.06 ]
	[ "$(image_ids)" = "" ]
	# without --root, --host-driver changes nothing: check asks this host's driver anyway
	run env CD_FAKE_MODE=h200 LD_LIBRARY_PATH="$FAKES" "$CD" --format json check --host-driver
	[ "$(j 'has("image")')" = false ]
}

@test "--image-config: NVIDIA_REQUIRE_CUDA of CUDA 12.8 on a GeForce 535 host is refused" {
	host geforce check --host-driver --image-config "$TMP/inspect.json"
	[ "$status" -eq 1 ]
	[ "$(image_ids)" = image-cuda-refused ]
	[ "$(j '.findings[] | select(.id == "image-cuda-refused") | .evidence | map(select(test("configuration"))) | length')" -eq 1 ]
	[ "$(j '.image.variables.CUDA_VERSION')" = 12.8.1 ]
	# the image's toolkit against the driver: check/compat.c as for any root
	[ "$(j '[.findings[] | select(.id == "driver-too-old") | .severity] | join(" ")')" = warning ]
}

@test "the same image on a 570 H100 host and a 580 H200 host starts" {
	host ok check --host-driver --image-config "$TMP/inspect.json"
	[ "$(j .driver.version)" = 570.124.06 ]
	[ "$(image_ids)" = "" ]
	host h200 check --host-driver --image-config "$TMP/inspect.json"
	[ "$(image_ids)" = "" ]
	[ "$(j '[.findings[] | select(.id == "driver-too-old")] | length')" -eq 0 ]
}

@test "the config's Env is the environment probed, not cuda-doctor's own" {
	CUDA_HOME=/nonexistent host h200 check --host-driver --image-config "$TMP/inspect.json"
	[ "$(j .env.variables.CUDA_HOME)" = /usr/local/cuda-12.8 ]
	[ "$(j .container.nvidia_require_cuda | cut -c1-10)" = "cuda>=12.8" ]
}

@test "a libcuda in the image: an error on another driver, a warning on this host's own version" {
	: >"$IMG/usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05"
	ln -s libcuda.so.535.104.05 "$IMG/usr/lib/x86_64-linux-gnu/libcuda.so.1"
	: >"$IMG/usr/local/cuda-12.8/targets/x86_64-linux/lib/libcuda.so" # a stub dir is fine
	mkdir -p "$IMG/usr/local/cuda-12.8/targets/x86_64-linux/lib/stubs"
	: >"$IMG/usr/local/cuda-12.8/targets/x86_64-linux/lib/stubs/libcuda.so"
	host h200 check --host-driver
	[ "$status" -eq 1 ]
	[ "$(j '[.findings[] | select(.id == "image-libcuda-bundled") | .severity] | join(" ")')" = error ]
	[ "$(j '.image.libcuda | map(.path) | join(" ")')" = /usr/lib/x86_64-linux-gnu/libcuda.so.535.104.05 ]
	host geforce check --host-driver
	[ "$(j '[.findings[] | select(.id == "image-libcuda-bundled") | .severity] | join(" ")')" = warning ]
}

@test "libcuda.so linked to the toolkit's stub is a build's link name, not a driver in the image" {
	mkdir -p "$IMG/usr/local/cuda-12.8/lib64/stubs"
	: >"$IMG/usr/local/cuda-12.8/lib64/stubs/libcuda.so"
	ln -s /usr/local/cuda/lib64/stubs/libcuda.so "$IMG/usr/lib/x86_64-linux-gnu/libcuda.so"
	host h200 check --host-driver
	[ "$(j '.image.libcuda | length')" -eq 0 ]
	[ "$(image_ids)" = "" ]
	# libcuda.so.1 linked to the stub is loaded at run time: it counts (no version in its name)
	ln -s /usr/local/cuda/lib64/stubs/libcuda.so "$IMG/usr/lib/x86_64-linux-gnu/libcuda.so.1"
	host h200 check --host-driver
	[ "$(j '.image.libcuda | map(.path) | join(" ")')" = /usr/local/cuda-12.8/lib64/stubs/libcuda.so ]
	[ "$(j '.image.libcuda[0].version')" = null ]
	[[ "$(j '.findings[] | select(.id == "image-libcuda-bundled") | .evidence[0]')" == *"CUDA_ERROR_STUB_LIBRARY, 34"* ]]
	[ "$(j '[.findings[] | select(.id == "image-libcuda-bundled") | .severity] | join(" ")')" = error ]
	# a plain file named libcuda.so (no version in its name) is counted, its version unknown
	rm "$IMG/usr/lib/x86_64-linux-gnu/libcuda.so" "$IMG/usr/lib/x86_64-linux-gnu/libcuda.so.1"
	: >"$IMG/usr/lib/x86_64-linux-gnu/libcuda.so"
	host h200 check --host-driver
	[ "$(j '.image.libcuda | map("\(.path) \(.version)") | join(" ")')" = "/usr/lib/x86_64-linux-gnu/libcuda.so null" ]
}

@test "cuda-compat forced on the loader's path: 803 on a newer host driver, fine on an older one" {
	config LD_LIBRARY_PATH=/usr/local/cuda/compat:/usr/local/nvidia/lib64
	host h200 check --host-driver --image-config "$TMP/inspect.json"
	[ "$status" -eq 1 ]
	[ "$(image_ids)" = image-compat-mismatch ]
	[ "$(j .image.compat_forced_by)" = LD_LIBRARY_PATH ]
	[[ "$(j '.findings[] | select(.id == "image-compat-mismatch") | .detail')" == *"(803)"* ]]
	host ok check --host-driver --image-config "$TMP/inspect.json"
	[ "$(image_ids)" = "" ] # 570.124.06 on 570.124.06: the same user-space driver
	host geforce check --host-driver --image-config "$TMP/inspect.json"
	[ "$(image_ids)" = image-cuda-refused ]
	# an ld.so.conf.d entry does it too, without a configuration
	config
	mkdir -p "$IMG/etc/ld.so.conf.d"
	printf '# forward compatibility\n/usr/local/cuda-12.8/compat\n' >"$IMG/etc/ld.so.conf.d/cuda-compat.conf"
	host h200 check --host-driver
	[ "$(image_ids)" = image-compat-mismatch ]
	[ "$(j .image.compat_forced_by)" = /etc/ld.so.conf.d/cuda-compat.conf ]
}

@test "NVIDIA_DISABLE_REQUIRE and NVIDIA_DRIVER_CAPABILITIES of the configuration" {
	config NVIDIA_DISABLE_REQUIRE=true
	host geforce check --host-driver --image-config "$TMP/inspect.json"
	[ "$(image_ids)" = nvidia-disable-require ]
	[[ "$(j '.findings[] | select(.id == "nvidia-disable-require") | .detail')" == *"refuse"* ]]
	config NVIDIA_DRIVER_CAPABILITIES=utility
	host h200 check --host-driver --image-config "$TMP/inspect.json"
	[ "$(image_ids)" = nvidia-capabilities-no-compute ]
	# without --host-driver the variables are still read; nothing is judged against a driver
	host geforce check --image-config "$TMP/inspect.json"
	[ "$(j .driver.status)" = not-run ]
	[ "$(image_ids)" = nvidia-capabilities-no-compute ]
}

@test "the text report has the image section; usage errors" {
	run env CD_FAKE_MODE=geforce LD_LIBRARY_PATH="$FAKES" "$CD" --root "$IMG" --no-color check --host-driver
	[[ "$output" == *"Image under --root, against this host"* ]]
	[[ "$output" == *"no --image-config: NVIDIA_REQUIRE_CUDA and the image's ENV unknown"* ]]
	[[ "$output" == *"cuda-compat: /usr/local/cuda-12.8/compat/libcuda.so.570.124.06"* ]]
	run "$CD" check --image-config "$TMP/inspect.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"goes with --root"* ]]
	run "$CD" --root "$IMG" check --image-config "$TMP/none.json"
	[ "$status" -eq 2 ]
	printf '{"schemaVersion": 2}' >"$TMP/manifest.json"
	run "$CD" --root "$IMG" check --image-config "$TMP/manifest.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not an image configuration"* ]]
	run "$CD" --root "$IMG" check --image-config
	[ "$status" -eq 2 ]
	run "$CD" --root "$IMG" check --bogus
	[ "$status" -eq 2 ]
}
