"""Divides by norm + eps instead of max(norm, eps).

The usual "epsilon for stability" habit. With eps = 1e-12 it changes nothing for ordinary slices, but PyTorch
clamps: a slice whose norm is below eps is divided by eps exactly, and for the task's tiny slices (norm ~0.3 eps)
norm + eps is 30% larger; with a large eps every slice moves.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, y_ptr, n_cols, p, eps, P_TWO: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    if P_TWO:
        norm = tl.sqrt(tl.sum(x * x, axis=0))
    else:
        a = tl.abs(x)
        s = tl.sum(tl.where(a == 0.0, 0.0, tl.exp2(p * tl.log2(a))), axis=0)
        norm = tl.where(s == 0.0, 0.0, tl.exp2(tl.log2(s) / p))
    tl.store(y_ptr + row + cols, (x / (norm + eps)).to(y_ptr.dtype.element_ty), mask=mask)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n = x.shape[-1]
    _kernel[(x.numel() // n,)](x, out, n, float(p), eps, P_TWO=float(p) == 2.0, BLOCK=triton.next_power_of_2(n))
    return out.movedim(-1, dim)
