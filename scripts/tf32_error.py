"""How far a TF32 product lands from a task's float32 reference, against the task's own tolerance (CPU only).

    PYTHONPATH=src python scripts/tf32_error.py mm

For every smoke and check workload and seeds 1-3, both float32 operands are rounded to TF32 (10 mantissa bits),
either truncated (the tensor cores read the top 19 bits of an fp32 register) or rounded to nearest (`cvt.rna`),
and multiplied exactly (float64); the line gives the worst error in units of the contract's bound
(atol + rtol * |ref|) and the share of elements beyond it. A contract that allows TF32 shows ratios below 1.
"""

from __future__ import annotations

import sys

import torch

from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite, select


def tf32(x: torch.Tensor, nearest: bool) -> torch.Tensor:
    """x (float32) with its mantissa cut to TF32's 10 bits: truncated, or rounded to nearest (ties away)."""
    bits = x.contiguous().view(torch.int32)
    return ((bits + 0x1000 if nearest else bits) & ~0x1FFF).view(torch.float32)


def main(name: str) -> int:
    (task,) = select(load_suite(), [name])
    code = import_task(task)
    for workload in task.workloads_for(("smoke", "check")):
        for seed in (1, 2, 3):
            inputs = code.make_inputs(workload, "float32", torch.Generator().manual_seed(seed))
            a, b = (v for v in inputs.values() if isinstance(v, torch.Tensor))
            ref = code.reference(**inputs)
            tol = task.contract.tolerance("float32", workload)
            bound = tol.atol + tol.rtol * ref.abs()
            row = [f"{workload.name:20s} seed {seed}"]
            for nearest in (False, True):
                got = (tf32(a, nearest).double() @ tf32(b, nearest).double()).float()
                ratio = (got - ref).abs() / bound
                row.append(f"{'nearest' if nearest else 'truncated'}: worst {ratio.max().item():6.1f}x the bound, "
                           f"{(ratio > 1).float().mean().item():6.1%} of elements beyond it")
            print(" | ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "mm"))
