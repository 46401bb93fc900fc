"""What a task's baselines run as: the implementation timed as eager (and compiled for torch.compile), and the
precision settings both run under.

A speedup is only as fair as its baseline. The reference stays the clear definition that correctness is judged
against; where it is slow on purpose (a dense fp32 attention that masks most scores away, a product with TF32
switched off), the task adds `baseline(...)` with the reference's parameters, a competitive PyTorch implementation
of the same operation, and that is what the performance stage times (`TaskCode.eager`). Before timing it the
trusted worker judges its outputs against the reference's by the task's contract, as it does the compiled one, and
the suite tests do the same on the CPU for every smoke and check workload.

A contract that allows TF32 (`"tf32": True`) lets candidates multiply fp32 data on the tensor cores, so both
baselines run with TF32 allowed as well (`baseline_precision`); one that does not runs them with TF32 switched off,
since PyTorch's own default allows it for cuDNN convolutions: torch.compile's fp32 convolutions (channels-last,
cuDNN) took it on an H200 (session 26: normwise error 2.7e-4 against eager's 8.5e-7), were judged wrong by the
contract and went untimed, leaving eight convolution tasks with no compiled baseline. The flags are put back
afterwards so that no other task's reference or baseline runs under them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from kbx.tasks.spec import Contract


@contextlib.contextmanager
def baseline_precision(contract: Contract) -> Iterator[None]:
    """Run the block with TF32 allowed for cuBLAS matmuls and cuDNN convolutions exactly when `contract.tf32`,
    restoring both flags on the way out (an exception included)."""
    import torch

    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    saved = matmul.allow_tf32, cudnn.allow_tf32
    matmul.allow_tf32 = cudnn.allow_tf32 = contract.tf32
    try:
        yield
    finally:
        matmul.allow_tf32, cudnn.allow_tf32 = saved


def structure_problem(expected: Any, got: Any) -> str | None:
    """Why a baseline's return value cannot stand in for the reference's (another number of outputs, or an output of
    another type, shape or dtype), or None. The values are the contract's to judge (the trusted worker's `prepare`,
    the suite tests); this is what `kbx tasks validate` can say without the evaluator."""
    import torch

    want = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    have = list(got) if isinstance(got, (tuple, list)) else [got]
    if len(want) != len(have):
        return f"returns {len(have)} output(s), the reference {len(want)}"
    for index, (ref, out) in enumerate(zip(want, have)):
        if isinstance(ref, torch.Tensor) != isinstance(out, torch.Tensor):
            return f"output {index} is a {type(out).__name__}, the reference's a {type(ref).__name__}"
        if isinstance(ref, torch.Tensor) and (ref.shape, ref.dtype) != (out.shape, out.dtype):
            return (f"output {index} is {out.dtype} {tuple(out.shape)}, the reference's {ref.dtype} "
                    f"{tuple(ref.shape)}")
    return None
