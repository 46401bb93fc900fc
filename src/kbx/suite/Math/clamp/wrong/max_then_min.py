"""Applies the upper bound first and the lower bound last: max(min(x, max), min).

The two orders agree whenever min <= max, which is every sensible call, so all those workloads pass. When min > max
PyTorch's order gives max everywhere; this one gives min.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _clamp_kernel(x_ptr, y_ptr, n, lo, hi, HAS_MIN: tl.constexpr, HAS_MAX: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x
    if HAS_MAX:
        y = tl.where(y > hi, hi, y)
    if HAS_MIN:
        y = tl.where(y < lo, lo, y)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def clamp(input, min=None, max=None):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    lo = float(min) if min is not None else 0.0
    hi = float(max) if max is not None else 0.0
    _clamp_kernel[(triton.cdiv(n, 1024),)](x, out, n, lo, hi, HAS_MIN=min is not None, HAS_MAX=max is not None,
                                           BLOCK=1024)
    return out
