"""Drops the mask: the grid covers only whole blocks, so the elements past the last multiple of BLOCK are never
written (the output is allocated with zeros, so they come back as 0)."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _hardsigmoid_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets).to(tl.float32)
    tl.store(y_ptr + offsets, (tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0) / 6.0).to(y_ptr.dtype.element_ty))


def hardsigmoid(input):
    x = input.contiguous()
    out = torch.zeros_like(x)
    _hardsigmoid_kernel[(x.numel() // 256,)](x, out, BLOCK=256)
    return out
