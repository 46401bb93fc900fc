"""The build job: a CUDA candidate's extensions compiled inside the candidate's confinement, with none of its code
running (the CUDA backend: docs/evaluation.md).

The orchestrator starts a worker whose job spec asks for a build (`kbx.evaluation.orchestrator.extensions`). The
worker confines itself as every candidate worker does — namespaces, the read-only view (the compiler, the CUDA
toolkit, torch's headers), uid nobody, seccomp — and then, instead of importing the candidate, builds each
extension the static stage read from it: torch writes the sources and the ninja file exactly as `load_inline`
would (`write_build`), and ninja runs the compilers in the extension's own directory of the job. The candidate's
module is never imported and its extension never loaded, so what the build leaves behind is what the compilers
made of the sources and nothing else: the orchestrator may keep it in its cache for any candidate with the same
sources. The orchestrator's limit on this worker is the compile limit.

Where torch has no CUDA (the CPU wheel) the build stops before linking: there are no CUDA libraries of torch to
link against, so only the objects are built. Compile errors are found all the same; link errors only on a GPU host.

Reports on the channel: `ImportFailed("COMPILE_ERROR", <first error lines>, <log tail>)` when an extension does not
compile, `Finished` when all did, and `ConfinementFailed` when the build could not even be set up (no ninja, a
torch that writes no ninja file): the harness's failure, not the candidate's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from kbx.evaluation import protocol
from kbx.evaluation.extensions import DEFAULT_ARCH, ExtensionBuild

KERNELS_FILE = "kernels.json"
"""Written beside the build's products: the names of its `__global__` functions (`kernel_names`)."""

_ERROR_LIMIT = 12
_LOG_KEEP = 4000


class BuildFailed(Exception):
    """An extension did not compile: the compiler's first error lines, and the end of its log."""

    def __init__(self, summary: str, log: str) -> None:
        super().__init__(summary)
        self.summary, self.log = summary, log


def build_job(raw: dict[str, Any], job_dir: Path, channel: Any) -> int:
    """Build every extension of the spec `raw` in `job_dir/build/<digest>/` and report (see the module)."""
    builds = [ExtensionBuild.from_json(b) for b in raw["builds"]]
    for build in builds:
        directory = job_dir / "build" / build.digest()
        try:
            products = compile_extension(build, directory, raw["cuda_home"], raw.get("arch_list") or DEFAULT_ARCH)
        except BuildFailed as failed:
            error = f"extension `{build.name}` did not compile:\n{failed.summary}"
            channel.send(protocol.ImportFailed("COMPILE_ERROR", error, failed.log))
            return 0
        except Exception as exc:  # setting the build up failed: no compiler of the candidate's ran yet
            why = f"could not set up the build of `{build.name}`: {type(exc).__name__}: {str(exc)[:300]}"
            channel.send(protocol.ConfinementFailed(why))
            return 0
        names = kernel_names(products)
        (directory / KERNELS_FILE).write_text(json.dumps({"products": [p.name for p in products], "kernels": names}))
    channel.send(protocol.Finished())
    return 0


def compile_extension(build: ExtensionBuild, directory: Path, cuda_home: str, arch_list: str) -> list[Path]:
    """Compile one extension in `directory`; its products (the module, or the objects where torch cannot link
    CUDA code). Raises BuildFailed when a compiler (or the linker) fails."""
    import torch

    link = torch.version.cuda is not None
    write_build(build, directory, cuda_home, arch_list)
    objects = _object_targets(directory / "build.ninja")
    done = subprocess.run(
        ["ninja", "-v", *([] if link else objects)], cwd=directory, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
    )
    log = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        raise BuildFailed(first_errors(log, str(directory)), log.replace(f"{directory}/", "")[-_LOG_KEEP:])
    return [directory / f"{build.name}.so"] if link else [directory / o for o in objects]


class _Written(Exception):
    """Raised in place of torch's ninja run: the sources and the ninja file are written, nothing is built."""


