"""Always divides by n - 1 (Bessel's correction, the default) whatever `correction` says.

A stable two-pass kernel (mean first, then the squared deviations) written for torch.var's default and never
wired to the parameter: right for correction=1 only. With correction=0 (the population variance, e.g. what
batch norm uses) the result is too large by n / (n - 1), with correction=2 too small.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_var_kernel(x_ptr, out_ptr, R, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * R + cols, mask=cols < R, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / R
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * R + cols, mask=cols < R, other=0.0).to(tl.float32)
        d = tl.where(cols < R, v - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / (R - 1)  # the mistake: correction fixed at 1
    tl.store(out_ptr + row, var.to(out_ptr.dtype.element_ty))


def var(input, dim=None, correction=1, keepdim=False):
    nd = input.dim()
    if dim is None:
        reduced = list(range(nd))
    else:
        reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    out = torch.empty([input.shape[d] for d in kept], dtype=input.dtype, device=input.device)
    BLOCK = min(triton.next_power_of_2(R), 1024)
    _row_var_kernel[(max(out.numel(), 1),)](x, out, R, BLOCK=BLOCK)
    if keepdim:
        return out.reshape([1 if d in reduced else input.shape[d] for d in range(nd)])
    return out
