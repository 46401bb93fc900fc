"""Broadcasts scale and shift along the last dim (channel = flat index % C) instead of dim 1.

PyTorch broadcasting aligns trailing dims, so `input * scale` with scale of shape (C,) scales the last dim;
the task (like BatchNorm) scales channels on dim 1, which needs scale.view(1, C, 1, 1). The kernel reproduces
the trailing-dim broadcast: right only where the last size happens to equal C and channels sit last.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mul_add_relu_kernel(x_ptr, s_ptr, b_ptr, y_ptr, n, C, plane, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    chan = offs % C
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + chan, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + chan, mask=mask, other=0.0).to(tl.float32)
    y = tl.maximum(x * s + b, 0.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def mul_add_relu(input, scale, shift):
    x = input.contiguous()
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = x.numel()
    _mul_add_relu_kernel[(triton.cdiv(n, 1024),)](x, scale, shift, out, n, input.shape[1],
                                                  math.prod(input.shape[2:]), BLOCK=1024)
    return out
