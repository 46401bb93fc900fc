"""Torch doing the work: which ATen operators ran during a candidate's call, on tensors of the task's size.

The static rules catch torch calls by name; arithmetic on tensors (`x * (x > 0)`, `p - lr * g`), builtins and
names built at run time get past them, and a dummy kernel satisfies launch counting. Every torch operator on a
tensor goes through the dispatcher, though: while the candidate is called, a dispatch mode built by the worker
(before the candidate is imported) records each operator and the largest tensor it touched. Allocation, views,
copies and fills are what an honest wrapper does. Every other operator adds the size of the largest tensor it touched
to the call's tally, over all operators and all their calls (many small operators add up as one large one); a tally
of at least `max(256, largest input / 8)` elements means torch did part of the task's work, and
the candidate is REJECTED_RUNTIME (`runtime.torch_compute`). Small work is let through: a wrapper may combine a
handful of per-block partial results or compute a scale in torch.

The recorder runs in the candidate's process and only records; it sends its tally with each case's report, and the
rule (`kbx.evaluation.orchestrator.torch_work`, its thresholds) is applied in the orchestrator, out of the
candidate's reach. A candidate that forges the tally itself has to patch the recorder, which the guards watch: that
is a warning, not a boundary (docs/anticheat.md).

A dispatch mode belongs to the thread that entered it: the recorder also makes every thread started while it
records (through `threading` or `_thread`) run under the recording, so work moved to a thread and joined before the
call returns is tallied too.

Triton launches do not go through the dispatcher, and neither does the Triton interpreter's own data movement
(it works on numpy views), so honest kernels record nothing but their wrapper's allocations and views.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from kbx.evaluation.protocol import TorchWork

ALLOWED = frozenset({
    # allocation and fills
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros",
    "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill_", "zero_", "arange", "lift_fresh",
    "lift_fresh_copy", "scalar_tensor", "resize_", "set_",
    # the identity, a constant like `ones` (an honest matrix_power starts its product at torch.eye(N): REJECTED_RUNTIME
    # on a 16 x 16 smoke, 2026-11-28); `diag_embed` and `diag`, which place data, still count
    "eye",
    # views and metadata
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "expand", "permute", "transpose", "t",
    "select", "slice", "squeeze", "unsqueeze", "unbind", "split", "split_with_sizes", "chunk", "narrow", "flatten",
    "unflatten", "detach", "alias", "movedim", "view_as", "expand_as", "diagonal", "unfold", "view_as_real",
    "view_as_complex", "_local_scalar_dense", "is_same_size", "sym_size", "sym_stride", "sym_numel",
    # the same views made in place on the tensor itself (metadata only: `y.squeeze_(0)`, `out.t_()`)
    "unsqueeze_", "squeeze_", "transpose_", "t_", "as_strided_", "swapaxes_", "swapdims_",
    # copies (contiguous, clone, .to(dtype), cat/stack of results)
    "clone", "copy_", "_to_copy", "contiguous", "cat", "stack", "_copy_from", "_copy_from_and_resize",
    # copies that are compositions of the above: a constant border (`F.pad(x, ..., value=v)`: `full` + `cat`),
    # tiling (`repeat`: `expand` + `contiguous`), a narrowed copy (`narrow` + `clone`)
    "constant_pad_nd", "repeat", "narrow_copy",
})
"""ATen operator packets (`func.overloadpacket.__name__`) an honest wrapper may run on tensors of any size."""


class TorchComputeRecorder:
    """Records the non-allowed ATen operators run inside `recording()`; build it before candidate code runs."""

    def __init__(self) -> None:
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        tensor_type = torch.Tensor
        seen = self._seen = {}

        class _Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                kwargs = kwargs or {}
                result = func(*args, **kwargs)
                name = func.overloadpacket.__name__
                if name not in ALLOWED:
                    sizes = [t.numel() for t in _tensors((args, kwargs, result), tensor_type)]
                    if sizes:
                        seen[str(func.overloadpacket)] = seen.get(str(func.overloadpacket), 0) + max(sizes)
                return result

        self._mode_type = _Mode
        self._active = False
        _follow_new_threads(self)
        import_lazy_parts()
        self._seen.clear()

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Record the operators run inside this context (clears earlier records), on this thread and on every
        thread started meanwhile."""
        self._seen.clear()
        self._active = True
        try:
            with self._mode_type():
                yield
        finally:
            self._active = False

    def in_new_thread(self, body: Callable[..., Any]) -> Callable[..., Any]:
        """`body`, run under the recording when a recording is on as the thread starts (a dispatch mode belongs to
        the thread that entered it, so work moved to a thread would otherwise go unseen)."""

        def recorded(*args: Any, **kwargs: Any) -> Any:
            if not self._active:
                return body(*args, **kwargs)
            with self._mode_type():
                return body(*args, **kwargs)

        return recorded

    def tally(self, inputs: dict[str, Any]) -> TorchWork:
        """What the last recording saw, for the case's report: elements per operator and the largest input's."""
        import torch

        largest = max((t.numel() for t in inputs.values() if isinstance(t, torch.Tensor)), default=0)
        return TorchWork(dict(self._seen), largest)


def import_lazy_parts() -> None:
    """Enter a dispatch mode once: the first entry imports parts of torch lazily (torch._dynamo, which rewraps
    torch.manual_seed), and that must happen before the worker snapshots torch's callables."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class _PassThrough(TorchDispatchMode):
        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            return func(*args, **(kwargs or {}))

    with _PassThrough():
        torch.empty(1) + 1


def _follow_new_threads(recorder: TorchComputeRecorder) -> None:
    """Make every thread started from now on (through `threading`, subclasses included, or `_thread`) run its body
    through `recorder.in_new_thread`. Patched in the worker's process, before the candidate is imported."""
    import _thread
    import threading

    bootstrap = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]
    threading.Thread._bootstrap_inner = lambda thread: recorder.in_new_thread(bootstrap)(thread)  # type: ignore[attr-defined]
    start = _thread.start_new_thread
    _thread.start_new_thread = lambda function, args, kwargs=None: start(  # type: ignore[assignment]
        recorder.in_new_thread(function), args, kwargs or {}
    )


def _tensors(value: Any, tensor_type: type) -> list[Any]:
    if isinstance(value, tensor_type):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item, tensor_type)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item, tensor_type)]
    return []
