"""The launch trace: every kernel that ran and every copy between host and device during a candidate's call on a
GPU, as the CUDA driver reports them (CUPTI activity records, collected by torch's profiler).

The torch-work recorder sees the operators that go through torch's dispatcher. Work can reach the GPU without it:
a replayed CUDA graph, a library called from a thread, or from C; and the host can do the work between two copies
(`.tolist()`, `.cpu()`). The driver sees all of it. While the candidate is called, the profiler records each
kernel with the API call that launched it and the torch operator it was launched in (its `External id`), and each
copy with its direction and bytes. Each kernel is then one of three kinds:

- **own**: compiled by Triton in this process (the worker wraps Triton's binary loader before any candidate code
  runs, and collects the names it loads) and launched by the driver API Triton's launcher calls;
- **dispatched**: launched inside a torch (`aten::`) operator, whose work the torch-work recorder judges;
- **foreign**: anything else — no honest wrapper launches one. torch's own kernels (`at::native::...`) found with
  no operator on record are counted apart (`stray_torch`, with their GPU time): on an H100, one such launch turned up
  among thousands in the trace of an honest, autotuned solution, and did not come back when the same calls were
  traced again, so the rule gives them a small share instead of none.

The summary (`kbx.evaluation.protocol.Launches`) travels with the case's report; the rule
(`kbx.evaluation.orchestrator.launches`) is applied in the orchestrator. The profiler runs in the candidate's
process: a candidate could stop it only through private torch names or the profiler's own modules, which the static
rules reject, and a trace that was stopped fails to close (`runtime.trace_lost`). It is evidence from the driver,
gathered inside the process it judges: a warning, stronger than the recorder, not a boundary (docs/anticheat.md).

Only `summarise` runs without a GPU; the tracer itself needs CUDA and CUPTI.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from kbx.evaluation.protocol import Launches
from kbx.tasks.work import tensor_bytes

OWN_LAUNCHERS = frozenset({"cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchKernel_ptsz", "cuLaunchKernelEx_ptsz"})
"""The driver calls Triton's launcher makes. A kernel put on the GPU any other way (a graph launch, the runtime
API) is not the candidate's own, whatever its name."""

HOST_COPIES = ("HtoD", "DtoH")
"""Copy directions between host and device, as the trace names them ("Memcpy DtoH (Device -> Pageable)")."""

TORCH_KERNELS = ("at::native::", "at::cuda::")
"""Marks of torch's own kernels in a kernel's (demangled) name; no Triton kernel's name can hold `::`."""

NAME_LIMIT = 160
"""Characters of a foreign kernel's name kept in the summary."""


class TraceLost(RuntimeError):
    """The trace could not be closed: something stopped the profiler during the call."""


class LaunchTracer:
    """Traces calls on a GPU. Build it after CUDA may initialise and before the candidate is imported: it wraps
    Triton's loader and starts the profiler once, so CUPTI is up (and known to work) before candidate code runs."""

    def __init__(self, scratch: Path) -> None:
        import torch
        from torch._C._profiler import _ExperimentalConfig
        from torch.autograd import (
            ProfilerActivity,
            ProfilerConfig,
            ProfilerState,
            _disable_profiler,
            _enable_profiler,
            _prepare_profiler,
        )

        self._synchronize = torch.cuda.synchronize
        self._config = lambda: ProfilerConfig(  # noqa: E731 - a fresh config per trace
            ProfilerState.KINETO, False, False, False, False, False, _ExperimentalConfig()
        )
        self._activities = {ProfilerActivity.CPU, ProfilerActivity.CUDA}
        self._prepare, self._enable, self._disable = _prepare_profiler, _enable_profiler, _disable_profiler
        self._file = scratch / ".launch_trace.json"
        self.own_names: set[str] = set()
        self.own_launchers: frozenset[str] = OWN_LAUNCHERS
        """The launch calls through which an own kernel must reach the GPU; a CUDA candidate's extensions add the
        runtime's (`kbx.evaluation.candidate.extensions.watch`)."""
        _collect_loaded_kernels(self.own_names)
        self.last: Launches | None = None
        with self.tracing({}):  # CUPTI initialises here (about 20 ms), not in the first traced call
            torch.empty(1, device="cuda").add_(1)

    @contextlib.contextmanager
    def tracing(self, inputs: Mapping[str, Any]) -> Iterator[None]:
        """Trace what runs inside this context (synchronised at both ends); its summary is `last` afterwards.
        Raises TraceLost when the profiler was stopped meanwhile."""
        self.last = None
        self._synchronize()
        self._prepare(self._config(), self._activities)
        self._enable(self._config(), self._activities)
        try:
            yield
            self._synchronize()
        except BaseException:  # the call's own failure (a crash, an error) is the verdict, whatever the trace did
            with contextlib.suppress(Exception):
                self._disable()
            raise
        try:
            result = self._disable()
        except RuntimeError as exc:
            raise TraceLost(f"runtime.trace_lost: the launch trace was stopped during the call ({exc})") from exc
        result.save(str(self._file))
        try:
            events = json.loads(self._file.read_text()).get("traceEvents", [])
        finally:
            self._file.unlink(missing_ok=True)
        self.last = summarise(events, self.own_names, largest_bytes(inputs), self.own_launchers)


