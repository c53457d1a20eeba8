#!/usr/bin/env python3
"""Compare every fact `cuda-doctor check --json` prints with what the reference
tools say on the same machine: nvidia-smi, NVML through nvidia-ml-py, the
kernel module's /proc file, nvcc, torch and importlib.metadata.

Usage: validate.py CUDA_DOCTOR [OUT.md]
Runs on the GPU machine (Python is a validation dependency only; cuda-doctor
itself never runs Python). Prints a Markdown table; exit 1 if any fact differs.
"""
import json, os, platform, re, subprocess, sys

rows = []


def add(fact, ours, ref, source, ok=None):
    if ok is None:
        ok = ours == ref
    rows.append((fact, ours, ref, source, ok))


def sh(*cmd, env=None):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env).stdout
    except Exception as e:  # tool absent
        return ""


def main():
    cd = sys.argv[1]
    rep = json.loads(sh(cd, "check", "--json", "--volatile"))  # free/used memory too
    drv, gpus, tk, host = rep["driver"], rep["gpus"] or [], rep["toolkit"], rep["host"]

    # driver: nvidia-smi, NVML, /proc
    q = "index,name,uuid,pci.bus_id,compute_cap,memory.total,memory.used,memory.free,memory.reserved,mig.mode.current,persistence_mode,compute_mode,ecc.mode.current,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,driver_version"
    smi = [l.split(", ") for l in sh("nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits").strip().splitlines()]
    head = sh("nvidia-smi")
    m = re.search(r"CUDA Version:\s*([0-9.]+)", head)
    if smi:
        add("driver.version", drv["version"], smi[0][15], "nvidia-smi --query-gpu=driver_version")
    add("driver.cuda_version", drv["cuda_version"], m.group(1) if m else None, "nvidia-smi header 'CUDA Version'")
    procv = open("/proc/driver/nvidia/version").read() if os.path.exists("/proc/driver/nvidia/version") else ""
    m = re.search(r"Kernel Module(?: for \S+)?\s+([0-9.]+)", procv)
    add("driver.kernel_module_version", drv["kernel_module_version"], m.group(1) if m else None, "/proc/driver/nvidia/version")
    try:
        import pynvml
        pynvml.nvmlInit()
        add("driver.nvml_version", drv["nvml_version"], pynvml.nvmlSystemGetNVMLVersion(), "nvidia-ml-py nvmlSystemGetNVMLVersion")
        maps = open("/proc/self/maps").read()
        loaded = sorted({l.split()[-1] for l in maps.splitlines() if "libnvidia-ml.so" in l})
        add("driver.nvml.path", drv["nvml"]["path"], os.path.realpath(loaded[0]) if loaded else None, "/proc/self/maps after pynvml.nvmlInit")
    except Exception as e:
        add("driver.nvml_version", drv["nvml_version"], f"pynvml unavailable: {e}", "nvidia-ml-py", ok=False)

    add("len(gpus)", len(gpus), len(smi), "nvidia-smi --query-gpu")
    mib = 1 << 20
    names = ["index", "name", "uuid", "pci_bus_id", "compute_capability", "memory_total_bytes", "memory_used_bytes",
             "memory_free_bytes", "memory_reserved_bytes", "mig_mode", "persistence_mode", "compute_mode", "ecc_mode",
             "ecc_volatile_uncorrected", "ecc_aggregate_uncorrected"]
    for g, s in zip(gpus, smi):
        i = g["index"]
        ref = {"index": int(s[0]), "name": s[1], "uuid": s[2], "pci_bus_id": s[3], "compute_capability": s[4]}
        for k, col in (("memory_total_bytes", 5), ("memory_used_bytes", 6), ("memory_free_bytes", 7), ("memory_reserved_bytes", 8)):
            ref[k] = int(s[col]) if s[col].isdigit() else None
        for k, col in (("mig_mode", 9), ("persistence_mode", 10), ("ecc_mode", 12)):
            ref[k] = s[col].lower() if s[col] not in ("[N/A]", "N/A") else None
        ref["compute_mode"] = s[11].lower().replace(" ", "_")
        for k, col in (("ecc_volatile_uncorrected", 13), ("ecc_aggregate_uncorrected", 14)):
            ref[k] = int(s[col]) if s[col].isdigit() else None
        for k in names:
            ours = g.get(k)
            if k.startswith("memory_") and ours is not None:
                # nvidia-smi prints MiB (floor); used/free move by a few MiB between the two runs.
                # nvidia-smi rounds reserved up (615.06 MiB prints as 616).
                tol = {"memory_total_bytes": 0, "memory_reserved_bytes": 1}.get(k, 64)
                ok = ref[k] is not None and abs(ours / mib - ref[k]) <= tol
                add(f"gpus[{i}].{k}", f"{ours / mib:.2f} MiB", f"{ref[k]} MiB", "nvidia-smi --query-gpu", ok)
            else:
                add(f"gpus[{i}].{k}", ours, ref[k], "nvidia-smi --query-gpu")

    # toolkit: torch's choice and nvcc
    out = sh(sys.executable, "-c", "import torch.utils.cpp_extension as c; print(c.CUDA_HOME)").strip()
    add("toolkit.cuda_home", tk["cuda_home"] and os.path.realpath(tk["cuda_home"]),
        out and os.path.realpath(out), "torch.utils.cpp_extension.CUDA_HOME (realpath)")
    m = re.search(r"release [0-9.]+, V([0-9.]+)", sh("nvcc", "--version"))
    add("toolkit.nvcc_version", tk["nvcc_version"], m.group(1) if m else None, "nvcc --version")

    # host
    osr = dict(l.split("=", 1) for l in open("/etc/os-release").read().splitlines() if "=" in l)
    add("host.os_pretty_name", host["os_pretty_name"], osr.get("PRETTY_NAME", "").strip('"'), "/etc/os-release")
    add("host.kernel", host["kernel"], platform.release(), "uname -r")
    add("host.arch", host["arch"], platform.machine(), "uname -m")
    add("host.glibc_version", host["glibc_version"], platform.libc_ver()[1], "platform.libc_ver")
    st = os.statvfs("/dev/shm")
    add("host.shm_size_bytes", host["shm_size_bytes"], st.f_blocks * st.f_frsize, "statvfs /dev/shm")
    nodes = []
    for n in os.listdir("/dev"):
        if not n.startswith("nvidia"):
            continue
        p = "/dev/" + n
        nodes += [p + "/" + c for c in os.listdir(p)] if os.path.isdir(p) else [p]
    nodes.sort()
    add("host.dev_nodes", host["dev_nodes"], nodes, "ls /dev/nvidia*")

    # the Python stack, when the report has it
    torch_rep = rep.get("torch")
    if torch_rep:
        code = ("import json,torch;print(json.dumps({'version':torch.__version__,'cuda':torch.version.cuda,"
                "'arch_list':torch.cuda.get_arch_list(),'cudnn':torch.backends.cudnn.version(),"
                "'nccl':'.'.join(map(str,torch.cuda.nccl.version()))}))")
        t = json.loads(sh(sys.executable, "-c", code) or "{}")
        for k in ("version", "cuda", "arch_list"):
            add(f"torch.{k}", torch_rep.get(k), t.get(k), "import torch")
    lib = rep.get("libraries")
    if torch_rep and lib and lib.get("items") is not None:
        code = ("import torch\nx=torch.randn(1,3,32,32,device='cuda'); c=torch.nn.Conv2d(3,8,3).cuda(); y=c(x)\n"
                "a=torch.randn(64,64,device='cuda'); (a@a).sum().item(); torch.cuda.synchronize()\n"
                "print('\\n'.join(sorted({l.split()[-1] for l in open('/proc/self/maps') if '.so' in l})))")
        mapped = set(sh(sys.executable, "-c", code).split())
        ours = {os.path.realpath(i.get("realpath") or i.get("path") or "") for i in lib["items"]}
        rel = lambda p: "/nvidia/" in p or "/torch/lib/" in p or "/torch/_C" in p
        m = sorted(p for p in mapped if rel(p))
        missing = [p for p in m if p not in ours]
        add("libraries: NVIDIA and torch libraries mapped by torch that cuda-doctor predicts",
            f"{len(m) - len(missing)} of {len(m)}", f"{len(m)} mapped",
            "/proc/self/maps after import torch, a cuDNN convolution and a matmul", ok=not missing)
        for p in missing:
            add("libraries: mapped but not predicted", None, p, "/proc/self/maps", ok=False)
        lazy = sorted(p for p in ours if p and rel(p) and p not in mapped)
        add("libraries: predicted run-time loads this run did not trigger (information)", len(lazy), "-",
            "; ".join(os.path.basename(p) for p in lazy)[:300], ok=True)
        v = json.loads(sh(sys.executable, "-c", "import json,torch;print(json.dumps([torch.backends.cudnn.version(), list(torch.cuda.nccl.version())]))") or "[null,null]")
        if v[0]:
            ref = f"{v[0] // 10000}.{v[0] // 100 % 100}.{v[0] % 100}"
            ours_v = torch_rep.get("cudnn_version")
            add("torch.cudnn_version", ours_v, ref, "torch.backends.cudnn.version()",
                ok=bool(ours_v) and (ours_v + ".").startswith(ref + "."))
        if v[1]:
            ref = ".".join(map(str, v[1]))
            ours_v = torch_rep.get("nccl_version")
            add("torch.nccl_version", ours_v, ref, "torch.cuda.nccl.version()",
                ok=bool(ours_v) and (ours_v + ".").startswith(ref + "."))

    pk = rep.get("packages")
    if pk:
        from importlib import metadata
        for name in ("torch", "transformers", "tokenizers", "accelerate", "triton", "safetensors", "huggingface-hub"):
            try:
                ref = metadata.version(name)
            except Exception:
                ref = None
            ours = pk.get(name)
            if isinstance(ours, dict):
                ours = ours.get("version")
            add(f"packages.{name}", ours, ref, "importlib.metadata.version")

    bad = [r for r in rows if not r[4]]
    lines = ["| fact | cuda-doctor | reference | reference source | match |", "|---|---|---|---|---|"]
    for f, o, r, s, ok in rows:
        lines.append(f"| {f} | `{o}` | `{r}` | {s} | {'yes' if ok else '**NO**'} |")
    lines.append("")
    lines.append(f"{len(rows) - len(bad)} of {len(rows)} facts match.")
    text = "\n".join(lines) + "\n"
    print(text)
    if len(sys.argv) > 2:
        open(sys.argv[2], "w").write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
