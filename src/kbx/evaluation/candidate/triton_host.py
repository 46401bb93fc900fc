"""Triton's host-side work in a candidate worker, made cheaper without sharing anything between candidates (issue 19).

`warm_triton`: what Triton does once per process at its first launch, done once in the zygote so that the workers it
forks inherit it (measured on an H200, Triton 3.6, 2026-11-27): the hash of its own compiler (libtriton, 415 MB) that
goes into every kernel's cache key, 0.39 s; importing `triton.experimental.gluon`, which the first launch's argument
specialisation imports, 0.10 s. Nothing of CUDA.

`note_launcher_signatures`: the launcher signatures a candidate's Triton kernels needed, noted for the harness.

Triton 3.6 compiles, with the C compiler, one host-side launcher per kernel signature (the sequence of its
arguments' types) the first time a kernel of that signature launches: about half a second, paid again by every
candidate worker, since each starts with an empty Triton cache of its own. The worker notes the signatures here and
reports them when it finishes (`Finished.launchers`); the orchestrator compiles them in a process of its own and
hands the results to later workers (`kbx.evaluation.orchestrator.triton_host`).

The note is taken inside the candidate's process, so the candidate can change or forge it: the orchestrator treats
it as the candidate's data (checked type names, a cap per report). Triton versions without per-signature launchers
(3.9 launches through one generic function) are left alone.

Everything imported here must be importable with torch + triton + numpy + the standard library.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

MAX_REPORTED = 16
"""Signatures one worker reports at most."""

_noted: list[tuple[str, ...]] = []


def warm_triton() -> None:
    """Compute Triton's hash of itself (cached for the process) and import what its first launch imports; a no-op
    for the interpreter, which compiles nothing. Another Triton's layout: each worker does it itself."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return
    try:
        from triton.runtime.cache import triton_key

        triton_key()
    except ImportError:
        pass
    try:
        import triton.experimental.gluon  # noqa: F401
    except ImportError:
        pass


def note_launcher_signatures() -> None:
    """Wrap Triton's launcher generator so that every signature it is asked for is noted; a no-op where this
    Triton has no such generator, or one of another form."""
    try:
        from triton.backends.nvidia import driver
    except Exception:  # no NVIDIA backend here (or it cannot load): nothing to note
        return
    make = getattr(driver, "make_launcher", None)
    if make is None or list(inspect.signature(make).parameters) != ["constants", "signature", "tensordesc_meta"]:
        return

    def noting(constants: Any, signature: Any, tensordesc_meta: Any) -> Any:
        source = make(constants, signature, tensordesc_meta)
        types = tuple(signature.values()) if isinstance(signature, dict) else ()
        plain = not tensordesc_meta and all(type(t) is str for t in types)
        if plain and types not in _noted and len(_noted) < MAX_REPORTED:
            _noted.append(types)
        return source

    driver.make_launcher = noting


def noted_signatures() -> tuple[tuple[str, ...], ...]:
    """The signatures noted so far, in the order first seen."""
    return tuple(_noted)
