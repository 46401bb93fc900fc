"""Forgets the upper clamp of relu6: x * max(x + 3, 0) / 6.

Right for x <= 3, but above the kink the output keeps growing quadratically (hardswish(4) = 4, this gives 4.67).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _hardswish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x * tl.maximum(x + 3.0, 0.0) / 6.0
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def hardswish(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _hardswish_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
