"""Drops the mask: the grid covers only whole blocks, so the elements past the last multiple of BLOCK are never
written (the output is allocated with zeros, so they come back as 0)."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mish_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets).to(tl.float32)
    e = tl.exp(tl.minimum(x, 20.0))
    num = e * (e + 2.0)
    y = tl.where(x > 20.0, x, x * (num / (num + 2.0)))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty))


def mish(input):
    x = input.contiguous()
    out = torch.zeros_like(x)
    _mish_kernel[(x.numel() // 256,)](x, out, BLOCK=256)
    return out
