"""Tests of the cuda_doctor module against the real binary.

Run by tests/e2e/python.bats inside a fresh venv where the wheel was
installed with no network (so ``binary()`` finds the wheel's copy), or by hand:
CUDA_DOCTOR_BIN=build/cuda-doctor CD_FAKES=build/fakes python3 -m unittest
discover -s python/tests. Fixture trees are made here: a root with the fake
driver libraries (CD_FAKES, CD_FAKE_MODE chooses their behaviour), tiny
safetensors checkpoints, and recorded tracebacks in data/.
"""

import contextlib
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import textwrap
import unittest

import cuda_doctor

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.environ.get("CD_FAKES")
DRIVER = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
          "(dvs-builder@U22-I3-AE18-23-3)  Wed Jan 21 23:49:28 UTC 2026\n")


def recorded(name):
    with open(os.path.join(HERE, "data", name), encoding="utf-8") as fh:
        return fh.read()


def write_safetensors(path, tensors, cut=0):
    """tensors: [(name, dtype, shape)]; the data is a hole (truncate)."""
    size = {"F32": 4, "BF16": 2, "F16": 2}
    header, off = {}, 0
    for name, dtype, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + n * size[dtype]]}
        off += n * size[dtype]
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(raw)) + raw)
        fh.truncate(8 + len(raw) + off - cut)


def layer(i):
    p = "model.layers.%d." % i
    return [(p + "self_attn.q_proj.weight", "BF16", (64, 64)), (p + "mlp.up_proj.weight", "BF16", (128, 64))]


def tiny_model(d, sharded=False, missing_shard=False):
    os.makedirs(d, exist_ok=True)
    cfg = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "torch_dtype": "bfloat16",
           "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
           "hidden_size": 64, "transformers_version": "4.40.0"}
    with open(os.path.join(d, "config.json"), "w") as fh:
        json.dump(cfg, fh)
    with open(os.path.join(d, "tokenizer.json"), "w") as fh:
        fh.write("{}")
    head = [("model.embed_tokens.weight", "BF16", (256, 64))]
    tail = [("model.norm.weight", "BF16", (64,)), ("lm_head.weight", "BF16", (256, 64))]
    if not sharded:
        write_safetensors(os.path.join(d, "model.safetensors"), head + layer(0) + layer(1) + tail)
        return
    shards = {"model-00001-of-00002.safetensors": head + layer(0),
              "model-00002-of-00002.safetensors": layer(1) + tail}
    wmap = {t[0]: s for s, ts in shards.items() for t in ts}
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as fh:
        json.dump({"metadata": {}, "weight_map": wmap}, fh)
    for s, ts in shards.items():
        if not (missing_shard and s.startswith("model-00002")):
            write_safetensors(os.path.join(d, s), ts)


def binary_json(args, stdin=None):
    """The binary run directly, in the environment the module gives it."""
    p = subprocess.run([cuda_doctor.binary()] + args + ["--json"], input=stdin,
                       stdout=subprocess.PIPE, env=cuda_doctor._child_env(), check=False)
    assert p.returncode in (0, 1), p.returncode
    return json.loads(p.stdout)


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "root")
        os.makedirs(os.path.join(self.root, "proc/driver/nvidia"))
        with open(os.path.join(self.root, "proc/driver/nvidia/version"), "w") as fh:
            fh.write(DRIVER)
        self.saved = dict(os.environ)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.saved)
        self.tmp.cleanup()

    def fake(self, mode):
        """Global options and environment for the fake driver in MODE."""
        if not FAKES:
            self.skipTest("CD_FAKES is not set")
        os.environ["CD_FAKE_MODE"] = mode
        return dict(root=self.root, nvml_lib=os.path.join(FAKES, "libnvidia-ml.so.1"),
                    cuda_lib=os.path.join(FAKES, "libcuda.so.1"), timeout=5)

    def fake_args(self, g):
        return ["--root", g["root"], "--nvml-lib", g["nvml_lib"], "--cuda-lib", g["cuda_lib"],
                "--timeout", "5"]


