"""Divides by the bare norm, x / ||x||_p, without clamping it at eps.

Identical for every slice with a norm above eps; an all-zero slice gives 0 / 0 = NaN where PyTorch returns 0.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _kernel(x_ptr, y_ptr, n_cols, p, P_TWO: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    if P_TWO:
        norm = tl.sqrt(tl.sum(x * x, axis=0))
    else:
        a = tl.abs(x)
        s = tl.sum(tl.where(a == 0.0, 0.0, tl.exp2(p * tl.log2(a))), axis=0)
        norm = tl.exp2(tl.log2(s) / p)
    tl.store(y_ptr + row + cols, (x / norm).to(y_ptr.dtype.element_ty), mask=mask)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n = x.shape[-1]
    _kernel[(x.numel() // n,)](x, out, n, float(p), P_TWO=float(p) == 2.0, BLOCK=triton.next_power_of_2(n))
    return out.movedim(-1, dim)
