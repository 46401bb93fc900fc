"""A CUDA candidate's `load_inline` calls, answered with the modules built for it (the CUDA backend).

The extensions were built before this worker started, by a build job that never ran candidate code
(`kbx.evaluation.candidate.extension_build`), or came from the orchestrator's cache; the orchestrator copied each
module into this job's directory and named it in the job spec. Before the candidate is imported, `install` puts
`serve` in place of `torch.utils.cpp_extension.load_inline`: when the candidate's module-level call runs, `serve`
reads its arguments into the same canonical build the static stage read (`kbx.evaluation.extensions`), and imports
the module built for that digest, exactly as `load_inline` imports what it built. No compiler runs in this
process. A call the static stage did not read (only code that got past the static rules could make one) finds no
module and fails the import (COMPILE_ERROR).

This runs in the candidate's process, so it is no boundary; it need not be one. A candidate that reaches the real
`load_inline` builds in its own job directory, within its own time limit, and gains nothing: the kernels it could
build that way are judged by the same launch trace. Only what the build job made ever reaches the cache.

`watch` ties the extensions to what watches the calls: every call of one of their functions is recorded as the
candidate's launch (`Guards`' launch recorder: a call that enters none of the candidate's compiled code is
`runtime.no_kernel_launch`, as a Triton candidate's call that launches no kernel of its own), and on a GPU their
kernels join the launch trace's own kernels, with the CUDA runtime's launch calls (`<<<...>>>` is
`cudaLaunchKernel`) among the launchers accepted for them; the orchestrator then asks every checked call for at
least one launch of them (`kbx.evaluation.orchestrator.launches`).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import Any

from kbx.evaluation.candidate.guards import CANDIDATE_MODULE
from kbx.evaluation.extensions import POSITIONAL, BuiltExtension, from_arguments

RUNTIME_LAUNCHERS = frozenset({
    "cudaLaunchKernel", "cudaLaunchKernel_ptsz", "cudaLaunchKernelExC", "cudaLaunchKernelExC_ptsz",
    "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel_ptsz",
})
"""The CUDA runtime's launch calls, as the trace names them: how a compiled extension launches its kernels."""


class ExtensionNotBuilt(RuntimeError):
    """A `load_inline` call whose build the orchestrator did not make for this candidate."""


class ExtensionChanged(RuntimeError):
    """A built module whose file no longer holds what the orchestrator copied there (the candidate can write its
    own job directory: it could have put a binary of its own in place of the build's)."""


class Served:
    """The modules built for this candidate, by digest; imported once each, on the first call that asks."""

    def __init__(self, built: Iterable[BuiltExtension]) -> None:
        self.built = {b.digest: b for b in built}
        self._loaded: dict[str, ModuleType] = {}
        self.launches: list[str] | None = None
        """Where calls into the extensions are recorded (the guards' launch recorder), once `watch` set it."""

    def serve(self, *args: Any, **kwargs: Any) -> ModuleType:
        """Stands in for `load_inline(...)`: the module built from exactly these arguments."""
        values: dict[str, Any] = dict(zip(POSITIONAL, args, strict=False))
        values.update(kwargs)
        build = from_arguments({k: v for k, v in values.items() if k not in ("verbose", "keep_intermediates")})
        digest = build.digest()
        if digest not in self.built:
            raise ExtensionNotBuilt(
                f"load_inline(name={build.name!r}, ...) was called with arguments the static stage did not read; "
                "only the module-level calls it read are built"
            )
        if digest not in self._loaded:
            self._loaded[digest] = self._recorded(_import(self.built[digest]))
        return self._loaded[digest]

    def _recorded(self, module: ModuleType) -> ModuleType:
        """The module with each of its functions recording its calls as launches of the candidate's."""
        for name in [n for n in dir(module) if not n.startswith("_")]:
            function = getattr(module, name)
            if callable(function):
                setattr(module, name, self._recording(f"{CANDIDATE_MODULE}.{module.__name__}.{name}", function))
        return module

    def _recording(self, label: str, function: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if self.launches is not None:
                self.launches.append(label)
            return function(*args, **kwargs)

        call.__name__ = call.__qualname__ = getattr(function, "__name__", label)
        call.__doc__ = getattr(function, "__doc__", None)
        return call


def install(raw: Iterable[Mapping[str, Any]]) -> Served | None:
    """Answer the candidate's `load_inline` calls with the modules of the job spec (`BuiltExtension`s); None, and
    nothing changed, when it names none."""
    built = [BuiltExtension.from_json(r) for r in raw]
    if not built:
        return None
    import torch.utils.cpp_extension as cpp

    served = Served(built)
    cpp.load_inline = served.serve
    return served


def watch(served: Served | None, tracer: Any, guards: Any) -> None:
    """Record calls into the extensions in the guards' launch recorder, and count launches of their kernels, made
    through the CUDA runtime, as the candidate's own in the launch trace (`kbx.evaluation.candidate.launch_trace`,
    on a GPU). Nothing for a candidate without extensions."""
    if served is None:
        return
    served.launches = guards.launches.launches
    kernels = {k for built in served.built.values() for k in built.kernels}
    if tracer is not None:
        tracer.own_names.update(kernels)
        tracer.own_launchers = frozenset(tracer.own_launchers | RUNTIME_LAUNCHERS)


def _import(built: BuiltExtension) -> ModuleType:
    """Import a built module as `load_inline` does (its init function is named after the extension), once its
    file is checked against the orchestrator's hash. Nothing of the candidate's runs between the check and the
    import (no Python thread of its may run; native code of its own could, but only once one of its extensions is
    loaded, and native code needs no swapped file to do anything)."""
    with open(built.path, "rb") as file:
        found = hashlib.sha256(file.read()).hexdigest()
    if found != built.sha256:
        raise ExtensionChanged(f"runtime.extension_changed: the module of extension `{built.name}` is not the one "
                               "kbx built: its file was changed")
    loader = importlib.machinery.ExtensionFileLoader(built.name, built.path)
    spec = importlib.util.spec_from_file_location(built.name, built.path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
