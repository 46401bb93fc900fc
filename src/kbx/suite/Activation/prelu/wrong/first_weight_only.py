"""Reads weight[0] for every element, as if the weight were always shared.

Right for a single shared weight (the `nn.PReLU()` default); wrong for per-channel weights on every negative
element outside channel 0.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _prelu_kernel(x_ptr, w_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    w = tl.load(w_ptr).to(tl.float32)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, w * x).to(y_ptr.dtype.element_ty), mask=mask)


def prelu(input, weight):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _prelu_kernel[(triton.cdiv(n, 4096),)](x, weight, out, n, BLOCK=4096, num_warps=8)
    return out
