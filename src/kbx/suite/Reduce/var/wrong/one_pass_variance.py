"""The textbook one-pass formula: var = (sum(x^2) - sum(x)^2 / n) / (n - correction), accumulated in fp32.

Exact in real arithmetic and a single read of the input, but the two sums are both about n * mean^2: with a mean
of up to 1000 and a spread of 1 to 3, their difference (n * var, about 1e-6 of either) is lost to fp32 rounding
(catastrophic cancellation): the results are off by up to tenths, thousands of times the tolerance.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_var_kernel(x_ptr, out_ptr, R, correction, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    s1 = tl.zeros([BLOCK], dtype=tl.float32)
    s2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * R + cols, mask=cols < R, other=0.0).to(tl.float32)
        s1 += v
        s2 += v * v
    total = tl.sum(s1, axis=0)
    var = (tl.sum(s2, axis=0) - total * total / R) / tl.maximum(R - correction, 0.0)
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
    _row_var_kernel[(max(out.numel(), 1),)](x, out, R, float(correction), BLOCK=BLOCK)
    if keepdim:
        return out.reshape([1 if d in reduced else input.shape[d] for d in range(nd)])
    return out
