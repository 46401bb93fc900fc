"""Launches the kernel with the default bounds -1 and 1 written in, forgetting to forward min_val and max_val.

Right whenever the caller relies on the defaults; wrong wherever other bounds would clamp differently.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _hardtanh_kernel(x_ptr, y_ptr, n, min_val, max_val, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.minimum(tl.maximum(x, min_val), max_val)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _hardtanh_kernel[(triton.cdiv(n, 4096),)](x, out, n, -1.0, 1.0, BLOCK=4096, num_warps=8)
    return out
