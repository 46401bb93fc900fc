"""The bases a case's outputs are judged against (`kbx.evaluation.trusted.against_truth`), computed once per case.

The reference runs again in float64 (`kbx.tasks.truth`): on the case's inputs, for the truth, and on perturbed
copies of them, for each element's response P: 2 + ceil(log2 k) runs for k floating-point inputs (three for one),
so that any two inputs, and any two neighbours in one input, move together in one run and apart in another
(`kbx.tasks.truth.perturbations`); and 1 + ceil(log2 m) more that move its m float arguments alone (the reference's
defaults included: a kernel gets them in float32, `kbx.tasks.truth.argument_moves`). One run at a time, its
outputs folded in and freed before the next, so the peak is one float64 run beside the kept truth.

Where the task says its outputs' rows depend only on the same rows of some inputs (`truth_rows`, a task module's
hook: softmax along any dimension but the first), each run goes a block of rows at a time (`PIECE_ELEMENTS`), so
the float64 copies of the inputs and the reference's float64 temporaries are a block's, not the whole case's: at
2^31 elements these took over 50 GB. Where the temporaries outgrow a row's inputs and outputs, the task says by how
much (`truth_row_elements`): attention's float64 scores for the 16 x 32 x 4096^2 bench are 64 GiB whole, and the
trusted worker of an H200 ran out of memory on them (2026-11-28); a batch at a time they are 4 GiB. The bases are
the same, bit for bit: the truth is assembled whole before its basis is taken, and each perturbed block's response
is folded into P where its rows lie.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import torch

from kbx.evaluation.outputs import output_items
from kbx.evaluation.trusted.against_truth import Basis, basis, with_backward
from kbx.tasks.accuracy import RULE, UNIT_ROUNDOFF, Rule
from kbx.tasks.inputs import torch_dtype
from kbx.tasks.spec import Contract, Workload
from kbx.tasks.truth import (
    Moves,
    Replay,
    argument_moves,
    argument_perturbations,
    float64_reference,
    float_arguments,
    moves,
    perturbations,
    with_float_defaults,
)

PERTURBATION_SEED = 0x5EED0
"""The perturbed runs' signs are drawn from it: fixed, so a case's basis is a function of the case."""
ARGUMENT_SEED = 0xA5EED
"""The float arguments' signs in their own runs are drawn from it."""


def bases_if_any(code: Any, inputs: dict[str, Any], outputs: list[Any], dtype: str, workload: Workload
                 ) -> list[Basis] | None:
    """Each output's basis (`truth_bases`) for the case of task module `code`; None when the reference has no
    float64 path on these inputs (the contract's tolerances against the reference then judge, and the comparisons
    say `against: reference`). Running out of memory raises: it is no missing path (the trusted worker's `serve`
    leaves the evaluation unjudged, and it runs again with the GPU to itself,
    `kbx.evaluation.orchestrator.short_of_memory`). Judged by the tolerances instead, an honest fp16 kernel failed
    conv2d_depthwise's 2^31 bench beside seven other evaluations (H200, 2026-11-27); alone, the truth fits."""
    if not all(isinstance(out, torch.Tensor) for out in outputs):
        return None
    rows_of = getattr(code, "truth_rows", None)  # a task module's hooks (`TaskCode.truth_rows`, `truth_row_elements`)
    elements_of = getattr(code, "truth_row_elements", None)
    try:
        rows = rows_of(**inputs) if rows_of is not None else None
        row_elements = elements_of(**inputs) if rows and elements_of is not None else 0
        return truth_bases(code.reference, inputs, outputs, dtype, code.task.contract, workload, rows=rows,
                           row_elements=row_elements)
    except (torch.OutOfMemoryError, MemoryError):
        raise
    except Exception:  # noqa: BLE001 - the reference's own code (a KernelBench problem's module) may raise anything
        return None  # the suite's tasks all have one on their check workloads (tests/suite/test_sensitivity)
    finally:
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.empty_cache()