def write_build(build: ExtensionBuild, directory: Path, cuda_home: str, arch_list: str) -> None:
    """Have torch write the extension's sources and ninja file into `directory`, as `load_inline` would, without
    building. Each source starts with a `#line` marker, so a compiler's message names the candidate's own string
    and line (`cuda_sources(12): error: ...`)."""
    import torch.utils.cpp_extension as cpp

    directory.mkdir(parents=True, exist_ok=True)
    if not hasattr(cpp, "_run_ninja_build"):
        raise RuntimeError("this torch's cpp_extension has no `_run_ninja_build` to stop before building")
    if cpp.CUDA_HOME is None:  # torch without CUDA finds no toolkit of its own
        cpp.CUDA_HOME = cuda_home
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", arch_list)  # never ask a GPU: this process leaves CUDA alone
    arguments = build.load_inline_arguments()
    for kind in ("cpp_sources", "cuda_sources"):
        sources = arguments[kind] or []
        arguments[kind] = [_marked(kind, i, len(sources), text) for i, text in enumerate(sources)] or None
    arguments["cpp_sources"] = arguments["cpp_sources"] or []
    run_ninja = cpp._run_ninja_build
    cpp._run_ninja_build = _stop
    try:
        cpp.load_inline(**arguments, build_directory=str(directory), verbose=False)
    except _Written:
        pass
    finally:
        cpp._run_ninja_build = run_ninja
    if not (directory / "build.ninja").is_file():
        raise RuntimeError("torch wrote no build.ninja")


def _stop(*args: Any, **kwargs: Any) -> None:
    raise _Written


def _marked(kind: str, index: int, count: int, text: str) -> str:
    name = kind if count == 1 else f"{kind}[{index}]"
    return f'#line 1 "{name}"\n{text}'


def _object_targets(ninja_file: Path) -> list[str]:
    """The object files a ninja file of torch's builds (`build main.o: compile ...`)."""
    found = re.findall(r"^build ([^:\s]+\.o): (?:compile|cuda_compile)\b", ninja_file.read_text(), re.MULTILINE)
    return found


_ERROR = re.compile(r"\berror( #[\w-]+)?:|\bfatal\b|undefined reference|undefined symbol|cannot find -l", re.IGNORECASE)
_NOISE = re.compile(r"errors? detected in the compilation|^compilation terminated|^ninja: build stopped"
                    r"|ld returned \d+ exit status", re.IGNORECASE)
_COMMAND = re.compile(r"^\[\d+/\d+\] |^FAILED: |\s-c\s.*\s-o\s|^\S*(c\+\+|g\+\+|gcc|nvcc)\s+\S.*\s-o\s")


def first_errors(log: str, directory: str, limit: int = _ERROR_LIMIT) -> str:
    """The compiler's first error lines in a build's log, each with the source line and marker printed under it,
    without ninja's command lines and with the build directory's path taken out."""
    lines = log.replace(directory.rstrip("/") + "/", "").splitlines()
    kept: list[str] = []
    i = 0
    while i < len(lines) and len(kept) < limit:
        line = lines[i]
        i += 1
        if not _ERROR.search(line) or _NOISE.search(line) or _COMMAND.search(line):
            continue
        kept.append(line[:300])
        while i < len(lines) and lines[i][:1].isspace() and not _ERROR.search(lines[i]) and len(kept) < limit:
            kept.append(lines[i][:300])  # the offending source line and its caret
            i += 1
    if not kept:
        kept = [line[:300] for line in lines if line.strip() and not _COMMAND.search(line)][-limit:]
    return "\n".join(kept)


_FATBIN_KERNEL = re.compile(rb"\.nv\.info\.([A-Za-z_$][\w$]*)\x00")
_DEVICE_STUB = re.compile(rb"__device_stub__(Z[\w$]+)")
_MANGLED = re.compile(rb"(?<=\x00)(_Z[\w$.]+)(?=\x00)")


def kernel_names(products: list[Path]) -> list[str]:
    """The `__global__` functions compiled into `products`, mangled and demangled (as CUDA's profiler names
    them). Read from the device code's per-kernel sections (`.nv.info.<name>`) where the fat binary is not
    compressed, and from the host's launch stubs (`__device_stub__<name>`), which nvcc writes beside every
    kernel."""
    mangled: set[str] = set()
    for path in products:
        data = path.read_bytes()
        mangled.update(m.decode() for m in _FATBIN_KERNEL.findall(data))
        stubs = {s.decode() for s in _DEVICE_STUB.findall(data)}
        for symbol in {m.decode() for m in _MANGLED.findall(data)}:
            if "__device_stub__" not in symbol and any(stub.startswith(symbol[1:]) for stub in stubs):
                mangled.add(symbol)
    return sorted(mangled | set(_demangled(sorted(mangled))))


def _demangled(names: list[str]) -> list[str]:
    """`names` demangled by c++filt (binutils, there wherever the host compiler is); none when it is missing."""
    tool = shutil.which("c++filt")
    if not names or tool is None:
        return []
    done = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, check=False)
    return [line for line in done.stdout.splitlines() if line and not line.startswith("_Z")]
