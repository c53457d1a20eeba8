#!/usr/bin/env python3
"""Regenerate the PEP 440 / PEP 508 test vectors used by test_pep440.c and
test_pep508.c. The expected columns come from `packaging` (the library pip
uses); run with any Python whose pip vendors packaging >= 22:
    python3 tests/unit/data/gen_pep_vectors.py tests/unit/data
Rows marked `pep` are the examples printed in PEP 440 / PEP 508 themselves.
The marker environment is fixed: CPython 3.12.3 on Linux x86_64."""
import os
import sys

try:
    from packaging.version import Version, InvalidVersion
    from packaging.specifiers import Specifier, SpecifierSet, InvalidSpecifier
    from packaging.requirements import Requirement, InvalidRequirement
    from packaging.markers import Marker
    import packaging
except ImportError:
    from pip._vendor.packaging.version import Version, InvalidVersion
    from pip._vendor.packaging.specifiers import Specifier, SpecifierSet, InvalidSpecifier
    from pip._vendor.packaging.requirements import Requirement, InvalidRequirement
    from pip._vendor.packaging.markers import Marker
    from pip._vendor import packaging

ENV = {
    "implementation_name": "cpython", "implementation_version": "3.12.3",
    "os_name": "posix", "platform_machine": "x86_64", "platform_release": "6.1.0-18-amd64",
    "platform_system": "Linux", "platform_version": "#1 SMP", "python_full_version": "3.12.3",
    "platform_python_implementation": "CPython", "python_version": "3.12",
    "sys_platform": "linux", "extra": "",
}

# PEP 440's own examples (ordering list, specifier sections) first.
PEP_VERSIONS = """1.0.dev456 1.0a1 1.0a2.dev456 1.0a12.dev456 1.0a12 1.0b1.dev456 1.0b2
1.0b2.post345.dev456 1.0b2.post345 1.0rc1.dev456 1.0rc1 1.0 1.0+abc.5 1.0+abc.7 1.0+5
1.0.post456.dev34 1.0.post456 1.0.15 1.1.dev1 0.1 0.2 0.3 1.0 1.1 1.1.0 1.1.1 1.1.2 1.2.0
2012.4 2012.7 2012.10 2013.1 2013.6 1!1.0 1!1.1 1!2.0 2!1.0.pre0 1.0a 1.0alpha1 1.0.a.1
1.0-a1 1.0b 1.0beta2 1.0c1 1.0pre1 1.0preview1 1.0rc 1.0-r4 1.0rev4 1.0.post 1.0-1
1.0-dev2 1.0.dev 1.0_dev 1.0+ubuntu-1 1.0+ubuntu_1 v1.0 V1.0 1.0.POST1 1.0RC1""".split()
MORE_VERSIONS = """2.11.0+cu130 2.6.0.dev20241112+cu124 2.5.1+rocm6.2 0.23.2 5.17.0 1.15.0
1.0a. 1.0a- 1.0+01 1.0+0 1.0+a01 1.0.0.0.0 007.008 1.0a1.post2.dev3 1.0.post1.dev2
1.0- 1.0. 1.0+ 1.0+a..b .1 1..0 1.0/1 1.0+ab-cd_ef.gh 1!2!3 abc 1.0ev 1.0.dev1.dev2
1.0a1a2 1.0+Local.UPPER 99999999999999999999 18446744073709551615 18446744073709551616
1.0.dev-1 1.0-post 1.0_post_1 1.0.r 1.0+-x 1.0+x- 1.0rc.1 1.0RC_1""".split()
VERSIONS = [(v, "pep") for v in PEP_VERSIONS] + [(v, "") for v in MORE_VERSIONS] + [
    (" 1.0 ", ""), ("1.0 ", ""), ("", ""), ("1.0 a1", "")]

