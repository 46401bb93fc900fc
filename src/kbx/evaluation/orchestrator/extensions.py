"""The orchestrator's side of the CUDA backend: building a candidate's extensions, and the cache of builds.

For each extension the static stage read (`kbx.candidates.cuda`), the cache is asked first, by a key made of the
build's digest and the toolchain (CUDA compiler, host compiler, torch, target architecture). What is missing is
built by a build job (`kbx.evaluation.candidate.extension_build`): a worker in the candidate's confinement, under
the compile limit (`Limits.compile_timeout_s`, default `DEFAULT_COMPILE_TIMEOUT_S`; the call limit is separate),
that compiles and never imports the candidate. Its products go into the cache; the candidate's worker gets a copy
of each module in its own job directory (`Prepared.install`).

Why the cache can be shared between candidates: its entries are made only from build jobs, processes in which no
candidate code runs (the candidate's module is never imported, its extension never loaded), so an entry holds what
the compilers made of exactly the sources and flags its key names. A later candidate with the same key gets what
its own sources would have produced — no code of whoever built it first. The cache lies outside every candidate's
view (under the orchestrator's home, which the view hides), and a candidate changing its own copy changes only its
own run. What the cache trusts is the compilers: a source that made a compiler misbehave would be kept as it came
out.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kbx.errors import KbxError, NeedsGpu, NotJudged
from kbx.evaluation.candidate.audit import JOB_PREFIX
from kbx.evaluation.confinement.enter import ConfinementSpec
from kbx.evaluation.extensions import DEFAULT_ARCH, NEEDS_CUDA_TORCH, BuiltExtension, ExtensionBuild
from kbx.evaluation.orchestrator.sandbox import Limits, run_worker, scratch_root
from kbx.evaluation.orchestrator.zygote import Zygote
from kbx.evaluation.protocol import ConfinementFailed, Event, Finished, ImportFailed
from kbx.status import Status
from kbx.tasks.spec import Task

DEFAULT_COMPILE_TIMEOUT_S = 600.0
"""Wall-clock limit for building one candidate's extensions: about twice the slowest build seen (an extension
including `torch/extension.h` in both sources, 5 min 47 s on two shared CPU cores; a GPU host's cores should take
well under a minute, not yet measured)."""

CACHE_ENV = "KBX_EXTENSION_CACHE"
MANIFEST = "kernels.json"


def default_cache_root() -> Path:
    """`$KBX_EXTENSION_CACHE`, else `$XDG_CACHE_HOME/kbx/extensions` (`~/.cache/kbx/extensions`)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kbx" / "extensions"


@dataclass(frozen=True)
class Toolchain:
    """What builds an extension, beyond its sources: part of every cache key."""

    cuda_home: str
    arch_list: str
    """`TORCH_CUDA_ARCH_LIST` for the build: the GPU's compute capability, `DEFAULT_ARCH` on a CPU host."""
    fingerprint: str


def find_cuda_home() -> str | None:
    """The CUDA toolkit's root: `$CUDA_HOME`, `$CUDA_PATH`, the root of the `nvcc` on the path (where its headers
    are beside it), or /usr/local/cuda; None when there is none."""
    for name in ("CUDA_HOME", "CUDA_PATH"):
        value = os.environ.get(name)
        if value and os.path.isfile(os.path.join(value, "bin", "nvcc")):
            return value
    nvcc = shutil.which("nvcc")
    if nvcc:
        root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        if os.path.isfile(os.path.join(root, "include", "cuda_runtime.h")):
            return root
    return "/usr/local/cuda" if os.path.isfile("/usr/local/cuda/bin/nvcc") else None


def toolchain(environment: Mapping[str, Any]) -> Toolchain | None:
    """The toolchain for the trusted worker's `environment` (`kbx.evaluation.environment`); None without nvcc."""
    home = find_cuda_home()
    if home is None:
        return None
    arch = str(environment.get("compute_capability") or DEFAULT_ARCH)
    described = {
        "nvcc": _version(os.path.join(home, "bin", "nvcc"), "--version"),
        "cxx": _version("c++", "--version"),  # torch's compiler in the build job, whose environment has no CXX
        "torch": environment.get("torch"), "cuda": environment.get("cuda"), "python": environment.get("python"),
        "arch": arch,
    }
    return Toolchain(home, arch, json.dumps(described, sort_keys=True))


