#!/usr/bin/env python3
"""Build the cuda-doctor wheel with Python's standard library alone.

    python3 tools/wheel.py --binary build/cuda-doctor --version 0.1.0 --out build/dist

The wheel carries the static binary as <dist>-<ver>.data/scripts/cuda-doctor
(pip installs it on PATH, as the ruff, uv and ninja wheels do theirs) and the
thin module python/cuda_doctor. Its platform tag is read from the binary: the
newest GLIBC_x.y symbol version it needs (manylinux_2_28 at the least) and its
ELF machine; the build refuses a binary that needs a library beyond glibc.
The zip is reproducible: entries sorted, one fixed timestamp
(SOURCE_DATE_EPOCH, else 1980-01-01), fixed modes, fixed compression.
"""

import argparse
import base64
import hashlib
import os
import struct
import sys
import time
import zipfile

DIST = "cuda-doctor-bin"  # the PyPI name cuda-doctor belongs to another project
SUMMARY = ("Why this NVIDIA GPU + CUDA + PyTorch environment will not train or load a "
           "model: the static cuda-doctor binary and a thin Python API")
GLIBC_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
              "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}
MACHINES = {62: "x86_64", 183: "aarch64"}
FLOOR = (2, 28)  # the tag promised to users (issue 15); raised when the binary needs more

SHT_DYNAMIC, SHT_NOBITS, SHT_GNU_VERNEED = 6, 8, 0x6FFFFFFE
DT_NEEDED = 1


class ElfError(Exception):
    pass


def _sections(data):
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ElfError("not a 64-bit little-endian ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    if shentsize != 64 or shoff + shnum * 64 > len(data):
        raise ElfError("section headers out of range")
    secs = []
    for i in range(shnum):
        (_name, stype, _flags, _addr, off, size, link, info, _align,
         _ent) = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * 64)
        if stype not in (0, SHT_NOBITS) and off + size > len(data):
            raise ElfError("section %d out of range" % i)
        secs.append((stype, off, size, link, info))
    return machine, secs


def _cstr(data, off):
    end = data.find(b"\0", off)
    if off >= len(data) or end < 0:
        raise ElfError("string out of range")
    return data[off:end].decode("ascii", "replace")


def elf_needs(path):
    """(machine name, DT_NEEDED names, GLIBC versions as (major, minor) tuples)."""
    with open(path, "rb") as fh:
        data = fh.read()
    machine, secs = _sections(data)
    needed, versions = [], []
    for stype, off, size, link, info in secs:
        if stype == SHT_DYNAMIC:
            strtab = secs[link][1]
            for k in range(0, size - 15, 16):
                tag, val = struct.unpack_from("<qQ", data, off + k)
                if tag == DT_NEEDED:
                    needed.append(_cstr(data, strtab + val))
        elif stype == SHT_GNU_VERNEED:
            strtab, p = secs[link][1], off
            for _ in range(info):
                _ver, cnt, _file, aux, nxt = struct.unpack_from("<HHIII", data, p)
                a = p + aux
                for _ in range(cnt):
                    _hash, _flags, _other, name, anext = struct.unpack_from("<IHHII", data, a)
                    v = _cstr(data, strtab + name)
                    if v.startswith("GLIBC_2."):
                        parts = v[len("GLIBC_"):].split(".")
                        versions.append((int(parts[0]), int(parts[1]) if len(parts) > 1 else 0))
                    a += anext
                p += nxt
    if machine not in MACHINES:
        raise ElfError("unsupported ELF machine %d" % machine)
    return MACHINES[machine], needed, versions


def platform_tag(binary):
    arch, needed, versions = elf_needs(binary)
    extra = [n for n in needed if n not in GLIBC_LIBS]
    if extra:
        raise ElfError("%s needs more than glibc: %s" % (binary, ", ".join(extra)))
    floor = max([FLOOR] + versions)
    return "manylinux_%d_%d_%s" % (floor[0], floor[1], arch), max(versions or [(0, 0)])


def _hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _metadata(version, readme):
    head = [
        "Metadata-Version: 2.1",
        "Name: " + DIST,
        "Version: " + version,
        "Summary: " + SUMMARY,
        "Requires-Python: >=3.8",
        "License: see the project repository",
        "Classifier: Environment :: GPU :: NVIDIA CUDA",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: C",
        "Classifier: Programming Language :: Python :: 3",
        "Description-Content-Type: text/markdown",
    ]
    return ("\n".join(head) + "\n\n" + readme).encode("utf-8")


def _entries(args, tag):
    """(archive name, bytes, mode) of every file but RECORD."""
    dist = DIST.replace("-", "_")
    name = "%s-%s" % (dist, args.version)
    out = []
    pkg = os.path.join(args.src, "cuda_doctor")
    for fn in sorted(os.listdir(pkg)):
        if fn.endswith(".py") or fn == "py.typed":
            with open(os.path.join(pkg, fn), "rb") as fh:
                out.append(("cuda_doctor/" + fn, fh.read(), 0o644))
    with open(args.binary, "rb") as fh:
        out.append(("%s.data/scripts/cuda-doctor" % name, fh.read(), 0o755))
    readme = ""
    if args.readme:
        with open(args.readme, encoding="utf-8") as fh:
            readme = fh.read()
    di = "%s.dist-info" % name
    out.append((di + "/METADATA", _metadata(args.version, readme), 0o644))
    wheel = ("Wheel-Version: 1.0\nGenerator: cuda-doctor tools/wheel.py\n"
             "Root-Is-Purelib: false\nTag: py3-none-%s\n" % tag)
    out.append((di + "/WHEEL", wheel.encode("ascii"), 0o644))
    out.append((di + "/top_level.txt", b"cuda_doctor\n", 0o644))
    return name, di, out


def build(args):
    tag, needs = platform_tag(args.binary)
    name, di, files = _entries(args, tag)
    record = "".join("%s,%s,%d\n" % (n, _hash(d), len(d)) for n, d, _ in files)
    record += "%s/RECORD,,\n" % di
    files.append((di + "/RECORD", record.encode("ascii"), 0o644))
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "%s-py3-none-%s.whl" % (name, tag))
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        for n, data, mode in files:  # dist-info last, as the wheel spec recommends
            zi = zipfile.ZipInfo(n, date_time=stamp)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = (0o100000 | mode) << 16
            z.writestr(zi, data, compresslevel=9)
    os.replace(tmp, path)
    print("wheel: %s (binary needs GLIBC_%d.%d)" % (path, needs[0], needs[1]))
    return path


def main(argv):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--version")
    ap.add_argument("--out")
    ap.add_argument("--src", default=os.path.join(here, "python"))
    ap.add_argument("--readme", default=os.path.join(here, "docs", "python.md"))
    ap.add_argument("--print-tag", action="store_true", help="print the platform tag only")
    args = ap.parse_args(argv)
    try:
        if args.print_tag:
            print(platform_tag(args.binary)[0])
        elif not args.version or not args.out:
            ap.error("--version and --out are needed to build")
        else:
            build(args)
    except (OSError, ElfError, struct.error) as e:
        print("wheel: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