PEP_SPECS = [
    ("~=2.2", "2.3"), ("~=2.2", "3.0"), ("~=2.2", "2.2"), ("~=1.4.5", "1.4.9"),
    ("~=1.4.5", "1.5.0"), ("~=2.2.post3", "2.2.post4"), ("~=2.2.post3", "2.3"),
    ("~=2.2.post3", "2.2"), ("~=1.4.5a4", "1.4.5"), ("~=1.4.5a4", "1.4.5a5"),
    ("~=1.4.5a4", "1.5"), ("~=2.2.0", "2.2.9"), ("~=2.2.0", "2.3.0"),
    ("~=1.4.5.0", "1.4.5.9"), ("~=1.4.5.0", "1.4.6"), ("==1.1", "1.1.post1"),
    ("==1.1.post1", "1.1.post1"), ("==1.1.*", "1.1.post1"), ("!=1.1", "1.1.post1"),
    ("!=1.1.post1", "1.1.post1"), ("!=1.1.*", "1.1.post1"), (">1.7", "1.7.1"),
    (">1.7", "1.7.0.post1"), (">1.7.post2", "1.7.1"), (">1.7.post2", "1.7.0.post3"),
    (">1.7.post2", "1.7.0"), ("<3.1", "3.1.dev0"), ("<3.1", "3.0"), ("<3.1.dev0", "3.1.dev-1"),
    ("~=3.1", "3.9"), ("~=3.1", "4.0"), ("~=3.1.2", "3.1.5"), ("~=3.1.2", "3.2.0"),
    ("~=3.1a1", "3.1a1"), ("~=3.1a1", "3.1"), ("~=3.1a1", "4.0"), ("==3.1", "3.1.0"),
    ("==3.1.*", "3.1.7"), ("~=3.1.0,!=3.1.3", "3.1.3"), ("~=3.1.0,!=3.1.3", "3.1.4"),
    ("==1.0", "1.0+local"), ("==1.0+local", "1.0"), ("==1.0+local", "1.0+local"),
    ("<=1.0", "1.0+local"), (">1.0", "1.0+local"), (">=1.0", "1.0+local"),
    ("== 2.8.*", "2.8.1"), (">= 2.8.1", "2.8.1"),
]
MORE_SPECS = [
    (">=2.0.1", "2.11.0+cu130"), (">=2.0.1", "2.0.0"), (">=2.0.1", "2.0.1rc1"),
    ("==13.0.2", "13.0.2"), ("==9.19.0.56", "9.19.0.56"), ("==9.19.0.56", "9.19.0.57"),
    ("<14,>=13.0.3", "13.0.3"), (">=0.23.1,<0.24.0", "0.23.2"), (">=0.22.0,<=0.23.0", "0.23.2"),
    (">=2.5", "2.6.0.dev20241112+cu124"), ("<2.6", "2.6.0.dev20241112"), ("==2.*", "2.0a1"),
    ("==1!1.0.*", "1!1.0.3"), ("==1.0.*", "1!1.0"), ("===1.0", "1.0"), ("===1.0", "1.0.0"),
    ("===1.0+Local", "1.0+local"), (">=1.0a1", "1.0a2"), (">=1.0", "1.1a1"), ("!=1.0a1", "1.0a2"),
    ("<=1.0.dev1", "1.0.dev0"), ("==1.0.0.*", "1"), ("==1.0.*", "1.0a1"), ("==1.*", "1.0.post1"),
    ("==1.0.0", "1.0"), ("==01.0", "1.0"), (">1.0", "1.0.post1"), (">1.0.post1", "1.0.post2"),
    ("<1.0.post1", "1.0"), (">1.0", "1.1+x"), ("<1.0a2", "1.0a1"), ("<1.0", "0.9.dev0"),
    ("==v1.0", "1.0"), ("~=1.0", "1.0.dev1"), ("==1.0.*,!=1.0.3", "1.0.3"), ("", "1.0"),
    ("", "1.0a1"), ("  >=1 ,  <2  ", "1.5"), (",>=1,", "1.5"),
    (">=1.0.*", "1.0"), ("~=1", "1.0"), ("<1.0+local", "0.9"), ("==1.0.*+local", "1.0"),
    ("=1.0", "1.0"), ("~=1.0.*", "1.0"), ("==1.0a1.*", "1.0a1"), (">=", "1.0"), ("1.0", "1.0"),
    (">=1.0;", "1.0"), ("===", ""), ("!=1.0.*", "1.0+x"), ("==1.0", "1.0.0+x"),
    ("~=2.2.post3", "2.2.post3+x"), ("<=1.0+x", "1.0"),
]