@functools.cache
def _version(*command: str) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    except OSError as exc:
        return f"unavailable: {exc}"
    return done.stdout.strip()


class ExtensionCache:
    """Built extensions by key, one directory each: its products and a manifest (`kernels.json`: the products'
    names, the kernels, the build)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def key(self, build: ExtensionBuild, tools: Toolchain) -> str:
        named = f"{build.digest()}\n{tools.cuda_home}\n{tools.arch_list}\n{tools.fingerprint}"
        return hashlib.sha256(named.encode()).hexdigest()[:32]

    def get(self, key: str) -> Path | None:
        entry = self.root / key
        return entry if (entry / MANIFEST).is_file() else None

    def put(self, key: str, built_in: Path, build: ExtensionBuild) -> Path:
        """Copy what a build job left in `built_in` (named by its manifest) into the cache; an entry another thread
        stored meanwhile wins."""
        manifest = json.loads((built_in / MANIFEST).read_text())
        products = [str(p) for p in manifest["products"]]
        if any(os.path.basename(p) != p or p.startswith(".") for p in products):
            raise KbxError(f"the build job named products outside its directory: {products}")
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=self.root))
        for name in products:
            shutil.copy2(built_in / name, staging / name)
        manifest["build"] = build.to_json()
        (staging / MANIFEST).write_text(json.dumps(manifest))
        try:
            os.rename(staging, self.root / key)
        except OSError:  # stored meanwhile by another evaluation of the same sources
            shutil.rmtree(staging, ignore_errors=True)
        return self.root / key


@dataclass(frozen=True)
class Prepared:
    """One candidate's extensions, built or found in the cache, or why they could not be."""

    entries: tuple[tuple[ExtensionBuild, Path], ...] = ()
    """Each extension with its cache entry."""
    failure: tuple[Status, str, str] | None = None
    """(status, message, log) when the build failed: COMPILE_ERROR, TIMEOUT, CRASHED."""
    build_s: float = 0.0
    cached: int = 0
    """How many of the extensions came from the cache."""
    output: str = ""
    """The build job's own output (head and tail)."""

    def require(self, device: str) -> None:
        """Raise NeedsGpu unless `device` can run the extensions: a GPU, with modules linked against torch's CUDA
        (torch without CUDA builds objects only)."""
        if not self.entries:
            return
        linked = all((entry / f"{build.name}.so").is_file() for build, entry in self.entries)
        if device != "cuda" or not linked:
            raise NeedsGpu(
                f"the CUDA candidate's {len(self.entries)} extension(s) compiled ({self.cached} from the cache); "
                "its kernels need a GPU and torch with CUDA to run, so it is not judged here"
            )

    def install(self, job_dir: Path) -> list[dict[str, Any]]:
        """Copy each module into `job_dir/extensions/<digest>/` for the candidate's worker; the job spec's
        `extensions` entry (`BuiltExtension`s)."""
        installed = []
        for build, entry in self.entries:
            target = job_dir / "extensions" / build.digest()
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(entry / f"{build.name}.so", target / f"{build.name}.so")
            kernels = json.loads((entry / MANIFEST).read_text()).get("kernels", [])
            digest = hashlib.sha256((entry / f"{build.name}.so").read_bytes()).hexdigest()
            installed.append(BuiltExtension(build.digest(), build.name, str(target / f"{build.name}.so"),
                                            tuple(kernels), digest).to_json())
        return installed


