"""Computes |x| as sqrt(x * x) in fp32, as if abs needed arithmetic.

sqrt(x * x) rounds back to |x| exactly whenever x * x neither overflows nor underflows, so ordinary inputs pass. But
squaring overflows fp32 above about 1.8e19 (huge fp32 and bf16 inputs come back as +inf) and underflows below about
1e-19 (tiny inputs come back as 0).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _abs_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.sqrt_rn(x * x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def abs(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _abs_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
