"""Computes x^e as 2^(e log2 x) for every exponent.

The identity only holds for x > 0: log2 of a negative base is NaN, so (-2)^2 comes out NaN instead of 4 (status
NONFINITE on the very first workload), although positive bases are fine to a few ulp.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _pow_kernel(x_ptr, y_ptr, n, e, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.exp2(e * tl.log2(x))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def pow(input, exponent):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _pow_kernel[(triton.cdiv(n, 1024),)](x, out, n, float(exponent), BLOCK=1024)
    return out
