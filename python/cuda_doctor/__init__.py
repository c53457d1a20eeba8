"""cuda_doctor: the cuda-doctor binary from Python, without importing torch.

Every function runs the static ``cuda-doctor`` binary that ships in the same
wheel and returns its JSON report as a dict, so a notebook, a training script
and the command line always give the same answer. Nothing here imports torch
(or anything outside the standard library): it works when ``import torch``
fails, which is when it is needed most.

    import cuda_doctor
    cuda_doctor.check()                       # the environment report (a dict)
    cuda_doctor.model("meta-llama/Llama-3.1-8B", dtype="bf16")
    cuda_doctor.preflight(model="./ckpt")     # raises PreflightError before a load
    with cuda_doctor.guard():                 # explains an exception raised inside
        trainer.train()

In Jupyter, a report renders as the binary's own HTML (``--format html``), and
``%load_ext cuda_doctor`` shows explain's verdict under CUDA and import
tracebacks. See docs/python.md.
"""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import traceback

__all__ = [
    "CudaDoctorError",
    "PreflightError",
    "Report",
    "binary",
    "check",
    "explain",
    "guard",
    "jit",
    "load_ipython_extension",
    "model",
    "preflight",
    "unload_ipython_extension",
    "verdict",
]

__version__ = "0.1.0"

_EXE = "cuda-doctor"


class CudaDoctorError(RuntimeError):
    """The binary could not be run, or gave no report (usage error, exit 2 or 3)."""

    def __init__(self, message, status=None, stderr=""):
        super().__init__(message)
        self.status = status
        self.stderr = stderr


class PreflightError(RuntimeError):
    """The environment or the model would fail: one exception with every blocking
    finding (``findings``, dicts as in the JSON report) and their fixes."""

    def __init__(self, findings, reports):
        self.findings = list(findings)
        self.reports = reports
        self.fixes = [fx for f in self.findings for fx in (f.get("fix") or [])]
        super().__init__(self._message())

    def _message(self):
        n = len(self.findings)
        lines = ["cuda-doctor preflight: %d blocking finding%s" % (n, "" if n == 1 else "s")]
        for f in self.findings:
            lines.append("  [%s %s] %s" % (f.get("severity"), f.get("id"), f.get("title")))
            for fx in f.get("fix") or []:
                lines.append("      fix: " + fx)
        return "\n".join(lines)


def binary():
    """The path of the cuda-doctor binary: $CUDA_DOCTOR_BIN, else the scripts
    directory of this interpreter's install scheme (where pip put the wheel's
    copy), of the user scheme, next to a --target install, else PATH."""
    given = os.environ.get("CUDA_DOCTOR_BIN")
    if given:
        return given
    dirs = [sysconfig.get_path("scripts")]
    for scheme in ("posix_user", "nt_user", "osx_framework_user"):
        try:
            dirs.append(sysconfig.get_path("scripts", scheme))
        except KeyError:
            pass
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs.append(os.path.join(here, "bin"))  # pip install --target DIR: DIR/bin
    for d in dirs:
        p = os.path.join(d or "", _EXE)
        if d and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    found = shutil.which(_EXE)
    if found:
        return found
    raise CudaDoctorError(
        "the cuda-doctor binary was not found (pip install cuda-doctor-bin, "
        "or set CUDA_DOCTOR_BIN)"
    )


def _global_args(root=None, env=None, timeout=None, nvml_lib=None, cuda_lib=None):
    args = []
    if root is not None:
        args += ["--root", os.fspath(root)]
    if env is None and root is None:
        env = sys.prefix  # the environment of the interpreter that called us
    if env is not None:
        args += ["--env", os.fspath(env)]
    if timeout is not None:
        args += ["--timeout", str(timeout)]
    if nvml_lib is not None:
        args += ["--nvml-lib", os.fspath(nvml_lib)]
    if cuda_lib is not None:
        args += ["--cuda-lib", os.fspath(cuda_lib)]
    return args


def _child_env():
    env = dict(os.environ)
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        env["VIRTUAL_ENV"] = sys.prefix
    env.pop("CUDA_DOCTOR_BIN", None)
    return env


_COMMANDS = ("check", "explain", "model", "jit")