def truth_bases(reference: Any, inputs: dict[str, Any], eager: list[Any], dtype: str, contract: Contract,
                workload: Workload, rule: Rule = RULE, rows: tuple[str, ...] | None = None, row_elements: int = 0
                ) -> list[Basis]:
    """Each output's basis for the eager outputs `eager` of `reference` on `inputs` (a case in `dtype`); `rows`: the
    inputs whose rows (dim 0) the outputs' rows depend on alone, where the task says so (run by blocks of rows);
    `row_elements`: the float64 temporaries a row holds, where the task says they outgrow its inputs and outputs.

    Raises:
        ValueError, TypeError, RuntimeError, NotImplementedError: the reference has no float64 path here, or
            its float64 outputs do not fit the eager ones (callers then judge by the contract's tolerances).
    """
    case_dtype = torch_dtype(dtype)
    rounded: list[torch.Tensor] = []
    blocks = row_blocks(inputs, eager, rows, row_elements)
    truth = _whole(_runs(reference, inputs, case_dtype, blocks, rounded), blocks)
    if len(truth) != len(eager) or not all(isinstance(t, torch.Tensor) for t in truth):
        raise ValueError("the float64 reference returns other outputs than the eager one")
    bases = [basis(e, t, rule) for e, t in zip(eager, truth)]
    del truth
    # The case's dtype decides whether the products may run on tensor cores (`Contract.tensor_cores`)
    own = dtype if dtype in UNIT_ROUNDOFF else "float32"
    delta = replace(contract.allowance(own, workload), rule=rule).backward_delta
    # Inputs an honest kernel may round to the case's dtype once (q * scale in attention) move by u_out of it.
    wider = {name: max(delta, UNIT_ROUNDOFF[own]) for name in contract.rounded_inputs}
    inputs = with_float_defaults(reference, inputs)
    count = sum(isinstance(v, torch.Tensor) and v.is_floating_point() for v in inputs.values())
    # What the definition rounds mid-way (`stored`) is replayed, moved like one more input (`Replay`); a run by
    # blocks of rows stores block by block, so a reference that rounds so is not run by blocks and perturbed.
    perturb = rule.backward_factor and contract.perturbed_truth and not (rounded and blocks is not None)
    runs = [(move, PERTURBATION_SEED + move.offset, False) for move in perturbations(count + len(rounded))]
    # The float arguments move in runs of their own, the tensors and stored values as they are (`argument_moves`)
    runs += [(move, ARGUMENT_SEED, True) for move in argument_perturbations(len(float_arguments(inputs)))]
    for move, seed, arguments in runs if perturb else ():
        if arguments:
            moved = argument_moves(inputs, delta, seed, move.flips)
            replay = Replay(rounded, 0.0, seed, 0, False, first=0) if rounded else None
        else:
            moved = moves(inputs, delta, seed, move.flips, move.checker, wider)
            replay = Replay(rounded, delta, seed, move.flips, move.checker, first=count) if rounded else None
        for block, outputs in _runs(reference, inputs, case_dtype, blocks, replay=replay, moved=moved):
            bases = [with_backward(b, m, _first_element(m, block)) if isinstance(m, torch.Tensor) else b
                     for b, m in zip(bases, outputs)]
            del outputs
        del moved
    return bases


PIECE_ELEMENTS = 1 << 26
"""Elements of the widest row-sliced tensor in one block of a run by rows: 512 MB in float64."""


@dataclass(frozen=True)
class RowBlocks:
    """How a run goes a block of rows at a time: the inputs sliced, the blocks, and the rows in all."""

    inputs: tuple[str, ...]
    blocks: tuple[slice, ...]
    count: int


def row_blocks(inputs: dict[str, Any], eager: list[Any], rows: tuple[str, ...] | None, row_elements: int = 0
               ) -> RowBlocks | None:
    """The blocks of rows a run goes by: None (one run of the whole case) unless `rows` names tensor inputs whose
    first dimension is every output's, and the case is larger than one block. A block holds `PIECE_ELEMENTS` of
    the widest row: of a sliced input, of an output, or of the reference's temporaries (`row_elements`)."""
    if not rows or not eager or not all(isinstance(e, torch.Tensor) and e.dim() >= 1 for e in eager):
        return None
    count = eager[0].shape[0]
    sliced = [inputs.get(name) for name in rows]
    if any(e.shape[0] != count for e in eager) or not all(
            isinstance(t, torch.Tensor) and t.dim() >= 1 and t.shape[0] == count for t in sliced):
        return None
    widest = max(row_elements, *(t.numel() // max(count, 1) for t in [*sliced, *eager]))
    step = max(1, PIECE_ELEMENTS // max(widest, 1))
    if step >= count:
        return None
    return RowBlocks(tuple(rows), tuple(slice(s, min(s + step, count)) for s in range(0, count, step)), count)


def _runs(reference: Any, inputs: dict[str, Any], dtype: torch.dtype, blocks: RowBlocks | None,
          rounded: list[torch.Tensor] | None = None, replay: Replay | None = None, moved: Moves | None = None
          ) -> Iterator[tuple[slice | None, list[Any]]]:
    """The float64 reference's outputs, whole (block None) or a block of rows at a time; on the inputs as `moved`
    moves them where given (a perturbed run), a block's rows at a time too."""
    if blocks is None:
        whole = moved.applied(inputs) if moved is not None else inputs
        yield None, output_items(float64_reference(reference, whole, dtype, rounded, replay))
        return
    for block in blocks.blocks:
        part = (moved.applied(inputs, block, blocks.inputs) if moved is not None else
                {name: value[block] if name in blocks.inputs else value for name, value in inputs.items()})
        yield block, output_items(float64_reference(reference, part, dtype, rounded))


def _whole(runs: Iterator[tuple[slice | None, list[Any]]], blocks: RowBlocks | None) -> list[Any]:
    """The outputs of `runs` as whole tensors, each block's copied where its rows lie."""
    whole: list[Any] = []
    for block, outputs in runs:
        if block is None or blocks is None:
            return outputs
        if not all(isinstance(o, torch.Tensor) and o.dim() >= 1 for o in outputs):
            raise ValueError("a block's float64 outputs are not tensors of rows")
        if not whole:
            whole = [torch.empty((blocks.count, *o.shape[1:]), dtype=o.dtype, device=o.device) for o in outputs]
        for kept, output in zip(whole, outputs):
            kept[block] = output
        del outputs
    return whole


def _first_element(output: torch.Tensor, block: slice | None) -> int:
    """Where a block's output starts in its whole output's elements, in order (0 for a whole run)."""
    if block is None:
        return 0
    return block.start * (output.numel() // max(block.stop - block.start, 1))
