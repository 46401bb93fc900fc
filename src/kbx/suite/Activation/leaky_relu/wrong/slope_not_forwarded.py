"""Launches the kernel with the default slope 0.01 written in, forgetting to forward `negative_slope`.

Right whenever the caller relies on the default; wrong on every negative element when a slope is passed.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _leaky_relu_kernel(x_ptr, y_ptr, n, negative_slope, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, x * negative_slope).to(y_ptr.dtype.element_ty), mask=mask)


def leaky_relu(input, negative_slope=0.01):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _leaky_relu_kernel[(triton.cdiv(n, 4096),)](x, out, n, 0.01, BLOCK=4096, num_warps=8)
    return out
