"""Launches n // 1024 full blocks without a mask: the last partial block is never computed.

Every workload whose size is a multiple of 1024 would pass; the check sizes (4097, 129 x 127, ...) leave a tail, and
those outputs stay at the zeros the output was allocated with.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets).to(tl.float32)
    y = tl.sqrt_rn(x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty))


def sqrt(input):
    x = input.contiguous()
    out = torch.zeros_like(x)
    n = x.numel()
    _sqrt_kernel[(n // 1024,)](x, out, n, BLOCK=1024)
    return out