class TestBinary(Fixture):
    def test_found_where_the_wheel_put_it(self):
        want = os.environ.get("CD_EXPECT_BIN")
        if not want:
            self.skipTest("not run from an installed wheel")
        os.environ.pop("CUDA_DOCTOR_BIN", None)
        self.assertEqual(os.path.realpath(cuda_doctor.binary()), os.path.realpath(want))

    def test_missing_binary_is_one_typed_error(self):
        os.environ["CUDA_DOCTOR_BIN"] = os.path.join(self.tmp.name, "nope")
        with self.assertRaises(cuda_doctor.CudaDoctorError):
            cuda_doctor.check(root=self.root)

    def test_usage_error_is_raised_not_parsed(self):
        with self.assertRaises(cuda_doctor.CudaDoctorError) as cm:
            cuda_doctor.model("/x", dtype="fp7", root=self.root)
        self.assertEqual(cm.exception.status, 2)
        self.assertIn("--dtype", str(cm.exception))


class TestEqualsBinary(Fixture):
    def test_check(self):
        g = self.fake("h200")
        r = cuda_doctor.check(**g)
        self.assertEqual(dict(r), binary_json(self.fake_args(g) + ["check"]))
        self.assertEqual(r.status, 0)
        self.assertEqual(r["gpus"][0]["compute_capability"], "9.0")

    def test_model(self):
        tiny_model(os.path.join(self.root, "m"))
        r = cuda_doctor.model("/m", root=self.root, gpu_memory=["80GiB", "80GiB"], dtype="fp16")
        self.assertEqual(dict(r), binary_json(["--root", self.root, "model", "/m", "--gpu-memory",
                                               "80GiB,80GiB", "--dtype", "fp16"]))
        self.assertEqual(r["model"]["weights"]["parameters"], 2 * 256 * 64 + 2 * (64 * 64 + 128 * 64) + 64)

    def test_explain(self):
        text = recorded("cuda_driver_too_old.txt")
        r = cuda_doctor.explain(text, no_env=True)
        self.assertEqual(dict(r), binary_json(["explain", "--no-env", "-"], text.encode()))
        self.assertEqual(r.findings[0]["category"], "driver-too-old")

    def test_jit(self):
        r = cuda_doctor.jit(ops=["fused_adam"], root=self.root, gpu_cc="9.0")
        self.assertEqual(dict(r), binary_json(["--root", self.root, "jit", "--op", "fused_adam",
                                               "--gpu-cc", "9.0"]))

    def test_the_calling_environment_is_diagnosed(self):
        r = cuda_doctor.check()
        self.assertEqual(r["python"]["found_via"], "--env")
        self.assertEqual(os.path.realpath(r["python"]["prefix"]), os.path.realpath(sys.prefix))

    def test_html_is_the_binarys(self):
        r = cuda_doctor.check(root=self.root)
        page = r.html()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        frag = r._repr_html_()
        self.assertTrue(frag.startswith("<style>"))
        self.assertIn('<div class="cuda-doctor">', frag)
        self.assertNotIn("<body>", frag)
        for f in r.findings:
            self.assertIn(">%s &middot;" % f["id"], frag)