def summarise(
    events: Iterable[Mapping[str, Any]], own_names: set[str], largest_input_bytes: int,
    own_launchers: frozenset[str] = OWN_LAUNCHERS,
) -> Launches:
    """The trace's events (Chrome trace format, as torch's profiler saves them) as a summary: launches of own,
    dispatched and foreign kernels, and bytes copied between host and device. A kernel is own when it is named in
    `own_names` and launched by one of `own_launchers`."""
    events = [e for e in events if isinstance(e, Mapping) and e.get("ph") == "X"]
    launched_by: dict[Any, str] = {}
    operators: set[Any] = set()
    for event in events:
        args = event.get("args") or {}
        if event.get("cat") in ("cuda_driver", "cuda_runtime") and "correlation" in args:
            launched_by[args["correlation"]] = str(event.get("name", ""))
        if event.get("cat") == "cpu_op" and str(event.get("name", "")).startswith("aten::"):
            operators.add(args.get("External id"))
    own = dispatched = host_bytes = kernel_ns = stray_ns = 0
    foreign: dict[str, int] = {}
    stray: dict[str, int] = {}
    for event in events:
        args = event.get("args") or {}
        name = str(event.get("name", ""))
        if event.get("cat") == "gpu_memcpy" and any(direction in name for direction in HOST_COPIES):
            host_bytes += int(args.get("bytes", 0))
        if event.get("cat") != "kernel":
            continue
        duration_ns = round(float(event.get("dur", 0)) * 1000)
        kernel_ns += duration_ns
        if args.get("External id") and args.get("External id") in operators:
            dispatched += 1
        elif name in own_names and launched_by.get(args.get("correlation")) in own_launchers:
            own += 1
        elif any(mark in name for mark in TORCH_KERNELS):
            stray[name[:NAME_LIMIT]] = stray.get(name[:NAME_LIMIT], 0) + 1
            stray_ns += duration_ns
        else:
            foreign[name[:NAME_LIMIT]] = foreign.get(name[:NAME_LIMIT], 0) + 1
    return Launches(own, dispatched, foreign, stray, stray_ns, kernel_ns, host_bytes, largest_input_bytes)


def largest_bytes(inputs: Mapping[str, Any]) -> int:
    """Bytes of the largest tensor among a call's inputs (0 when none is a tensor)."""
    return max((tensor_bytes(v) for v in inputs.values()), default=0)


def _collect_loaded_kernels(names: set[str]) -> None:
    """Wrap Triton's binary loader so the name of every kernel Triton loads in this process lands in `names`."""
    from triton.runtime import driver

    utils = driver.active.utils
    load = utils.load_binary

    def load_binary(name: str, *args: Any, **kwargs: Any) -> Any:
        names.add(name)
        return load(name, *args, **kwargs)

    utils.load_binary = load_binary
