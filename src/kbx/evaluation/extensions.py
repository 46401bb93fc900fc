"""A CUDA candidate's compiled extensions, as values every side agrees on (the CUDA backend: docs/evaluation.md).

A CUDA candidate builds its kernels with `torch.utils.cpp_extension.load_inline(...)` at module level. The static
stage reads each call's arguments from the source (`kbx.candidates.cuda`) into an `ExtensionBuild`; the build job
compiles it inside the candidate's confinement (`kbx.evaluation.candidate.extension_build`); the orchestrator keeps
what it produced in a cache keyed by the build's digest (`kbx.evaluation.orchestrator.extensions`); and when the
candidate's own `load_inline` call runs, the worker serves the module built for the same digest
(`kbx.evaluation.candidate.extensions`). Both ends compute the digest from the arguments with `from_arguments`,
so a call that differs from what the static stage read finds no module.

Everything here is plain Python: the orchestrator imports it without torch.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

LOAD_INLINE = "torch.utils.cpp_extension.load_inline"
"""The one entry point of `torch.utils.cpp_extension` a CUDA candidate may call."""

POSITIONAL = ("name", "cpp_sources", "cuda_sources")
"""The parameters of `load_inline` that may be passed by position (the rest by keyword: their order has changed
between torch versions)."""

IGNORED = frozenset({"verbose", "keep_intermediates"})
"""Arguments that do not change what is built (printing; ROCm's intermediate files)."""

REFUSED: Mapping[str, str] = {
    "build_directory": "kbx chooses where an extension is built (a directory of the candidate's own job)",
    "extra_include_paths": "an extension includes only torch's and the CUDA toolkit's headers",
    "sycl_sources": "only CUDA sources are built",
    "extra_sycl_cflags": "only CUDA sources are built",
    "with_sycl": "only CUDA sources are built",
    "is_python_module": "the extension must be a Python module: a library of torch operators would register them "
                        "with torch's dispatcher, beside the harness's",
    "use_pch": "a precompiled header is written into torch's installation, outside the candidate's job",
}
"""Arguments a candidate may not pass (or only with their default value, see `_DEFAULTS`), with the reason."""

_DEFAULTS: Mapping[str, Any] = {
    "build_directory": None, "extra_include_paths": None, "sycl_sources": None, "extra_sycl_cflags": None,
    "with_sycl": None, "is_python_module": True, "use_pch": False,
}

NEEDS_CUDA_TORCH = "needs_cuda_torch"
"""What the build job reports (as the failure's status) when an extension includes torch's CUDA headers and torch has
no CUDA: those headers need files only torch's CUDA builds ship, so the build says nothing of the candidate."""

DEFAULT_ARCH = "9.0"
"""The architecture an extension is built for where no GPU says which (a CPU host): Hopper, the project's GPUs (H100,
H200). On a GPU the trusted worker's device names it (`compute_capability`)."""

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
"""An extension's name: it becomes a C macro and the module's name."""


@dataclass(frozen=True)
class ExtensionBuild:
    """One `load_inline` call's arguments that decide what is built, in a canonical form."""

    name: str
    cpp_sources: tuple[str, ...]
    cuda_sources: tuple[str, ...]
    functions: tuple[str, ...] | None
    """The functions `load_inline` binds into the module (None: the C++ sources define the module themselves)."""
    extra_cflags: tuple[str, ...] = ()
    extra_cuda_cflags: tuple[str, ...] = ()
    extra_ldflags: tuple[str, ...] = ()
    with_cuda: bool | None = None
    with_pytorch_error_handling: bool = True
    no_implicit_headers: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> ExtensionBuild:
        return from_arguments(raw)

    def digest(self) -> str:
        """What identifies the build: a hash of its canonical arguments (the toolchain is added by the cache)."""
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:32]

    def load_inline_arguments(self) -> dict[str, Any]:
        """Keyword arguments for `load_inline` that build exactly this (without `build_directory`)."""
        raw = self.to_json()
        raw.update(
            cpp_sources=list(self.cpp_sources), cuda_sources=list(self.cuda_sources) or None,
            functions=None if self.functions is None else list(self.functions),
            extra_cflags=list(self.extra_cflags), extra_cuda_cflags=list(self.extra_cuda_cflags),
            extra_ldflags=list(self.extra_ldflags),
        )
        return raw


@dataclass(frozen=True)
class BuiltExtension:
    """An extension built for a candidate: where its module is and which kernels it holds. Crosses from the
    orchestrator to the candidate worker in its job spec."""

    digest: str
    """`ExtensionBuild.digest()` of the build that made it."""
    name: str
    path: str
    """The module file (`<name>.so`), in the candidate's job directory."""
    kernels: tuple[str, ...] = ()
    """Its `__global__` functions, mangled and as CUDA's profiler names them (`relu_kernel(float const*, ...)`):
    the launch trace counts launches of these as the candidate's own."""
    sha256: str = ""
    """The module file's hash, taken by the orchestrator from its cache: the file lies in the candidate's own
    (writable) job directory, so the worker checks it before importing it."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> BuiltExtension:
        return BuiltExtension(str(raw["digest"]), str(raw["name"]), str(raw["path"]),
                              tuple(str(k) for k in raw.get("kernels", ())), str(raw.get("sha256", "")))


def from_arguments(values: Mapping[str, Any]) -> ExtensionBuild:
    """The canonical build for a `load_inline` call's arguments (by name). The static stage calls this with the
    values it read from the source, the candidate worker with the values of the call at run time.

    Raises:
        ValueError: an argument `load_inline` lacks, or one kbx refuses (`REFUSED`), or a value of the wrong kind.
    """
    known = set(POSITIONAL) | IGNORED | set(REFUSED) | {f for f in ExtensionBuild.__dataclass_fields__}
    for key, value in values.items():
        if key not in known:
            raise ValueError(f"`{key}` is no argument of load_inline")
        if key in REFUSED and value != _DEFAULTS[key] and not (key == "extra_include_paths" and not value):
            raise ValueError(f"`{key}={value!r}`: {REFUSED[key]}")
    name = values.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"`name={name!r}`: an extension's name is an identifier of at most 64 characters")
    functions = values.get("functions")
    if functions is not None and not all(NAME.fullmatch(f) for f in _strings("functions", functions)):
        raise ValueError("`functions` must name C++ functions of the sources by plain identifiers")
    return ExtensionBuild(
        name=name,
        cpp_sources=_strings("cpp_sources", values.get("cpp_sources")),
        cuda_sources=_strings("cuda_sources", values.get("cuda_sources")),
        functions=None if functions is None else _strings("functions", functions),
        extra_cflags=_strings("extra_cflags", values.get("extra_cflags")),
        extra_cuda_cflags=_strings("extra_cuda_cflags", values.get("extra_cuda_cflags")),
        extra_ldflags=_strings("extra_ldflags", values.get("extra_ldflags")),
        with_cuda=_flag("with_cuda", values.get("with_cuda"), allow_none=True),
        with_pytorch_error_handling=bool(_flag("with_pytorch_error_handling",
                                               values.get("with_pytorch_error_handling", True))),
        no_implicit_headers=bool(_flag("no_implicit_headers", values.get("no_implicit_headers", False))),
    )


def _strings(key: str, value: Any) -> tuple[str, ...]:
    """A string or a list/tuple of strings as a tuple; None as empty."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"`{key}` must be a string or a list of strings")


def _flag(key: str, value: Any, allow_none: bool = False) -> bool | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, bool):
        raise ValueError(f"`{key}` must be True or False")
    return value