PEP_MARKERS = [
    'python_version < "2.7"', 'python_version == "2.7"', "os_name=='a' or os_name=='b'",
    "os_name=='a' and os_name=='b' or os_name=='c'",
    "os_name=='a' and (os_name=='b' or os_name=='c')",
    "os_name=='a' or os_name=='b' and os_name=='c'",
    "(os_name=='a' or os_name=='b') and os_name=='c'",
    "python_version<'2.7' and platform_version=='2'",
]
MORE_MARKERS = [
    'platform_system == "Linux"', 'platform_system == "Windows"', 'sys_platform == "linux"',
    'sys_platform != "win32"', 'platform_machine == "x86_64"', 'platform_machine == "aarch64"',
    'platform_machine in "x86_64 aarch64"', '"x86" in platform_machine',
    'platform_machine not in "arm64 aarch64"', 'python_version >= "3.8"',
    'python_version >= "3.13"', 'python_version > "3.9"', '"3.8" < python_version',
    'python_full_version >= "3.12.1"', 'python_full_version < "3.12.3"',
    'python_version == "3.*"', 'python_version ~= "3.10"', 'python_version === "3.12"',
    'implementation_name == "cpython"', 'implementation_name == "pypy"', 'os_name == "posix"',
    'extra == "torch"', 'extra == ""', 'platform_python_implementation == "CPython"',
    'python_version >= "3.10" and platform_system == "Linux" and platform_machine == "x86_64"',
    '(platform_system=="Linux" or platform_system=="Darwin") and python_version<"3.13"',
    "((((os_name=='posix'))))", 'os.name == "posix"', 'sys.platform == "linux"',
    'platform.machine == "x86_64"', 'python_implementation == "CPython"',
    'platform_release >= "5"', 'os_name < "z"', 'os_name > "posix"', 'os_name ~= "posix"',
    'python_version in "3.11 3.12"', 'python_version not in "3.11 3.12"',
    'python_version > "3.12"', 'python_version >= "3.12.0"', 'python_full_version == "3.12.*"',
    'implementation_version >= "3.12"',
    'python_version', 'python_version ==', '"a" == "a"', 'os_name == "a" and',
    'os_name == "a" or or os_name == "b"', '(os_name == "posix"', 'os_name == "posix")',
    'foo == "bar"', "os_name == 'posix\"", 'os_name=="posix"and python_version>"3"',
    'os_name == "posix" andpython_version > "3"', '', 'platform_machine=="x86_64"or"x"=="y"',
]

PEP_REQS = [
    "A", "A.B-C_D", "aa", "name", "name<=1", "name>=3", "name>=3,<2", "name@http://foo.com",
    "name [fred,bar] @ http://foo.com ; python_version=='2.7'",
    "name[quux, strange];python_version<'2.7' and platform_version=='2'",
    "name; os_name=='a' or os_name=='b'",
    "name; os_name=='a' and os_name=='b' or os_name=='c'",
    "name; os_name=='a' and (os_name=='b' or os_name=='c')",
    "name; os_name=='a' or os_name=='b' and os_name=='c'",
    "name; (os_name=='a' or os_name=='b') and os_name=='c'",
    'requests [security,tests] >= 2.8.1, == 2.8.* ; python_version < "2.7"',
    "pip @ https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee9982d4bbb3c72346a6de940a148ea686",
]
MORE_REQS = [
    "filelock", "typing-extensions>=4.10.0", 'setuptools<82; python_version >= "3.12"',
    'cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.2; platform_system == "Linux"',
    'cuda-bindings<14,>=13.0.3; platform_system == "Linux"',
    'nvidia-cudnn-cu13==9.19.0.56; platform_system == "Linux"',
    'triton==3.6.0; platform_system == "Linux"', 'optree>=0.13.0; extra == "optree"',
    "tokenizers<0.24.0,>=0.23.1", "huggingface-hub<2.0,>=1.5.0",
    'torch>=2.5; extra == "torch"', 'accelerate>=1.1.0; extra == "Torch-Extra"',
    "name (>=1.0, <2.0)", "name(>=1.0)", "name ( >= 1.0 )", "Name_With.Dots-and-Dashes>=1",
    "name[]", "name[ a , b ]>=1", "name [a]", "name>=1.0 ; extra == 'x'",
    "name>=1.0;os_name=='posix'", "name ==1.0.*", "name===foo-bar", "name @ file:///tmp/x.whl",
    "name@ http://x.com ;os_name=='posix'", "name~=1.0", "name>=1.0,!=1.3.*,<2",
    "-name", "name-", "name>=", "name[a", "name[a,]", "name ; ", "name >= 1.0 ;",
    "name>=1.0 os_name=='posix'", "name (>=1.0", "name>=1.0)", "na me", "name>=1.0,,<2",
    "name==1.0.*+x", "name@", "name @ http://x.com extra", "", " ", "name;os_name=='posix' junk",
    "nvidia-nccl-cu13==2.28.9", "name [a] (>=1)", "name<=1.0+local", "name==1.0+local",
    "name==1.0 , <2", "name>=1.0;python_version>='3.8'and os_name=='posix'",
]


