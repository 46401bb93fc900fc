"""The float64 truth of a task's reference: the same reference run on float64 copies of its inputs.

A reference often computes in float32 on purpose (`x.float()`, `sum(dtype=torch.float32)`, a `log_softmax` with
`dtype=`), to be accurate at the task dtype; run for the truth, every such floating-point dtype is widened to
float64 (`Widened`), so the truth is the operation computed in float64 throughout, not the reference's float32
steps again. A reference whose meaning depends on its dtype (PyTorch's default `eps` of `rms_norm` is the input
dtype's machine epsilon) reads that dtype with `task_dtype`, which names the case's dtype during a truth run; one
whose definition rounds an intermediate to the task dtype (a fused add and norm returns the rounded sum and
normalises that) marks it with `stored`.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch
from torch.overrides import TorchFunctionMode

_CASE_DTYPE: contextvars.ContextVar[torch.dtype | None] = contextvars.ContextVar("kbx_case_dtype", default=None)
_AS_WRITTEN: contextvars.ContextVar[bool] = contextvars.ContextVar("kbx_as_written", default=False)
"""Set while `stored` rounds: `Widened` lets that one cast through as written."""
_ROUNDED: contextvars.ContextVar[list[torch.Tensor] | None] = contextvars.ContextVar("kbx_rounded", default=None)
"""During `float64_reference(..., rounded=...)`, where `stored` notes what it rounded (in the case's dtype)."""
_REPLAY: contextvars.ContextVar[Replay | None] = contextvars.ContextVar("kbx_replay", default=None)
"""During `float64_reference(..., replay=...)`: what `stored` returns."""

_NARROW = (torch.float32, torch.float16, torch.bfloat16)
_CHUNK = 1 << 24
"""Elements scaled at a time by `perturbed`."""
_TO_DOUBLE = (torch.Tensor.float, torch.Tensor.half, torch.Tensor.bfloat16)


def task_dtype(tensor: torch.Tensor) -> torch.dtype:
    """The dtype `tensor` has in the task: its own, except during a truth run, where inputs are float64 copies."""
    case = _CASE_DTYPE.get()
    return case if case is not None and tensor.dtype == torch.float64 else tensor.dtype


def stored(tensor: torch.Tensor) -> torch.Tensor:
    """`tensor` as the definition stores it: a reference marks with this an intermediate that the operation rounds
    to the task dtype by definition (one it also returns, say: the updated residual of a fused add and norm). Outside
    a truth run it is `tensor` itself; in one, the float64 value rounded to the case's dtype and widened again; in a
    perturbed run (`Replay`), the value the truth run stored here, perturbed."""
    case = _CASE_DTYPE.get()
    if case is None or tensor.dtype != torch.float64:
        return tensor
    replay = _REPLAY.get()
    if replay is not None:
        return replay.next(tensor)
    token = _AS_WRITTEN.set(True)
    try:
        rounded = tensor.to(case)
    finally:
        _AS_WRITTEN.reset(token)
    noted = _ROUNDED.get()
    if noted is not None:
        noted.append(rounded)
    return rounded.double()


@dataclass
class Replay:
    """A perturbed run of a reference that rounds mid-way (`stored`): each rounding returns the value the truth run
    stored there, moved like the inputs (as the `first`-th perturbed tensor on, by `perturbed`'s seed, flips and
    checkerboard). Rounding the perturbed run's own value would be a step (an element crossing a rounding boundary
    moves by an ulp of the task dtype, which says nothing of what a kernel may lose); the stored value moved probes
    what follows it, such as a layer norm of the stored residual whose output cancels to nearly 0."""

    values: list[torch.Tensor]
    """What the truth run stored, in order, in the case's dtype."""
    delta: float
    seed: int
    flips: int
    checker: bool
    first: int
    """The index of the first stored value among the perturbed tensors (the inputs come first)."""
    taken: int = 0

    def next(self, tensor: torch.Tensor) -> torch.Tensor:
        """The next stored value, moved. Raises ValueError where the run stores something else than the truth run."""
        if self.taken >= len(self.values) or tuple(self.values[self.taken].shape) != tuple(tensor.shape):
            raise ValueError("a perturbed run of the reference stores other values than its truth run")
        index, self.taken = self.taken, self.taken + 1
        return _moved(self.values[index], self.delta, self.seed, self.first + index, self.flips, self.checker)


def _widen(value: Any) -> Any:
    if isinstance(value, torch.dtype) and value in _NARROW:
        return torch.float64
    if isinstance(value, (list, tuple)) and any(isinstance(v, torch.dtype) for v in value):
        return type(value)(_widen(v) for v in value)
    return value


class Widened(TorchFunctionMode):
    """Every narrower floating-point dtype named in a torch call becomes float64, and `.float()`, `.half()` and
    `.bfloat16()` become `.double()`."""

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        if _AS_WRITTEN.get():
            return func(*args, **(kwargs or {}))
        if func in _TO_DOUBLE:
            return args[0].double()
        kwargs = {key: _widen(value) for key, value in (kwargs or {}).items()}
        return func(*(_widen(a) for a in args), **kwargs)


def float64_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    """The inputs with every floating-point tensor copied to float64 (others as they are)."""
    return {k: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for k, v in inputs.items()}


def perturbed(inputs: dict[str, Any], delta: float, seed: int, flips: int = 0, checker: bool = False
              ) -> dict[str, Any]:
    """Float64 copies of the inputs with every floating-point element moved by `delta` of itself, up or down at
    random (the j-th floating-point input's signs drawn from `seed + j`, then all flipped where bit j of `flips` is
    set, and with `checker`, flipped again on every element whose coordinates sum to an odd number), for the
    truth's response to perturbed inputs; other inputs as they are (float arguments move in runs of their own,
    `argument_moves`).

    Each copy is scaled in place a chunk at a time, from signs drawn as bytes: besides the copy, one byte per
    element. Drawn as 64-bit integers and scaled in one expression, a 2^31-element input took four float64-sized
    temporaries (70 GB) on top of its copy."""
    return moves(inputs, delta, seed, flips, checker).applied(inputs)


@dataclass(frozen=True)
class Moves:
    """One perturbed run's moves (`perturbed`, `argument_moves`), drawn but not applied: each floating-point tensor
    input's signs (a byte per element) and step, or the float arguments moved. Applied a block of rows at a time
    (`applied` with `rows`), a run by rows holds the signs and one block's float64 copies, not the whole inputs' (17
    GB apiece for a 2^31-element input), and moves each element exactly as the whole run would."""

    signs: dict[str, tuple[torch.Tensor, float]]
    scalars: dict[str, float]

    def applied(self, inputs: dict[str, Any], rows: slice | None = None, sliced: tuple[str, ...] = ()
                ) -> dict[str, Any]:
        """The moved inputs; with `rows`, only those rows of the inputs named in `sliced` (others whole)."""
        moved = {}
        for name, value in inputs.items():
            cut = rows is not None and name in sliced
            if name in self.signs:
                ups, step = self.signs[name]
                value, ups = (value[rows], ups[rows]) if cut else (value, ups)
                moved[name] = _scaled(value.double(), ups, 1.0 + step, 1.0 - step)
            else:
                moved[name] = value[rows] if cut else self.scalars.get(name, value)
        return moved


def moves(inputs: dict[str, Any], delta: float, seed: int, flips: int = 0, checker: bool = False,
          wider: Mapping[str, float] | None = None) -> Moves:
    """The moves of one perturbed run of `inputs`' floating-point tensors (see `perturbed`); `wider`: inputs moved
    by a step of their own instead of `delta` (`Contract.rounded_inputs`), on the same signs."""
    signs = {}
    index = 0
    for name, value in inputs.items():
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            step = (wider or {}).get(name, delta)
            signs[name] = _signs(value, step, seed, index, flips, checker)
            index += 1
    return Moves(signs, {})


def argument_moves(inputs: dict[str, Any], delta: float, seed: int, flips: int = 0) -> Moves:
    """The moves of one run that perturbs the float arguments alone (`float_arguments`), the tensors as they are:
    each argument by `delta` of itself, the j-th one's sign drawn from `seed + j` and flipped with bit j of `flips`.

    A kernel gets them as float32 (Triton passes a Python float so): 1 - beta2 formed in the kernel from beta2 =
    0.999 is off by 1.3e-5 of itself, which a bench element where an Adam step cancels showed; any kernel taking
    beta2 as an argument forms it so. In runs of their own, since moved with the tensors they changed which signs
    the tensors' runs combine: addcmul's value with tensor1 and tensor2 made a product whose net move matched its
    input's in every run, where an element cancels (its solution failed in CI's run, 2026-11-28)."""
    moved = {}
    for index, name in enumerate(float_arguments(inputs)):
        up = int(torch.randint(0, 2, (1,), generator=torch.Generator().manual_seed(seed + index)))
        step = -delta if (flips >> index & 1) != (up == 0) else delta
        moved[name] = inputs[name] * (1.0 + step)
    return Moves({}, moved)


def with_float_defaults(reference: Any, inputs: dict[str, Any]) -> dict[str, Any]:
    """`inputs` with the reference's float parameters it leaves to their defaults (Adam's beta2 = 0.999) named, so
    `perturbed` moves them as a kernel's float32 copy of them moves; the reference called so computes the same."""
    try:
        parameters = inspect.signature(reference).parameters.values()
    except (TypeError, ValueError):  # a builtin or a callable without a signature: nothing to add
        return inputs
    defaults = {p.name: p.default for p in parameters if _is_float(p.default) and p.name not in inputs
                and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return {**inputs, **defaults} if defaults else inputs


def float_arguments(inputs: dict[str, Any]) -> list[str]:
    """The names of the Python float arguments among `inputs`, in order."""
    return [name for name, value in inputs.items() if _is_float(value)]


def _is_float(value: Any) -> bool:
    return type(value) is float  # not bool or int: a flag or a count is no quantity


def _moved(value: torch.Tensor, delta: float, seed: int, index: int, flips: int, checker: bool) -> torch.Tensor:
    """A float64 copy of the `index`-th perturbed tensor `value`, moved as `perturbed` moves its inputs."""
    ups, step = _signs(value, delta, seed, index, flips, checker)
    return _scaled(value.double(), ups, 1.0 + step, 1.0 - step)


def _signs(value: torch.Tensor, delta: float, seed: int, index: int, flips: int, checker: bool
           ) -> tuple[torch.Tensor, float]:
    """The `index`-th perturbed tensor's signs (1 up, 0 down, a byte per element of `value`) and step."""
    generator = torch.Generator(device=value.device).manual_seed(seed + index)
    ups = torch.randint(0, 2, value.shape, generator=generator, device=value.device, dtype=torch.int8)
    if checker:
        _checkered(ups)
    return ups, -delta if flips >> index & 1 else delta


def _checkered(ups: torch.Tensor) -> torch.Tensor:
    """`ups` (0 or 1 per element) flipped in place where the element's coordinates sum to an odd number: any two
    elements one step apart along one dimension (a stencil's or an interpolation's neighbours) then move the
    opposite way to each other in this run from the way they move in the run without it."""
    for dim, size in enumerate(ups.shape):
        odd = (torch.arange(size, device=ups.device) & 1).to(torch.int8)
        ups.bitwise_xor_(odd.view([size if d == dim else 1 for d in range(ups.dim())]))
    return ups


def _scaled(wide: torch.Tensor, ups: torch.Tensor, up: float, down: float) -> torch.Tensor:
    """`wide` (a fresh copy) times `up` where `ups` is 1 and `down` where it is 0, in place, `_CHUNK` elements at a
    time where it is contiguous (a bench's inputs), else at once (a check's strided view, small)."""
    factors = torch.tensor([down, up], dtype=torch.float64, device=wide.device)
    if not wide.is_contiguous():
        return wide.mul_(factors[ups.long()])
    flat, flat_ups = wide.view(-1), ups.view(-1)
    for start in range(0, flat.numel(), _CHUNK):
        part = slice(start, start + _CHUNK)
        flat[part] *= factors[flat_ups[part].long()]
    return wide


class Perturbation(NamedTuple):
    """One perturbed run's draw (`perturbed`): the seed offset, the inputs whose signs flip, and the checkerboard."""

    offset: int
    flips: int = 0
    checker: bool = False


def perturbations(count: int) -> list[Perturbation]:
    """The perturbed runs for `count` floating-point inputs: the signs as drawn; once per bit of the inputs' indices
    every input whose index has that bit flipped, so every two inputs are moved the same way in one run and
    opposite ways in another (a cancellation between them shows in one of the two), or, for a single input, a
    second draw; and the first draw checkered, so two neighbours of one input (the corners an interpolation blends,
    a stencil's taps) that moved together in the first run move apart in this one. Without it, a bilinear sample
    that cancels to 5e-6 between corners drawn the same way got a response of 1e-9 where its corners' rounding is
    worth 1e-7, and an honest kernel failed grid_sample (CI, 2026-11-28)."""
    if count <= 1:
        moves = [Perturbation(1 << 16)]
    else:
        moves = [Perturbation(0, sum(1 << j for j in range(count) if j >> bit & 1))
                 for bit in range((count - 1).bit_length())]
    return [Perturbation(0), *moves, Perturbation(0, checker=True)]


def argument_perturbations(count: int) -> list[Perturbation]:
    """The runs that move `count` float arguments: one where there is one (its sign hardly matters), else the signs
    as drawn and once per bit of their indices every argument whose index has that bit flipped, so any two move
    the same way in one run and opposite ways in another (beta1's and beta2's effects on an Adam step cancelled in
    every run while they moved together)."""
    if count == 0:
        return []
    return [Perturbation(0), *[Perturbation(0, sum(1 << j for j in range(count) if j >> bit & 1))
                               for bit in range((count - 1).bit_length())]]


def float64_reference(reference: Any, inputs: dict[str, Any], dtype: torch.dtype,
                      rounded: list[torch.Tensor] | None = None, replay: Replay | None = None) -> Any:
    """`reference` run on float64 copies of `inputs` (of a case in `dtype`) with every floating-point step widened
    to float64; what it returns. `rounded`, when given, gets what each `stored` rounding of the run stored (in
    `dtype`); `replay`, when given, says what each returns instead (a perturbed run). Exceptions propagate: a
    reference with no float64 path says so in its contract."""
    token, noted, replayed = _CASE_DTYPE.set(dtype), _ROUNDED.set(rounded), _REPLAY.set(replay)
    try:
        with torch.no_grad(), Widened():
            return reference(**float64_inputs(inputs))
    finally:
        _CASE_DTYPE.reset(token)
        _ROUNDED.reset(noted)
        _REPLAY.reset(replayed)
