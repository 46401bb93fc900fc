"""Drops the last partial block: elements past the largest multiple of BLOCK are never written."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty))


def gelu(input, approximate="none"):
    x = input.contiguous()
    out = torch.zeros_like(x)
    _gelu_kernel[(x.numel() // 128,)](x, out, BLOCK=128)
    return out