class TestNoTorch(Fixture):
    def test_works_when_import_torch_fails(self):
        fake = os.path.join(self.tmp.name, "site")
        os.makedirs(os.path.join(fake, "torch"))
        with open(os.path.join(fake, "torch", "__init__.py"), "w") as fh:
            fh.write("raise ImportError('libcudnn.so.9: cannot open shared object file')\n")
        code = textwrap.dedent("""
            import sys
            sys.path.insert(0, sys.argv[1])
            try:
                import torch
            except ImportError:
                pass
            else:
                raise SystemExit("torch imported")
            sys.modules.pop("torch", None)
            import cuda_doctor
            r = cuda_doctor.check(root=sys.argv[2])
            e = cuda_doctor.explain("ImportError: libcudnn.so.9: cannot open shared object file", no_env=True)
            assert "torch" not in sys.modules, "cuda_doctor imported torch"
            print(r["schema"], e.findings[0]["category"])
        """)
        p = subprocess.run([sys.executable, "-c", code, fake, self.root], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
        self.assertEqual(p.returncode, 0, p.stderr.decode())
        self.assertEqual(p.stdout.decode().split(), ["cuda-doctor.report/1", "missing-shared-lib"])


class TestPreflight(Fixture):
    def test_passes_on_a_healthy_tree(self):
        g = self.fake("h200")
        tiny_model(os.path.join(self.root, "m"))
        reps = cuda_doctor.preflight(model="/m", require=["gpu", "bf16"], **g)
        self.assertEqual(reps["check"].status, 0)
        self.assertEqual(reps["model"].status, 0)

    def test_raises_on_a_planted_driver_fault(self):
        g = self.fake("initfail")
        with self.assertRaises(cuda_doctor.PreflightError) as cm:
            cuda_doctor.preflight(**g)
        ids = [f["id"] for f in cm.exception.findings]
        self.assertIn("driver-init-failed", ids)
        self.assertTrue(cm.exception.fixes)
        self.assertIn("driver-init-failed", str(cm.exception))

    def test_raises_on_a_missing_shard(self):
        g = self.fake("h200")
        tiny_model(os.path.join(self.root, "m"), sharded=True, missing_shard=True)
        with self.assertRaises(cuda_doctor.PreflightError) as cm:
            cuda_doctor.preflight(model="/m", **g)
        self.assertEqual([f["id"] for f in cm.exception.findings], ["model-weights-incomplete"])
        self.assertTrue(any("model-00002-of-00002" in e for e in cm.exception.findings[0]["evidence"]))

    def test_raises_when_too_large_and_allow_lets_it_pass(self):
        tiny_model(os.path.join(self.root, "m"))
        with self.assertRaises(cuda_doctor.PreflightError) as cm:
            cuda_doctor.preflight(model="/m", root=self.root, gpu_memory="1MiB")
        self.assertEqual([f["id"] for f in cm.exception.findings], ["model-too-large"])
        self.assertIn("device_map", " ".join(cm.exception.fixes))
        reps = cuda_doctor.preflight(model="/m", root=self.root, gpu_memory="1MiB",
                                     allow=["model-too-large"])
        self.assertEqual(reps["model"].status, 1)

    def test_require_items(self):
        with self.assertRaises(cuda_doctor.PreflightError) as cm:
            cuda_doctor.preflight(root=self.root, require=["gpu", "bf16"])
        self.assertEqual([f["id"] for f in cm.exception.findings], ["preflight-gpu", "preflight-bf16"])
        g = self.fake("ok")  # two H100s whose library and module versions differ (a warning or error)
        ids = [f["id"] for f in cuda_doctor.check(**g).findings]
        self.assertTrue(ids)
        with self.assertRaises(cuda_doctor.PreflightError) as cm:
            cuda_doctor.preflight(require=[ids[0]], allow=[], **g)
        self.assertIn(ids[0], [f["id"] for f in cm.exception.findings])
        with self.assertRaises(ValueError):
            cuda_doctor.preflight(root=self.root, require=[""])


class TestGuard(Fixture):
    def test_explains_the_exception_and_reraises_it(self):
        with self.assertRaises(ImportError) as cm:
            with cuda_doctor.guard(no_env=True):
                raise ImportError(recorded("import_undefined_symbol.txt").splitlines()[-1])
        exc = cm.exception
        self.assertEqual(exc.cuda_doctor.findings[0]["category"], "undefined-symbol")
        notes = getattr(exc, "__notes__", [])
        self.assertTrue(notes and notes[-1].startswith("cuda-doctor: the installed flash-attn binary"))

    def test_a_guess_from_the_words_is_no_verdict(self):
        rep = {"diagnoses": [{"category": "cuda-init", "signature": "guess-cuda-init",
                              "title": "CUDA seems not to initialise: a guess", "fix": ["x"]}]}
        self.assertEqual(cuda_doctor.verdict(rep), "")
        rep["diagnoses"][0]["signature"] = "cuda-no-device"
        self.assertTrue(cuda_doctor.verdict(rep).startswith("cuda-doctor: CUDA seems"))

    def test_an_unknown_error_gets_no_note(self):
        with self.assertRaises(KeyError) as cm:
            with cuda_doctor.guard(no_env=True):
                raise KeyError("plain")
        self.assertFalse(getattr(cm.exception, "__notes__", []))
        self.assertTrue(hasattr(cm.exception, "cuda_doctor"))

    def test_a_broken_binary_never_hides_the_error(self):
        os.environ["CUDA_DOCTOR_BIN"] = os.path.join(self.tmp.name, "nope")
        with self.assertRaises(ZeroDivisionError):
            with cuda_doctor.guard():
                1 / 0  # noqa: B018

    def test_keyboard_interrupt_passes_untouched(self):
        with self.assertRaises(KeyboardInterrupt) as cm:
            with cuda_doctor.guard():
                raise KeyboardInterrupt
        self.assertFalse(hasattr(cm.exception, "cuda_doctor"))


class StubShell:
    """What load_ipython_extension and the handler use of InteractiveShell."""

    def __init__(self):
        self.custom = None
        self.shown = []

    def set_custom_exc(self, exc_tuple, handler):
        self.custom = (exc_tuple, handler)

    def showtraceback(self, exc_tuple=None, tb_offset=None):
        self.shown.append(exc_tuple)
        print("<traceback>")


class TestIPython(Fixture):
    def test_verdict_of_a_recorded_cuda_traceback(self):
        v = cuda_doctor.verdict(cuda_doctor.explain(recorded("cuda_driver_too_old.txt"), no_env=True))
        lines = v.splitlines()
        self.assertEqual(lines[0], "cuda-doctor: PyTorch's CUDA needs a newer driver than this one "
                                   "(driver supports CUDA 9.0) (driver-too-old, root cause)")
        self.assertTrue(any(x.startswith("    fix: ") for x in lines[1:]))

    def test_verdict_of_a_recorded_import_traceback(self):
        v = cuda_doctor.verdict(cuda_doctor.explain(recorded("import_undefined_symbol.txt"), no_env=True))
        self.assertTrue(v.startswith("cuda-doctor: the installed flash-attn binary does not match "
                                     "the installed torch"), v)
        self.assertIn("(undefined-symbol, root cause)", v)

    def test_extension_installs_the_hook_and_shows_the_verdict(self):
        shell = StubShell()
        cuda_doctor.load_ipython_extension(shell)
        exc_tuple, handler = shell.custom
        self.assertEqual(exc_tuple, (Exception,))
        os.environ["CD_FAKE_MODE"] = "none"
        last = recorded("cuda_driver_too_old.txt").strip().splitlines()
        try:
            raise AssertionError("\n".join(last[-6:]))
        except AssertionError as e:
            etype, value, tb = type(e), e, e.__traceback__
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertIsNone(handler(shell, etype, value, tb, tb_offset=None))
        text = out.getvalue().splitlines()
        self.assertEqual(text[0], "<traceback>")
        self.assertEqual(shell.shown, [(etype, value, tb)])
        self.assertTrue(text[1].startswith("cuda-doctor: PyTorch's CUDA needs a newer driver"), text)
        cuda_doctor.unload_ipython_extension(shell)
        self.assertEqual(shell.custom, ((), None))

    def test_hook_is_quiet_on_an_ordinary_error(self):
        shell = StubShell()
        cuda_doctor.load_ipython_extension(shell)
        try:
            {}["x"]
        except KeyError as e:
            args = (type(e), e, e.__traceback__)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            shell.custom[1](shell, *args)
        self.assertEqual(out.getvalue(), "<traceback>\n")


if __name__ == "__main__":
    unittest.main()