def _run(argv, fmt, stdin=None, wall=None):
    """Run the binary; (exit status, stdout). Exit 0 and 1 carry a report."""
    cmd = [binary()] + argv + ["--format", fmt]
    name = next((a for a in argv if a in _COMMANDS), "")
    try:
        p = subprocess.run(
            cmd,
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_child_env(),
            timeout=wall,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise CudaDoctorError("cannot run %s: %s" % (cmd[0], e)) from e
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in (0, 1):
        raise CudaDoctorError(
            "cuda-doctor %s exited %d: %s" % (name, p.returncode, err.strip()),
            p.returncode,
            err,
        )
    return p.returncode, out


class Report(dict):
    """A report as a dict (the binary's JSON), with the exit status and, in
    notebooks, the binary's own HTML rendering of the same report."""

    def __init__(self, data, argv, status, stdin=None):
        super().__init__(data)
        self.argv = list(argv)
        self.status = status
        self._stdin = stdin
        self._html = None

    @property
    def findings(self):
        """findings (check, model, jit) or diagnoses (explain)."""
        return list(self.get("findings") or self.get("diagnoses") or [])

    @property
    def errors(self):
        return [f for f in self.findings if f.get("severity") == "error"]

    @property
    def ok(self):
        return self.status == 0

    def html(self):
        """The whole page (``cuda-doctor ... --format html``)."""
        if self._html is None:
            self._html = _run(self.argv, "html", self._stdin)[1]
        return self._html

    def _repr_html_(self):
        page = self.html()
        s0, s1 = page.find("<style>"), page.find("</style>")
        b0, b1 = page.find("<body>"), page.rfind("</body>")
        if min(s0, s1, b0, b1) < 0:
            return page
        return page[s0 : s1 + len("</style>")] + page[b0 + len("<body>") : b1]


def _report(argv, stdin=None):
    status, out = _run(argv, "json", stdin)
    try:
        data = json.loads(out)
    except ValueError as e:
        raise CudaDoctorError("cuda-doctor gave no JSON report: %s" % e, status) from e
    return Report(data, argv, status, stdin)


def check(deep=False, root=None, env=None, timeout=None, nvml_lib=None, cuda_lib=None):
    """``cuda-doctor check``: this machine, container and Python environment."""
    argv = _global_args(root, env, timeout, nvml_lib, cuda_lib) + ["check"]
    if deep:
        argv.append("--deep")
    return _report(argv)


def _log_text(log):
    if isinstance(log, BaseException):
        return "".join(traceback.format_exception(type(log), log, log.__traceback__))
    if isinstance(log, bytes):
        return log.decode("utf-8", "replace")
    if isinstance(log, (list, tuple)):
        return "\n".join(log)
    return str(log)


def explain(log, no_env=False, root=None, env=None, timeout=None, nvml_lib=None, cuda_lib=None):
    """``cuda-doctor explain``: diagnose a log, a traceback text or an exception."""
    argv = _global_args(root, env, timeout, nvml_lib, cuda_lib) + ["explain"]
    if no_env:
        argv.append("--no-env")
    argv.append("-")
    return _report(argv, _log_text(log).encode("utf-8"))


def _model_args(spec, opts):
    argv = ["model", os.fspath(spec)]
    for key in ("revision", "device", "dtype", "task", "attn", "headroom", "seq_len", "batch",
                "gpu_cc"):
        v = opts.pop(key, None)
        if v is not None:
            argv += ["--" + key.replace("_", "-"), str(v)]
    mem = opts.pop("gpu_memory", None)
    if mem is not None:
        mem = mem if isinstance(mem, (list, tuple)) else [mem]
        argv += ["--gpu-memory", ",".join(str(m) for m in mem)]
    if opts.pop("trust_remote_code", False):
        argv.append("--trust-remote-code")
    if opts:
        raise TypeError("unexpected argument%s: %s" % ("" if len(opts) == 1 else "s",
                                                       ", ".join(sorted(opts))))
    return argv


def model(path_or_id, device=None, dtype=None, root=None, env=None, timeout=None, nvml_lib=None,
          cuda_lib=None, **opts):
    """``cuda-doctor model``: pre-flight a Hugging Face model load (a directory,
    a .safetensors / .gguf file, or ORG/NAME from the cache or the Hub's
    metadata). Options: revision, task, attn, headroom, seq_len, batch,
    gpu_memory (bytes or "80GiB", one per GPU), gpu_cc, trust_remote_code."""
    opts.update(device=device, dtype=dtype)
    return _model_report(path_or_id, opts, dict(root=root, env=env, timeout=timeout,
                                                nvml_lib=nvml_lib, cuda_lib=cuda_lib))


def _model_report(spec, opts, g):
    return _report(_global_args(**g) + _model_args(spec, dict(opts)))


def jit(ops=None, compile=False, gpu_cc=None, root=None, env=None, timeout=None, nvml_lib=None,
        cuda_lib=None):
    """``cuda-doctor jit``: will torch / DeepSpeed extensions JIT-compile here?"""
    argv = _global_args(root, env, timeout, nvml_lib, cuda_lib) + ["jit"]
    for op in [ops] if isinstance(ops, str) else (ops or []):
        argv += ["--op", op]
    if compile:
        argv.append("--compile")
    if gpu_cc is not None:
        argv += ["--gpu-cc", gpu_cc]
    return _report(argv)


def _cc_ok(gpus, floor):
    def num(cc):
        try:
            major, minor = str(cc).split(".")[:2]
            return int(major) * 10 + int(minor)
        except ValueError:
            return -1

    return bool(gpus) and all(num(g.get("compute_capability")) >= floor for g in gpus)


def _requirement(item, env_report, g):
    """The findings one require= item adds (dicts shaped like the report's)."""
    def missing(fid, title, fix):
        return [{"id": fid, "severity": "error", "section": "preflight", "title": title,
                 "detail": None, "evidence": [], "fix": fix}]

    gpus = env_report.get("gpus") or []
    if item == "gpu":
        return [] if gpus else missing("preflight-gpu", "no GPU is visible to the driver",
                                       ["cuda-doctor check   # the driver and GPU findings"])
    if item == "bf16":
        return [] if _cc_ok(gpus, 80) else missing(
            "preflight-bf16", "not every visible GPU supports bfloat16 (compute capability 8.0)",
            ["use dtype=torch.float16, or a GPU of compute capability 8.0 or newer"])
    if item == "jit" or item.startswith("jit:"):
        ops = item[4:].split(",") if item.startswith("jit:") else None
        return [f for f in jit(ops=ops, **g).findings if f.get("severity") == "error"]
    return [f for f in env_report.findings if f.get("id") == item]


def preflight(model=None, require=(), allow=(), device=None, dtype=None, root=None, env=None,
              timeout=None, nvml_lib=None, cuda_lib=None, **model_opts):
    """Check before a pipeline() / from_pretrained() / Trainer starts; raise one
    PreflightError carrying every blocking finding and its fixes.

    Blocking: every finding at error severity of ``check`` and (with model=) of
    ``model``, except the ids in ``allow``; plus each ``require`` item: "gpu" (a
    GPU is visible), "bf16" (every GPU has compute capability 8.0+), "jit" or
    "jit:OP[,OP]" (the extension build would work), or a finding id that must not
    appear at any severity. Returns the reports (a dict: "check", "model",
    "jit") when nothing blocks."""
    if isinstance(require, str):
        require = [require]
    if isinstance(allow, str):
        allow = [allow]
    g = dict(root=root, env=env, timeout=timeout, nvml_lib=nvml_lib, cuda_lib=cuda_lib)
    reports = {"check": check(**g)}
    blocking = list(reports["check"].errors)
    if model is not None:
        model_opts.update(device=device, dtype=dtype)
        reports["model"] = _model_report(model, model_opts, g)
        blocking += reports["model"].errors
    for item in require:
        if not isinstance(item, str) or not item:
            raise ValueError("require: expected names such as 'gpu', 'bf16', 'jit', a finding id")
        blocking += _requirement(item, reports["check"], g)
    seen, out = set(), []
    for f in blocking:
        key = (f.get("id"), f.get("title"))
        if f.get("id") in allow or key in seen:
            continue
        seen.add(key)
        out.append(f)
    if out:
        raise PreflightError(out, reports)
    return reports


def verdict(report):
    """explain's verdict as text: each diagnosis a signature placed in a known
    category, root cause first, with its fixes; "" when none was placed. A
    guess from the log's words (signature guess-*) is left out: a note on
    the caller's own exception says only what a signature knows."""
    lines = []
    for d in report.get("diagnoses") or []:
        if d.get("category") == "unknown" or str(d.get("signature", "")).startswith("guess-"):
            continue
        mark = "root cause" if d.get("root_cause") else d.get("role") or "diagnosis"
        lines.append("cuda-doctor: %s (%s, %s)" % (d.get("title"), d.get("category"), mark))
        for e in d.get("environment") or []:
            lines.append("    here: " + e)
        for fx in d.get("fix") or []:
            lines.append("    fix: " + fx)
    return "\n".join(lines)


def _annotate(exc, no_env):
    """Add explain's verdict to exc (a note; .cuda_doctor holds the report).
    Never raises: the original exception is what matters."""
    try:
        rep = explain(exc, no_env=no_env)
    except Exception:  # noqa: BLE001 - a broken diagnosis must not hide the error
        return None
    exc.cuda_doctor = rep
    text = verdict(rep)
    if text:
        if hasattr(exc, "add_note"):
            exc.add_note(text)
        else:  # Python < 3.11 prints no notes: keep them, and say it once
            exc.__notes__ = list(getattr(exc, "__notes__", [])) + [text]
            sys.stderr.write(text + "\n")
    return rep


@contextlib.contextmanager
def guard(no_env=False):
    """Run the block; an exception raised inside is explained (cuda-doctor
    explain on its traceback) and re-raised with the diagnosis added as a note
    and as ``exc.cuda_doctor``. KeyboardInterrupt and SystemExit pass untouched."""
    try:
        yield
    except Exception as exc:
        _annotate(exc, no_env)
        raise


def _ipython_handler(shell, etype, value, tb, tb_offset=None):
    """IPython custom exception handler: the usual traceback, then explain's
    verdict when the traceback is one explain recognises (CUDA, imports, ...)."""
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    try:
        text = "".join(traceback.format_exception(etype, value, tb))
        out = verdict(explain(text))
    except Exception as e:  # noqa: BLE001
        out = "cuda-doctor: no diagnosis (%s)" % e
    if out:
        print(out)
    return None


def load_ipython_extension(ipython):
    """``%load_ext cuda_doctor``: explain CUDA and import tracebacks in place."""
    ipython.set_custom_exc((Exception,), _ipython_handler)


def unload_ipython_extension(ipython):
    ipython.set_custom_exc((), None)