class ExtensionBuilder:
    """Builds candidates' extensions for one Evaluator; thread-safe (two evaluations of the same sources build
    once: the second waits, then finds the first's entry)."""

    def __init__(self, device: str, environment: Mapping[str, Any], limits: Limits, confinement: ConfinementSpec,
                 zygote: Zygote | None, gpu: str | None = None, cache_root: Path | None = None) -> None:
        self.device, self.environment, self.limits = device, environment, limits
        self.confinement, self.zygote, self.gpu = confinement, zygote, gpu
        self.cache = ExtensionCache(cache_root or default_cache_root())
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def prepare(self, task: Task, builds: Sequence[ExtensionBuild]) -> Prepared:
        """The candidate's extensions from the cache, building what is missing. Raises NotJudged when this machine
        lacks what builds them (not the candidate's fault)."""
        if not builds:
            return Prepared()
        tools = toolchain(self.environment)
        if tools is None:
            raise NotJudged("no CUDA toolkit (nvcc) was found to build the CUDA candidate: set CUDA_HOME")
        missing_tools = [t for t in ("ninja", "c++") if shutil.which(t) is None]
        if missing_tools:
            raise NotJudged(f"{' and '.join(missing_tools)} not found: torch builds CUDA extensions with both")
        keys = [self.cache.key(b, tools) for b in builds]
        start = time.monotonic()
        with self._holding(keys):
            missing = [(b, k) for b, k in zip(builds, keys, strict=True) if self.cache.get(k) is None]
            outcome = self._build(task, missing, tools) if missing else None
        if outcome is not None and outcome.failure is not None:
            return outcome
        entries = tuple((b, self.cache.root / k) for b, k in zip(builds, keys, strict=True))
        return Prepared(entries, None, time.monotonic() - start, len(builds) - len(missing),
                        outcome.output if outcome else "")

    def _build(self, task: Task, missing: list[tuple[ExtensionBuild, str]], tools: Toolchain) -> Prepared:
        """Run one build job for the `missing` extensions and store what it built; a Prepared with the failure,
        or with only the output when all went into the cache."""
        limit = self.limits.compile_timeout_s or DEFAULT_COMPILE_TIMEOUT_S
        spec = {"builds": [b.to_json() for b, _ in missing], "cuda_home": tools.cuda_home,
                "arch_list": tools.arch_list}
        events: list[Event] = []

        def on_event(event: Event) -> None:
            events.append(event)
            if isinstance(event, ConfinementFailed):  # the harness's failure, before anything of the candidate's
                raise KbxError(f"the build job {event.error[:300]}")

        job_dir = Path(tempfile.mkdtemp(prefix=JOB_PREFIX, dir=scratch_root()))
        try:
            run = run_worker(task.path, "", self.device, replace(self.limits, timeout_s=limit), job_dir, on_event,
                             self.gpu, self.confinement, self.zygote, extra={"build": spec})
            failure = _failure(run.timed_out, run.returncode, events, run.output, limit)
            if failure is not None and failure[0] is None:  # torch here lacks its CUDA headers: no verdict
                raise NeedsGpu(f"{failure[1]}\n(torch here has no CUDA: the extension includes torch's CUDA "
                               "headers, which need files only torch's CUDA builds ship; its kernels need a GPU and "
                               "torch with CUDA to build and run)")
            if failure is None:
                for build, key in missing:
                    self.cache.put(key, job_dir / "build" / build.digest(), build)
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)
        return Prepared(failure=failure, build_s=run.elapsed_s, output=run.output)

    def _holding(self, keys: list[str]) -> _Held:
        with self._guard:
            locks = [self._locks.setdefault(k, threading.Lock()) for k in sorted(set(keys))]
        return _Held(locks)


class _Held:
    """Holds several locks, in a fixed order, for a `with` block."""

    def __init__(self, locks: list[threading.Lock]) -> None:
        self._locks = locks

    def __enter__(self) -> None:
        for lock in self._locks:
            lock.acquire()

    def __exit__(self, *exc: object) -> None:
        for lock in reversed(self._locks):
            lock.release()


def _failure(timed_out: bool, returncode: int | None, events: list[Event], output: str, limit: float
             ) -> tuple[Status | None, str, str] | None:
    """The status of a build job that did not build everything (None as status: the machine could not build it,
    `NEEDS_CUDA_TORCH`), or None when it built everything."""
    if timed_out:
        return Status.TIMEOUT, f"the extensions did not compile within the compile limit of {limit:g} s", ""
    failed = next((e for e in events if isinstance(e, ImportFailed)), None)
    if failed is not None and failed.status == NEEDS_CUDA_TORCH:
        return None, failed.error, failed.traceback
    if failed is not None:
        try:
            status = Status(failed.status)
        except ValueError:
            status = Status.COMPILE_ERROR
        return status, failed.error, failed.traceback
    if any(isinstance(e, Finished) for e in events):
        return None
    return Status.CRASHED, f"the build job exited with code {returncode} before finishing: {output[-300:]}", ""