def ver_rows():
    for v, tag in VERSIONS:
        try:
            norm = str(Version(v))
            pre = int(Version(v).is_prerelease)
        except InvalidVersion:
            norm, pre = "INVALID", ""
        yield [v, norm, str(pre), tag]


def cmp_rows():
    order = [v for v in PEP_VERSIONS[:19]]
    for i, a in enumerate(order):
        for b in order[i:i + 3]:
            x, y = Version(a), Version(b)
            yield [a, b, str((x > y) - (x < y)), "pep"]
    extra = [("1.0", "1.0.0"), ("1.0+abc", "1.0+ABC"), ("1.0+1", "1.0+a"), ("1.0+1.a", "1.0+1"),
             ("1.0+01", "1.0+1"), ("1.0+2", "1.0+10"), ("1!0.1", "2.0"), ("1.0.post1.dev1", "1.0.post1"),
             ("1.0.dev1", "1.0a0"), ("1.0a1.dev1", "1.0a1"), ("1.0rc1", "1.0c1"), ("2.11.0+cu130", "2.11.0"),
             ("1.0.post1", "1.0+zzz"), ("1.0a1", "1.0.dev9"), ("1.0a1.post1", "1.0a1"), ("0.23.2", "0.23.10")]
    for a, b in extra:
        x, y = Version(a), Version(b)
        yield [a, b, str((x > y) - (x < y)), ""]


def spec_rows():
    for specs, tag in ((PEP_SPECS, "pep"), (MORE_SPECS, "")):
        for s, v in specs:
            try:
                ss = SpecifierSet(s)
            except InvalidSpecifier:
                yield [s, v, "INVALID", "INVALID", tag]
                continue
            try:
                d = int(ss.contains(v))
                p = int(ss.contains(v, prereleases=True))
            except InvalidVersion:
                d = p = "ERR"
            yield [s, v, str(d), str(p), tag]


def marker_rows():
    for markers, tag in ((PEP_MARKERS, "pep"), (MORE_MARKERS, "")):
        for m in markers:
            try:
                mk = Marker(m)
            except Exception:
                yield [m, "INVALID", tag]
                continue
            try:
                r = str(int(mk.evaluate(dict(ENV))))
            except Exception:
                r = "ERR"
            yield [m, r, tag]


def req_rows():
    for reqs, tag in ((PEP_REQS, "pep"), (MORE_REQS, "")):
        for r in reqs:
            try:
                q = Requirement(r)
            except InvalidRequirement:
                yield [r, "INVALID", "", "", "", "", tag]
                continue
            extras = ",".join(sorted(q.extras))
            spec = ",".join(sorted(str(s) for s in q.specifier))
            if q.marker is None:
                m = "-"
            else:
                try:
                    m = str(int(q.marker.evaluate(dict(ENV))))
                except Exception:
                    m = "ERR"
            yield [r, q.name, extras, spec, "1" if q.url else "0", m, tag]


def write(path, header, rows):
    with open(path, "w") as f:
        f.write("# generated by gen_pep_vectors.py with packaging %s\n" % packaging.__version__)
        f.write("\t".join(header) + "\n")
        for r in rows:
            assert not any("\t" in c or "\n" in c for c in r), r
            f.write("\t".join(r) + "\n")


out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
write(os.path.join(out, "pep440_versions.tsv"), ["input", "normalized", "prerelease", "from"], ver_rows())
write(os.path.join(out, "pep440_compare.tsv"), ["a", "b", "cmp", "from"], cmp_rows())
write(os.path.join(out, "pep440_specs.tsv"), ["spec", "version", "default", "prereleases", "from"], spec_rows())
write(os.path.join(out, "pep508_markers.tsv"), ["marker", "result", "from"], marker_rows())
write(os.path.join(out, "pep508_reqs.tsv"), ["requirement", "name", "extras", "specifier", "url", "marker", "from"], req_rows())
