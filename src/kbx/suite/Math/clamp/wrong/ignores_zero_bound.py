"""Fills in missing bounds with `min or -inf` / `max or inf`, which also drops a bound of 0.0.

The `or` idiom reads naturally and handles None, but 0.0 is falsy: clamp(x, min=0.0), the most common lower bound of
all, comes back unclamped. Every workload with nonzero bounds passes.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _clamp_kernel(x_ptr, y_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x < lo, lo, x)
    y = tl.where(y > hi, hi, y)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def clamp(input, min=None, max=None):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    lo = min or float("-inf")
    hi = max or float("inf")
    _clamp_kernel[(triton.cdiv(n, 1024),)](x, out, n, lo, hi, BLOCK=1024)
    return out
