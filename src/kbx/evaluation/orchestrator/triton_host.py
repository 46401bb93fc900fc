"""Triton's own host code, compiled once by the harness and copied into every candidate worker's cache (issue 19).

Every candidate worker starts with an empty Triton cache of its own: a cache shared between candidates would let one
plant binaries that another loads. On a GPU, Triton 3.6 then compiles, with the C compiler, host code of its own
before the first launch: `cuda_utils` (its binding of the driver) and one `__triton_launcher` per kernel signature
(the function that unpacks a launch's arguments). Measured on an H200 (2026-11-27): 0.48 s and about 0.55 s, paid
by every candidate again, where the relu solution's whole check costs about 2 s.

`TritonHost` keeps a folder of these (`$KBX_CACHE_DIR/triton-host/<triton version>-<Python ABI>`) and copies it into
each worker's cache folder before the worker starts, so a candidate can change only its own copy. Nothing in the
folder comes from a candidate: a process of the harness's compiles it with Triton's own generators, `cuda_utils` from
Triton's source and each launcher from a signature. Workers report the signatures their launches needed
(`Finished.launchers`, `kbx.evaluation.candidate.triton_host`); a report is the candidate's data, so only signatures of
at most `_MAX_ARGUMENTS` plain type names (letters and digits, a pointer's `*`) are built, at most
`MAX_REPORTED` from one worker and `_MAX_LAUNCHERS` in all, and the worst a forged report can do is have a useless
launcher built. Triton puts each module under the hash of its C source, so a candidate's lookup finds an entry only
where its own source is the same.

Builds run on a thread of their own, one process at a time, never on a candidate's time; a Triton that has no
per-signature launchers (3.9 launches through one generic function) gets `cuda_utils` alone.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
from collections.abc import Iterable
from pathlib import Path

from kbx.evaluation.candidate.triton_host import MAX_REPORTED
from kbx.evaluation.protocol import Event, Finished
from kbx.timing.peaks import cache_root

_MAX_ARGUMENTS = 64
_MAX_LAUNCHERS = 512
_BUILD_S = 300.0
_TYPE = re.compile(r"\*?k?[A-Za-z][A-Za-z0-9]{0,15}")
"""A Triton type name as its launcher generator takes it (`*fp32`, `i64`, `constexpr`, `nvTmaDesc`)."""
_INDEX = "launchers.json"
_BUILDER = """
import json, sys
from triton.backends.nvidia import driver
driver.CudaUtils()
make = getattr(driver, "make_launcher", None)
if make is not None:
    from triton.runtime.build import compile_module_from_src
for signature in json.loads(sys.argv[1]) if make is not None else []:
    try:
        source = make({}, dict(enumerate(signature)), None)
    except Exception:  # a type name this Triton does not know
        continue
    compile_module_from_src(src=source, name="__triton_launcher", library_dirs=driver.library_dirs(),
                            include_dirs=driver.include_dirs, libraries=driver.libraries)
"""

Signature = tuple[str, ...]


def acceptable(signature: Iterable[object]) -> Signature | None:
    """`signature` as a tuple of type names, or None where it is not one this module builds."""
    names = tuple(signature)
    if not 0 < len(names) <= _MAX_ARGUMENTS:
        return None
    if not all(isinstance(n, str) and _TYPE.fullmatch(n) for n in names):
        return None
    return names  # type: ignore[return-value]


def for_device(device: str) -> TritonHost | None:
    """This machine's Triton host code for candidate workers on `device`: on a GPU, one folder per Triton version
    and Python ABI; None on the CPU (the interpreter compiles nothing) or without Triton."""
    if device != "cuda":
        return None
    try:
        version = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return None
    return TritonHost(cache_root() / "triton-host" / f"{version}-{sysconfig.get_config_var('SOABI')}")


class TritonHost:
    """The folder of Triton's host code for candidate workers, and the thread that compiles into it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        """Guards `_known`."""
        self._known: set[Signature] = set(_read_index(folder))
        self._queue: queue.Queue[list[Signature] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._build_all, name="kbx-triton-host", daemon=True)
        self._thread.start()
        self._queue.put([])  # `cuda_utils`, if the folder has none yet (Triton finds it in its cache if it has)

    def seed(self, cache: Path) -> None:
        """Copy the folder's finished modules into `cache`, a worker's (empty) Triton cache folder."""
        try:
            entries = [e for e in self.folder.iterdir() if e.is_dir() and not e.name.startswith("tmp")]
        except OSError:
            return
        for entry in entries:
            try:
                files = [f for f in entry.iterdir() if f.is_file() and not f.name.startswith("tmp")]
                if files:
                    (cache / entry.name).mkdir(parents=True, exist_ok=True)
                for file in files:
                    shutil.copyfile(file, cache / entry.name / file.name)
            except OSError:  # an entry being replaced as we read: the worker compiles it if it needs it
                continue

    def learn(self, reported: Iterable[Iterable[object]]) -> None:
        """Queue the build of the launchers a worker reported that the folder lacks (its data: checked here)."""
        new: list[Signature] = []
        with self._lock:
            for raw in list(reported)[:MAX_REPORTED]:
                signature = acceptable(raw)
                if signature is not None and signature not in self._known and len(self._known) < _MAX_LAUNCHERS:
                    self._known.add(signature)
                    new.append(signature)
        if new:
            self._queue.put(new)

    def learn_from(self, events: Iterable[Event]) -> None:
        """`learn` what a worker's `Finished` reported."""
        for event in events:
            if isinstance(event, Finished):
                self.learn(event.launchers)

    def close(self, wait_s: float = 0.0) -> None:
        """Stop after the build in progress; wait for it at most `wait_s`."""
        self._queue.put(None)
        self._thread.join(wait_s)

    def _build_all(self) -> None:
        while (signatures := self._queue.get()) is not None:
            if self._build(signatures):
                with self._lock:
                    built = sorted(self._known)
                _write_index(self.folder, built)

    def _build(self, signatures: list[Signature]) -> bool:
        """Compile `cuda_utils` and the launchers of `signatures` into the folder, in a process of the harness's."""
        env = {**os.environ, "TRITON_CACHE_DIR": str(self.folder)}
        env.pop("TRITON_INTERPRET", None)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(
                [sys.executable, "-I", "-c", _BUILDER, json.dumps(signatures)], env=env, timeout=_BUILD_S,
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0


def _read_index(folder: Path) -> list[Signature]:
    try:
        raw = json.loads((folder / _INDEX).read_text())
    except (OSError, ValueError):
        return []
    if not isinstance(raw, list):
        return []
    return [s for s in (acceptable(r) for r in raw if isinstance(r, list)) if s is not None]


def _write_index(folder: Path, signatures: list[Signature]) -> None:
    temporary = folder / f"tmp-{os.getpid()}-{threading.get_ident()}-{_INDEX}"
    try:
        temporary.write_text(json.dumps([list(s) for s in signatures]))
        os.replace(temporary, folder / _INDEX)
    except OSError:
        pass
