"""Drops the mask: the grid covers only whole blocks, so the elements past the last multiple of BLOCK are never
written (the output is allocated with zeros, so they come back as 0)."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _leaky_relu_kernel(x_ptr, y_ptr, negative_slope, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets).to(tl.float32)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, x * negative_slope).to(y_ptr.dtype.element_ty))


def leaky_relu(input, negative_slope=0.01):
    x = input.contiguous()
    out = torch.zeros_like(x)
    _leaky_relu_kernel[(x.numel() // 256,)](x, out, float(negative_slope), BLOCK=256)
    return out
