"""Broadcasts the weight over the last dimension, NumPy-style, instead of over the channel dimension 1.

The kernel walks the flattened input and picks weight[offset % C], which is the channel only when the channel is
the last dimension (a 2-D (N, C) input) or the weight is shared. For 3-D and 4-D inputs each element gets the
weight of an unrelated channel.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _prelu_kernel(x_ptr, w_ptr, y_ptr, n, n_channels, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    w = tl.load(w_ptr + offsets % n_channels, mask=mask).to(tl.float32)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, w * x).to(y_ptr.dtype.element_ty), mask=mask)


def prelu(input, weight):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _prelu_kernel[(triton.cdiv(n, 4096),)](x, weight.contiguous(), out, n, weight.numel(), BLOCK=4096, num_warps=8)
    return out
